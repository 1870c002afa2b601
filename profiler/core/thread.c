/* Per-thread state and the thread registry: see thread.h. */
#define _GNU_SOURCE
#include "core/thread.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/arena.h"
#include "core/sampler.h"
#include "core/session.h"
#include "core/signal_masks.h"
#include "core/trace.h"
#include "core/writer.h"
#include "core/next_symbol.h"
#include "ompt/blame.h"
#include "ompt/device.h"
#include "unwind/loadmap.h"

static __thread knit_thread *self_state __attribute__((tls_model("initial-exec")));
static _Atomic(knit_thread *) registry;
static _Atomic uint32_t next_index;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* Guest CCT memory per thread is capped so a runaway program cannot make the
 * tool exhaust memory; past it, samples go to their longest known prefix. */
#define THREAD_ARENA_CHUNK (1u << 20)
#define THREAD_ARENA_LIMIT (512u << 20)

knit_thread *knit_thread_self(void)
{
  return self_state;
}

knit_thread *knit_thread_list(void)
{
  return atomic_load(&registry);
}

static void on_thread_exit(void *arg)
{
  (void)arg;
  knit_thread_detach();
}

static void make_exit_key(void)
{
  pthread_key_create(&exit_key, on_thread_exit);
}

/* Threads that ended: their files are written, and their state waits in the
 * registry to be taken by a thread that starts (a program that starts a
 * thread per request would otherwise keep one state per thread it ever
 * had: 50 KiB each, and their trees). What they counted goes into the
 * totals below when their state is taken. */
static _Atomic unsigned retired_waiting;
static knit_thread_totals retired_totals;
static atomic_flag retired_lock = ATOMIC_FLAG_INIT;

const knit_thread_totals *knit_thread_retired_totals(void)
{
  return &retired_totals;
}

void knit_thread_add_totals(knit_thread_totals *sum, const knit_thread *t)
{
  sum->samples += t->stats[KNIT_STAT_SAMPLES];
  sum->partial += t->stats[KNIT_STAT_PARTIAL];
  sum->blocked += t->stats[KNIT_STAT_BLOCKED];
  sum->faults += t->stats[KNIT_STAT_FAULTS];
  for (uint32_t m = 0; t->steps && m < KNIT_STEP_SLOTS; m++)
    sum->wrong += t->steps[m][2];
}

/* Whether the OS thread tid has ended: its state can then be reused, as
 * nothing of it runs any more (a thread still runs other libraries' exit
 * code after knit's, which may call into knit). */
static bool os_thread_gone(pid_t tid)
{
  return syscall(SYS_tgkill, getpid(), tid, 0) != 0 && errno == ESRCH;
}

/* A retired thread's state, emptied for a new thread, or NULL. Its load
 * map refresh, Capstone handle and region state are kept; the rest is
 * zeroed and its tree's memory given back. */
static knit_thread *take_retired(void)
{
  if (atomic_load(&retired_waiting) == 0)
    return NULL;
  while (atomic_flag_test_and_set_explicit(&retired_lock, memory_order_acquire))
    sched_yield();
  knit_thread *found = NULL;
  for (knit_thread *t = atomic_load(&registry); t && !found; t = t->next) {
    if (!atomic_load(&t->retired) || !os_thread_gone(t->tid))
      continue;
    atomic_store(&t->retired, false);
    atomic_fetch_sub(&retired_waiting, 1);
    found = t;
  }
  if (found) {
    knit_thread_add_totals(&retired_totals, found);
    retired_totals.threads++;
    int rc = atomic_load(&found->write_rc);
    if (rc == 0)
      retired_totals.files++;
    else if (rc == KNIT_WRITE_EMPTY)
      retired_totals.empty++;
    else
      retired_totals.unwritten++;
  }
  atomic_flag_clear_explicit(&retired_lock, memory_order_release);
  if (!found)
    return NULL;
  knit_arena_release(&found->arena);
  knit_decoder kept_decoder = found->unwinder.decoder;
  struct knit_region_state *kept_regions = found->regions;
  struct knit_trace_state *kept_trace = found->trace;
  knit_thread *next = found->next;
  /* Until it is set up again, a write-out at the session's end (another
   * thread's exit) finds it written, and does not wait for it. */
  atomic_store(&found->write_rc, -1);
  atomic_store(&found->write_done, true);
  atomic_store(&found->written, true);
  size_t from = offsetof(knit_thread, written) + sizeof found->written;
  memset((char *)found, 0, offsetof(knit_thread, written));
  memset((char *)found + from, 0, sizeof *found - from);
  found->unwinder.decoder = kept_decoder;
  found->regions = kept_regions;
  found->trace = kept_trace;
  found->next = next;
  return found;
}

