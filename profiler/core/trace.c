/* Per-thread traces: see trace.h. */
#define _GNU_SOURCE
#include "core/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/safe_format.h"
#include "base/write_all.h"
#include "core/file_limit.h"
#include "core/log_file.h"
#include "core/session.h"
#include "core/thread.h"
#include "core/trace_ring.h"
#include "measure/short_state.h"

/* A thread state's trace: its ring and where it goes. Made once per
 * thread state, in pages of its own, and kept as long as the process, so
 * that the flusher never meets a ring that was freed. */
struct knit_trace_state {
  _Atomic int draining; /* 1 while a consumer writes the ring out */
  char path[4200];      /* the trace file */
  bool created;         /* its creation was tried (at the first record) */
  bool file_ok;         /* created, header written */
  uint32_t index;       /* the thread's, for the file's name */
  pid_t tid;
  knit_trace_ring *ring;
};

/* Totals for the log: records written, files, events dropped and short
 * states taken back (as their threads' rings ended), records that could
 * not be written; the devices' records and files (ompt/device_track.c). */
static _Atomic uint64_t total_written, total_dropped, total_short, total_lost;
static _Atomic unsigned total_files;
static _Atomic uint64_t device_written;
static _Atomic unsigned device_files;

bool knit_trace_enabled(void)
{
  return knit_the_session.trace;
}

uint64_t knit_trace_now(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}


void knit_trace_attach(knit_thread *t)
{
  if (!knit_trace_enabled())
    return;
  struct knit_trace_state *s = t->trace;
  if (!s) {
    size_t head = (sizeof *s + 63) & ~(size_t)63;
    s = knit_pages_alloc(head + knit_trace_ring_bytes(knit_the_session.trace_records));
    if (!s)
      return;
    s->ring = (knit_trace_ring *)((char *)s + head);
  }
  /* A reused state: whoever drains it (the flusher) is done first. */
  int idle = 0;
  while (!atomic_compare_exchange_weak(&s->draining, &idle, 1))
    idle = 0;
  knit_trace_ring_init(s->ring, knit_the_session.trace_records);
  s->index = t->index;
  s->tid = t->tid;
  knit_safe_snprintf(s->path, sizeof s->path, "%s/trace-%u-%d.knit", knit_the_session.output,
                     t->index, (int)t->tid);
  /* The file is made at the first drain that has records to write: a
   * program that starts thousands of short threads, most of them never
   * sampled nor in OpenMP, would otherwise pay a file for each. */
  s->created = false;
  s->file_ok = false;
  t->trace_last_node = 0;
  t->trace_idle = false;
  t->trace_lock_wait = false;
  atomic_store(&s->draining, 0);
  /* Published last: the flusher reads it from another thread. */
  __atomic_store_n(&t->trace, s, __ATOMIC_RELEASE);
}

void knit_trace_sample(knit_thread *t, uint32_t node, uint64_t time_ns)
{
  struct knit_trace_state *s = t->trace;
  if (!s)
    return;
  knit_trace_ring_push(s->ring, time_ns, node, KNIT_TRACE_SAMPLE);
  t->trace_last_node = node;
}

void knit_trace_transition(knit_thread *t, uint32_t kind)
{
  struct knit_trace_state *s = t ? t->trace : NULL;
  /* Not in a fork child (session.c): its events are not the parent's. */
  if (!s || atomic_load_explicit(&t->written, memory_order_relaxed) || !knit_the_session.active)
    return;
  /* The handler pushes too: held off for the push, so the two never
   * interleave (a signal meanwhile is taken later, ompt/missed_samples.h).
   * Already held by the thread's own code: no handler can come between. */
  bool mine = knit_thread_claim(t);
  uint64_t now = knit_trace_now();
  /* A state whose end comes right after its begin, too soon for a
   * timeline to show (measure/short_state.h), is not kept: its begin is
   * taken back if nothing came between, no sample above all (which must
   * stay inside its state). A recursive task program would otherwise
   * write two records for every task's taskwait. */
  if (knit_the_session.trace_keep_short || !knit_trace_kind_ends_state(kind) ||
      !knit_trace_ring_take_back(s->ring, kind - 1, now,
                                 knit_short_state_ns(knit_the_session.event.period_ns)))
    knit_trace_ring_push(s->ring, now, t->trace_last_node, kind);
  if (mine)
    knit_thread_give_back(t);
  if (knit_trace_ring_pending(s->ring) >= s->ring->capacity / 2)
    knit_trace_drain(t, false);
}

void knit_trace_idle(knit_thread *t, bool idle)
{
  if (!t || !t->trace || t->trace_idle == idle)
    return;
  t->trace_idle = idle;
  knit_trace_transition(t, idle ? KNIT_TRACE_IDLE_BEGIN : KNIT_TRACE_IDLE_END);
}

void knit_trace_lock_wait(knit_thread *t, bool waiting)
{
  if (!t || !t->trace || t->trace_lock_wait == waiting)
    return;
  t->trace_lock_wait = waiting;
  knit_trace_transition(t, waiting ? KNIT_TRACE_LOCK_WAIT_BEGIN : KNIT_TRACE_LOCK_WAIT_END);
}

