! mpi_f08 coverage app for tests/tests/tracer.rs (2 ranks or more; ranks >= 2 only join the
! collectives). Prints "F08 rank=<r> done".
program f08
  use mpi_f08
  implicit none
  integer :: rank, size, x(4), y(4), idx, i
  logical :: flag
  type(MPI_Status) :: st
  type(MPI_Request) :: reqs(2), r1
  type(MPI_Comm) :: sub, cart
  type(MPI_Message) :: msg
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  integer, allocatable :: z(:), counts(:), displs(:)
  integer :: nb(2)
  integer, asynchronous :: w(4)
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  integer :: hostlen
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
  ! bindings wrapped since the table marks every recorded function +f08: matched probe,
  ! v and neighbourhood collectives, a topology constructor, one-sided and MPI-IO (`other`)
  if (rank == 0) then
    call MPI_Send(x, 1, MPI_INTEGER, 1, 21, MPI_COMM_WORLD)
  else if (rank == 1) then
    call MPI_Mprobe(0, 21, MPI_COMM_WORLD, msg, st)
    call MPI_Mrecv(y, 1, MPI_INTEGER, msg, st)
  end if
  call MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, flag, st) ! never sent: not found
  allocate (z(size), counts(size), displs(size))
  counts = 1
  displs = [(i, i = 0, size - 1)]
  call MPI_Iallgatherv(rank, 1, MPI_INTEGER, z, counts, displs, MPI_INTEGER, MPI_COMM_WORLD, r1)
  call MPI_Wait(r1, MPI_STATUS_IGNORE)
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [size], [.true.], .false., cart)
  call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, nb, 1, MPI_INTEGER, cart)
  call MPI_Comm_free(cart)
  w = -1
  call MPI_Win_create(w, int(16, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  if (rank < 2) call MPI_Put(rank, 1, MPI_INTEGER, 1 - rank, int(0, MPI_ADDRESS_KIND), 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_Win_free(win)
  call MPI_File_open(MPI_COMM_WORLD, 'f08_io.dat', MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh)
  call MPI_File_write_at(fh, int(4 * rank, MPI_OFFSET_KIND), x, 1, MPI_INTEGER, MPI_STATUS_IGNORE)
  call MPI_File_close(fh)
  if (rank == 0) call MPI_File_delete('f08_io.dat', MPI_INFO_NULL)
  call MPI_Ibarrier(MPI_COMM_WORLD, r1)
  flag = .false.
  do i = 1, 1000000
    call MPI_Test(r1, flag, MPI_STATUS_IGNORE)
    if (flag) exit
  end do
  if (.not. flag) call MPI_Wait(r1, MPI_STATUS_IGNORE)
  if (any(z /= displs) .or. nb(1) /= mod(rank + size - 1, size) .or. nb(2) /= mod(rank + 1, size)) then
    error stop 'F08 bad collective data'
  end if
  if (rank < 2 .and. w(1) /= 1 - rank) error stop 'F08 bad one-sided data'
  ! a counted call with a character argument (hidden length after ierror)
  host = ''
  call MPI_Get_processor_name(host, hostlen)
  if (hostlen <= 0 .or. len_trim(host) /= hostlen) error stop 'F08 bad processor name'
  call MPI_Finalize()
  print '(a,i0,a)', 'F08 rank=', rank, ' done'
end program f08
