/* Thread files: see writer.h and measure/format.h. */
#include "core/writer.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "core/file_limit.h"
#include "core/late_names.h"
#include "base/safe_format.h"
#include "core/session.h"
#include "core/trace.h"
#include "measure/write_file.h"
#include "ompt/blame.h"
#include "ompt/device.h"
#include "ompt/region_paths.h"
#include "unwind/loadmap.h"

static void put_modules(knit_writer *w)
{
  uint32_t count = knit_loadmap_module_count();
  knit_writer_begin_section(w, KNIT_SECTION_MODULES);
  knit_writer_put_u32(w, count);
  for (uint32_t id = 0; id < count; id++) {
    const knit_module *m = knit_loadmap_module(id);
    uint32_t len = (uint32_t)strlen(m->path);
    knit_writer_put_u32(w, id);
    knit_writer_put_u32(w, len);
    knit_writer_put_u64(w, m->base);
    knit_writer_put(w, m->path, len);
  }
  knit_writer_end_section(w);
}

static void put_tree(knit_writer *w, const knit_cct *cct, const knit_thread *t,
                     const knit_loadmap *names)
{
  knit_writer_begin_section(w, KNIT_SECTION_NODES);
  knit_writer_put_u32(w, cct->count);
  /* A node renamed here may equal a sibling recorded after the map knew
   * its library: the report merges children of the same key (their
   * metrics add up, their subtrees merge), so both are written as they
   * are. */
  for (uint32_t id = 0; id < cct->count; id++) {
    const knit_cct_node *n = knit_cct_node_at(cct, id);
    knit_node_record r;
    memset(&r, 0, sizeof r);
    r.id = id;
    r.parent = n->parent;
    r.module = n->module;
    r.kind = n->kind;
    r.offset = n->offset;
    knit_late_name(names, &r.module, &r.offset);
    knit_writer_put(w, &r, sizeof r);
  }
  knit_writer_end_section(w);

  uint32_t nonzero = 0;
  for (uint32_t id = 0; id < cct->count; id++)
    for (uint32_t m = 0; m < KNIT_METRIC_HOST_COUNT; m++)
      nonzero += knit_cct_node_at(cct, id)->metrics[m] != 0;
  const knit_device_nodes *dn = t->device_nodes;
  uint32_t constructs = dn ? atomic_load_explicit(&dn->count, memory_order_acquire) : 0;
  for (uint32_t i = 0; i < constructs; i++)
    for (uint32_t k = 0; k < KNIT_DEVICE_METRICS; k++)
      nonzero += atomic_load_explicit(&dn->at[i].metrics[k], memory_order_relaxed) != 0;
  knit_writer_begin_section(w, KNIT_SECTION_METRICS);
  knit_writer_put_u32(w, nonzero);
  /* A device's records may be charged meanwhile from another thread
   * (ompt/device.h): values only grow, so the records counted are all
   * still there, and any that became non-zero since are left out. */
  uint32_t written = 0;
  for (uint32_t id = 0; id < cct->count; id++) {
    const knit_cct_node *n = knit_cct_node_at(cct, id);
    for (uint32_t m = 0; m < KNIT_METRIC_HOST_COUNT && written < nonzero; m++) {
      if (!n->metrics[m])
        continue;
      knit_metric_record r = {id, m, n->metrics[m]};
      knit_writer_put(w, &r, sizeof r);
      written++;
    }
  }
  for (uint32_t i = 0; i < constructs; i++) {
    for (uint32_t k = 0; k < KNIT_DEVICE_METRICS && written < nonzero; k++) {
      uint64_t v = atomic_load_explicit(&dn->at[i].metrics[k], memory_order_relaxed);
      if (!v)
        continue;
      knit_metric_record r = {dn->at[i].node, KNIT_METRIC_HOST_COUNT + k, v};
      knit_writer_put(w, &r, sizeof r);
      written++;
    }
  }
  knit_writer_end_section(w);
}

static void put_stats(knit_writer *w, const knit_thread *t)
{
  knit_writer_begin_section(w, KNIT_SECTION_STATS);
  knit_writer_put_u32(w, KNIT_STAT_COUNT);
  /* The devices' statistics are the process's: the main thread's file
   * holds them. */
  bool main_thread = atomic_load(&t->flags) & KNIT_THREAD_MAIN;
  for (uint32_t k = 0; k < KNIT_STAT_COUNT; k++) {
    knit_stat_record r = {k, 0, t->stats[k] + (main_thread ? knit_device_stat((int)k) : 0)};
    knit_writer_put(w, &r, sizeof r);
  }
  knit_writer_end_section(w);
}

static void put_steps(knit_writer *w, const knit_thread *t)
{
  if (!t->steps)
    return;
  uint32_t count = 0;
  for (uint32_t m = 0; m < KNIT_STEP_SLOTS; m++)
    count += (t->steps[m][0] | t->steps[m][1] | t->steps[m][2]) != 0;
  knit_writer_begin_section(w, KNIT_SECTION_STEPS);
  knit_writer_put_u32(w, count);
  for (uint32_t m = 0; m < KNIT_STEP_SLOTS; m++) {
    if ((t->steps[m][0] | t->steps[m][1] | t->steps[m][2]) == 0)
      continue;
    knit_steps_record r = {m < KNIT_MAX_MODULES ? m : KNIT_MODULE_UNKNOWN, 0, t->steps[m][0],
                           t->steps[m][1], t->steps[m][2]};
    knit_writer_put(w, &r, sizeof r);
  }
  knit_writer_end_section(w);
}

static int write_thread_file(knit_thread *t, bool final);

static _Atomic int first_write_error;

