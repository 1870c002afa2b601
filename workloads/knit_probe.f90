! knit's probe for the Fortran workloads: knit's probe function looked up
! once with dlsym, as include/knit/probe.h does for C, through bind(C)
! interfaces, and called through the procedure pointer `probe` right where
! a unit of work ends (`if (associated(probe)) call probe()`: no wrapper
! routine, whose frame would show in every path). Without knit the pointer
! stays null and nothing is called.
module knit_probe
  use iso_c_binding
  implicit none
  private
  public :: find_probe, probe

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

end module knit_probe
