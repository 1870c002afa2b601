! levels_f's probe and sink, a unit of their own: gfortran 12 has no
! directive that keeps a procedure from being inlined, and a call into
! another file is never inlined (no LTO), so sink stays a frame of its own
! wherever it is called from. The probe is looked up as in fortran.f90 and
! called through a procedure pointer.
module levels_probe
  use iso_c_binding
  implicit none
  private
  public :: find_probe, sink

  integer(c_int), parameter :: rtld_lazy = 1, rtld_noload = 4

  interface
    function c_dlopen(name, mode) bind(C, name="dlopen") result(handle)
      import :: c_ptr, c_int
      type(c_ptr), value :: name
      integer(c_int), value :: mode
      type(c_ptr) :: handle
    end function c_dlopen
    function c_dlsym(handle, name) bind(C, name="dlsym") result(fn)
      import :: c_ptr, c_funptr, c_char
      type(c_ptr), value :: handle
      character(kind=c_char), dimension(*) :: name
      type(c_funptr) :: fn
    end function c_dlsym
  end interface

  abstract interface
    subroutine probe_fn() bind(C)
    end subroutine probe_fn
  end interface

  procedure(probe_fn), pointer, save :: probe => null()

contains

  ! Looks knit's probe up in the process, once, before any parallel region.
  subroutine find_probe()
    type(c_ptr) :: self
    type(c_funptr) :: fn
    self = c_dlopen(c_null_ptr, ior(rtld_lazy, rtld_noload))
    if (.not. c_associated(self)) return
    fn = c_dlsym(self, "knit_probe_fire"//c_null_char)
    if (c_associated(fn)) call c_f_procpointer(fn, probe)
  end subroutine find_probe

  function sink(x) result(y)
    integer(c_int64_t), intent(in) :: x
    integer(c_int64_t) :: y
    if (associated(probe)) call probe()
    y = x*3 + 1
  end function sink

end module levels_probe
