#include "ompimock.h" /* psins oracle-ompi stand-in */
/* x rounded up to a multiple of a, in type t (the mock's types have no alignment: a = 0) */
#define OPAL_ALIGN(x, a, t) ((t)(a) > 1 ? (((x) + (t)(a) - 1) / (t)(a)) * (t)(a) : (x))
