/* Timers, probes and the sample handler: see sampler.h. */
#define _GNU_SOURCE
#include "core/sampler.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fault_guard.h"
#include "base/safe_format.h"
#include "core/session.h"
#include "core/signal_masks.h"
#include "core/trace.h"
#include "core/unloads.h"
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
  u->unloads = knit_unloads_settled;
}

/* The signal samples arrive by (sampler.h), and the action it had before
 * knit took it: the program's, as far as the program can tell. The lock
 * keeps the program's concurrent sigaction calls for it in order. */
static _Atomic int sample_signal;
static struct sigaction program_sample_action;
static atomic_flag sample_action_lock = ATOMIC_FLAG_INIT;
/* Signals the program set an action for (bit sig - 1). */
static _Atomic uint64_t claimed_signals;
static _Atomic unsigned slowed_threads;
/* What delivering a signal and returning from its handler costs the
 * thread, in ns of the sample clock: outside the handler's own clock
 * readings, and at high rates most of the cost (a 1 MHz timer left the
 * program no time at all), so the safeguard adds it to every sample. */
static uint64_t delivery_ns;

int knit_sample_signal(void)
{
  /* Not in a fork child, where knit does not run (session.c). */
  if (!knit_the_session.active)
    return 0;
  return atomic_load_explicit(&sample_signal, memory_order_acquire);
}

void knit_sample_signal_name(int sig, char *buf, size_t len)
{
  if (sig == SIGPROF)
    knit_safe_snprintf(buf, len, "SIGPROF");
  else if (sig == 0)
    knit_safe_snprintf(buf, len, "none");
  else
    knit_safe_snprintf(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
}

void knit_sampler_note_claim(int sig)
{
  if (sig > 0 && sig <= 64)
    atomic_fetch_or(&claimed_signals, 1ull << (sig - 1));
}

unsigned knit_sampler_slowed_threads(void)
{
  return atomic_load(&slowed_threads);
}

/* Linux checks CPU-time timers only at its scheduler tick (100 to 1000
 * Hz, by how the kernel was built): a CPUTIME period shorter than the tick
 * ends in fewer signals than periods, each counting the periods since the
 * last (si_overrun), so the time is right but the samples are fewer and in
 * step with the tick (docs/design-notes.md, "CPU-time timers tick"). Said
 * in the log, and by knit record, when it happened. */
static void log_tick_rate(void)
{
  if (knit_the_session.event.kind != KNIT_EVENT_CPUTIME)
    return;
  uint64_t signals = 0, overruns = 0;
  for (knit_thread *t = knit_thread_list(); t; t = t->next) {
    signals += t->timer_signals;
    overruns += t->timer_overruns;
  }
  /* A few early signals decide nothing; half again as many periods as
   * signals is no jitter. */
  if (signals < 20 || 2 * overruns < signals)
    return;
  uint64_t period_us = knit_the_session.event.period_ns / 1000;
  uint64_t every_us = period_us * (signals + overruns) / signals;
  char line[320];
  knit_safe_snprintf(line, sizeof line,
                     "note: CPU-time signals came every %llu us on average, not every %llu us: "
                     "Linux checks CPU-time timers at its scheduler tick; each sample counts the "
                     "periods since the last (REALTIME samples at the rate asked)",
                     (unsigned long long)every_us, (unsigned long long)period_us);
  knit_log_line(line);
}

void knit_sampler_log_cost(void)
{
  uint64_t ns = 0, samples = 0;
  for (knit_thread *t = knit_thread_list(); t; t = t->next) {
    ns += t->handler_ns;
    samples += t->handler_samples;
  }
  log_tick_rate();
  if (samples == 0)
    return;
  char line[200];
  knit_safe_snprintf(line, sizeof line,
                     "sampling: %llu ns in the handler a sample, on average over %llu samples "
                     "(those that analyzed no new function), and %llu ns of delivery",
                     (unsigned long long)(ns / samples), (unsigned long long)samples,
                     (unsigned long long)delivery_ns);
  knit_log_line(line);
}

static int install_handler(int sig, struct sigaction *old)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = knit_sample_handler;
  /* SA_RESTART: a sample must not make the program's system calls fail
   * (those the kernel never restarts are held off: core/waits.c). */
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  return knit_real_sigaction(sig, &sa, old);
}

/* KNIT_MAX_SAMPLING_PERCENT, or KNIT_SAMPLING_PERCENT from the
 * environment (1-100; for tests of the safeguard). */
static uint64_t max_sampling_percent = KNIT_MAX_SAMPLING_PERCENT;


static void on_calibration(int sig)
{
  (void)sig;
}

static uint64_t sample_clock_ns(void);

