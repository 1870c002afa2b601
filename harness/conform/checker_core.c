/*
 * The OMPT checker's records: the catalog of checks, what held and what was
 * broken (with the first evidence), per-thread records, ids and locks.
 *
 * libknit_ompt_checker.so is an OMPT tool that checks the promises of
 * OpenMP 5.0's tools interface that a sampling profiler relies on.  A
 * program links it (or preloads it): it defines ompt_start_tool, registers
 * every callback it knows, keeps per-thread and per-region records in
 * memory, asks the inquiry functions at callbacks and (through checker.h)
 * from the program's outlined bodies, and at finalize prints PASS or each
 * violated promise with its evidence, exits with status 1 if any failed,
 * and writes a verdict per check for `knit conform` (checker_results.c).
 *
 * Records are guarded by one mutex: callbacks are not signal handlers, and
 * a lost-update-free record matters more here than speed.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checker.h"
#include "checker_state.h"

#define EXPORT __attribute__((visibility("default")))

const check_info checker_catalog[CHK_COUNT] = {
#define CHECK(id, name, category, level, callback, doc)                                            \
  {name, KNIT_CATEGORY_##category, level, callback},
#include "conform/checks.def"
};

pthread_mutex_t checker_mu = PTHREAD_MUTEX_INITIALIZER;
bool checker_strict;
char checker_runtime_version[160];
unsigned checker_omp_version;
bool checker_started;
char checker_abi[8] = "?";
unsigned long long checker_exercised;

ompt_set_callback_t checker_set_callback;
ompt_get_state_t checker_get_state;
ompt_get_task_info_t checker_get_task_info;
ompt_get_parallel_info_t checker_get_parallel_info;
ompt_get_unique_id_t checker_get_unique_id;
ompt_get_task_memory_t checker_get_task_memory;
ompt_get_target_info_t checker_get_target_info;

check_rec_t checker_checks[CHK_COUNT];
thread_rec_t checker_threads[MAX_THREADS];
int checker_n_threads;
/* Initial-exec: the sampling signal's handler reaches the record through it. */
static __thread __attribute__((tls_model("initial-exec"))) thread_rec_t *self_rec;
region_rec_t checker_regions[MAX_REGIONS];
uint64_t checker_n_regions;
uint64_t checker_ids[MAX_IDS];
size_t checker_n_ids;
static const void *locks[MAX_LOCKS];
static int n_locks;
int checker_n_initialize, checker_n_finalize;
unsigned long checker_events[MAX_CALLBACK];
int checker_set_answer[MAX_CALLBACK];

void checker_held(check_id id)
{
  checker_checks[id].held++;
}

void checker_violate(check_id id, const char *fmt, ...)
{
  check_rec_t *c = &checker_checks[id];
  if (c->violated++ > 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->evidence, sizeof c->evidence, fmt, ap);
  va_end(ap);
}

void checker_note(check_id id, const char *fmt, ...)
{
  check_rec_t *c = &checker_checks[id];
  if (c->note[0])
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->note, sizeof c->note, fmt, ap);
  va_end(ap);
}

bool checker_is_failure(check_id id)
{
  return checker_checks[id].violated > 0 && (checker_strict || checker_catalog[id].level == SPEC);
}

/* The calling thread's record, made on its first event.  Called with checker_mu held. */
thread_rec_t *checker_me_locked(void)
{
  if (!self_rec) {
    if (checker_n_threads == MAX_THREADS)
      abort();
    self_rec = &checker_threads[checker_n_threads];
    self_rec->index = checker_n_threads++;
    self_rec->pthread = pthread_self();
    checker_sample_attach(self_rec);
  }
  return self_rec;
}

thread_rec_t *checker_thread_at(int i)
{
  return i >= 0 && i < checker_n_threads ? &checker_threads[i] : NULL;
}

const char *checker_state_name(int state)
{
  switch (state) {
#define STATE_NAME(name, value)                                                                    \
  case value: return #name + sizeof "ompt_state_" - 1;
    FOREACH_OMPT_STATE(STATE_NAME)
#undef STATE_NAME
  default: return "unknown";
  }
}

double checker_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Every event on a thread comes after its thread_begin.  Called with checker_mu held. */
thread_rec_t *checker_event_locked(ompt_callbacks_t which, const char *what)
{
  thread_rec_t *t = checker_me_locked();
  checker_events[which]++;
  if (which != ompt_callback_thread_begin)
    EXPECT(CHK_THREAD_BEGIN_FIRST, t->begun, "%s on thread #%d before its thread_begin", what,
           t->index);
  EXPECT(CHK_THREAD_END_LAST, !t->ended, "%s on thread #%d after its thread_end", what, t->index);
  return t;
}

void checker_note_id_locked(uint64_t id)
{
  if (checker_n_ids < MAX_IDS)
    checker_ids[checker_n_ids++] = id;
}

bool checker_is_lock(ompt_wait_id_t id)
{
  for (int i = 0; i < n_locks; i++) {
    if ((ompt_wait_id_t)(uintptr_t)locks[i] == id)
      return true;
  }
  return false;
}

/* A frame address's flags say how to read it: a CFA or a frame pointer. */
bool checker_frame_flags_valid(int flags)
{
  int kind = flags & (ompt_frame_cfa | ompt_frame_framepointer);
  return kind == ompt_frame_cfa || kind == ompt_frame_framepointer;
}

EXPORT void knit_ompt_checker_lock(const void *lock)
{
  pthread_mutex_lock(&checker_mu);
  if (n_locks < MAX_LOCKS)
    locks[n_locks++] = lock;
  pthread_mutex_unlock(&checker_mu);
}

EXPORT void knit_ompt_checker_program(const char *abi, unsigned long long exercised)
{
  pthread_mutex_lock(&checker_mu);
  snprintf(checker_abi, sizeof checker_abi, "%s", abi);
  checker_exercised = exercised;
  pthread_mutex_unlock(&checker_mu);
}
