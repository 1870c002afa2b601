/* Reading a measurement's traces; see trace.h. */
#include "report/trace.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "measure/read_trace.h"

const char *knit_trace_kind_name(uint32_t kind)
{
  switch (kind) {
  case KNIT_TRACE_SAMPLE: return "sample";
  case KNIT_TRACE_PARALLEL_BEGIN: return "parallel begin";
  case KNIT_TRACE_PARALLEL_END: return "parallel end";
  case KNIT_TRACE_BARRIER_BEGIN: return "barrier begin";
  case KNIT_TRACE_BARRIER_END: return "barrier end";
  case KNIT_TRACE_IDLE_BEGIN: return "idle begin";
  case KNIT_TRACE_IDLE_END: return "idle end";
  case KNIT_TRACE_LOCK_WAIT_BEGIN: return "lock wait begin";
  case KNIT_TRACE_LOCK_WAIT_END: return "lock wait end";
  case KNIT_TRACE_DROPPED: return "dropped";
  default: return "unknown";
  }
}

static const knit_thread_file *thread_file_of(const knit_measurement *m, uint32_t index,
                                              uint32_t tid)
{
  for (size_t i = 0; i < m->thread_count; i++)
    if (m->threads[i].header.thread_index == index && m->threads[i].header.tid == tid)
      return &m->threads[i];
  return NULL;
}

static int compare_events(const void *a, const void *b)
{
  const knit_trace_event *x = a, *y = b;
  if (x->time_ns != y->time_ns)
    return x->time_ns < y->time_ns ? -1 : 1;
  /* Stable: the file's order among events of the same time, which the
   * position kept in node's place during the sort says (sort_events). */
  return x->node < y->node ? -1 : x->node > y->node;
}

/* Sorts events by time, keeping the file's order among equal times: qsort
 * is not stable, so each event's position rides along for the sort. */
static int sort_events(knit_trace_event *events, size_t count)
{
  uint32_t *nodes = malloc((count ? count : 1) * sizeof *nodes);
  if (nodes == NULL)
    return -1;
  for (size_t i = 0; i < count; i++) {
    nodes[i] = events[i].node;
    events[i].node = (uint32_t)i;
  }
  qsort(events, count, sizeof *events, compare_events);
  for (size_t i = 0; i < count; i++)
    events[i].node = nodes[events[i].node];
  free(nodes);
  return 0;
}

/* One trace file's events into th, mapped to the merged tree. */
static int take_file(const knit_profile *p, const knit_trace_file *f, knit_thread_trace *th,
                     const char *dir, FILE *diag)
{
  const knit_thread_file *tf =
      thread_file_of(&p->measurement, f->header.thread_index, f->header.tid);
  th->thread_index = f->header.thread_index;
  th->tid = f->header.tid;
  th->thread_flags = tf ? tf->header.thread_flags : 0;
  uint32_t *map = NULL;
  size_t mapped = tf ? tf->node_count : 0;
  if (mapped > 0) {
    map = malloc(mapped * sizeof *map);
    if (map == NULL || knit_report_tree_map_thread(&p->tree, tf, map) != 0) {
      free(map);
      return -1;
    }
  }
  th->events = malloc((f->count ? f->count : 1) * sizeof *th->events);
  if (th->events == NULL) {
    free(map);
    return -1;
  }
  /* A thread that took no sample has no thread file (core/writer.c), and
   * its transitions name the root: only other nodes need one. */
  size_t unknown = 0;
  for (size_t i = 0; i < f->count; i++) {
    const knit_trace_record *r = &f->records[i];
    if (r->kind == KNIT_TRACE_DROPPED) {
      th->dropped += r->node;
      continue;
    }
    uint32_t node = 0;
    /* A node the merged tree lacks (knit_report_tree_map_thread's
     * UINT32_MAX: a thread file a filter left out) names the root. */
    if (r->node < mapped)
      node = map[r->node] == UINT32_MAX ? 0 : map[r->node];
    else if (r->node != 0)
      unknown++;
    th->events[th->count++] = (knit_trace_event){r->time_ns, node, r->kind};
  }
  free(map);
  if (unknown > 0 && tf == NULL)
    fprintf(diag,
            "knit: warning: %s/%s: no readable thread file of thread %u (tid %u); its %zu "
            "events in the program's code are shown at the root\n",
            dir, f->name, th->thread_index, th->tid, unknown);
  else if (unknown > 0)
    fprintf(diag,
            "knit: warning: %s/%s: %zu events name nodes its thread file does not have; they "
            "are shown at the root\n",
            dir, f->name, unknown);
  return sort_events(th->events, th->count);
}

