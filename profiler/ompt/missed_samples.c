/* Samples taken where a callback let go of the thread: see
 * missed_samples.h. */
#include "ompt/missed_samples.h"

#include <stdatomic.h>
#include <time.h>

#include "core/session.h"
#include "core/thread.h"
#include "core/trace.h"
#include "measure/format.h"
#include "ompt/attribution.h"
#include "ompt/blame.h"
#include "ompt/walk_here.h"

__attribute__((noinline)) void knit_take_missed(knit_thread *t)
{
  if (!t || atomic_load_explicit(&t->missed_signals, memory_order_relaxed) == t->taken_signals)
    return;
  if (!t->cct_ready || atomic_load(&t->written) || atomic_load(&knit_the_session.stopping))
    return;
  uint32_t runtime_module;
  knit_unwind_end end;
  int n = knit_walk_here_to_limit(t, t->capture_frames, KNIT_CAPTURE_FRAMES, &end, &runtime_module);
  if (n < 0)
    return;
  /* Held now: signals from here on are counted for the next take. */
  uint64_t signals = atomic_load_explicit(&t->missed_signals, memory_order_relaxed);
  uint64_t periods = atomic_load_explicit(&t->missed_periods, memory_order_relaxed);
  uint64_t new_signals = signals - t->taken_signals;
  uint64_t new_periods = periods - t->taken_periods;
  t->taken_signals = signals;
  t->taken_periods = periods;
  bool partial = false;
  knit_sample_state state;
  int len = knit_attribute_call(t->capture_frames, n, end, 0, runtime_module, t->capture_path,
                                KNIT_CAPTURE_FRAMES * 2, &partial, &state);
  /* The time went to the runtime's call (and the tool's callback in it),
   * not to the program's own code: the runtime's placeholder under the
   * call, as a sample inside the runtime gets. */
  if (len < KNIT_CAPTURE_FRAMES * 2) {
    t->capture_path[len].module = KNIT_MODULE_PLACEHOLDER;
    t->capture_path[len].offset = KNIT_PH_OMP_OVERHEAD;
    t->capture_path[len].kind = KNIT_NODE_PLACEHOLDER;
    len++;
  }
  knit_cct_node counted = {0};
  counted.metrics[KNIT_METRIC_SAMPLES] = new_periods;
  knit_blame_sample(t, &counted, new_periods, &state);
  knit_cct_node *node = knit_thread_path_node(t, t->capture_path, len);
  if (node)
    for (int m = 0; m < KNIT_METRIC_HOST_COUNT; m++)
      node->metrics[m] += counted.metrics[m];
  /* An event per signal, as the thread's sample count has: the trace and
   * the profile agree on every thread. */
  if (node && t->trace) {
    uint64_t now = knit_trace_now();
    for (uint64_t i = 0; i < new_signals; i++)
      knit_trace_sample(t, t->path_leaf, now);
  }
  t->stats[KNIT_STAT_SAMPLES] += new_signals;
  t->stats[KNIT_STAT_FRAMES] += (uint64_t)n * new_signals;
  if (partial)
    t->stats[KNIT_STAT_PARTIAL] += new_signals;
  knit_walk_here_done(t);
}
