#include "ompimock.h" /* psins oracle-ompi stand-in */
