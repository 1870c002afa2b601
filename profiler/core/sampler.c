/* Timers, probes and the sample handler: see sampler.h. */
#define _GNU_SOURCE
#include "core/sampler.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fault_guard.h"
#include "core/session.h"
#include "core/writer.h"
#include "ompt/attribution.h"
#include "ompt/blame.h"
#include "ompt/region_paths.h"
#include "unwind/loadmap.h"

#define MAX_FRAMES 256

void knit_sampler_prepare_unwinder(knit_unwinder *u)
{
  /* Faults while reading are caught by the fault guard. */
  u->read = knit_read_own_memory;
  u->read_ctx = NULL;
}

bool knit_sampler_install(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = knit_sample_handler;
  /* SA_RESTART: a sample must not make the program's system calls fail. */
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(KNIT_SAMPLE_SIGNAL, &sa, NULL) != 0)
    return false;
  return knit_fault_guard_install();
}

/* The timer's clock now, in ns (0 when it cannot be read): the calling
 * thread's CPU time for CPUTIME, the monotonic clock for REALTIME.
 * Async-signal-safe. */
static uint64_t sample_clock_ns(void)
{
  clockid_t clock = knit_the_session.event.kind == KNIT_EVENT_CPUTIME ? CLOCK_THREAD_CPUTIME_ID
                                                                      : CLOCK_MONOTONIC;
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void knit_sampler_start_thread(knit_thread *t)
{
  const knit_event *ev = &knit_the_session.event;
  if (ev->kind == KNIT_EVENT_PROBE)
    return;
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = KNIT_SAMPLE_SIGNAL;
  sev._sigev_un._tid = t->tid;
  clockid_t clock = ev->kind == KNIT_EVENT_CPUTIME ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
  if (timer_create(clock, &sev, &t->timer) != 0)
    return;
  struct itimerspec its;
  its.it_interval.tv_sec = (time_t)(ev->period_ns / 1000000000ull);
  its.it_interval.tv_nsec = (long)(ev->period_ns % 1000000000ull);
  its.it_value = its.it_interval;
  t->sample_end_ns = sample_clock_ns();
  if (timer_settime(t->timer, 0, &its, NULL) != 0) {
    timer_delete(t->timer);
    return;
  }
  atomic_store(&t->has_timer, true);
}

void knit_sampler_stop_thread(knit_thread *t)
{
  /* The thread itself (at its exit) and the session (at process exit) may
   * both stop it: only one deletes the timer. */
  if (atomic_exchange(&t->has_timer, false))
    timer_delete(t->timer);
  /* A handler already running on that thread finishes its sample first;
   * on the thread itself (the crash path) there is nothing to wait for. */
  if (t == knit_thread_self())
    return;
  while (atomic_load(&t->in_handler))
    sched_yield();
}

/* How many periods a timer sample stands for. The kernel checks CPU-time
 * timers only at scheduler ticks and sends one signal for all the periods
 * that ended since the last, counting the rest as overruns: each of them is
 * time the thread spent where it is now. But not the periods that ended
 * while knit's handler ran (the signal is blocked then, and the next one
 * comes as soon as the handler returns, its overruns counting the
 * handler's time): that is knit's time, not the program's at the place of
 * the next sample. It can be long: building the recipes of functions not
 * seen before, which under QEMU, where knit's code is translated the first
 * time it runs, took over 100 ms, and put a tenth of a run's time on the
 * printf that happened to take the next sample. So the periods are those
 * of the program's time since the last sample ended, now_ns - t's
 * sample_end_ns, rounded, and at most the kernel's count. */
static uint64_t periods_of(const knit_thread *t, const siginfo_t *info, uint64_t now_ns)
{
  if (!info || info->si_code != SI_TIMER)
    return 1;
  uint64_t periods = 1 + (uint64_t)(info->si_overrun > 0 ? info->si_overrun : 0);
  uint64_t period = knit_the_session.event.period_ns;
  if (period > 0 && now_ns != 0 && t->sample_end_ns != 0 && now_ns >= t->sample_end_ns) {
    uint64_t own = (now_ns - t->sample_end_ns + period / 2) / period;
    if (own < periods)
      periods = own;
  }
  return periods;
}

/* Counts each step of a walk by its class (unwind/step_class.h), against
 * the module of the frame the step left (the callee, frames[i-1]; the
 * class is kept with the caller, frames[i]): that frame's recipe made the
 * step, so a wrong step points at the module whose code was misread. */
static void count_steps(knit_thread *t, const knit_frame *frames, int n)
{
  if (!t->steps)
    return;
  for (int i = 1; i < n; i++) {
    unsigned cls = knit_frame_step_class(&frames[i]);
    if (cls == 0)
      continue;
    uint32_t module = frames[i - 1].module;
    uint32_t m = module < KNIT_MAX_MODULES ? module : KNIT_MAX_MODULES;
    t->steps[m][cls - 1]++;
  }
}

/* path[0..len) put under a <partial> placeholder; the innermost frame goes
 * when there is no room. */
static int prepend_partial(knit_path_frame *path, int len, int max)
{
  if (len >= max)
    len = max - 1;
  memmove(path + 1, path, (size_t)len * sizeof *path);
  path[0].module = KNIT_MODULE_PLACEHOLDER;
  path[0].offset = KNIT_PH_PARTIAL;
  path[0].kind = KNIT_NODE_PLACEHOLDER;
  return len + 1;
}

/* Writes the thread's file again when the last snapshot is older than the
 * session's interval (core/writer.h says why). */
static void snapshot_if_due(knit_thread *t)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return;
  uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  if (t->snapshot_ns == 0) {
    t->snapshot_ns = now;
    return;
  }
  if (now - t->snapshot_ns < knit_the_session.snapshot_ns)
    return;
  knit_snapshot_thread(t);
  t->snapshot_ns = now;
}