/* Creates s's file with its header, once. Called with the file limit
 * held (core/file_limit.h). */
static void create_file(struct knit_trace_state *s)
{
  if (s->created)
    return;
  s->created = true;
  knit_trace_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, KNIT_TRACE_MAGIC, sizeof h.magic);
  h.version = KNIT_TRACE_VERSION;
  h.byte_order = KNIT_BYTE_ORDER_MARK;
  h.tid = (uint32_t)s->tid;
  h.thread_index = s->index;
  h.clock = 1;
  int fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  s->file_ok = fd >= 0 && knit_write_all(fd, &h, sizeof h) == 0;
  if (fd >= 0)
    close(fd);
  if (s->file_ok)
    atomic_fetch_add(&total_files, 1);
}

/* An exec writes the image's measurement to a directory of its own
 * (core/exec_wrap.c) and the next image measures itself in the first: the
 * trace goes with its thread file, or the next image's would take its
 * name. */
static void follow_output(struct knit_trace_state *s)
{
  char now[sizeof s->path];
  knit_safe_snprintf(now, sizeof now, "%s/trace-%u-%d.knit", knit_the_session.output, s->index,
                     (int)s->tid);
  if (strcmp(now, s->path) == 0)
    return;
  if (!s->file_ok || rename(s->path, now) == 0)
    memcpy(s->path, now, sizeof now);
}

typedef struct sink_state {
  int fd;
  uint64_t written, lost;
} sink_state;

/* The ring's records into the file; records that cannot be written are
 * counted and let go, or the ring would stay full for good. */
static int sink(void *ctx, const knit_trace_record *records, size_t n)
{
  sink_state *k = ctx;
  if (k->fd >= 0 && knit_write_all(k->fd, records, n * sizeof *records) == 0)
    k->written += n;
  else
    k->lost += n;
  return 0;
}

void knit_trace_drain(knit_thread *t, bool final)
{
  struct knit_trace_state *s = t ? __atomic_load_n(&t->trace, __ATOMIC_ACQUIRE) : NULL;
  /* A fork child's copy of the ring must not reach the parent's file. */
  if (!s || !knit_the_session.active)
    return;
  int idle = 0;
  if (!atomic_compare_exchange_strong(&s->draining, &idle, 1)) {
    if (!final)
      return;
    /* The flusher writes it now: a write of at most one ring. */
    for (int i = 0; i < 2000; i++) {
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
      idle = 0;
      if (atomic_compare_exchange_strong(&s->draining, &idle, 1))
        break;
    }
    if (idle != 0)
      return;
  }
  uint64_t dropped = final ? knit_trace_ring_take_dropped(s->ring) : 0;
  if (knit_trace_ring_pending(s->ring) > 0 || dropped > 0) {
    knit_file_limit_hold hold;
    knit_file_limit_enter(&hold);
    follow_output(s);
    create_file(s);
    sink_state k = {-1, 0, 0};
    if (s->file_ok)
      k.fd = open(s->path, O_WRONLY | O_APPEND | O_CLOEXEC);
    knit_trace_ring_drain(s->ring, sink, &k);
    if (final) {
      while (dropped > 0) {
        uint32_t told = dropped > UINT32_MAX ? UINT32_MAX : (uint32_t)dropped;
        knit_trace_record r = {knit_trace_now(), told, KNIT_TRACE_DROPPED};
        sink(&k, &r, 1);
        dropped -= told;
      }
    }
    if (k.fd >= 0)
      close(k.fd);
    knit_file_limit_leave(&hold);
    atomic_fetch_add(&total_written, k.written);
    atomic_fetch_add(&total_lost, k.lost);
  }
  if (final) {
    atomic_fetch_add(&total_dropped, atomic_load(&s->ring->dropped_total));
    atomic_fetch_add(&total_short, atomic_load(&s->ring->taken_back));
  }
  atomic_store(&s->draining, 0);
}

void knit_trace_count_device(uint64_t written, uint64_t lost, bool new_file)
{
  atomic_fetch_add(&device_written, written);
  atomic_fetch_add(&total_lost, lost);
  if (new_file)
    atomic_fetch_add(&device_files, 1);
}

void knit_trace_log(void)
{
  if (!knit_trace_enabled())
    return;
  char line[400];
  knit_safe_snprintf(line, sizeof line,
                     "trace: %llu records in %u trace files, %llu events dropped by full buffers, "
                     "%llu short states not kept, %llu records in %u device trace files, "
                     "%llu records not written",
                     (unsigned long long)atomic_load(&total_written), atomic_load(&total_files),
                     (unsigned long long)atomic_load(&total_dropped),
                     (unsigned long long)atomic_load(&total_short),
                     (unsigned long long)atomic_load(&device_written), atomic_load(&device_files),
                     (unsigned long long)atomic_load(&total_lost));
  knit_log_line(line);
}
