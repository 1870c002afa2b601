/* Outlined OpenMP bodies named by the construct that opened them and the
 * line it is on: `parallel at heat.c:42`, `task at qsort.c:27`, `taskloop
 * at ...`, `teams at ...`, `target at ...`, instead of the symbols the
 * compilers make up (`run._omp_fn.0`, `.omp_outlined..8`,
 * `.omp_task_entry..12`, gfortran's `MAIN__._omp_fn.0`).
 *
 * In the merged tree a body's frames sit under the call path that opened
 * them: a worker's under the call into the runtime that forked the region,
 * a task's under the call that created it, with the runtime's own frames
 * between when the encountering thread ran it. The construct is the callee
 * of that call, read without decoding any instruction:
 *  1. the DWARF call-site entries of the calling function
 *     (DW_TAG_call_site, or DW_TAG_GNU_call_site in DWARF 4) whose return
 *     pc is the node's return address, and whose origin names the callee
 *     (gcc: `__builtin_GOMP_parallel`, `GOMP_task`, ...);
 *  2. else the runtime's frames between the body and that call
 *     (`GOMP_parallel`, `__kmpc_fork_call`, `__kmpc_taskloop`, ...);
 *  3. else, for clang's task entries (`.omp_task_entry.`), task: they
 *     exist for nothing else.
 * The line is that call site's, as the symbolizer found it. A body whose
 * construct none of these tells keeps its readable name (names.h).
 *
 * clang wraps bodies: a task entry calls the task's `.omp_outlined.`, and
 * at -O0 an `.omp_outlined.` calls its `.omp_outlined._debug__`. The inner
 * frame, right under its wrapper, is the construct's body: `task body at
 * qsort.c:27`. The symbol stays as the node's raw_function, so `--raw-names`
 * and knit check's renaming (golden.h) still see it. */
#ifndef KNIT_REPORT_CONSTRUCT_NAMES_H
#define KNIT_REPORT_CONSTRUCT_NAMES_H

#include "report/symbolize.h"
#include "report/tree.h"

/* Renames the outlined bodies of a named tree (knit_report_tree_symbolize
 * has set every node's names); the names live in the symbolizer. */
void knit_construct_names_apply(knit_report_tree *t, knit_symbolizer *s);

/* The construct (`parallel`, `task`, ...) a runtime entry point opens, or
 * NULL: name as a symbol or as gcc's DWARF names the builtin
 * (`__builtin_GOMP_parallel`). */
const char *knit_construct_of_entry(const char *name);

#endif /* KNIT_REPORT_CONSTRUCT_NAMES_H */
