/* Synchronous walks of the calling thread: see walk_here.h. */
#define _GNU_SOURCE
#include "ompt/walk_here.h"

#include <stdatomic.h>

#include "core/fault_guard.h"
#include "core/thread.h"
#include "ompt/attribution.h"
#include "unwind/isa.h"

__attribute__((noinline)) int knit_walk_here(knit_thread *t, uint64_t stop_at, bool stop_is_cfa,
                                             uint32_t runtime_module, knit_frame *frames, int max,
                                             knit_unwind_end *end)
{
  int idle = 0;
  if (!atomic_compare_exchange_strong(&t->in_handler, &idle, 1))
    return -1;
  int n = 0;
  *end = KNIT_UNWIND_PARTIAL;
  /* This function's frame stays in place during the walk, so the walk may
   * start from it. */
  knit_regs regs;
  knit_native_regs_here(&regs);
  t->in_unwind = 1;
  /* No signal mask saved (a system call): the fault guard restores the
   * interrupted mask itself (core/fault_guard.c). */
  volatile bool opened = knit_fault_guard_open_here(); /* core/fault_guard.h */
  if (sigsetjmp(t->fault_jump, 0) == 0) {
    t->unwinder.stop_at = stop_at;
    t->unwinder.stop_is_cfa = stop_is_cfa;
    t->unwinder.stop_module = runtime_module;
    n = knit_unwind(&t->unwinder, &regs, frames, max, end);
  } else {
    t->stats[KNIT_STAT_FAULTS]++;
    n = t->unwinder.progress;
    *end = KNIT_UNWIND_PARTIAL;
  }
  t->in_unwind = 0;
  knit_fault_guard_close(opened);
  return n;
}

void knit_walk_here_done(knit_thread *t)
{
  atomic_store(&t->in_handler, 0);
}

int knit_walk_here_to_limit(knit_thread *t, knit_frame *frames, int max, knit_unwind_end *end,
                            uint32_t *runtime_module)
{
  uint64_t stop_at;
  bool stop_is_cfa;
  knit_unwind_limit(&stop_at, &stop_is_cfa, runtime_module);
  return knit_walk_here(t, stop_at, stop_is_cfa, *runtime_module, frames, max, end);
}
