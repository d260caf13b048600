! stencil_f08: stencil_f again through the Fortran 2008 binding (use mpi_f08:
! typed handles, MPI_Status objects, optional ierror), which MPICH routes
! through different entry points than mpif.h. Jacobi on a 2-D grid cut into
! strips of columns (non-periodic); each iteration: MPI_Irecv/MPI_Isend/
! MPI_Waitall halo exchange, a 5-point sweep, an MPI_Allreduce of the
! residual. Prints the same PSINS_COUNTS / PSINS_P2P lines as the C apps.
!
! usage: stencil_f08 [iterations=20] [nx=256] [local columns=64]
program stencil_f08
  use mpi_f08
  use psins_fcount
  implicit none
  integer, parameter :: tag = 5
  integer :: rank, nprocs, iters, nx, ny, it
  double precision, allocatable, asynchronous :: u(:, :)
  double precision, allocatable :: v(:, :)
  double precision :: local, global

  call count_call('MPI_Init')
  call MPI_Init()
  call count_call('MPI_Comm_rank')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call count_call('MPI_Comm_size')
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  iters = int_arg(1, 20)
  nx = int_arg(2, 256)
  ny = int_arg(3, 64)

  allocate (u(0:nx + 1, 0:ny + 1), v(0:nx + 1, 0:ny + 1))
  u = 0
  v = 0
  ! A hot left edge of the global domain gives the sweep something to do.
  if (rank == 0) then
    u(:, 0) = 1
    v(:, 0) = 1
  end if

  global = 0
  do it = 1, iters
    call halo_exchange(u)
    call sweep(u, v, local)
    call count_call('MPI_Allreduce')
    call MPI_Allreduce(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  end do
  if (rank == 0) write (*, '(a, i0, a, es13.6)') 'stencil_f08 iterations=', iters, ' residual=', global

  call count_call('MPI_Finalize')
  call MPI_Finalize()
  call report(rank)

contains

  integer function int_arg(i, dflt)
    integer, intent(in) :: i, dflt
    character(len=32) :: s
    int_arg = dflt
    if (command_argument_count() >= i) then
      call get_command_argument(i, s)
      read (s, *) int_arg
    end if
  end function int_arg

  ! Columns 0 and ny+1 are halos; columns 1 and ny go to the neighbours.
  subroutine halo_exchange(u)
    double precision, intent(inout), asynchronous :: u(0:nx + 1, 0:ny + 1)
    type(MPI_Request) :: reqs(4)
    type(MPI_Status) :: stats(4)
    integer :: nreq, nrecv, k, nbytes
    nreq = 0
    if (rank > 0) call post_recv(u(1:nx, 0), rank - 1, reqs, nreq)
    if (rank < nprocs - 1) call post_recv(u(1:nx, ny + 1), rank + 1, reqs, nreq)
    nrecv = nreq
    if (rank > 0) call post_send(u(1:nx, 1), rank - 1, reqs, nreq)
    if (rank < nprocs - 1) call post_send(u(1:nx, ny), rank + 1, reqs, nreq)
    call count_call('MPI_Waitall')
    call MPI_Waitall(nreq, reqs, stats)
    do k = 1, nrecv
      call count_call('MPI_Get_count')
      call MPI_Get_count(stats(k), MPI_BYTE, nbytes)
      call count_received(nbytes)
    end do
  end subroutine halo_exchange

  ! A column section is contiguous, so MPI works on it in place.
  subroutine post_recv(col, peer, reqs, nreq)
    double precision, asynchronous :: col(:)
    integer, intent(in) :: peer
    type(MPI_Request), intent(inout) :: reqs(:)
    integer, intent(inout) :: nreq
    nreq = nreq + 1
    call count_call('MPI_Irecv')
    call MPI_Irecv(col, nx, MPI_DOUBLE_PRECISION, peer, tag, MPI_COMM_WORLD, reqs(nreq))
  end subroutine post_recv

  subroutine post_send(col, peer, reqs, nreq)
    double precision, asynchronous :: col(:)
    integer, intent(in) :: peer
    type(MPI_Request), intent(inout) :: reqs(:)
    integer, intent(inout) :: nreq
    nreq = nreq + 1
    call count_call('MPI_Isend')
    call MPI_Isend(col, nx, MPI_DOUBLE_PRECISION, peer, tag, MPI_COMM_WORLD, reqs(nreq))
    call count_sent(nx * storage_size(col) / 8)
  end subroutine post_send

  subroutine sweep(u, v, res)
    double precision, intent(inout) :: u(0:nx + 1, 0:ny + 1), v(0:nx + 1, 0:ny + 1)
    double precision, intent(out) :: res
    integer :: i, j
    res = 0
    do j = 1, ny
      do i = 1, nx
        v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
        res = res + (v(i, j) - u(i, j))**2
      end do
    end do
    u(1:nx, 1:ny) = v(1:nx, 1:ny)
  end subroutine sweep

end program stencil_f08
