/* Directed blame at a mutex's release: the releasing thread takes the waits
 * accumulated against the mutex (blame.c) at its own call path. */
#include "ompt/blame_release.h"

#include "core/thread.h"
#include "measure/format.h"
#include "ompt/attribution.h"
#include "ompt/blame.h"
#include "ompt/missed_samples.h"
#include "ompt/walk_here.h"

void knit_blame_release(uint64_t wait_id, const void *codeptr_ra)
{
  /* Most releases find nothing to take: a lookup, and no walk. */
  knit_thread *t = knit_thread_self();
  uint64_t waited = knit_blame_take(t, wait_id);
  if (!waited)
    return;
  if (!t || !t->cct_ready) {
    if (t)
      t->stats[KNIT_STAT_BLAME_LOST] += waited;
    return;
  }
  uint32_t runtime_module;
  knit_unwind_end end;
  int n = knit_walk_here_to_limit(t, t->capture_frames, KNIT_CAPTURE_FRAMES, &end, &runtime_module);
  if (n < 0) {
    t->stats[KNIT_STAT_BLAME_LOST] += waited;
    return;
  }
  bool partial;
  knit_sample_state state;
  int len = knit_attribute_call(t->capture_frames, n, end, (uint64_t)(uintptr_t)codeptr_ra,
                                runtime_module, t->capture_path, KNIT_CAPTURE_FRAMES * 2, &partial,
                                &state);
  knit_thread_path_node(t, t->capture_path, len)->metrics[KNIT_METRIC_OMP_MUTEX_BLAME] += waited;
  knit_walk_here_done(t);
  knit_take_missed(t);
}