knit_thread *knit_thread_attach(uint32_t flags)
{
  knit_thread *t = self_state;
  if (t) {
    atomic_fetch_or(&t->flags, flags);
    return t;
  }
  if (!knit_the_session.active || atomic_load(&knit_the_session.stopping))
    return NULL;
  knit_loadmap_refresh(knit_self_address());
  bool reused = true;
  t = take_retired();
  if (!t) {
    /* Kept as long as the process (the registry lists every thread). The
     * one block of knit's from malloc (base/arena.h): the thread's own, made
     * before it runs any of the program's code (the main thread's in knit's
     * constructor). In pages of its own, or in the shared arena, the mock
     * GNU runtime's tiny regions ran 5-9% slower, by a placement effect
     * measured (bench_region_overhead) but not explained; libgomp's ran
     * the same either way. */
    t = calloc(1, sizeof *t);
    if (!t)
      return NULL;
    reused = false;
  }
  t->index = atomic_fetch_add(&next_index, 1);
  t->tid = (pid_t)syscall(SYS_gettid);
  atomic_store(&t->flags, flags);
  knit_arena_init(&t->arena, THREAD_ARENA_CHUNK, THREAD_ARENA_LIMIT);
  t->cct_ready = knit_cct_init(&t->cct, &t->arena);
  t->unwinder.scratch = knit_arena_alloc(&t->arena, sizeof(knit_recipe_scratch), 64);
  t->unwinder.cache =
      knit_arena_alloc(&t->arena, KNIT_STEP_CACHE_SIZE * sizeof(knit_step_cache_entry), 64);
  if (!reused)
    knit_decoder_open(&t->unwinder.decoder, knit_the_session.isa);
  t->steps = knit_arena_alloc(&t->arena, KNIT_STEP_SLOTS * sizeof *t->steps, 64);
  t->last_path = knit_arena_alloc(&t->arena, KNIT_LAST_PATH_FRAMES * sizeof *t->last_path, 64);
  t->last_nodes = knit_arena_alloc(&t->arena, KNIT_LAST_PATH_FRAMES * sizeof *t->last_nodes, 64);
  knit_sampler_prepare_unwinder(&t->unwinder);

  /* Published before the timer starts, so the first sample finds it. */
  self_state = t;
  if (reused) {
    atomic_store(&t->write_done, false);
    atomic_store(&t->write_rc, 0);
    atomic_store(&t->written, false);
  } else {
    knit_thread *head = atomic_load(&registry);
    do {
      t->next = head;
    } while (!atomic_compare_exchange_weak(&registry, &head, t));
  }
  atomic_fetch_add(&knit_the_session.threads, 1);

  pthread_once(&exit_key_once, make_exit_key);
  /* The destructor runs at pthread_exit and at return from the start
   * routine; the initial thread's data is written by the session instead. */
  if (!(flags & KNIT_THREAD_MAIN))
    pthread_setspecific(exit_key, t);
  /* Its trace file is there before its first event. */
  knit_trace_attach(t);
  knit_sampler_start_thread(t);
  return t;
}

void knit_thread_detach(void)
{
  knit_thread *t = self_state;
  if (!t)
    return;
  /* An OpenMP thread that ends no longer counts for idleness; OMPT's
   * thread_end may have said so already, GNU libgomp's pool threads have
   * nobody else to say it. */
  knit_blame_thread_end(t);
  knit_sampler_stop_thread(t);
  /* Outside any handler: a library the thread loaded since the map's last
   * refresh gets its name, for frames recorded in it (core/late_names.h). */
  knit_loadmap_refresh(knit_self_address());
  knit_write_thread(t);
  /* Late device records find no construct of its own any more: its state
   * and its arena may serve another thread. */
  if (t->device_nodes)
    knit_device_forget_thread(t);
  /* Its state may now go to a thread that starts, once this one is gone. */
  if (!(atomic_load(&t->flags) & KNIT_THREAD_MAIN) && !atomic_exchange(&t->retired, true))
    atomic_fetch_add(&retired_waiting, 1);
}

/* pthread_create is wrapped so every thread is attached before it runs its
 * own code: runtime workers, and plain pthreads too. */
typedef struct start_args {
  void *(*fn)(void *);
  void *arg;
  uint64_t masks; /* the creator's record of its mask (core/signal_masks.h) */
} start_args;

static void *thread_trampoline(void *p)
{
  start_args a = *(start_args *)p;
  knit_pages_free(p);
  knit_masks_inherit(a.masks);
  knit_thread_attach(0);
  return a.fn(a.arg);
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

__attribute__((visibility("default"))) int
pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
  pthread_create_fn real = KNIT_NEXT_SYMBOL(pthread_create_fn, "pthread_create");
  if (!real)
    return EAGAIN;
  if (!knit_the_session.active)
    return real(thread, attr, fn, arg);
  start_args *a = knit_pages_alloc(sizeof *a);
  if (!a)
    return real(thread, attr, fn, arg);
  a->fn = fn;
  a->arg = arg;
  a->masks = knit_masks_record();
  int rc = real(thread, attr, thread_trampoline, a);
  if (rc != 0)
    knit_pages_free(a);
  return rc;
}
