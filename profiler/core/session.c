/* The session: set-up at load time, the log, and the final write-out. */
#define _GNU_SOURCE
#include "core/session.h"

#include "unwind/isa.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/ending_signals.h"
#include "core/image_copy.h"
#include "base/safe_format.h"
#include "core/sampler.h"
#include "core/thread.h"
#include "core/trace.h"
#include "core/vdso_copy.h"
#include "core/writer.h"
#include "measure/short_state.h"
#include "ompt/device.h"
#include "ompt/ompt_state.h"
#include "ompt/region_paths.h"
#include "unwind/decoder.h"
#include "unwind/loadmap.h"

knit_session knit_the_session;
static _Atomic bool finished;
/* Set when the write-out is complete; finishing_tid is the thread doing it. */
static _Atomic bool finish_done;
static _Atomic pid_t finishing_tid;

const void *knit_self_address(void)
{
  /* An address of libknit's code, not of a function descriptor (ppc64's
   * function pointers lead to .opd, outside the code). */
  return (const void *)(uintptr_t)knit_native_code_of((void (*)(void))knit_self_address);
}

/* Says why knit is not sampling, on the program's stderr: the program still
 * runs, unprofiled, rather than failing because of its profiler. */
static void give_up(const char *why)
{
  fprintf(stderr, "knit: %s; the program runs without profiling\n", why);
  knit_log_line(why);
  knit_the_session.active = false;
}

static void at_exit(void)
{
  /* The devices' last records, charged before the files are written (not
   * on the other ways out: flushing calls the runtime, which a signal's
   * handler or _exit must not). */
  if (knit_the_session.active) {
    knit_device_flush_all();
    /* Libraries loaded since the map's last refresh, named for the frames
     * recorded in them (core/late_names.h); not on the other ways out
     * either: the refresh locks and allocates. */
    knit_loadmap_refresh(knit_self_address());
  }
  knit_session_finish("exit");
}

/* After fork, the child is a new process whose threads knit did not see
 * start: it runs unprofiled rather than write into the parent's files. */
static void in_forked_child(void)
{
  knit_the_session.active = false;
  knit_log_forget();
}

/* Creates the measurement directory and puts its absolute path in
 * s->output: a program that changes its working directory must not move
 * its measurement (or lose the part written after). Returns false, with
 * errno, when it cannot be made or is not a directory. */
static bool make_output_dir(knit_session *s, const char *dir)
{
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return false;
  struct stat st;
  if (stat(dir, &st) != 0)
    return false;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return false;
  }
  char absolute[PATH_MAX];
  if (!realpath(dir, absolute))
    return false;
  if (knit_safe_snprintf(s->output, sizeof s->output, "%s", absolute) >= (int)sizeof s->output) {
    errno = ENAMETOOLONG;
    return false;
  }
  return true;
}

