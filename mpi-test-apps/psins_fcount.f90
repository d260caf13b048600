! psins_fcount: the Fortran twin of count.h, shared by stencil_f and stencil_f08.
!
! The apps call count_call('MPI_Xxx') right before every MPI call (C names,
! so the lines compare directly with the C apps'), count_sent/count_received
! next to point-to-point traffic, and report() after MPI_Finalize, which
! prints exactly the two lines the C apps print:
!   PSINS_COUNTS rank=<r> <MPI_Name>=<n> ...      (sorted bytewise, nonzero only)
!   PSINS_P2P rank=<r> sent_msgs=<n> sent_bytes=<n> recv_msgs=<n> recv_bytes=<n>
! No MPI in here: both MPI bindings can use it.
module psins_fcount
  implicit none
  private
  public :: count_call, count_sent, count_received, report

  integer, parameter :: max_names = 64
  character(len=40) :: names(max_names)
  integer(8) :: counts(max_names) = 0
  integer :: nnames = 0
  integer(8) :: sent_msgs = 0, sent_bytes = 0, recv_msgs = 0, recv_bytes = 0

contains

  subroutine count_call(name)
    character(len=*), intent(in) :: name
    integer :: i
    do i = 1, nnames
      if (names(i) == name) then
        counts(i) = counts(i) + 1
        return
      end if
    end do
    if (nnames == max_names) error stop 'psins_fcount: too many distinct MPI functions'
    nnames = nnames + 1
    names(nnames) = name
    counts(nnames) = 1
  end subroutine count_call

  subroutine count_sent(bytes)
    integer, intent(in) :: bytes
    sent_msgs = sent_msgs + 1
    sent_bytes = sent_bytes + bytes
  end subroutine count_sent

  ! bytes: what MPI_Get_count(status, MPI_BYTE, ...) said arrived.
  subroutine count_received(bytes)
    integer, intent(in) :: bytes
    recv_msgs = recv_msgs + 1
    recv_bytes = recv_bytes + bytes
  end subroutine count_received

  function itoa(n) result(s)
    integer(8), intent(in) :: n
    character(len=:), allocatable :: s
    character(len=24) :: buf
    write (buf, '(i0)') n
    s = trim(buf)
  end function itoa

  ! Insertion sort; llt compares in ASCII order like C's strcmp.
  subroutine sort_by_name()
    integer :: i, j
    character(len=40) :: name
    integer(8) :: c
    do i = 2, nnames
      name = names(i)
      c = counts(i)
      j = i - 1
      do while (j >= 1)
        if (.not. llt(name, names(j))) exit
        names(j + 1) = names(j)
        counts(j + 1) = counts(j)
        j = j - 1
      end do
      names(j + 1) = name
      counts(j + 1) = c
    end do
  end subroutine sort_by_name

  ! Both lines in one write statement, so they leave in one piece.
  subroutine report(rank)
    integer, intent(in) :: rank
    character(len=:), allocatable :: line1, line2
    integer :: i
    call sort_by_name()
    line1 = 'PSINS_COUNTS rank=' // itoa(int(rank, 8))
    do i = 1, nnames
      line1 = line1 // ' ' // trim(names(i)) // '=' // itoa(counts(i))
    end do
    line2 = 'PSINS_P2P rank=' // itoa(int(rank, 8)) // ' sent_msgs=' // itoa(sent_msgs) // &
            ' sent_bytes=' // itoa(sent_bytes) // ' recv_msgs=' // itoa(recv_msgs) // &
            ' recv_bytes=' // itoa(recv_bytes)
    write (*, '(a, /, a)') line1, line2
    flush (6)
  end subroutine report

end module psins_fcount
