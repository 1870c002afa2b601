/* Chrome Trace Event JSON of a measurement's traces: see chrome_trace.h.
 *
 * Each thread's events are walked in time order with two pieces of state,
 * the OpenMP states open (a stack) and the sample under way. At every
 * change the slices that should be open (the states, then the sample's
 * frames) are compared with those that are: the common outer part stays
 * open, the rest is closed (written) and the new levels opened. Slices are
 * therefore nested by construction, and equal frames of consecutive samples
 * merge into one slice. */
#include "report/chrome_trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure/short_state.h"
#include "report/folded.h"
#include "report/rows.h"
#include "report/sample_path.h"
#include "report/trace.h"

/* Deeper OpenMP states than this are not drawn (a begin past it is
 * ignored, and its end finds no match). */
#define MAX_STATES 64

typedef struct level {
  const char *name;
  const char *cat; /* "omp" or "sample" */
  uint32_t node;
  uint64_t start_ns;
} level;

typedef struct level_list {
  level *items;
  size_t count, cap;
} level_list;

typedef struct track {
  const knit_profile *p;
  FILE *out;
  uint32_t tid;
  uint64_t origin_ns;
  int *first; /* 1 until the first event of the file is written */
  level_list open, want;
  /* Per node: its frames as the slices name them, made on first use. */
  knit_sample_path chain;
  char ***inline_names; /* per node, "name [inlined]" per level (inline_name) */
} track;

static int push(level_list *l, level v)
{
  if (l->count == l->cap) {
    size_t cap = knit_rows_grown_cap(l->cap);
    if (knit_rows_resize(&l->items, sizeof *l->items, cap) != 0)
      return -1;
    l->cap = cap;
  }
  l->items[l->count++] = v;
  return 0;
}

static void json_string(FILE *out, const char *s)
{
  fputc('"', out);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(out, "\\%c", *c);
    else if (*c < 0x20)
      fprintf(out, "\\u%04x", *c);
    else
      fputc(*c, out);
  }
  fputc('"', out);
}

static void separator(track *k)
{
  if (*k->first)
    *k->first = 0;
  else
    fputs(",\n", k->out);
}

