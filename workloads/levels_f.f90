! levels_f: levels' shape in Fortran (gfortran -fopenmp, the GOMP ABI), for
! goldens with the report's loop and inlined levels on Fortran code: module
! procedures inlined into a parallel do, an internal procedure of the main
! program inlined into it.
!
!   levels_f -> do @rounds -> levels_mod::sweep -> [parallel do @rows]
!            -> scan_row (inlined) -> do @cols -> cell (inlined) -> sink
!            -> settle (inlined) -> do @settle -> sink
!
! Each line that opens a loop carries an "@label" comment. Four files:
! knit_probe.f90 (knit's probe, shared with fortran.f90), levels_f_probe.f90
! (sink, which takes the probe outside any loop of its own),
! levels_f_work.f90 (sweep and the module procedures inlined into it) and
! this one; calls between files are never inlined, the small procedures of
! one file are, by gfortran -O2 (no directive forces it).
program levels_f
  use iso_c_binding
  use levels_probe, only: find_probe, sink
  use levels_work, only: sweep
  implicit none
  integer :: rounds, rows, cols, r
  integer(c_int64_t) :: x
  rounds = int_arg(1, 2)
  rows = int_arg(2, 8)
  cols = int_arg(3, 3)
  call find_probe()
  x = 7
  do r = 1, rounds ! @rounds
    x = sweep(x, rows, cols)
  end do
  x = settle(x, rounds)
  write (*, '(a,i0,a,z16.16)') 'levels_f: ', rounds, ' rounds, checksum ', x

contains

  ! The bounds come from the command line, so that no loop is unrolled or
  ! folded away.
  function int_arg(i, default) result(v)
    integer, intent(in) :: i, default
    integer :: v
    character(len=32) :: arg
    v = default
    if (command_argument_count() >= i) then
      call get_command_argument(i, arg)
      read (arg, *) v
    end if
  end function int_arg

  function settle(x0, n) result(x)
    integer(c_int64_t), intent(in) :: x0
    integer, intent(in) :: n
    integer(c_int64_t) :: x
    integer :: i
    x = x0
    do i = 0, n - 1 ! @settle
      x = sink(ieor(x, int(i, c_int64_t)))
    end do
  end function settle

end program levels_f