__attribute__((constructor)) static void knit_session_start(void)
{
  const char *spec = getenv("KNIT_EVENT");
  if (!spec || !*spec)
    return; /* loaded, but not asked to record */
  knit_session *s = &knit_the_session;
  char err[256];
  if (!knit_event_parse(spec, &s->event, err, sizeof err)) {
    fprintf(stderr, "knit: KNIT_EVENT: %s; the program runs without profiling\n", err);
    return;
  }
  const char *out = getenv("KNIT_OUTPUT");
  /* A process the recorded program started (fork, then exec: the
   * environment, and so knit, goes with it) is measured in a directory of
   * its own inside the measurement, process-PID: it is another program,
   * with a tree of its own under its own main, and its threads must not
   * merge into the first process's. `knit record` names the process it
   * started in KNIT_ROOT_PID. */
  const char *root = getenv("KNIT_ROOT_PID");
  s->pid = getpid();
  bool descendant = root && *root && atol(root) != (long)s->pid;
  char dir[PATH_MAX];
  int len;
  if (out && *out && descendant)
    len = knit_safe_snprintf(dir, sizeof dir, "%s/process-%d", out, (int)s->pid);
  else if (out && *out)
    len = knit_safe_snprintf(dir, sizeof dir, "%s", out);
  else
    len = knit_safe_snprintf(dir, sizeof dir, "knit-%s-%d", program_invocation_short_name,
                             (int)s->pid);
  if (len >= (int)sizeof dir) {
    fprintf(stderr,
            "knit: the measurement directory's name is longer than %d bytes; the "
            "program runs without profiling\n",
            PATH_MAX - 1);
    return;
  }
  if (!make_output_dir(s, dir)) {
    fprintf(stderr,
            "knit: cannot create the directory %s: %s; the program runs without "
            "profiling\n",
            dir, strerror(errno));
    return;
  }
  if (!knit_log_open(s->output)) {
    fprintf(stderr, "knit: cannot write %s/knit.log: %s; the program runs without profiling\n",
            s->output, strerror(errno));
    return;
  }
  s->active = true;
  knit_vdso_copy(s->output);

  char line[PATH_MAX + 256];
  knit_safe_snprintf(line, sizeof line, "knit: pid %d, event %s, period %llu ns, program %s",
                     (int)getpid(), knit_event_name(s->event.kind),
                     (unsigned long long)s->event.period_ns, program_invocation_name);
  knit_log_line(line);

  const char *check = getenv("KNIT_CHECK_CAPTURES");
  s->check_captures = check && atoi(check) > 0;
  if (s->check_captures)
    knit_log_line("captures: every remembered path is checked against a walk");
  const char *cache = getenv("KNIT_CAPTURE_CACHE");
  s->remember_captures = !(cache && strcmp(cache, "0") == 0);
  if (!s->remember_captures)
    knit_log_line("captures: none remembered (KNIT_CAPTURE_CACHE=0): every capture walks");
  const char *defer = getenv("KNIT_DEFER_CAPTURES");
  s->defer_captures = !(defer && strcmp(defer, "0") == 0);
  if (!s->defer_captures)
    knit_log_line("captures: at parallel_begin (KNIT_DEFER_CAPTURES=0), before the team starts");

  const char *flush = getenv("KNIT_FLUSH_MS");
  s->snapshot_ns = (flush && *flush ? (uint64_t)strtoull(flush, NULL, 10) : 10000) * 1000000ull;
  const char *trace = getenv("KNIT_TRACE");
  s->trace = trace && strcmp(trace, "1") == 0;
  const char *records = getenv("KNIT_TRACE_RECORDS");
  unsigned long asked = records && *records ? strtoul(records, NULL, 10) : 0;
  s->trace_records = asked >= 16 && asked <= (1ul << 20) && (asked & (asked - 1)) == 0
                         ? (uint32_t)asked
                         : KNIT_TRACE_RING_RECORDS;
  const char *keep_short = getenv("KNIT_TRACE_KEEP_SHORT");
  s->trace_keep_short = keep_short && strcmp(keep_short, "1") == 0;
  if (s->trace) {
    char trace_line[240];
    if (s->trace_keep_short)
      knit_safe_snprintf(
          trace_line, sizeof trace_line,
          "trace: every thread's samples and OpenMP transitions, short states too "
          "(KNIT_TRACE_KEEP_SHORT=1), in trace-*.knit (%u records a thread's buffer)",
          s->trace_records);
    else
      knit_safe_snprintf(trace_line, sizeof trace_line,
                         "trace: every thread's samples and OpenMP transitions but states shorter "
                         "than %llu ns with nothing inside, in trace-*.knit (%u records a thread's "
                         "buffer)",
                         (unsigned long long)knit_short_state_ns(s->event.period_ns),
                         s->trace_records);
    knit_log_line(trace_line);
  }

  s->isa = knit_isa_native();
  if (!knit_decoder_setup())
    return give_up("cannot route Capstone's memory to signal-safe allocators");
  knit_image_copy_setup();
  knit_loadmap_on_new_module(knit_image_copy);
  knit_loadmap_refresh(knit_self_address());
  knit_image_copy_startup_done();
  if (!knit_sampler_install())
    return give_up("cannot install the signal handlers");
  knit_ending_signals_install();
  pthread_atfork(NULL, NULL, in_forked_child);
  atexit(at_exit);
  knit_thread_attach(KNIT_THREAD_MAIN);
  knit_trace_start_flusher();
}

