/* The profile.proto message of a measurement; see pprof.h for what it
 * holds. The field numbers are those of pprof's published schema
 * (harness/cli/pprof_profile.proto writes them down for the tests). */
#include "report/pprof.h"

#include <elfutils/libdwelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "measure/count.h"
#include "report/metrics.h"
#include "report/pprof_tables.h"
#include "report/symbolize.h"

/* Profile's fields. */
enum {
  PROFILE_SAMPLE_TYPE = 1,
  PROFILE_SAMPLE = 2,
  PROFILE_MAPPING = 3,
  PROFILE_LOCATION = 4,
  PROFILE_FUNCTION = 5,
  PROFILE_STRING_TABLE = 6,
  PROFILE_TIME_NANOS = 9,
  PROFILE_PERIOD_TYPE = 11,
  PROFILE_PERIOD = 12,
  PROFILE_COMMENT = 13,
  PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2 };
enum {
  MAPPING_ID = 1,
  MAPPING_MEMORY_START = 2,
  MAPPING_MEMORY_LIMIT = 3,
  MAPPING_FILENAME = 5,
  MAPPING_BUILD_ID = 6,
  MAPPING_HAS_FUNCTIONS = 7,
  MAPPING_HAS_FILENAMES = 8,
  MAPPING_HAS_LINE_NUMBERS = 9,
  MAPPING_HAS_INLINE_FRAMES = 10,
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4 };

const char *knit_pprof_type_name(const knit_measurement *m, int metric)
{
  if (metric != KNIT_METRIC_SAMPLES)
    return knit_metric_name(m, metric);
  if (strcmp(m->event, "CPUTIME") == 0)
    return "cpu";
  if (strcmp(m->event, "REALTIME") == 0)
    return "wall";
  if (strcmp(m->event, "PROBE") == 0)
    return "probes";
  return knit_metric_name(m, metric);
}

const char *knit_pprof_unit(const knit_measurement *m)
{
  return knit_metric_shows_time(m) ? "nanoseconds" : "count";
}

