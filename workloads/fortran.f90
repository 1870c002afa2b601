! fortran: parallel_for's shape in Fortran (gfortran -fopenmp, the GOMP ABI).
!
!   main -> MAIN__ -> run_experiment -> compute_all -> [parallel do, 256
!   iterations] every fourth -> work_heavy (3 units), the others ->
!   work_light (1 unit); then serial -> summarize (2 units).
!
! Probes: knit's probe (knit_probe.f90), called where a unit of work ends.
! The routines are bind(C), so the paths show their plain names, and
! noinline (see -fno-inline in CMakeLists.txt).
module knit_fortran_work
  use iso_c_binding
  use knit_probe, only: find_probe, probe
  implicit none
  private
  public :: find_probe, run_experiment

  integer, parameter :: iterations = 256
  ! One unit: the same integer arithmetic as work.h's knit_work_unit: half
  ! of unit_steps steps give its result, then from none to unit_steps more
  ! steps, drawn once per call from the thread's own generator, go to
  ! `spent`, which is kept (a module variable) so that they are not
  ! optimized away. Drawn
  ! lengths keep CPU-time samples, taken at scheduler ticks, from locking
  ! onto the place of a function in every region (work.h says more).
  integer, parameter :: unit_steps = 12000
  integer(c_int64_t), save :: results(0:iterations - 1)
  integer(c_int64_t), save :: draws = 0, spent = 0
  !$omp threadprivate(draws, spent)

contains

  function work_heavy(seed) bind(C, name="work_heavy") result(x)
    integer(c_int64_t), value :: seed
    integer(c_int64_t) :: x
    integer :: u, i, extra
    x = seed
    if (draws == 0) draws = loc(draws)  ! each thread from its own place
    draws = draws * 6364136223846793005_c_int64_t + 1442695040888963407_c_int64_t
    extra = int(modulo(shiftr(draws, 33), int(unit_steps, c_int64_t)))
    do u = 1, 3
      do i = 1, unit_steps / 2
        x = x * 6364136223846793005_c_int64_t + 1442695040888963407_c_int64_t
        x = ieor(x, shiftr(x, 29))
      end do
      spent = x
      do i = 1, extra
        spent = spent * 6364136223846793005_c_int64_t + 1442695040888963407_c_int64_t
        spent = ieor(spent, shiftr(spent, 29))
      end do
      if (associated(probe)) call probe()
    end do
    x = x + 1
  end function work_heavy

  function work_light(seed) bind(C, name="work_light") result(x)
    integer(c_int64_t), value :: seed
    integer(c_int64_t) :: x
    integer :: i, extra
    x = seed
    if (draws == 0) draws = loc(draws)  ! each thread from its own place
    draws = draws * 6364136223846793005_c_int64_t + 1442695040888963407_c_int64_t
    extra = int(modulo(shiftr(draws, 33), int(unit_steps, c_int64_t)))
    do i = 1, unit_steps / 2
      x = x * 6364136223846793005_c_int64_t + 1442695040888963407_c_int64_t
      x = ieor(x, shiftr(x, 29))
    end do
    spent = x
    do i = 1, extra
      spent = spent * 6364136223846793005_c_int64_t + 1442695040888963407_c_int64_t
      spent = ieor(spent, shiftr(spent, 29))
    end do
    if (associated(probe)) call probe()
    x = x + 2
  end function work_light

  ! The heavy quarter shifts with the seed, as in parallel_for.c.
  subroutine compute_all(seed) bind(C, name="compute_all")
    integer(c_int64_t), value :: seed
    integer :: i, shift
    shift = int(iand(shiftr(seed, 7), 3_c_int64_t))
    !$omp parallel do schedule(static)
    do i = 0, iterations - 1
      if (mod(i + shift, 4) == 0) then
        results(i) = work_heavy(seed + i)
      else
        results(i) = work_light(seed + i)
      end if
    end do
    !$omp end parallel do
  end subroutine compute_all

  function summarize() bind(C, name="summarize") result(x)
    integer(c_int64_t) :: x
    integer :: u, i, extra
    x = 0
    if (draws == 0) draws = loc(draws)  ! each thread from its own place
    draws = draws * 6364136223846793005_c_int64_t + 1442695040888963407_c_int64_t
    extra = int(modulo(shiftr(draws, 33), int(unit_steps, c_int64_t)))
    do i = 0, iterations - 1
      x = ieor(x, results(i))
    end do
    do u = 1, 2
      do i = 1, unit_steps / 2
        x = x * 6364136223846793005_c_int64_t + 1442695040888963407_c_int64_t
        x = ieor(x, shiftr(x, 29))
      end do
      spent = x
      do i = 1, extra
        spent = spent * 6364136223846793005_c_int64_t + 1442695040888963407_c_int64_t
        spent = ieor(spent, shiftr(spent, 29))
      end do
      if (associated(probe)) call probe()
    end do
  end function summarize

  function run_experiment(seed) bind(C, name="run_experiment") result(x)
    integer(c_int64_t), value :: seed
    integer(c_int64_t) :: x
    call compute_all(seed)
    x = summarize() + 1
  end function run_experiment

end module knit_fortran_work

program fortran_workload
  use iso_c_binding
  use knit_fortran_work
  implicit none
  integer :: rounds, r
  integer(c_int64_t) :: x
  character(len=32) :: arg
  rounds = 2
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) rounds
  end if
  call find_probe()
  x = 7
  do r = 1, rounds
    x = run_experiment(x)
  end do
  ! No omp_lib call: the program needs of the runtime only the GOMP entry
  ! points the compiler emits, which every GOMP-ABI runtime has.
  write (*, '(a,i0,a,z16.16)') 'fortran: ', rounds, ' rounds, checksum ', x
end program fortran_workload