/* Times a few signals sent to the calling thread, with a handler that does
 * nothing; the cheapest of a few rounds, so that a preemption does not
 * count. The sample signal is knit's at this point. */
static void measure_delivery(int sig)
{
  struct sigaction quiet, was;
  memset(&quiet, 0, sizeof quiet);
  quiet.sa_handler = on_calibration;
  sigemptyset(&quiet.sa_mask);
  if (knit_real_sigaction(sig, &quiet, &was) != 0)
    return;
  pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
  uint64_t best = 0;
  for (int round = 0; round < 4; round++) {
    uint64_t start = sample_clock_ns();
    for (int i = 0; i < 8; i++)
      syscall(SYS_tgkill, pid, tid, sig);
    uint64_t each = (sample_clock_ns() - start) / 8;
    if (round == 0 || each < best)
      best = each;
  }
  delivery_ns = best;
  knit_real_sigaction(sig, &was, NULL);
}

bool knit_sampler_install(void)
{
  const char *percent = getenv("KNIT_SAMPLING_PERCENT");
  if (percent && atoi(percent) >= 1 && atoi(percent) <= 100)
    max_sampling_percent = (uint64_t)atoi(percent);
  if (knit_the_session.event.kind != KNIT_EVENT_PROBE)
    measure_delivery(KNIT_SAMPLE_SIGNAL);
  if (install_handler(KNIT_SAMPLE_SIGNAL, &program_sample_action) != 0)
    return false;
  char line[120];
  knit_safe_snprintf(line, sizeof line, "sampling: a signal's delivery costs %llu ns",
                     (unsigned long long)delivery_ns);
  knit_log_line(line);
  atomic_store(&sample_signal, KNIT_SAMPLE_SIGNAL);
  knit_masks_take_over(KNIT_SAMPLE_SIGNAL);
  return knit_fault_guard_install();
}

/* The timer's clock now, in ns (0 when it cannot be read): the calling
 * thread's CPU time for CPUTIME, the monotonic clock for REALTIME.
 * Async-signal-safe. */