KNIT_ALIGNED_ENTRY void knit_sample_handler(int sig, siginfo_t *info, void *ucontext)
{
  (void)sig;
  int saved_errno = errno;
  knit_thread *t = knit_thread_self();
  if (!t) {
    errno = saved_errno;
    return;
  }
  int busy = 0;
  if (!atomic_compare_exchange_strong(&t->in_handler, &busy, 1)) {
    /* The thread's own code holds its unwinder and tree (a capture in an
     * OMPT callback, a task's creation say): the sample is taken there, at
     * its end, rather than lost (ompt/missed_samples.h). Task-heavy
     * programs spend much of their time creating tasks, so dropping these
     * would both lose samples and bias the profile against task creation. */
    atomic_fetch_add_explicit(&t->missed_signals, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&t->missed_periods, periods_of(t, info, 0), memory_order_relaxed);
    errno = saved_errno;
    return;
  }
  if (atomic_load(&knit_the_session.stopping) || atomic_load(&t->written) || !t->cct_ready ||
      !knit_the_session.isa) {
    t->stats[KNIT_STAT_BLOCKED]++;
    atomic_store(&t->in_handler, 0);
    errno = saved_errno;
    return;
  }

  /* Read first: the sample's own time is knit's (periods_of). */
  bool is_probe = knit_the_session.event.kind == KNIT_EVENT_PROBE;
  uint64_t now_ns = is_probe ? 0 : sample_clock_ns();
  knit_frame frames[MAX_FRAMES];
  knit_regs regs;
  knit_native_regs_from_ucontext(ucontext, &regs);
  int n = 0;
  knit_unwind_end end = KNIT_UNWIND_PARTIAL;
  uint64_t built_before = t->unwinder.recipes_built;
  t->in_unwind = 1;
  /* No mask saved: the fault guard restores it (core/fault_guard.c), and
   * saving it here would cost a system call per sample. */
  if (sigsetjmp(t->fault_jump, 0) == 0) {
    knit_unwind_limit(&t->unwinder.stop_at, &t->unwinder.stop_is_cfa,
                      &t->unwinder.stop_module);
    n = knit_unwind(&t->unwinder, &regs, frames, MAX_FRAMES, &end);
  } else {
    /* A read faulted: keep the frames found so far as a partial path. The
     * frame count is recovered from what the unwinder had filled in. */
    t->stats[KNIT_STAT_FAULTS]++;
    n = t->unwinder.progress;
    end = KNIT_UNWIND_PARTIAL;
  }
  t->in_unwind = 0;
  t->stats[KNIT_STAT_RECIPES_BUILT] += t->unwinder.recipes_built - built_before;
  count_steps(t, frames, n);

  knit_path_frame path[MAX_FRAMES + 8];
  bool partial = false;
  knit_sample_state state;
  int len =
      knit_attribute_sample(frames, n, end, is_probe, path, MAX_FRAMES + 8, &partial, &state);
  uint64_t periods = periods_of(t, info, now_ns);
  /* Samples kept while their regions' paths were being captured go in
   * first, those whose paths are known now (ompt/region_paths.h). */
  knit_deferred_flush(t, false, false);
  /* The sample's metrics and blame, taken now (blame counts idle threads
   * at this moment). */
  knit_cct_node counted = {0};
  counted.metrics[KNIT_METRIC_SAMPLES] = periods;
  knit_blame_sample(t, &counted, periods, &state);
  /* A sample without its region's prefix is kept until the path is known;
   * one that cannot be goes under <partial>, as a walk that stopped early. */
  if (!state.pending_slot || !knit_deferred_keep(t, &state, path, len, counted.metrics)) {
    if (state.pending_slot) {
      len = prepend_partial(path, len, MAX_FRAMES + 8);
      partial = true;
    }
    knit_cct_node *node = knit_thread_path_node(t, path, len);
    for (int m = 0; m < KNIT_METRIC_COUNT; m++)
      node->metrics[m] += counted.metrics[m];
  }

  t->stats[KNIT_STAT_SAMPLES]++;
  t->stats[KNIT_STAT_FRAMES] += (uint64_t)n;
  if (partial)
    t->stats[KNIT_STAT_PARTIAL]++;
  if (end == KNIT_UNWIND_TRUNCATED)
    t->stats[KNIT_STAT_TRUNCATED]++;
  /* Every 16th sample looks whether a snapshot is due: its time is knit's,
   * taken before the sample's end is read. */
  if (knit_the_session.snapshot_ns && (t->stats[KNIT_STAT_SAMPLES] & 15) == 0)
    snapshot_if_due(t);
  if (!is_probe)
    t->sample_end_ns = sample_clock_ns();
  atomic_store(&t->in_handler, 0);
  errno = saved_errno;
}

__attribute__((visibility("default"), noinline)) KNIT_ALIGNED_ENTRY void knit_probe_fire(void)
{
  if (!knit_the_session.active || knit_the_session.event.kind != KNIT_EVENT_PROBE)
    return;
  /* Not in a handler yet: the place to notice libraries loaded since the
   * last look (dlopen is not wrapped, so that it keeps its caller's search
   * path). Cheap when nothing changed. */
  knit_loadmap_refresh(knit_self_address());
  knit_region_settle();
  syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), KNIT_SAMPLE_SIGNAL);
  /* Keeps the system call out of tail position, so this function's frame is
   * on the stack when the signal arrives and marks where knit's frames end. */
  __asm__ __volatile__("" ::: "memory");
}