static int64_t at_most_int64(uint64_t v)
{
  return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* a * b, or UINT64_MAX when that does not fit. */
static uint64_t times(uint64_t a, uint64_t b)
{
  uint64_t product;
  return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

int64_t knit_pprof_value(const knit_measurement *m, int metric, uint64_t stored)
{
  /* Bytes, or the device's nanoseconds: as stored. */
  if (KNIT_METRIC_IS_DEVICE(metric))
    return at_most_int64(stored);
  int time = knit_metric_shows_time(m);
  if (metric == KNIT_METRIC_SAMPLES)
    return at_most_int64(time ? times(stored, m->period) : stored);
  /* Milli-periods: whole periods, then the rest, so that neither part
   * overflows before the sum does. */
  uint64_t periods = stored / KNIT_BLAME_SCALE, rest = stored % KNIT_BLAME_SCALE;
  if (!time)
    return at_most_int64(periods + (rest * 2 >= KNIT_BLAME_SCALE));
  uint64_t whole = times(periods, m->period);
  uint64_t part = times(rest, m->period) / KNIT_BLAME_SCALE;
  int saturated = 0;
  return at_most_int64(knit_count_add(whole, part, &saturated));
}

typedef struct line_record {
  uint32_t function_id;
  unsigned line;
} line_record;

typedef struct location_record {
  uint32_t mapping_id; /* 0: none */
  uint64_t address;
  size_t first_line; /* into the lines */
  size_t line_count;
} location_record;

typedef struct mapping_record {
  int used;
  uint64_t limit; /* one past the highest address of its locations */
  int64_t filename, build_id;
} mapping_record;

/* What the encoding builds before it writes: every table the samples
 * refer to. */
typedef struct pprof_tables {
  const knit_profile *profile;
  knit_pprof_strings strings;
  knit_pprof_ids location_ids; /* (module, kind, offset) */
  knit_pprof_ids function_ids; /* (name, system name, file) as strings */
  location_record *locations;  /* locations[id - 1] */
  line_record *lines;
  size_t line_count, line_cap;
  mapping_record *mappings; /* one per module of the tree; id: index + 1 */
  uint32_t *node_location;  /* each node's location id, 0 until known */
  int metric_count;         /* sample types: the host metrics, and the device
                               ones when a node has one (metrics.h) */
  int failed;
} pprof_tables;

/* The tree's total of each metric, for knit_metric_count_shown. */
static int metric_count(const knit_report_tree *tree)
{
  uint64_t totals[KNIT_METRIC_COUNT] = {0};
  for (size_t i = 0; i < tree->node_count; i++)
    for (int metric = KNIT_METRIC_HOST_COUNT; metric < KNIT_METRIC_COUNT; metric++)
      totals[metric] |= tree->nodes[i].exclusive[metric];
  return knit_metric_count_shown(totals);
}

static int64_t string_of(pprof_tables *t, const char *s)
{
  int64_t index = knit_pprof_string(&t->strings, s);
  if (index < 0) {
    t->failed = 1;
    return 0;
  }
  return index;
}

static uint32_t function_of(pprof_tables *t, const char *name, const char *raw, const char *file)
{
  uint64_t key[3] = {(uint64_t)string_of(t, name), (uint64_t)string_of(t, raw ? raw : name),
                     (uint64_t)string_of(t, file)};
  int added;
  uint32_t id = knit_pprof_id(&t->function_ids, key, &added);
  if (id == 0)
    t->failed = 1;
  return id;
}

static void add_line(pprof_tables *t, uint32_t function_id, unsigned line)
{
  if (t->line_count == t->line_cap) {
    size_t cap = t->line_cap ? t->line_cap * 2 : 256;
    line_record *lines = realloc(t->lines, cap * sizeof *lines);
    if (lines == NULL) {
      t->failed = 1;
      return;
    }
    t->lines = lines;
    t->line_cap = cap;
  }
  t->lines[t->line_count++] = (line_record){function_id, line};
}

/* The lines of node n, innermost first: each inlined call (loops are no
 * functions and are left out) on its line, the innermost on the node's
 * own, each outer one on its call of the next; the symbol's function last,
 * on its call of the outermost inlined one. */
static void add_lines(pprof_tables *t, const knit_report_node *n)
{
  const char *file = n->file;
  unsigned line = n->line;
  for (uint32_t i = n->inlined_count; i-- > 0;) {
    const knit_inline_level *level = &n->inlined[i];
    if (level->loop)
      continue;
    add_line(t, function_of(t, level->function, level->raw_function, file), line);
    file = level->call_file;
    line = level->call_file != NULL ? level->call_line : 0;
  }
  add_line(t, function_of(t, n->function, n->raw_function, file), line);
}

/* The GNU build id of the module file at path in hex, or "" when it has
 * none or cannot be read. */
static int64_t build_id_of(pprof_tables *t, const char *path)
{
  Elf *elf = knit_symbolizer_elf(t->profile->symbolizer, path);
  const void *bytes;
  ssize_t n = elf != NULL ? dwelf_elf_gnu_build_id(elf, &bytes) : -1;
  if (n <= 0 || n > 64)
    return string_of(t, "");
  char hex[129];
  for (ssize_t i = 0; i < n; i++)
    snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)bytes)[i]);
  return string_of(t, hex);
}

static uint32_t location_of(pprof_tables *t, uint32_t node)
{
  if (t->node_location[node] != 0)
    return t->node_location[node];
  const knit_report_tree *tree = &t->profile->tree;
  const knit_report_node *n = &tree->nodes[node];
  uint64_t key[3] = {n->module, n->kind, n->offset};
  int added;
  uint32_t id = knit_pprof_id(&t->location_ids, key, &added);
  if (id == 0) {
    t->failed = 1;
    return 0;
  }
  t->node_location[node] = id;
  if (!added)
    return id;
  location_record *locations = realloc(t->locations, id * sizeof *locations);
  if (locations == NULL) {
    t->failed = 1;
    return 0;
  }
  t->locations = locations;
  location_record *loc = &locations[id - 1];
  *loc = (location_record){.first_line = t->line_count};
  if (n->module < tree->module_count) {
    mapping_record *map = &t->mappings[n->module];
    if (!map->used) {
      map->used = 1;
      /* Its printable form, as every other string here: pprof prints
       * them to terminals, and a string field is UTF-8. */
      map->filename =
          string_of(t, knit_symbolizer_keep(t->profile->symbolizer, tree->modules[n->module]));
      map->build_id = build_id_of(t, tree->modules[n->module]);
    }
    if (n->offset >= map->limit)
      map->limit = n->offset + 1;
    loc->mapping_id = n->module + 1;
    loc->address = n->offset;
  } else if (n->module == KNIT_MODULE_UNKNOWN) {
    loc->address = n->offset;
  }
  add_lines(t, n);
  loc->line_count = t->line_count - loc->first_line;
  return id;
}

