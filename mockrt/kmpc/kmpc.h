/*
 * Shared declarations of the __kmpc_* ABI that clang emits (LLVM's and
 * Intel's runtime interface).  The ABI entry points live in mockrt/kmpc and
 * are the same for every personality that speaks it; how an outlined
 * function is called (the stack layout a profiler sees) is the
 * personality's: it defines mockrt_invoke_microtask.
 */
#ifndef MOCKRT_KMPC_KMPC_H
#define MOCKRT_KMPC_KMPC_H

#include "../core/mockrt.h"

#include <stdarg.h>

#include <stdint.h>

/* Source location the compiler passes to every entry point. */
typedef struct mockrt_ident {
  int32_t reserved_1;
  int32_t flags; /* KMP_IDENT_* below */
  int32_t reserved_2;
  int32_t reserved_3;
  const char *psource; /* ";file;function;line;column;;" */
} mockrt_ident_t;

/* Ident flags that choose the kind of a barrier (openmp-abi.md). */
#define MOCKRT_IDENT_BARRIER_EXPL 0x20

/* A named critical section or reduction lock: zeroed memory owned by the program. */
typedef int32_t mockrt_critical_name_t[8];

/* The outlined function of a parallel region: fn(gtid*, btid*, args...). */
typedef void (*mockrt_kmpc_micro_t)(int32_t *gtid, int32_t *btid, ...);

/*
 * The personality's trampoline (mockrt_invoke_fn in core): calls fn(gtid,
 * btid, argv[0..argc-1]) after storing its own CFA into *exit_frame.
 */
void mockrt_invoke_microtask(void (*fn)(void), int32_t *gtid, int32_t *btid, int argc, void **argv,
                             void **exit_frame);

/*
 * The personality's way of calling an explicit task's routine
 * (intel/task.c, pgi/task.c): routine(gtid, kmp_task) from a runtime frame
 * whose CFA it stores as the task's exit frame.
 */
struct mockrt_xtask;
void mockrt_kmpc_task_invoke(struct mockrt_xtask *x);

/*
 * The outlined function's arguments as clang passes them to
 * __kmpc_fork_call and __kmpc_fork_teams: argc pointers after fn, one per
 * captured variable.  They go into inline_args (MOCKRT_KMPC_INLINE_ARGS
 * of them, which covers almost every region) or, past that, into an
 * allocation mockrt_kmpc_args_release frees; ap is the caller's, started
 * after fn.
 */
#define MOCKRT_KMPC_INLINE_ARGS 16
void **mockrt_kmpc_args_take(void **inline_args, int32_t *argc, va_list ap);
void mockrt_kmpc_args_release(void **argv, void **inline_args);

/* The lock word inside a pointer-sized omp_lock_t. */
static inline atomic_int *mockrt_kmpc_word(void *p)
{
  return (atomic_int *)p;
}

/*
 * A critical section's lock word, as libomp 14 keeps it: in an object of
 * its own, made at the critical's first use and never freed, whose address
 * its mutex events name as wait id; the name's second pointer-sized word
 * points to it (sync.c).
 */
atomic_int *mockrt_kmpc_critical_word(mockrt_critical_name_t *crit);

/* The current task; an unattached thread becomes an initial thread first. */
static inline mockrt_task_t *mockrt_kmpc_task(void)
{
  return mockrt_self()->task;
}

#endif