void knit_note_write_error(int err)
{
  int none = 0;
  atomic_compare_exchange_strong(&first_write_error, &none, err);
}

int knit_first_write_error(void)
{
  return atomic_load(&first_write_error);
}

const char *knit_errno_name(int err)
{
  /* strerror is not async-signal-safe; the names of what a write can meet. */
  switch (err) {
  case ENOSPC: return "ENOSPC (no space left on the device)";
  case EDQUOT: return "EDQUOT (disk quota exceeded)";
  case EFBIG: return "EFBIG (file too large for the process's limit)";
  case EIO: return "EIO (input/output error)";
  case EROFS: return "EROFS (read-only file system)";
  case EACCES: return "EACCES (permission denied)";
  case EPERM: return "EPERM (operation not permitted)";
  case ENOENT: return "ENOENT (the directory is gone)";
  case ENOTDIR: return "ENOTDIR (not a directory)";
  case ENAMETOOLONG: return "ENAMETOOLONG (path too long)";
  case ENOMEM: return "ENOMEM (out of memory)";
  case EMFILE: return "EMFILE (too many open files)";
  case ENFILE: return "ENFILE (too many open files in the system)";
  default: return "an error";
  }
}

int knit_write_thread(knit_thread *t)
{
  if (atomic_exchange(&t->written, true)) {
    /* Another thread writes this file: a thread exiting (its key
     * destructor) while the session ends. Wait for it, or the process may
     * exit with the file half made and lose the thread's data; bounded, so
     * a writer that never finishes cannot hang the exit. */
    for (int i = 0; i < 2000 && !atomic_load(&t->write_done); i++) {
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
    return atomic_load(&t->write_done) ? atomic_load(&t->write_rc) : -1;
  }
  knit_file_limit_hold hold;
  knit_file_limit_enter(&hold);
  int rc = write_thread_file(t, true);
  knit_file_limit_leave(&hold);
  /* Its trace up to here: the thread takes no more samples. */
  knit_trace_drain(t, true);
  if (rc < 0)
    knit_note_write_error(-rc);
  atomic_store(&t->write_rc, rc);
  atomic_store(&t->write_done, true);
  return rc;
}

/* What a thread's final file settles: samples it still kept, and signals it
 * never took. */
static void settle_thread(knit_thread *t)
{
  /* Samples still kept for a region's path: resolved, or under <partial>
   * (ompt/region_paths.h). written is set, so the thread's handler takes
   * no more samples once this holds it off. */
  int idle = 0;
  if (atomic_compare_exchange_strong(&t->in_handler, &idle, 1)) {
    knit_deferred_flush(t, false, true);
    atomic_store(&t->in_handler, 0);
  }
  /* Signals that came while the thread's code held its state and were
   * never taken as samples (ompt/missed_samples.h) were lost. */
  uint64_t missed = atomic_load(&t->missed_signals);
  t->stats[KNIT_STAT_BLOCKED] += missed - t->taken_signals;
  t->taken_signals = missed;
  t->taken_periods = atomic_load(&t->missed_periods);
}

int knit_snapshot_thread(knit_thread *t)
{
  if (atomic_load(&t->written))
    return 0;
  knit_file_limit_hold hold;
  knit_file_limit_enter(&hold);
  int rc = write_thread_file(t, false);
  knit_file_limit_leave(&hold);
  return rc;
}

static int write_thread_file(knit_thread *t, bool final)
{
  if (!t->cct_ready)
    return -1;
  if (final)
    settle_thread(t);
  /* A thread that took no sample and holds nothing but its tree's root
   * (most threads of a program that starts one per short request) gets no
   * file: each file costs the file system more than the thread's whole
   * measurement is worth. The SUMMARY counts them (empty=). The main
   * thread always has its file, so a measurement is never without one. */
  if (t->cct.count <= 1 && t->stats[KNIT_STAT_SAMPLES] == 0 &&
      !(atomic_load(&t->flags) & KNIT_THREAD_MAIN))
    return KNIT_WRITE_EMPTY;
  knit_file_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, KNIT_FILE_MAGIC, sizeof h.magic);
  h.version = KNIT_FILE_VERSION;
  h.byte_order = KNIT_BYTE_ORDER_MARK;
  h.tid = (uint32_t)t->tid;
  h.thread_index = t->index;
  h.thread_flags = atomic_load(&t->flags);
  /* What no release claimed belongs to no thread: the main thread's file
   * carries it, so that the report can say blame was left over. */
  if (h.thread_flags & KNIT_THREAD_MAIN)
    t->stats[KNIT_STAT_BLAME_UNCLAIMED] = knit_blame_unclaimed();
  h.elf_machine = knit_the_session.isa ? knit_the_session.isa->elf_machine : 0;
  h.period = knit_the_session.event.period_ns;
  const char *ev = knit_event_name(knit_the_session.event.kind);
  memcpy(h.event, ev, strlen(ev));

  char name[64];
  knit_safe_snprintf(name, sizeof name, "thread-%u-%d.knit", t->index, (int)t->tid);
  /* 16 KiB, off the stack: this may run in a crash handler on a program's
   * small alternate stack (measure/write_file.h). */
  knit_writer *w = knit_pages_alloc(sizeof *w);
  if (!w)
    return -ENOMEM;
  int rc = knit_writer_open(w, knit_the_session.output, name, &h);
  if (rc == 0) {
    /* Taken before the modules are listed: every module of a published
     * map was registered before it, so each one it names is listed. */
    const knit_loadmap *names = knit_late_names_map();
    put_modules(w);
    put_tree(w, &t->cct, t, names);
    put_stats(w, t);
    put_steps(w, t);
    rc = knit_writer_close(w);
  }
  knit_pages_free(w);
  return rc;
}
