/* The session: set-up at load time, the log, and the final write-out. */
#define _GNU_SOURCE
#include "core/session.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/safe_format.h"
#include "core/sampler.h"
#include "core/thread.h"
#include "core/writer.h"
#include "ompt/ompt_state.h"
#include "ompt/region_paths.h"
#include "unwind/decoder.h"
#include "unwind/loadmap.h"

knit_session knit_the_session;
static int log_fd = -1;
static _Atomic bool finished;

const void *knit_self_address(void) { return (const void *)knit_self_address; }

void knit_log_line(const char *line)
{
  if (log_fd < 0)
    return;
  char buf[1024];
  int n = knit_safe_snprintf(buf, sizeof buf, "%s\n", line);
  if (n > (int)sizeof buf - 1)
    n = (int)sizeof buf - 1;
  ssize_t rc = write(log_fd, buf, (size_t)n);
  (void)rc;
}

/* Says why knit is not sampling, on the program's stderr: the program still
 * runs, unprofiled, rather than failing because of its profiler. */
static void give_up(const char *why)
{
  fprintf(stderr, "knit: %s; the program runs without profiling\n", why);
  knit_log_line(why);
  knit_the_session.active = false;
}

static void at_exit(void) { knit_session_finish("exit"); }

/* After fork, the child is a new process whose threads knit did not see
 * start: it runs unprofiled rather than write into the parent's files. */
static void in_forked_child(void)
{
  knit_the_session.active = false;
  log_fd = -1;
}

static bool make_output_dir(const char *dir)
{
  if (mkdir(dir, 0777) == 0 || errno == EEXIST)
    return true;
  return false;
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
  bool descendant = root && *root && atol(root) != (long)getpid();
  if (out && *out && descendant)
    knit_safe_snprintf(s->output, sizeof s->output, "%s/process-%d", out, (int)getpid());
  else if (out && *out)
    knit_safe_snprintf(s->output, sizeof s->output, "%s", out);
  else
    knit_safe_snprintf(s->output, sizeof s->output, "knit-%s-%d", program_invocation_short_name,
                       (int)getpid());
  if (!make_output_dir(s->output)) {
    fprintf(stderr, "knit: cannot create %s: %s; the program runs without profiling\n",
            s->output, strerror(errno));
    return;
  }
  char path[4200];
  knit_safe_snprintf(path, sizeof path, "%s/knit.log", s->output);
  log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  s->active = true;

  char line[512];
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

  s->isa = knit_isa_native();
  if (!knit_decoder_setup())
    return give_up("cannot route Capstone's memory to signal-safe allocators");
  knit_loadmap_refresh(knit_self_address());
  if (!knit_sampler_install())
    return give_up("cannot install the signal handlers");
  pthread_atfork(NULL, NULL, in_forked_child);
  atexit(at_exit);
  knit_thread_attach(KNIT_THREAD_MAIN);
}

void knit_session_finish(const char *why)
{
  if (!knit_the_session.active || atomic_exchange(&finished, true))
    return;
  atomic_store(&knit_the_session.stopping, true);
  uint64_t samples = 0, partial = 0, blocked = 0, faults = 0, wrong = 0;
  unsigned threads = 0, files = 0, failed = 0;
  for (knit_thread *t = knit_thread_list(); t; t = t->next) {
    knit_sampler_stop_thread(t);
    threads++;
    if (knit_write_thread(t) == 0)
      files++;
    else
      failed++;
    samples += t->stats[KNIT_STAT_SAMPLES];
    partial += t->stats[KNIT_STAT_PARTIAL];
    blocked += t->stats[KNIT_STAT_BLOCKED];
    faults += t->stats[KNIT_STAT_FAULTS];
    for (uint32_t m = 0; t->steps && m < KNIT_STEP_SLOTS; m++)
      wrong += t->steps[m][2];
  }
  knit_capture_log();
  knit_region_log();
  knit_sampler_log_cost();
  char line[4600];
  knit_safe_snprintf(line, sizeof line, "end: %s", why);
  knit_log_line(line);
  /* wrong= (unwind steps that followed no call), signal= (what samples
   * came by at the end: SIGPROF, or the real-time signal knit moved to when
   * the program took SIGPROF) and slowed= (threads whose period knit
   * lengthened, sampling having cost too much of their time) go before
   * dir=, which stays last because a directory name may hold spaces. */
  char signal_name[24];
  knit_sample_signal_name(knit_sample_signal(), signal_name, sizeof signal_name);
  knit_safe_snprintf(line, sizeof line,
                     "SUMMARY samples=%llu partial=%llu blocked=%llu faults=%llu threads=%u "
                     "files=%u unwritten=%u wrong=%llu signal=%s slowed=%u dir=%s",
                     (unsigned long long)samples, (unsigned long long)partial,
                     (unsigned long long)blocked, (unsigned long long)faults, threads, files,
                     failed, (unsigned long long)wrong, signal_name,
                     knit_sampler_slowed_threads(), knit_the_session.output);
  knit_log_line(line);
}
