! MPI_Pcontrol through a Fortran binding, for tests/tests/tracer.rs. Built three ways from
! this one source (gfortran -cpp): `use mpi_f08`, -DPSINS_USE_MPI as `use mpi`, and
! -DPSINS_MPIF_H as an `include 'mpif.h'` program. Levels 2, -2 and 0 (the tracer pauses);
! while paused a barrier and levels 0 and -1 (none recorded); 3 resumes, a barrier, then 0
! until MPI_Finalize (recorded all the same). No binding has an ierror for MPI_Pcontrol.
! Prints "PCONTROL_F rank=<r> done".
program pcontrol_f
#if defined(PSINS_USE_MPI)
  use mpi
#elif !defined(PSINS_MPIF_H)
  use mpi_f08
#endif
  implicit none
#ifdef PSINS_MPIF_H
  include 'mpif.h'
#endif
  integer :: rank, ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Pcontrol(2)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Pcontrol(-2)
  call MPI_Pcontrol(0)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Pcontrol(0)
  call MPI_Pcontrol(-1)
  call MPI_Pcontrol(3)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Pcontrol(0)
  call MPI_Finalize(ierr)
  print '(a,i0,a)', 'PCONTROL_F rank=', rank, ' done'
end program pcontrol_f
