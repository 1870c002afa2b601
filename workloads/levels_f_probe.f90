! levels_f's sink, a unit of its own: gfortran 12 has no directive that
! keeps a procedure from being inlined, and a call into another file is
! never inlined (no LTO), so sink stays a frame of its own wherever it is
! called from. It takes knit's probe (knit_probe.f90).
module levels_probe
  use iso_c_binding
  use knit_probe, only: find_probe, probe
  implicit none
  private
  public :: find_probe, sink

contains

  function sink(x) result(y)
    integer(c_int64_t), intent(in) :: x
    integer(c_int64_t) :: y
    if (associated(probe)) call probe()
    y = x*3 + 1
  end function sink

end module levels_probe
