/* The profiling session: one per process, set up when libknit.so is loaded
 * (if `knit record` asked for it) and finished at exit, when every thread's
 * data is written. */
#ifndef KNIT_CORE_SESSION_H
#define KNIT_CORE_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>

#include <sys/types.h>

#include "base/config.h"
#include "core/log_file.h"
#include "unwind/isa.h"

typedef struct knit_session {
  bool active; /* KNIT_EVENT was given and set-up succeeded */
  knit_event event;
  char output[4096]; /* measurement directory, an absolute path */
  pid_t pid;         /* the measured process: a vfork child is not it */
  const knit_isa_ops *isa;
  _Atomic bool stopping;    /* no new samples; data is being written */
  _Atomic unsigned threads; /* threads seen */
  /* KNIT_CHECK_CAPTURES=1: every region path the capture cache answers is
   * walked for too, and the two compared (ompt/call_paths.c); the log says
   * how many differed. For tests: it costs the walk the cache saves. */
  bool check_captures;
  /* Region paths are remembered (ompt/capture_cache.h) unless
   * KNIT_CAPTURE_CACHE=0: then every capture walks, as a baseline for
   * bench_region_overhead and a way to rule the cache out. */
  bool remember_captures;
  /* A region's path is captured after its team is released (ompt/
   * region_paths.h) unless KNIT_DEFER_CAPTURES=0: then at parallel_begin,
   * before the release, as a baseline for bench_region_overhead. */
  bool defer_captures;
  /* Each thread's file is written again this often (ns of wall time; 0:
   * only at the end), so that a kill without warning loses little:
   * KNIT_FLUSH_MS, default 10 s. */
  uint64_t snapshot_ns;
  /* KNIT_TRACE=1 (`knit record -t`): every thread's events are traced
   * (core/trace.h). */
  bool trace;
  uint32_t trace_records; /* each thread's ring: KNIT_TRACE_RECORDS */
  /* KNIT_TRACE_KEEP_SHORT=1: a state too short to draw is kept too
   * (core/trace.h), as every transition was before, for comparing. */
  bool trace_keep_short;
} knit_session;

extern knit_session knit_the_session;

/* An address inside libknit.so, to recognize its own frames. */
const void *knit_self_address(void);


/* Writes every unwritten thread's file and the SUMMARY line. why is written
 * to the log ("exit", "crash: SIGSEGV"). Safe to call from a signal handler
 * (the crash path); runs once. */
void knit_session_finish(const char *why);

/* Undoes a finish whose process went on (an exec that failed after the
 * image's data was written to abandoned, core/exec_wrap.c): those files are
 * removed, the measurement goes back to dir, and every live thread is
 * sampled again. */
void knit_session_resume(const char *dir, const char *abandoned);

#endif /* KNIT_CORE_SESSION_H */