static int compare_threads(const void *a, const void *b)
{
  const knit_thread_trace *x = a, *y = b;
  if (x->thread_index != y->thread_index)
    return x->thread_index < y->thread_index ? -1 : 1;
  return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int read_all(const knit_profile *p, knit_traces *out, FILE *diag, size_t *found)
{
  const char *dir = p->measurement.dir;
  DIR *d = opendir(dir);
  if (d == NULL) {
    fprintf(diag, "knit: error: cannot open %s\n", dir);
    return -1;
  }
  size_t cap = 0;
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    uint32_t index, tid;
    if (!knit_trace_file_name(e->d_name, &index, &tid))
      continue;
    (*found)++;
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    knit_trace_file f;
    if (knit_trace_file_read(path, &f, err, sizeof err) != 0) {
      fprintf(diag, "knit: warning: %s/%s: %s\n", dir, e->d_name, err);
      continue;
    }
    if (f.torn_bytes > 0)
      fprintf(diag,
              "knit: warning: %s/%s: truncated: %zu bytes of a last record; the %zu whole "
              "records before it are kept\n",
              dir, f.name, f.torn_bytes, f.count + f.bad_kinds);
    if (f.bad_kinds > 0)
      fprintf(diag, "knit: warning: %s/%s: %zu records of an unknown kind skipped\n", dir, f.name,
              f.bad_kinds);
    if (out->count == cap) {
      size_t grown_cap = cap ? 2 * cap : 8;
      knit_thread_trace *grown = realloc(out->threads, grown_cap * sizeof *grown);
      if (grown == NULL) {
        knit_trace_file_free(&f);
        rc = -1;
        break;
      }
      out->threads = grown;
      cap = grown_cap;
    }
    knit_thread_trace *th = &out->threads[out->count++];
    memset(th, 0, sizeof *th);
    if (take_file(p, &f, th, dir, diag) != 0)
      rc = -1;
    knit_trace_file_free(&f);
  }
  closedir(d);
  if (rc != 0)
    fprintf(diag, "knit: error: out of memory reading the traces of %s\n", dir);
  return rc;
}

int knit_profile_read_traces(const knit_profile *p, knit_traces *out, FILE *diag)
{
  memset(out, 0, sizeof *out);
  size_t found = 0;
  if (read_all(p, out, diag, &found) != 0) {
    knit_traces_free(out);
    return -1;
  }
  if (found == 0)
    return 1;
  if (out->count == 0) {
    fprintf(diag, "knit: error: none of the %zu trace files of %s could be read\n", found,
            p->measurement.dir);
    return -1;
  }
  qsort(out->threads, out->count, sizeof *out->threads, compare_threads);
  int any = 0;
  for (size_t i = 0; i < out->count; i++) {
    const knit_thread_trace *th = &out->threads[i];
    if (th->count == 0)
      continue;
    if (!any || th->events[0].time_ns < out->begin_ns)
      out->begin_ns = th->events[0].time_ns;
    if (!any || th->events[th->count - 1].time_ns > out->end_ns)
      out->end_ns = th->events[th->count - 1].time_ns;
    any = 1;
  }
  return 0;
}

void knit_traces_free(knit_traces *t)
{
  for (size_t i = 0; i < t->count; i++)
    free(t->threads[i].events);
  free(t->threads);
  memset(t, 0, sizeof *t);
}