void knit_session_resume(const char *dir, const char *abandoned)
{
  knit_session *s = &knit_the_session;
  if (!s->active || getpid() != s->pid || !atomic_load(&finish_done))
    return;
  /* The files of the write-out go: the image is still running, and its
   * data will be written, whole, at its end. */
  char path[PATH_MAX + 64];
  for (knit_thread *t = knit_thread_list(); t; t = t->next) {
    if (atomic_load(&t->retired))
      continue;
    knit_safe_snprintf(path, sizeof path, "%s/thread-%u-%d.knit", abandoned, t->index, (int)t->tid);
    unlink(path);
  }
  knit_safe_snprintf(path, sizeof path, "%s/knit.log", abandoned);
  unlink(path);
  rmdir(abandoned);
  knit_safe_snprintf(s->output, sizeof s->output, "%s", dir);
  knit_log_open(dir);
  for (knit_thread *t = knit_thread_list(); t; t = t->next) {
    if (atomic_load(&t->retired))
      continue;
    atomic_store(&t->write_rc, 0);
    atomic_store(&t->write_done, false);
    atomic_store(&t->written, false);
    atomic_store(&t->timer_retired, false);
    knit_sampler_start_thread(t);
  }
  atomic_store(&finishing_tid, 0);
  atomic_store(&finish_done, false);
  atomic_store(&s->stopping, false);
  atomic_store(&finished, false);
}

void knit_session_finish(const char *why)
{
  /* A vfork child runs in its parent's memory until it execs or leaves: its
   * _exit must not end the parent's session. */
  if (!knit_the_session.active || getpid() != knit_the_session.pid)
    return;
  pid_t self = (pid_t)syscall(SYS_gettid);
  if (atomic_exchange(&finished, true)) {
    /* Another thread writes the measurement (the program's exit, while a
     * SIGTERM ends it from another thread, say): wait for it, or the
     * process may end with files half made; bounded, so that a write-out
     * that never finishes cannot hang the program's end. On the writing
     * thread itself (a signal that came during the write) there is nothing
     * to wait for. */
    for (int i = 0; i < 3000 && atomic_load(&finishing_tid) != self && !atomic_load(&finish_done);
         i++) {
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
    return;
  }
  atomic_store(&finishing_tid, self);
  atomic_store(&knit_the_session.stopping, true);
  /* The threads whose state later threads took were counted then. */
  knit_thread_totals sum = *knit_thread_retired_totals();
  for (knit_thread *t = knit_thread_list(); t; t = t->next) {
    knit_sampler_stop_thread(t);
    sum.threads++;
    int rc = knit_write_thread(t);
    if (rc == 0)
      sum.files++;
    else if (rc == KNIT_WRITE_EMPTY)
      sum.empty++;
    else
      sum.unwritten++;
    knit_thread_add_totals(&sum, t);
  }
  knit_capture_log();
  knit_region_log();
  knit_sampler_log_cost();
  knit_trace_log();
  char line[PATH_MAX + 512];
  knit_safe_snprintf(line, sizeof line, "end: %s", why);
  knit_log_line(line);
  if (sum.unwritten > 0) {
    int err = knit_first_write_error();
    knit_safe_snprintf(line, sizeof line,
                       "unwritten: %u of %u threads' files could not be written: %s", sum.unwritten,
                       sum.threads, err ? knit_errno_name(err) : "no tree");
    knit_log_line(line);
  }
  /* wrong= (unwind steps that followed no call), signal= (what samples
   * came by at the end: SIGPROF, or the real-time signal knit moved to when
   * the program took SIGPROF), slowed= (threads whose period knit
   * lengthened, sampling having cost too much of their time) and empty=
   * (threads with nothing measured, and so no file) go before dir=, which
   * stays last because a directory name may hold spaces. */
  char signal_name[24];
  knit_sample_signal_name(knit_sample_signal(), signal_name, sizeof signal_name);
  knit_safe_snprintf(line, sizeof line,
                     "SUMMARY samples=%llu partial=%llu blocked=%llu faults=%llu threads=%u "
                     "files=%u unwritten=%u wrong=%llu signal=%s slowed=%u empty=%u dir=%s",
                     (unsigned long long)sum.samples, (unsigned long long)sum.partial,
                     (unsigned long long)sum.blocked, (unsigned long long)sum.faults, sum.threads,
                     sum.files, sum.unwritten, (unsigned long long)sum.wrong, signal_name,
                     knit_sampler_slowed_threads(), sum.empty, knit_the_session.output);
  knit_log_line(line);
  atomic_store(&finish_done, true);
}