/* ns as microseconds with three decimals, exactly. */
static void put_us(FILE *out, uint64_t ns)
{
  fprintf(out, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

static void write_slice(track *k, const level *l, uint64_t end_ns)
{
  if (end_ns <= l->start_ns)
    return;
  separator(k);
  fputs("{\"name\":", k->out);
  json_string(k->out, l->name);
  fprintf(k->out, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":", l->cat, k->tid);
  put_us(k->out, l->start_ns - k->origin_ns);
  fputs(",\"dur\":", k->out);
  put_us(k->out, end_ns - l->start_ns);
  fprintf(k->out, ",\"args\":{\"node\":%u", l->node);
  const knit_report_node *n = &k->p->tree.nodes[l->node];
  if (strcmp(l->cat, "omp") == 0 && n->file != NULL) {
    fputs(",\"at\":", k->out);
    char at[4200];
    snprintf(at, sizeof at, "%s:%u", n->file, n->line);
    json_string(k->out, at);
  }
  fputs("}}", k->out);
}

static int same_level(const level *a, const level *b)
{
  return a->cat == b->cat && strcmp(a->name, b->name) == 0;
}

/* Makes the open slices those of k->want, at time ns. */
static int apply(track *k, uint64_t ns)
{
  size_t keep = 0;
  while (keep < k->open.count && keep < k->want.count &&
         same_level(&k->open.items[keep], &k->want.items[keep]))
    keep++;
  while (k->open.count > keep)
    write_slice(k, &k->open.items[--k->open.count], ns);
  for (size_t i = keep; i < k->want.count; i++) {
    level v = k->want.items[i];
    v.start_ns = ns;
    if (push(&k->open, v) != 0)
      return -1;
  }
  return 0;
}

static const char *const OMP_CAT = "omp";
static const char *const SAMPLE_CAT = "sample";

/* "name [inlined]" for an inlined call, made once per node and level;
 * a loop's name as it is. */
static const char *inline_name(track *k, uint32_t node, uint32_t index)
{
  const knit_report_node *r = &k->p->tree.nodes[node];
  const knit_inline_level *l = &r->inlined[index];
  if (l->loop)
    return l->function;
  if (k->inline_names[node] == NULL &&
      (k->inline_names[node] = calloc(r->inlined_count, sizeof(char *))) == NULL)
    return NULL;
  char **names = k->inline_names[node];
  if (names[index] == NULL) {
    size_t len = strlen(l->function) + sizeof " [inlined]";
    if ((names[index] = malloc(len)) == NULL)
      return NULL;
    snprintf(names[index], len, "%s [inlined]", l->function);
  }
  return names[index];
}

/* Appends the frames of node's path to k->want, outermost first, from the
 * first the report shows (rule (a) of folded.h). */
static int add_frames(track *k, uint32_t node)
{
  const knit_report_tree *t = &k->p->tree;
  if (knit_sample_path_of(&k->chain, t, node) != 0)
    return -1;
  const uint32_t *ids = k->chain.nodes;
  size_t depth = k->chain.depth;
  int rc = 0;
  for (size_t i = knit_folded_path_start(k->chain.frames, depth); i < depth && rc == 0; i++) {
    const knit_report_node *r = &t->nodes[ids[i]];
    rc = push(&k->want, (level){k->chain.frames[i].function, SAMPLE_CAT, ids[i], 0});
    for (uint32_t l = 0; l < r->inlined_count && rc == 0; l++) {
      const char *name = inline_name(k, ids[i], l);
      rc = name ? push(&k->want, (level){name, SAMPLE_CAT, ids[i], 0}) : -1;
    }
  }
  return rc;
}

typedef struct state {
  uint32_t kind; /* the begin event's kind */
  uint32_t node;
} state;

static const char *state_name(uint32_t begin_kind)
{
  switch (begin_kind) {
  case KNIT_TRACE_PARALLEL_BEGIN: return "parallel region";
  case KNIT_TRACE_BARRIER_BEGIN: return "<omp-barrier>";
  case KNIT_TRACE_IDLE_BEGIN: return "<omp-idle>";
  default: return "<omp-lock-wait>";
  }
}

/* The slices that should be open: the states, then the sample's frames. */
static int build_want(track *k, const state *states, size_t depth, int sampling, uint32_t node)
{
  k->want.count = 0;
  for (size_t i = 0; i < depth; i++)
    if (push(&k->want, (level){state_name(states[i].kind), OMP_CAT, states[i].node, 0}) != 0)
      return -1;
  return sampling ? add_frames(k, node) : 0;
}

/* Marks in skip[] the begin and end of every OpenMP state shorter than
 * shortest_ns (measure/short_state.h), and every state begun inside one:
 * each would cut and open again every frame slice around it (a 54 MB trace
 * of a million tasks made 4 GB of JSON). The recording keeps none that is
 * a begin right before its end (core/trace.c); this still draws the
 * traces recorded before it did, and the short states a sample or another
 * state interrupts, the same way. */
static void mark_short_states(const knit_thread_trace *th, uint64_t shortest_ns, char *skip)
{
  size_t open[MAX_STATES];
  size_t depth = 0;
  for (size_t i = 0; i < th->count; i++) {
    uint32_t kind = th->events[i].kind;
    if (knit_trace_kind_begins_state(kind)) {
      if (depth < MAX_STATES)
        open[depth++] = i;
    } else if (knit_trace_kind_ends_state(kind)) {
      for (size_t d = depth; d > 0; d--) {
        size_t b = open[d - 1];
        if (th->events[b].kind != kind - 1)
          continue;
        if (th->events[i].time_ns - th->events[b].time_ns < shortest_ns) {
          for (size_t j = b; j <= i; j++)
            if (knit_trace_kind_begins_state(th->events[j].kind) ||
                knit_trace_kind_ends_state(th->events[j].kind))
              skip[j] = 1;
        }
        depth = d - 1;
        break;
      }
    }
  }
}

static int write_thread(track *k, const knit_thread_trace *th, uint64_t sample_ns,
                        uint64_t shortest_ns)
{
  state states[MAX_STATES];
  size_t depth = 0;
  int sampling = 0;
  uint32_t sample_node = 0;
  uint64_t sample_until = 0, last_ns = 0;
  char *skip = calloc(th->count ? th->count : 1, 1);
  if (skip == NULL)
    return -1;
  mark_short_states(th, shortest_ns, skip);
  for (size_t i = 0; i < th->count; i++) {
    const knit_trace_event *e = &th->events[i];
    if (skip[i])
      continue;
    if (sampling && sample_until <= e->time_ns) {
      sampling = 0;
      if (build_want(k, states, depth, 0, 0) != 0 || apply(k, sample_until) != 0) {
        free(skip);
        return -1;
      }
    }
    switch (e->kind) {
    case KNIT_TRACE_SAMPLE:
      sampling = 1;
      sample_node = e->node;
      sample_until = e->time_ns + sample_ns;
      break;
    case KNIT_TRACE_PARALLEL_BEGIN:
    case KNIT_TRACE_BARRIER_BEGIN:
    case KNIT_TRACE_IDLE_BEGIN:
    case KNIT_TRACE_LOCK_WAIT_BEGIN:
      if (depth < MAX_STATES)
        states[depth++] = (state){e->kind, e->node};
      break;
    default: {
      /* An end closes its state and the states begun inside it; an end
       * without a begin (one lost to a full buffer) closes nothing. */
      uint32_t begin = e->kind - 1;
      for (size_t d = depth; d > 0; d--)
        if (states[d - 1].kind == begin) {
          depth = d - 1;
          break;
        }
    }
    }
    if (build_want(k, states, depth, sampling, sample_node) != 0 || apply(k, e->time_ns) != 0) {
      free(skip);
      return -1;
    }
    last_ns = e->time_ns;
  }
  free(skip);
  uint64_t end_ns = sampling && sample_until > last_ns ? sample_until : last_ns;
  k->want.count = 0;
  return apply(k, end_ns);
}

static const char *thread_role(uint32_t flags)
{
  if (flags & KNIT_THREAD_MAIN)
    return "main";
  if (flags & KNIT_THREAD_OPENMP)
    return "openmp";
  if (flags & KNIT_THREAD_RUNTIME)
    return "runtime";
  return "pthread";
}

/* The tids of the device tracks start past every thread's tid, so that no
 * thread has one. */
static uint32_t device_tid_base(const knit_traces *traces)
{
  uint32_t base = 1;
  for (size_t i = 0; i < traces->count; i++)
    if (traces->threads[i].tid >= base)
      base = traces->threads[i].tid + 1;
  return base;
}

/* The device tracks sort after the threads. */
static uint32_t device_sort_base(const knit_traces *traces)
{
  uint32_t base = 0;
  for (size_t i = 0; i < traces->count; i++)
    if (traces->threads[i].thread_index >= base)
      base = traces->threads[i].thread_index + 1;
  return base;
}

/* "device N (NAME)", NAME as the measurement's devices line gives it
 * (knit.log's "device N (TYPE)"), or "device N" without one. */
static void device_track_name(const knit_profile *p, uint32_t device_num, char *out, size_t n)
{
  char key[32];
  snprintf(key, sizeof key, "device %u (", device_num);
  const char *list = p->measurement.devices;
  for (const char *at = list ? strstr(list, key) : NULL; at != NULL; at = strstr(at + 1, key)) {
    if (at != list && at[-1] != ' ')
      continue;
    const char *close = strchr(at, ')');
    if (close != NULL) {
      snprintf(out, n, "%.*s", (int)(close + 1 - at), at);
      return;
    }
  }
  snprintf(out, n, "device %u", device_num);
}

static void write_device_metadata(const knit_profile *p, const knit_traces *traces, FILE *out)
{
  uint32_t tid = device_tid_base(traces), sort = device_sort_base(traces);
  for (size_t i = 0; i < traces->device_count; i++) {
    uint32_t num = traces->devices[i].device_num;
    char name[200];
    device_track_name(p, num, name, sizeof name);
    fprintf(out,
            ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"args\":{\"name\":",
            tid + num);
    json_string(out, name);
    fprintf(out,
            "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
            "\"args\":{\"sort_index\":%u}}",
            tid + num, sort + num);
  }
}

/* bytes as "64 KiB", "1.5 MiB", "100 B": one decimal when not whole. */
static void format_bytes(uint64_t bytes, char *out, size_t n)
{
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned u = 0;
  uint64_t scale = 1;
  while (u + 1 < sizeof units / sizeof units[0] && bytes >= scale * 1024)
    scale *= 1024, u++;
  uint64_t tenths = (bytes * 10 + scale / 2) / scale;
  if (tenths % 10 == 0)
    snprintf(out, n, "%llu %s", (unsigned long long)(tenths / 10), units[u]);
  else
    snprintf(out, n, "%llu.%llu %s", (unsigned long long)(tenths / 10),
             (unsigned long long)(tenths % 10), units[u]);
}

/* The line of the target construct whose node is node: the call that
 * launched it, which the report names it by. */
static const knit_report_node *construct_line(const knit_profile *p, uint32_t node)
{
  const knit_report_node *n = &p->tree.nodes[node];
  if (n->file == NULL && node != 0)
    n = &p->tree.nodes[n->parent];
  return n->file != NULL ? n : NULL;
}

static void write_device_slices(const knit_profile *p, const knit_traces *traces, FILE *out,
                                int *first)
{
  uint32_t tid = device_tid_base(traces);
  for (size_t i = 0; i < traces->device_count; i++) {
    const knit_device_trace *dt = &traces->devices[i];
    for (size_t j = 0; j < dt->count; j++) {
      const knit_device_slice *sl = &dt->slices[j];
      char name[64], size[32];
      if (sl->kind == KNIT_TRACE_DEVICE_TO_DEVICE || sl->kind == KNIT_TRACE_DEVICE_FROM_DEVICE) {
        format_bytes(sl->bytes, size, sizeof size);
        snprintf(name, sizeof name, "%s %s", knit_device_kind_name(sl->kind), size);
      } else {
        snprintf(name, sizeof name, "%s", knit_device_kind_name(sl->kind));
      }
      if (*first)
        *first = 0;
      else
        fputs(",\n", out);
      fputs("{\"name\":", out);
      json_string(out, name);
      fprintf(out, ",\"cat\":\"device\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":",
              tid + dt->device_num);
      put_us(out, sl->start_ns - traces->begin_ns);
      fputs(",\"dur\":", out);
      put_us(out, sl->end_ns - sl->start_ns);
      fprintf(out, ",\"args\":{\"node\":%u", sl->node);
      const knit_report_node *at = construct_line(p, sl->node);
      if (at != NULL) {
        char where[4200];
        snprintf(where, sizeof where, "%s:%u", at->file, at->line);
        fputs(",\"at\":", out);
        json_string(out, where);
      }
      fprintf(out, ",\"bytes\":%llu}}", (unsigned long long)sl->bytes);
    }
  }
}

static void write_metadata(const knit_profile *p, const knit_traces *traces, FILE *out, int *first)
{
  const char *program = "program";
  const knit_report_tree *t = &p->tree;
  /* The program: the module of main's frame, as the tree names modules. */
  for (size_t i = 1; i < t->node_count; i++)
    if (t->nodes[i].function && strcmp(t->nodes[i].function, "main") == 0 &&
        knit_report_node_module(t, &t->nodes[i])) {
      const char *path = knit_report_node_module(t, &t->nodes[i]);
      const char *slash = strrchr(path, '/');
      program = slash ? slash + 1 : path;
      break;
    }
  fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":", out);
  json_string(out, program);
  fputs("}}", out);
  *first = 0;
  for (size_t i = 0; i < traces->count; i++) {
    const knit_thread_trace *th = &traces->threads[i];
    char name[160];
    if (th->dropped > 0)
      snprintf(name, sizeof name, "thread %u (%s, %llu events dropped)", th->thread_index,
               thread_role(th->thread_flags), (unsigned long long)th->dropped);
    else
      snprintf(name, sizeof name, "thread %u (%s)", th->thread_index,
               thread_role(th->thread_flags));
    fprintf(out,
            ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"args\":{\"name\":",
            th->tid);
    json_string(out, name);
    fprintf(out,
            "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
            "\"args\":{\"sort_index\":%u}}",
            th->tid, th->thread_index);
  }
  write_device_metadata(p, traces, out);
}

int knit_chrome_trace_write(const knit_profile *p, FILE *out, FILE *diag)
{
  knit_traces traces;
  int rc = knit_profile_read_traces(p, &traces, diag);
  if (rc == 1) {
    fprintf(diag,
            "knit: error: %s has no traces (trace-*.knit): record with `knit record -t` for "
            "a timeline\n",
            p->measurement.dir);
    return 1;
  }
  if (rc != 0)
    return -1;
  for (size_t i = 0; i < traces.count; i++)
    if (traces.threads[i].dropped > 0)
      fprintf(diag,
              "knit: warning: thread %u dropped %llu trace events: its buffer was full (the "
              "timeline has gaps)\n",
              traces.threads[i].thread_index, (unsigned long long)traces.threads[i].dropped);
  uint64_t sample_ns = p->measurement.period ? p->measurement.period : KNIT_PROBE_SAMPLE_NS;
  uint64_t shortest_ns = knit_short_state_ns(p->measurement.period);
  int first = 1;
  fputs("{\"traceEvents\":[\n", out);
  write_metadata(p, &traces, out, &first);
  track k = {.p = p, .out = out, .origin_ns = traces.begin_ns, .first = &first};
  k.inline_names = calloc(p->tree.node_count, sizeof *k.inline_names);
  rc = k.inline_names ? 0 : -1;
  for (size_t i = 0; i < traces.count && rc == 0; i++) {
    k.tid = traces.threads[i].tid;
    k.open.count = 0;
    rc = write_thread(&k, &traces.threads[i], sample_ns, shortest_ns);
  }
  if (rc == 0)
    write_device_slices(p, &traces, out, &first);
  fputs("\n],\"displayTimeUnit\":\"ms\"}\n", out);
  free(k.open.items);
  free(k.want.items);
  knit_sample_path_free(&k.chain);
  for (size_t i = 0; k.inline_names && i < p->tree.node_count; i++) {
    for (uint32_t l = 0; k.inline_names[i] && l < p->tree.nodes[i].inlined_count; l++)
      free(k.inline_names[i][l]);
    free(k.inline_names[i]);
  }
  free(k.inline_names);
  knit_traces_free(&traces);
  if (rc != 0) {
    fprintf(diag, "knit: error: out of memory writing the trace\n");
    return -1;
  }
  return 0;
}