static uint64_t sample_clock_ns(void)
{
  clockid_t clock =
      knit_the_session.event.kind == KNIT_EVENT_CPUTIME ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Makes a timer for t sending sig every t's period, started now. */
static bool arm_timer(knit_thread *t, int sig)
{
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = sig;
  sev._sigev_un._tid = t->tid;
  clockid_t clock =
      knit_the_session.event.kind == KNIT_EVENT_CPUTIME ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
  timer_t timer;
  if (timer_create(clock, &sev, &timer) != 0)
    return false;
  uint64_t period = atomic_load(&t->period_ns);
  struct itimerspec its;
  its.it_interval.tv_sec = (time_t)(period / 1000000000ull);
  its.it_interval.tv_nsec = (long)(period % 1000000000ull);
  its.it_value = its.it_interval;
  if (timer_settime(timer, 0, &its, NULL) != 0) {
    timer_delete(timer);
    return false;
  }
  t->timer = timer;
  t->timer_signal = sig;
  t->timer_period_ns = period;
  return true;
}

/* Brings t's timer to the current signal and t's period. Three may want
 * to, at once: the thread as it starts, its own handler lengthening the
 * period, and a thread moving knit to another signal (for every thread).
 * Whoever takes has_timer (exchanging it to false) works on the timer
 * alone; the others find it taken and leave it, and the taker looks again
 * after giving it back, so a change made meanwhile is not missed. The
 * timer is deleted instead when the thread has ended meanwhile (stop).
 * Async-signal-safe (timer_* are plain system calls). */
static void update_timer(knit_thread *t)
{
  for (;;) {
    if (!atomic_exchange(&t->has_timer, false))
      return;
    int sig = knit_sample_signal();
    uint64_t period = atomic_load(&t->period_ns);
    if (t->timer_signal != sig) {
      timer_delete(t->timer);
      if (sig == 0 || !arm_timer(t, sig))
        return; /* no signal left to sample by: the thread is not sampled */
    } else if (t->timer_period_ns != period) {
      struct itimerspec its;
      its.it_interval.tv_sec = (time_t)(period / 1000000000ull);
      its.it_interval.tv_nsec = (long)(period % 1000000000ull);
      its.it_value = its.it_interval;
      if (timer_settime(t->timer, 0, &its, NULL) == 0)
        t->timer_period_ns = period;
    }
    atomic_store(&t->has_timer, true);
    if (atomic_load(&t->timer_retired)) {
      if (atomic_exchange(&t->has_timer, false))
        timer_delete(t->timer);
      return;
    }
    if (t->timer_signal == knit_sample_signal() && t->timer_period_ns == atomic_load(&t->period_ns))
      return;
  }
}

void knit_sampler_start_thread(knit_thread *t)
{
  const knit_event *ev = &knit_the_session.event;
  if (ev->kind == KNIT_EVENT_PROBE)
    return;
  atomic_store(&t->period_ns, ev->period_ns);
  int sig = knit_sample_signal();
  t->sample_end_ns = sample_clock_ns();
  t->cost_start_ns = t->sample_end_ns;
  if (sig == 0 || !arm_timer(t, sig))
    return;
  atomic_store(&t->has_timer, true);
  /* A move to another signal while the timer was made: the mover may not
   * have seen this thread's timer. */
  update_timer(t);
}

void knit_sampler_stop_thread(knit_thread *t)
{
  /* The thread itself (at its exit) and the session (at process exit) may
   * both stop it: only one deletes the timer (or update_timer does, when
   * it holds the timer now). */
  atomic_store(&t->timer_retired, true);
  if (atomic_exchange(&t->has_timer, false))
    timer_delete(t->timer);
  /* A handler already running on that thread finishes its sample first;
   * on the thread itself (the crash path) there is nothing to wait for. */
  if (t == knit_thread_self())
    return;
  while (atomic_load(&t->in_handler))
    sched_yield();
}

/* The first real-time signal knit may move to is SIGRTMIN+FIRST_RT_OFFSET:
 * the lowest few are the ones programs and libraries take without asking
 * (the C library's own are below SIGRTMIN), and QEMU has none to offer at
 * the top of the range. */
#define FIRST_RT_OFFSET 4

/* A real-time signal nobody uses: default action, never set by the
 * program, not the one being left. 0 if none. */
static int free_signal(int leaving)
{
  uint64_t claimed = atomic_load(&claimed_signals);
  for (int sig = SIGRTMIN + FIRST_RT_OFFSET; sig <= SIGRTMAX && sig <= 64; sig++) {
    if (sig == leaving || (claimed & (1ull << (sig - 1))))
      continue;
    struct sigaction now;
    if (knit_real_sigaction(sig, NULL, &now) != 0 || now.sa_handler != SIG_DFL)
      continue;
    return sig;
  }
  return 0;
}

/* The program wants the sample signal: knit samples by another signal from
 * now on, every thread's timer is re-made for it, and the log says so. */
static void leave_signal(int leaving)
{
  int next = free_signal(leaving);
  struct sigaction next_action;
  if (next != 0 && install_handler(next, &next_action) != 0)
    next = 0;
  atomic_store_explicit(&sample_signal, next, memory_order_release);
  for (knit_thread *t = knit_thread_list(); t; t = t->next)
    update_timer(t);
  knit_masks_signal_moved(leaving, next);
  char from[24], to[24], line[200];
  knit_sample_signal_name(leaving, from, sizeof from);
  knit_sample_signal_name(next, to, sizeof to);
  if (next != 0) {
    program_sample_action = next_action;
    knit_safe_snprintf(line, sizeof line,
                       "signals: the program set its own %s action; knit samples by %s "
                       "(signal %d) from now on",
                       from, to, next);
  } else {
    knit_safe_snprintf(line, sizeof line,
                       "signals: the program set its own %s action and no real-time signal is "
                       "free; knit takes no more samples",
                       from);
  }
  knit_log_line(line);
}

int knit_sampler_program_action(int sig, const struct sigaction *act, struct sigaction *old)
{
  while (atomic_flag_test_and_set_explicit(&sample_action_lock, memory_order_acquire))
    sched_yield();
  int rc = 0;
  if (sig != knit_sample_signal()) {
    /* Moved meanwhile: the signal is the program's now. */
    rc = knit_real_sigaction(sig, act, old);
  } else {
    struct sigaction was = program_sample_action;
    if (act) {
      leave_signal(sig);
      rc = knit_real_sigaction(sig, act, NULL);
    }
    if (rc == 0 && old)
      *old = was;
  }
  atomic_flag_clear_explicit(&sample_action_lock, memory_order_release);
  return rc;
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
static uint64_t periods_of(knit_thread *t, const siginfo_t *info, uint64_t now_ns)
{
  if (!info || info->si_code != SI_TIMER)
    return 1;
  t->timer_signals++;
  t->timer_overruns += info->si_overrun > 0 ? (uint64_t)info->si_overrun : 0;
  /* In the session's periods: a lengthened timer period is a multiple. */
  uint64_t period = knit_the_session.event.period_ns;
  uint64_t per_signal = period > 0 ? t->timer_period_ns / period : 1;
  uint64_t periods =
      (1 + (uint64_t)(info->si_overrun > 0 ? info->si_overrun : 0)) * (per_signal ? per_signal : 1);
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

/* The safeguard on the cost of sampling: over windows of at least
 * COST_WINDOW_SAMPLES samples and COST_WINDOW_NS of the sample clock, when
 * the handler took more than max_sampling_percent of the thread's
 * time, the thread's period is doubled (so every sample stands for a whole
 * number of the session's periods). Samples that built unwind recipes are
 * left out: that work is done once per function (over 100 ms under QEMU
 * for the first), not at every period. The clock readings are those the
 * handler takes anyway (periods_of). */
#define COST_WINDOW_SAMPLES  64
#define COST_WINDOW_NS       20000000ull
#define MAX_SLOWED_PERIOD_NS 1000000000ull

static void check_cost(knit_thread *t, uint64_t start_ns, uint64_t end_ns, bool built)
{
  if (start_ns == 0 || end_ns < start_ns || t->cost_start_ns == 0 || end_ns < t->cost_start_ns)
    return;
  if (!built) {
    /* At most a period a sample: a REALTIME handler preempted on a busy
     * machine must not pass for a costly one (64 samples to a window, one
     * such sample weighs at most 1/64). */
    uint64_t cost = end_ns - start_ns + delivery_ns, period = atomic_load(&t->period_ns);
    t->cost_ns += cost < period ? cost : period;
    t->handler_ns += end_ns - start_ns;
    t->handler_samples++;
  }
  t->cost_samples++;
  uint64_t span = end_ns - t->cost_start_ns;
  if (t->cost_samples < COST_WINDOW_SAMPLES || span < COST_WINDOW_NS)
    return;
  uint64_t cost = t->cost_ns;
  t->cost_ns = 0;
  t->cost_samples = 0;
  t->cost_start_ns = end_ns;
  uint64_t period = atomic_load(&t->period_ns);
  if (cost * 100 <= span * max_sampling_percent || period >= MAX_SLOWED_PERIOD_NS)
    return;
  atomic_store(&t->period_ns, period * 2);
  if (t->slowdowns++ == 0)
    atomic_fetch_add(&slowed_threads, 1);
  update_timer(t);
  char line[200];
  knit_safe_snprintf(line, sizeof line,
                     "sampling: thread %u spent %llu%% of its time in knit's handler; its period "
                     "is now %llu us",
                     t->index, (unsigned long long)(cost * 100 / span),
                     (unsigned long long)(period * 2 / 1000));
  knit_log_line(line);
}

KNIT_ALIGNED_ENTRY void knit_sample_handler(int sig, siginfo_t *info, void *ucontext)
{
  int saved_errno = errno;
  /* Signals the program blocked while they were knit's, and knit has left
   * since: blocked as the handler returns (core/signal_masks.h). */
  knit_masks_restore_left(ucontext, sig);
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
  /* The trace's clock is the monotonic one, on every thread alike. */
  if (t->trace)
    t->trace_sample_ns = knit_trace_now();
  knit_frame frames[MAX_FRAMES];
  knit_regs regs;
  knit_native_regs_from_ucontext(ucontext, &regs);
  int n = 0;
  knit_unwind_end end = KNIT_UNWIND_PARTIAL;
  uint64_t built_before = t->unwinder.recipes_built;
  t->in_unwind = 1;
  /* Where the program blocks SIGSEGV or SIGBUS, they are let in for the
   * unwind's reads (core/fault_guard.h). Not closed: the interrupted code
   * gets its own mask back as the handler returns. */
  if (ucontext)
    knit_fault_guard_open(&((const ucontext_t *)ucontext)->uc_sigmask);
  /* No mask saved: the fault guard restores it (core/fault_guard.c), and
   * saving it here would cost a system call per sample. */
  if (sigsetjmp(t->fault_jump, 0) == 0) {
    knit_unwind_limit(&t->unwinder.stop_at, &t->unwinder.stop_is_cfa, &t->unwinder.stop_module);
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
  int len = knit_attribute_sample(frames, n, end, is_probe, path, MAX_FRAMES + 8, &partial, &state);
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
    for (int m = 0; m < KNIT_METRIC_HOST_COUNT; m++)
      node->metrics[m] += counted.metrics[m];
    if (t->trace)
      knit_trace_sample(t, t->path_leaf, t->trace_sample_ns);
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
  if (!is_probe) {
    t->sample_end_ns = sample_clock_ns();
    check_cost(t, now_ns, t->sample_end_ns, t->unwinder.recipes_built != built_before);
  }
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
  int sig = knit_sample_signal();
  if (sig == 0)
    return;
  syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
  /* Keeps the system call out of tail position, so this function's frame is
   * on the stack when the signal arrives and marks where knit's frames end. */
  __asm__ __volatile__("" ::: "memory");
}
