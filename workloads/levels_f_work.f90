! levels_f's work: the procedures of one module, of which gfortran -O2
! inlines the small ones (cell, scan_row) into sweep's parallel do; sweep
! is called from another file (levels_f.f90), so it stays a frame.
module levels_work
  use iso_c_binding
  use levels_probe, only: sink
  implicit none
  private
  public :: sweep

contains

  function cell(x, c) result(y)
    integer(c_int64_t), intent(in) :: x
    integer, intent(in) :: c
    integer(c_int64_t) :: y
    y = sink(x + c)
  end function cell

  function scan_row(x0, cols) result(x)
    integer(c_int64_t), intent(in) :: x0
    integer, intent(in) :: cols
    integer(c_int64_t) :: x
    integer :: c
    x = x0
    do c = 0, cols - 1 ! @cols
      x = cell(x, c)
    end do
  end function scan_row

  ! The parallel loop's body shares its line, as in levels.c: gcc gives the
  ! loop's increment and test the line of the body's statement.
  function sweep(seed, rows, cols) result(total)
    integer(c_int64_t), intent(in) :: seed
    integer, intent(in) :: rows, cols
    integer(c_int64_t) :: total
    integer :: r
    total = 0
    !$omp parallel do schedule(static) reduction(ieor:total)
    do r = 0, rows - 1; total = ieor(total, scan_row(seed + r, cols)); end do ! @rows
    !$omp end parallel do
  end function sweep

end module levels_work

