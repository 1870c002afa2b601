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

const char *knit_device_kind_name(uint32_t kind)
{
  switch (kind) {
  case KNIT_TRACE_DEVICE_KERNEL: return "kernel";
  case KNIT_TRACE_DEVICE_TO_DEVICE: return "to device";
  case KNIT_TRACE_DEVICE_FROM_DEVICE: return "from device";
  case KNIT_TRACE_DEVICE_ALLOC: return "alloc";
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
  if (count > 1)
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

/* The merged tree's node of node in the tree of the thread of index
 * thread_index; maps[i] is the map of the measurement's thread file i,
 * made at its first use. UINT32_MAX when the thread or the node is not
 * known; the root when a filter left the node out. */
static uint32_t device_node(const knit_profile *p, uint32_t **maps, uint32_t thread_index,
                            uint32_t node, int *failed)
{
  const knit_measurement *m = &p->measurement;
  for (size_t i = 0; i < m->thread_count; i++) {
    const knit_thread_file *tf = &m->threads[i];
    if (tf->header.thread_index != thread_index)
      continue;
    if (node >= tf->node_count)
      return UINT32_MAX;
    if (maps[i] == NULL) {
      maps[i] = malloc(tf->node_count * sizeof *maps[i]);
      if (maps[i] == NULL || knit_report_tree_map_thread(&p->tree, tf, maps[i]) != 0) {
        *failed = 1;
        return UINT32_MAX;
      }
    }
    return maps[i][node] == UINT32_MAX ? 0 : maps[i][node];
  }
  return UINT32_MAX;
}

static int compare_slices(const void *a, const void *b)
{
  const knit_device_slice *x = a, *y = b;
  if (x->start_ns != y->start_ns)
    return x->start_ns < y->start_ns ? -1 : 1;
  /* An allocation of no time and the copy into it start alike: the
   * shorter first, so that a device's slices stay in the order they ran. */
  if (x->end_ns != y->end_ns)
    return x->end_ns < y->end_ns ? -1 : 1;
  return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* One device's trace file into dt: its groups of three records, mapped to
 * the merged tree. */
static int take_device_file(const knit_profile *p, const knit_trace_file *f, knit_device_trace *dt,
                            const char *dir, FILE *diag)
{
  dt->device_num = f->header.thread_index;
  dt->slices = malloc((f->count / 3 + 1) * sizeof *dt->slices);
  uint32_t **maps = calloc(p->measurement.thread_count + 1, sizeof *maps);
  if (dt->slices == NULL || maps == NULL) {
    free(maps);
    return -1;
  }
  size_t broken = 0, unknown = 0;
  int failed = 0;
  for (size_t i = 0; i < f->count;) {
    const knit_trace_record *r = &f->records[i];
    if (r->kind < KNIT_TRACE_DEVICE_KERNEL || r->kind > KNIT_TRACE_DEVICE_ALLOC ||
        i + 2 >= f->count || r[1].kind != KNIT_TRACE_DEVICE_END ||
        r[2].kind != KNIT_TRACE_DEVICE_BYTES || r[1].time_ns < r->time_ns) {
      broken++;
      i++;
      continue;
    }
    uint32_t node = 0;
    if (r[1].node != UINT32_MAX) {
      node = device_node(p, maps, r[1].node, r->node, &failed);
      if (node == UINT32_MAX) {
        unknown++;
        node = 0;
      }
    }
    dt->slices[dt->count++] =
        (knit_device_slice){r->time_ns, r[1].time_ns, r[2].time_ns, node, r->kind};
    i += 3;
  }
  for (size_t i = 0; i < p->measurement.thread_count; i++)
    free(maps[i]);
  free(maps);
  if (failed)
    return -1;
  if (broken > 0)
    fprintf(diag, "knit: warning: %s/%s: %zu records not in a whole device operation skipped\n",
            dir, f->name, broken);
  if (unknown > 0)
    fprintf(diag,
            "knit: warning: %s/%s: %zu device operations name a thread or node no thread file "
            "has; they are shown at the root\n",
            dir, f->name, unknown);
  if (dt->count > 1)
    qsort(dt->slices, dt->count, sizeof *dt->slices, compare_slices);
  return 0;
}

/* Reads the device trace file name of dir into out's devices. */
static int read_device(const knit_profile *p, knit_traces *out, const char *dir, const char *name,
                       size_t *cap, FILE *diag)
{
  char path[4096], err[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  knit_trace_file f;
  if (knit_trace_file_read(path, &f, err, sizeof err) != 0) {
    fprintf(diag, "knit: warning: %s/%s: %s\n", dir, name, err);
    return 0;
  }
  if (f.torn_bytes > 0 || f.bad_kinds > 0)
    fprintf(diag,
            "knit: warning: %s/%s: %zu torn bytes and %zu records of an unknown kind "
            "skipped\n",
            dir, name, f.torn_bytes, f.bad_kinds);
  if (out->device_count == *cap) {
    size_t grown_cap = *cap ? 2 * *cap : 4;
    knit_device_trace *grown = realloc(out->devices, grown_cap * sizeof *grown);
    if (grown == NULL) {
      knit_trace_file_free(&f);
      return -1;
    }
    out->devices = grown;
    *cap = grown_cap;
  }
  knit_device_trace *dt = &out->devices[out->device_count++];
  memset(dt, 0, sizeof *dt);
  int rc = take_device_file(p, &f, dt, dir, diag);
  knit_trace_file_free(&f);
  return rc;
}

static int compare_devices(const void *a, const void *b)
{
  const knit_device_trace *x = a, *y = b;
  return x->device_num < y->device_num ? -1 : x->device_num > y->device_num;
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
  size_t cap = 0, device_cap = 0;
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    uint32_t index, tid, device;
    if (knit_trace_device_file_name(e->d_name, &device)) {
      rc = read_device(p, out, dir, e->d_name, &device_cap, diag);
      continue;
    }
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
  if (out->device_count > 1)
    qsort(out->devices, out->device_count, sizeof *out->devices, compare_devices);
  for (size_t i = 0; i < out->device_count; i++) {
    const knit_device_trace *dt = &out->devices[i];
    for (size_t j = 0; j < dt->count; j++) {
      if (!any || dt->slices[j].start_ns < out->begin_ns)
        out->begin_ns = dt->slices[j].start_ns;
      if (!any || dt->slices[j].end_ns > out->end_ns)
        out->end_ns = dt->slices[j].end_ns;
      any = 1;
    }
  }
  return 0;
}

void knit_traces_free(knit_traces *t)
{
  for (size_t i = 0; i < t->count; i++)
    free(t->threads[i].events);
  free(t->threads);
  for (size_t i = 0; i < t->device_count; i++)
    free(t->devices[i].slices);
  free(t->devices);
  memset(t, 0, sizeof *t);
}
