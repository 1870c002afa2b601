/* Readable function names: what the report shows for a symbol as the
 * compiler wrote it. `knit report --raw-names` shows the symbols instead.
 *
 *  - C++: demangled by the C++ runtime's demangler (__cxa_demangle):
 *      _ZN7physics10Simulation4stepEi  ->  physics::Simulation::step(int)
 *    gcc's other clone suffixes stay as the demangler writes them
 *    (`foo(int) [clone .constprop.0]`).
 *  - Fortran (gfortran): a module procedure __MOD_MOD_NAME is MOD::NAME,
 *    the main program MAIN__ is the program's own name (when the debug
 *    information gives it), and a contained procedure's number goes:
 *      __heat_mod_MOD_solve  ->  heat_mod::solve
 *      MAIN__                ->  heat            (program heat)
 *      task_work.1           ->  task_work       (contained in a program)
 *  - OpenMP outlined bodies: the function a body was outlined from, in its
 *    readable form, then the body's kind and number in brackets:
 *      _Z10tasks_overIiEvPT_i._omp_fn.0  ->  void tasks_over<int>(int*, int) [omp_fn.0]
 *      compute_all._omp_fn.3             ->  compute_all [omp_fn.3]
 *      task_work.1._omp_fn.0             ->  task_work [omp_fn.0]    (Fortran)
 *      _Z3runv._omp_cpyfn.1              ->  run() [omp_cpyfn.1]     (a task's
 *                                            copy of its firstprivate data)
 *      _Z4workv.omp_outlined             ->  work() [omp_outlined]   (clang 17+)
 *    clang up to 16 names its bodies after nothing (`.omp_outlined.`,
 *    `.omp_outlined..2`, `.omp_task_entry.`): those stay as they are, as
 *    does every name no rule applies to (C functions).
 *
 * These are the names of bodies whose construct is not known: the
 * symbolizer names the others by their construct and line
 * (report/construct_names.h: `parallel at heat.c:42`).
 *
 * knit check's form (report/folded.h) knows every spelling of an outlined
 * body, so each normalizes to omp.outlined. */
#ifndef KNIT_REPORT_NAMES_H
#define KNIT_REPORT_NAMES_H

typedef enum knit_source_language {
  KNIT_LANGUAGE_UNKNOWN = 0, /* no debug information covers the code */
  KNIT_LANGUAGE_FORTRAN,
  KNIT_LANGUAGE_OTHER,
} knit_source_language;

/* What the debug information says about the code a symbol names. */
typedef struct knit_name_context {
  knit_source_language language; /* of the compile unit holding the code */
  const char *main_program;      /* the module's Fortran main program's
                                      name, or NULL */
} knit_name_context;

/* The readable form of the symbol raw, newly allocated (free it); NULL when
 * raw reads as it is, or when out of memory (raw is then shown). The rules
 * for Fortran that rest on the name alone (__MOD_MOD_NAME) apply unless
 * the language is known to be another; the others need it known. */
char *knit_readable_name(const char *raw, const knit_name_context *ctx);

#endif /* KNIT_REPORT_NAMES_H */