static int has_value(const knit_report_node *n)
{
  for (int metric = 0; metric < KNIT_METRIC_COUNT; metric++)
    if (n->exclusive[metric] != 0)
      return 1;
  return 0;
}

/* When the run ended, as far as the files tell: knit.log's last write, in
 * nanoseconds since the epoch; 0 (absent) when there is no log. The run's
 * start and so its duration are written nowhere. */
static int64_t end_time(const knit_measurement *m)
{
  char path[PATH_MAX];
  struct stat st;
  if (m->dir == NULL || !m->log_read ||
      snprintf(path, sizeof path, "%s/knit.log", m->dir) >= (int)sizeof path ||
      stat(path, &st) != 0 || st.st_mtim.tv_sec <= 0)
    return 0;
  return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

static void write_value_type(knit_pb *b, uint32_t field, int64_t type, int64_t unit)
{
  size_t mark = knit_pb_begin(b, field);
  knit_pb_int(b, VALUE_TYPE_TYPE, type);
  knit_pb_int(b, VALUE_TYPE_UNIT, unit);
  knit_pb_end(b, mark);
}

/* One sample per node with a value: its locations, innermost first. */
static void write_samples(pprof_tables *t, knit_pb *b)
{
  const knit_report_tree *tree = &t->profile->tree;
  const knit_measurement *m = &t->profile->measurement;
  size_t cap = 64;
  uint64_t *path = malloc(cap * sizeof *path);
  if (path == NULL) {
    t->failed = 1;
    return;
  }
  for (size_t i = 1; i < tree->node_count && !t->failed; i++) {
    const knit_report_node *n = &tree->nodes[i];
    if (!has_value(n))
      continue;
    size_t depth = 0;
    for (uint32_t at = (uint32_t)i; at != 0; at = tree->nodes[at].parent) {
      if (depth == cap) {
        uint64_t *more = realloc(path, 2 * cap * sizeof *path);
        if (more == NULL) {
          t->failed = 1;
          break;
        }
        path = more;
        cap *= 2;
      }
      path[depth++] = location_of(t, at);
    }
    uint64_t values[KNIT_METRIC_COUNT];
    for (int metric = 0; metric < t->metric_count; metric++)
      values[metric] = (uint64_t)knit_pprof_value(m, metric, n->exclusive[metric]);
    size_t mark = knit_pb_begin(b, PROFILE_SAMPLE);
    knit_pb_packed(b, SAMPLE_LOCATION_ID, path, depth);
    knit_pb_packed(b, SAMPLE_VALUE, values, (size_t)t->metric_count);
    knit_pb_end(b, mark);
  }
  free(path);
}

static void write_mappings(const pprof_tables *t, int inline_frames, knit_pb *b)
{
  for (size_t i = 0; i < t->profile->tree.module_count; i++) {
    const mapping_record *map = &t->mappings[i];
    if (!map->used)
      continue;
    size_t mark = knit_pb_begin(b, PROFILE_MAPPING);
    knit_pb_uint(b, MAPPING_ID, i + 1);
    knit_pb_uint(b, MAPPING_MEMORY_START, 0);
    knit_pb_uint(b, MAPPING_MEMORY_LIMIT, map->limit);
    knit_pb_int(b, MAPPING_FILENAME, map->filename);
    if (map->build_id != 0)
      knit_pb_int(b, MAPPING_BUILD_ID, map->build_id);
    knit_pb_uint(b, MAPPING_HAS_FUNCTIONS, 1);
    knit_pb_uint(b, MAPPING_HAS_FILENAMES, 1);
    knit_pb_uint(b, MAPPING_HAS_LINE_NUMBERS, 1);
    knit_pb_uint(b, MAPPING_HAS_INLINE_FRAMES, inline_frames != 0);
    knit_pb_end(b, mark);
  }
}

static void write_locations(const pprof_tables *t, knit_pb *b)
{
  for (size_t id = 1; id <= t->location_ids.count; id++) {
    const location_record *loc = &t->locations[id - 1];
    size_t mark = knit_pb_begin(b, PROFILE_LOCATION);
    knit_pb_uint(b, LOCATION_ID, id);
    if (loc->mapping_id != 0)
      knit_pb_uint(b, LOCATION_MAPPING_ID, loc->mapping_id);
    if (loc->address != 0)
      knit_pb_uint(b, LOCATION_ADDRESS, loc->address);
    for (size_t i = 0; i < loc->line_count; i++) {
      const line_record *line = &t->lines[loc->first_line + i];
      size_t line_mark = knit_pb_begin(b, LOCATION_LINE);
      knit_pb_uint(b, LINE_FUNCTION_ID, line->function_id);
      if (line->line != 0)
        knit_pb_int(b, LINE_LINE, line->line);
      knit_pb_end(b, line_mark);
    }
    knit_pb_end(b, mark);
  }
}

static void write_functions(const pprof_tables *t, knit_pb *b)
{
  for (size_t id = 1; id <= t->function_ids.count; id++) {
    const uint64_t *key = t->function_ids.keys[id - 1];
    size_t mark = knit_pb_begin(b, PROFILE_FUNCTION);
    knit_pb_uint(b, FUNCTION_ID, id);
    knit_pb_int(b, FUNCTION_NAME, (int64_t)key[0]);
    knit_pb_int(b, FUNCTION_SYSTEM_NAME, (int64_t)key[1]);
    if (key[2] != 0)
      knit_pb_int(b, FUNCTION_FILENAME, (int64_t)key[2]);
    knit_pb_end(b, mark);
  }
}

int knit_pprof_encode(const knit_profile *p, int inline_frames, knit_pb *out)
{
  const knit_measurement *m = &p->measurement;
  const knit_report_tree *tree = &p->tree;
  pprof_tables t = {.profile = p};
  if (knit_pprof_strings_init(&t.strings) != 0)
    return -1;
  t.mappings = calloc(tree->module_count + 1, sizeof *t.mappings);
  t.node_location = calloc(tree->node_count + 1, sizeof *t.node_location);
  if (t.mappings == NULL || t.node_location == NULL)
    t.failed = 1;

  /* The strings of the header first, so that the small numbers go to the
   * names a reader looks at first. */
  int64_t unit = string_of(&t, knit_pprof_unit(m));
  int64_t types[KNIT_METRIC_COUNT];
  t.metric_count = metric_count(tree);
  for (int metric = 0; metric < t.metric_count; metric++) {
    types[metric] = string_of(&t, knit_pprof_type_name(m, metric));
    /* A device metric has its unit whatever the event's. */
    int64_t own = unit;
    if (KNIT_METRIC_IS_DEVICE(metric))
      own = string_of(&t, strcmp(knit_metric_unit_of(m, metric), "bytes") == 0 ? "bytes"
                                                                               : "nanoseconds");
    write_value_type(out, PROFILE_SAMPLE_TYPE, types[metric], own);
  }
  char event[96], line[160];
  knit_profile_describe_event(p, event, sizeof event);
  snprintf(line, sizeof line, "knit: %s", event);
  uint64_t comments[2] = {(uint64_t)string_of(&t, line), 0};
  size_t comment_count = 1;
  if (m->summary != NULL)
    comments[comment_count++] = (uint64_t)string_of(&t, m->summary);

  if (!t.failed)
    write_samples(&t, out);
  if (!t.failed) {
    write_mappings(&t, inline_frames, out);
    write_locations(&t, out);
    write_functions(&t, out);
    for (size_t i = 0; i < t.strings.count; i++)
      knit_pb_string(out, PROFILE_STRING_TABLE, t.strings.strings[i]);
    int64_t ended = end_time(m);
    if (ended != 0)
      knit_pb_int(out, PROFILE_TIME_NANOS, ended);
    write_value_type(out, PROFILE_PERIOD_TYPE, types[KNIT_METRIC_SAMPLES], unit);
    knit_pb_int(out, PROFILE_PERIOD,
                knit_metric_shows_time(m) ? at_most_int64(m->period) : (int64_t)1);
    knit_pb_packed(out, PROFILE_COMMENT, comments, comment_count);
    knit_pb_int(out, PROFILE_DEFAULT_SAMPLE_TYPE, types[KNIT_METRIC_SAMPLES]);
  }
  int failed = t.failed || out->failed;
  knit_pprof_strings_free(&t.strings);
  knit_pprof_ids_free(&t.location_ids);
  knit_pprof_ids_free(&t.function_ids);
  free(t.locations);
  free(t.lines);
  free(t.mappings);
  free(t.node_location);
  return failed ? -1 : 0;
}
