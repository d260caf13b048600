! mpi_f08 coverage app for tests/tests/tracer.rs (2 ranks or more; ranks >= 2 only join the
! collectives). Prints "F08 rank=<r> done".
program f08
  use mpi_f08
  implicit none
  integer :: rank, size, x(4), y(4), idx, i
  logical :: flag
  type(MPI_Status) :: st
  type(MPI_Request) :: reqs(2), r1
  type(MPI_Comm) :: sub
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  x = rank
  if (rank == 0) then
    call MPI_Send(x, 4, MPI_INTEGER, 1, 11, MPI_COMM_WORLD)
    call MPI_Recv(y, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  else if (rank == 1) then
    call MPI_Probe(0, 11, MPI_COMM_WORLD, st)
    call MPI_Recv(y, 4, MPI_INTEGER, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, st)
    call MPI_Send(x, 2, MPI_INTEGER, 0, 12, MPI_COMM_WORLD)
  end if
  if (rank < 2) then
    call MPI_Sendrecv(x, 1, MPI_INTEGER, 1 - rank, 13, y, 1, MPI_INTEGER, 1 - rank, 13, MPI_COMM_WORLD, st)
    call MPI_Irecv(y, 3, MPI_INTEGER, MPI_ANY_SOURCE, 14, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(x, 3, MPI_INTEGER, 1 - rank, 14, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitany(2, reqs, idx, st)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  end if
  call MPI_Bcast(x, 4, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, x, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  else
    call MPI_Reduce(x, y, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  end if
  call MPI_Allreduce(x, y, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
  call MPI_Barrier(sub)
  call MPI_Comm_free(sub)
  call MPI_Ibarrier(MPI_COMM_WORLD, r1)
  flag = .false.
  do i = 1, 1000000
    call MPI_Test(r1, flag, MPI_STATUS_IGNORE)
    if (flag) exit
  end do
  if (.not. flag) call MPI_Wait(r1, MPI_STATUS_IGNORE)
  call MPI_Finalize()
  print '(a,i0,a)', 'F08 rank=', rank, ' done'
end program f08
