! Fortran coverage app for tests/tests/tracer.rs (2 ranks or more; ranks >= 2 only join the
! collectives). Built twice from this one source (gfortran -cpp): with `use mpi_f08`, and
! with -DPSINS_USE_MPI as a `use mpi` program (the mpif.h binding symbols), so that one test
! asserts the same records for both. Only the declarations differ; every call passes ierr,
! which `use mpi` requires and mpi_f08 accepts. Prints "F08 rank=<r> done".
#ifdef PSINS_USE_MPI
#define HANDLE(t) integer
#define STATUS integer :: st(MPI_STATUS_SIZE)
#else
#define HANDLE(t) type(t)
#define STATUS type(MPI_Status) :: st
#endif
program f08
#ifdef PSINS_USE_MPI
  use mpi
#else
  use mpi_f08
#endif
  implicit none
  integer :: rank, size, x(4), y(4), idx, i, ierr, nout, ndone, idxs(2)
  logical :: flag
  STATUS
  HANDLE(MPI_Request) :: reqs(2), r1
  HANDLE(MPI_Comm) :: sub, cart, dup
  HANDLE(MPI_Message) :: msg
  HANDLE(MPI_Win) :: win
  HANDLE(MPI_File) :: fh
  HANDLE(MPI_Datatype), allocatable :: stypes(:), rtypes(:)
  integer, allocatable :: z(:), counts(:), displs(:), bdispls(:)
  double precision, allocatable :: wsend(:), wrecv(:)
  integer :: nb(2)
  integer, asynchronous :: w(4)
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  integer :: hostlen
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  x = rank
  if (rank == 0) then
    call MPI_Send(x, 4, MPI_INTEGER, 1, 11, MPI_COMM_WORLD, ierr)
    call MPI_Recv(y, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else if (rank == 1) then
    call MPI_Probe(0, 11, MPI_COMM_WORLD, st, ierr)
    call MPI_Recv(y, 4, MPI_INTEGER, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, st, ierr)
    call MPI_Send(x, 2, MPI_INTEGER, 0, 12, MPI_COMM_WORLD, ierr)
  end if
  if (rank < 2) then
    call MPI_Sendrecv(x, 1, MPI_INTEGER, 1 - rank, 13, y, 1, MPI_INTEGER, 1 - rank, 13, MPI_COMM_WORLD, st, ierr)
    call MPI_Irecv(y, 3, MPI_INTEGER, MPI_ANY_SOURCE, 14, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(x, 3, MPI_INTEGER, 1 - rank, 14, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitany(2, reqs, idx, st, ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    ! Waitsome's indices are 1-based too; it completes both in one call or two
    call MPI_Irecv(y, 2, MPI_INTEGER, MPI_ANY_SOURCE, 15, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(x, 2, MPI_INTEGER, 1 - rank, 15, MPI_COMM_WORLD, reqs(2), ierr)
    ndone = 0
    do while (ndone < 2)
      call MPI_Waitsome(2, reqs, nout, idxs, MPI_STATUSES_IGNORE, ierr)
      ndone = ndone + nout
    end do
  end if
  call MPI_Bcast(x, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, x, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Reduce(x, y, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Allreduce(x, y, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Barrier(sub, ierr)
  call MPI_Comm_free(sub, ierr)
  ! a nonblocking duplicate: its communicator is registered at the call, from the parent
  call MPI_Comm_idup(MPI_COMM_WORLD, dup, r1, ierr)
  call MPI_Wait(r1, MPI_STATUS_IGNORE, ierr)
  call MPI_Barrier(dup, ierr)
  call MPI_Comm_free(dup, ierr)
  ! bindings wrapped since the table marks every recorded function +f08: matched probe,
  ! v and neighbourhood collectives, a topology constructor, one-sided and MPI-IO (`other`)
  if (rank == 0) then
    call MPI_Send(x, 1, MPI_INTEGER, 1, 21, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_Mprobe(0, 21, MPI_COMM_WORLD, msg, st, ierr)
    call MPI_Mrecv(y, 1, MPI_INTEGER, msg, st, ierr)
  end if
  call MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, flag, st, ierr) ! never sent: not found
  allocate (z(size), counts(size), displs(size), bdispls(size), stypes(size), rtypes(size))
  counts = 1
  displs = [(i, i = 0, size - 1)]
  call MPI_Iallgatherv(rank, 1, MPI_INTEGER, z, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, r1, ierr)
  call MPI_Wait(r1, MPI_STATUS_IGNORE, ierr)
  ! one datatype per peer: integers to even ranks, doubles to odd ones (4 or 8 bytes)
  allocate (wsend(size), wrecv(size))
  wsend = rank
  bdispls = 8 * displs
  do i = 1, size
    stypes(i) = MPI_INTEGER
    if (mod(i - 1, 2) == 1) stypes(i) = MPI_DOUBLE_PRECISION
  end do
  rtypes = stypes(rank + 1)
  call MPI_Alltoallw(wsend, counts, bdispls, stypes, wrecv, counts, bdispls, rtypes, MPI_COMM_WORLD, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [size], [.true.], .false., cart, ierr)
  call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, nb, 1, MPI_INTEGER, cart, ierr)
  call MPI_Comm_free(cart, ierr)
  w = -1
  call MPI_Win_create(w, int(16, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (rank < 2) call MPI_Put(rank, 1, MPI_INTEGER, 1 - rank, int(0, MPI_ADDRESS_KIND), 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_File_open(MPI_COMM_WORLD, 'f08_io.dat', MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  call MPI_File_write_at(fh, int(4 * rank, MPI_OFFSET_KIND), x, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  if (rank == 0) call MPI_File_delete('f08_io.dat', MPI_INFO_NULL, ierr)
  call MPI_Ibarrier(MPI_COMM_WORLD, r1, ierr)
  flag = .false.
  do i = 1, 1000000
    call MPI_Test(r1, flag, MPI_STATUS_IGNORE, ierr)
    if (flag) exit
  end do
  if (.not. flag) call MPI_Wait(r1, MPI_STATUS_IGNORE, ierr)
  if (any(z /= displs) .or. nb(1) /= mod(rank + size - 1, size) .or. nb(2) /= mod(rank + 1, size)) then
    error stop 'F08 bad collective data'
  end if
  if (rank < 2 .and. w(1) /= 1 - rank) error stop 'F08 bad one-sided data'
  ! a counted call with a character argument (hidden length after ierror)
  host = ''
  call MPI_Get_processor_name(host, hostlen, ierr)
  if (hostlen <= 0 .or. len_trim(host) /= hostlen) error stop 'F08 bad processor name'
  call MPI_Finalize(ierr)
  print '(a,i0,a)', 'F08 rank=', rank, ' done'
end program f08
