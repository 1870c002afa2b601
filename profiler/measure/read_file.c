/* Parsing one thread file; see read_file.h.
 *
 * The whole file is in memory, and a cursor walks it. Every read is checked
 * against the bytes that remain, and every count is multiplied out and
 * compared with its section's length before an array of that size is
 * allocated, so a corrupt count gives an error, never a huge allocation. */
#include "measure/read_file.h"

#include "measure/count.h"
#include "measure/read_byte_order.h"
#include "measure/read_whole_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(knit_file_header) == 72, "file header layout");
_Static_assert(sizeof(knit_section_header) == 16, "section header layout");
_Static_assert(sizeof(knit_node_record) == 24, "node record layout");
_Static_assert(sizeof(knit_metric_record) == 16, "metric record layout");
_Static_assert(sizeof(knit_stat_record) == 16, "stat record layout");
_Static_assert(sizeof(knit_steps_record) == 32, "steps record layout");

/* Bytes of one MODULES entry before its path. */
#define MODULE_ENTRY_FIXED 16u

typedef struct parser {
  const uint8_t *data;
  size_t len;
  char *err;
  size_t errlen;
} parser;

static int fail(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *p, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err, p->errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static uint32_t get_u32(const uint8_t *at)
{
  uint32_t v;
  memcpy(&v, at, sizeof v);
  return v;
}

static uint64_t get_u64(const uint8_t *at)
{
  uint64_t v;
  memcpy(&v, at, sizeof v);
  return v;
}

static const char *section_name(uint32_t tag)
{
  switch (tag) {
  case KNIT_SECTION_END: return "END";
  case KNIT_SECTION_MODULES: return "MODULES";
  case KNIT_SECTION_NODES: return "NODES";
  case KNIT_SECTION_METRICS: return "METRICS";
  case KNIT_SECTION_STATS: return "STATS";
  case KNIT_SECTION_STEPS: return "STEPS";
  default: return "unknown";
  }
}

static int check_header(parser *p, knit_thread_file *out)
{
  if (p->len >= 8 && memcmp(p->data, KNIT_FILE_MAGIC, 8) != 0)
    return fail(p, "not a knit measurement file (bad magic)");
  if (p->len < sizeof(knit_file_header))
    return fail(p, "truncated: %zu bytes, too short for the %zu-byte file header", p->len,
                sizeof(knit_file_header));
  memcpy(&out->header, p->data, sizeof out->header);
  const knit_file_header *h = &out->header;
  if (h->byte_order != KNIT_BYTE_ORDER_MARK)
    return fail(p, "bad byte-order mark 0x%08x", h->byte_order);
  if (h->version != KNIT_FILE_VERSION)
    return fail(p, "format version %u; this knit reads version %u", h->version, KNIT_FILE_VERSION);
  memcpy(out->event, h->event, sizeof h->event);
  out->event[sizeof h->event] = '\0';
  return 0;
}

/* Reads the count that opens a table section and checks that count records
 * of record_size bytes fit in the section. */
static int table_count(parser *p, const char *what, const uint8_t *body, uint64_t length,
                       uint64_t record_size, uint32_t *count)
{
  *count = 0;
  if (length < 4)
    return fail(p, "%s section of %llu bytes has no room for its count", what,
                (unsigned long long)length);
  *count = get_u32(body);
  /* A u32 times a small record size cannot overflow 64 bits. */
  if ((uint64_t)*count * record_size > length - 4)
    return fail(p, "%s count %u needs %llu bytes, but the section holds %llu", what, *count,
                (unsigned long long)((uint64_t)*count * record_size),
                (unsigned long long)(length - 4));
  return 0;
}

/* Module ids sorted, for looking nodes' module ids up. */
typedef struct module_ref {
  uint32_t id;
  uint32_t index;
} module_ref;

static int compare_module_ref(const void *a, const void *b)
{
  const module_ref *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

static module_ref *sorted_modules(const knit_thread_file *f)
{
  module_ref *refs = malloc((f->module_count ? f->module_count : 1) * sizeof *refs);
  if (refs == NULL)
    return NULL;
  for (size_t i = 0; i < f->module_count; i++)
    refs[i] = (module_ref){.id = f->modules[i].id, .index = (uint32_t)i};
  qsort(refs, f->module_count, sizeof *refs, compare_module_ref);
  return refs;
}

static long find_module(const module_ref *refs, size_t n, uint32_t id)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (refs[mid].id == id)
      return (long)refs[mid].index;
    if (refs[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

static int parse_modules(parser *p, const uint8_t *body, uint64_t length, knit_thread_file *out)
{
  uint32_t count;
  if (table_count(p, "MODULES", body, length, MODULE_ENTRY_FIXED, &count) != 0)
    return -1;
  out->modules = calloc(count ? count : 1, sizeof *out->modules);
  if (out->modules == NULL)
    return fail(p, "out of memory");
  uint64_t at = 4;
  for (uint32_t i = 0; i < count; i++) {
    if (length - at < MODULE_ENTRY_FIXED)
      return fail(p, "MODULES entry %u is cut off at the end of its section", i);
    uint32_t id = get_u32(body + at);
    uint32_t path_len = get_u32(body + at + 4);
    uint64_t base = get_u64(body + at + 8);
    at += MODULE_ENTRY_FIXED;
    if (path_len > length - at)
      return fail(p, "MODULES entry %u: path of %u bytes runs past its section", i, path_len);
    if (id == KNIT_MODULE_PLACEHOLDER || id == KNIT_MODULE_UNKNOWN)
      return fail(p, "MODULES entry %u uses the reserved id 0x%x", i, id);
    char *path = malloc((size_t)path_len + 1);
    if (path == NULL)
      return fail(p, "out of memory");
    memcpy(path, body + at, path_len);
    path[path_len] = '\0';
    at += path_len;
    out->modules[i] = (knit_read_module){.id = id, .base = base, .path = path};
    out->module_count = i + 1;
  }
  module_ref *by_id = sorted_modules(out);
  if (by_id == NULL)
    return fail(p, "out of memory");
  for (size_t i = 1; i < out->module_count; i++) {
    if (by_id[i].id == by_id[i - 1].id) {
      uint32_t id = by_id[i].id;
      free(by_id);
      return fail(p, "MODULES lists module id %u twice", id);
    }
  }
  free(by_id);
  return 0;
}

static int compare_node_id(const void *a, const void *b)
{
  const knit_node_record *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* The index of the node with this id among records[0..n), or -1. */
static long find_node(const knit_node_record *records, size_t n, uint32_t id)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (records[mid].id == id)
      return (long)mid;
    if (records[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

static int resolve_nodes(parser *p, const uint8_t *body, uint32_t count, knit_node_record *records,
                         const module_ref *by_id, knit_thread_file *out);

static int parse_nodes(parser *p, const uint8_t *body, uint64_t length, knit_thread_file *out,
                       knit_node_record **records_out)
{
  uint32_t count;
  if (table_count(p, "NODES", body, length, sizeof(knit_node_record), &count) != 0)
    return -1;
  knit_node_record *records = malloc(((size_t)count ? count : 1) * sizeof *records);
  out->nodes = calloc(count ? count : 1, sizeof *out->nodes);
  *records_out = records;
  if (records == NULL || out->nodes == NULL)
    return fail(p, "out of memory");
  module_ref *by_id = sorted_modules(out);
  if (by_id == NULL)
    return fail(p, "out of memory");
  int rc = resolve_nodes(p, body, count, records, by_id, out);
  free(by_id);
  return rc;
}

static int resolve_nodes(parser *p, const uint8_t *body, uint32_t count, knit_node_record *records,
                         const module_ref *by_id, knit_thread_file *out)
{
  memcpy(records, body + 4, (size_t)count * sizeof *records);
  /* The format promises parents before children by id; sorting by id makes
   * the reader independent of the order the writer walked its tree in. */
  qsort(records, count, sizeof *records, compare_node_id);
  for (uint32_t i = 0; i < count; i++) {
    const knit_node_record *r = &records[i];
    if (i > 0 && r->id == records[i - 1].id)
      return fail(p, "NODES lists node id %u twice", r->id);
    long parent;
    if (i == 0) {
      if (r->parent != r->id)
        return fail(p, "the root node %u has parent %u, not itself", r->id, r->parent);
      parent = 0;
    } else {
      if (r->parent >= r->id)
        return fail(p, "node %u has parent %u, which is not smaller than its id", r->id, r->parent);
      parent = find_node(records, i, r->parent);
      if (parent < 0)
        return fail(p, "node %u has parent %u, which is not in the file", r->id, r->parent);
    }
    if (r->kind > KNIT_NODE_PLACEHOLDER)
      return fail(p, "node %u has unknown kind %u", r->id, r->kind);
    uint32_t module = r->module;
    if (module != KNIT_MODULE_PLACEHOLDER && module != KNIT_MODULE_UNKNOWN) {
      long m = find_module(by_id, out->module_count, module);
      if (m < 0)
        return fail(p, "node %u refers to module id %u, which MODULES does not list", r->id,
                    module);
      module = (uint32_t)m;
    }
    out->nodes[i] = (knit_read_node){
        .parent = (uint32_t)parent, .module = module, .kind = r->kind, .offset = r->offset};
  }
  out->node_count = count;
  return 0;
}

static int parse_metrics(parser *p, const uint8_t *body, uint64_t length,
                         const knit_node_record *records, knit_thread_file *out)
{
  uint32_t count;
  if (table_count(p, "METRICS", body, length, sizeof(knit_metric_record), &count) != 0)
    return -1;
  out->metrics = calloc(count ? count : 1, sizeof *out->metrics);
  if (out->metrics == NULL)
    return fail(p, "out of memory");
  for (uint32_t i = 0; i < count; i++) {
    knit_metric_record r;
    memcpy(&r, body + 4 + (size_t)i * sizeof r, sizeof r);
    long node = find_node(records, out->node_count, r.node);
    if (node < 0)
      return fail(p, "metric %u refers to node %u, which NODES does not hold", i, r.node);
    out->metrics[i] =
        (knit_read_metric){.node = (uint32_t)node, .metric = r.metric, .value = r.value};
  }
  out->metric_count = count;
  return 0;
}

static int parse_stats(parser *p, const uint8_t *body, uint64_t length, knit_thread_file *out)
{
  uint32_t count;
  if (table_count(p, "STATS", body, length, sizeof(knit_stat_record), &count) != 0)
    return -1;
  for (uint32_t i = 0; i < count; i++) {
    knit_stat_record r;
    memcpy(&r, body + 4 + (size_t)i * sizeof r, sizeof r);
    /* Statistics added by a later writer are skipped, like unknown sections. */
    if (r.key < KNIT_STAT_COUNT)
      out->stats[r.key] = knit_count_add(out->stats[r.key], r.value, &out->saturated);
  }
  return 0;
}

static int parse_steps(parser *p, const uint8_t *body, uint64_t length, knit_thread_file *out)
{
  uint32_t count;
  if (table_count(p, "STEPS", body, length, sizeof(knit_steps_record), &count) != 0)
    return -1;
  out->steps = calloc(count ? count : 1, sizeof *out->steps);
  if (out->steps == NULL)
    return fail(p, "out of memory");
  module_ref *by_id = sorted_modules(out);
  if (by_id == NULL)
    return fail(p, "out of memory");
  for (uint32_t i = 0; i < count; i++) {
    knit_steps_record r;
    memcpy(&r, body + 4 + (size_t)i * sizeof r, sizeof r);
    uint32_t module = KNIT_MODULE_UNKNOWN;
    if (r.module != KNIT_MODULE_UNKNOWN) {
      long m = find_module(by_id, out->module_count, r.module);
      if (m < 0) {
        free(by_id);
        return fail(p, "STEPS record %u refers to module id %u, which MODULES does not list", i,
                    r.module);
      }
      module = (uint32_t)m;
    }
    out->steps[i] = (knit_read_steps){
        .module = module, .confirmed = r.confirmed, .probable = r.probable, .wrong = r.wrong};
  }
  free(by_id);
  out->step_count = count;
  out->has_steps = 1;
  return 0;
}

/* Walks the sections. METRICS refer to nodes by id, so they are parsed after
 * the walk, once NODES (wherever it is) has been read. */
static int parse_sections(parser *p, knit_thread_file *out)
{
  const uint8_t *seen[KNIT_SECTION_STEPS + 1] = {0};
  uint64_t lengths[KNIT_SECTION_STEPS + 1] = {0};
  size_t at = sizeof(knit_file_header);
  for (;;) {
    if (at == p->len)
      return fail(p, "truncated: the file ends after %zu bytes without an END section", p->len);
    if (p->len - at < sizeof(knit_section_header))
      return fail(p, "truncated: a section header at offset %zu is cut off", at);
    knit_section_header sh;
    memcpy(&sh, p->data + at, sizeof sh);
    at += sizeof sh;
    if (sh.length > p->len - at)
      return fail(p,
                  "truncated: %s section (tag %u) at offset %zu claims %llu bytes, "
                  "only %zu remain",
                  section_name(sh.tag), sh.tag, at - sizeof sh, (unsigned long long)sh.length,
                  p->len - at);
    if (sh.tag == KNIT_SECTION_END)
      break;
    if (sh.tag <= KNIT_SECTION_STEPS) {
      if (seen[sh.tag] != NULL)
        return fail(p, "two %s sections", section_name(sh.tag));
      seen[sh.tag] = p->data + at;
      lengths[sh.tag] = sh.length;
    }
    at += (size_t)sh.length;
  }

  knit_node_record *records = NULL;
  int rc = 0;
  if (seen[KNIT_SECTION_MODULES] != NULL)
    rc = parse_modules(p, seen[KNIT_SECTION_MODULES], lengths[KNIT_SECTION_MODULES], out);
  if (rc == 0 && seen[KNIT_SECTION_NODES] != NULL)
    rc = parse_nodes(p, seen[KNIT_SECTION_NODES], lengths[KNIT_SECTION_NODES], out, &records);
  if (rc == 0 && seen[KNIT_SECTION_METRICS] != NULL)
    rc = parse_metrics(p, seen[KNIT_SECTION_METRICS], lengths[KNIT_SECTION_METRICS], records, out);
  if (rc == 0 && seen[KNIT_SECTION_STATS] != NULL)
    rc = parse_stats(p, seen[KNIT_SECTION_STATS], lengths[KNIT_SECTION_STATS], out);
  if (rc == 0 && seen[KNIT_SECTION_STEPS] != NULL)
    rc = parse_steps(p, seen[KNIT_SECTION_STEPS], lengths[KNIT_SECTION_STEPS], out);
  free(records);
  return rc;
}

void knit_thread_file_free(knit_thread_file *f)
{
  for (size_t i = 0; i < f->module_count; i++)
    free(f->modules[i].path);
  free(f->modules);
  free(f->nodes);
  free(f->metrics);
  free(f->steps);
  free(f->name);
  memset(f, 0, sizeof *f);
}

int knit_thread_file_parse(const uint8_t *data, size_t len, knit_thread_file *out, char *err,
                           size_t errlen)
{
  memset(out, 0, sizeof *out);
  uint8_t *swapped = NULL;
  int other_order = knit_header_other_byte_order(data, len);
  if (other_order) {
    swapped = malloc(len);
    if (swapped == NULL) {
      snprintf(err, errlen, "out of memory for %zu bytes", len);
      return -1;
    }
    memcpy(swapped, data, len);
    knit_thread_file_swap(swapped, len, true);
    data = swapped;
  }
  parser p = {.data = data, .len = len, .err = err, .errlen = errlen};
  int rc = check_header(&p, out) != 0 || parse_sections(&p, out) != 0 ? -1 : 0;
  free(swapped);
  if (rc != 0) {
    knit_thread_file_free(out);
    return -1;
  }
  out->other_byte_order = other_order;
  return 0;
}

int knit_thread_file_read(const char *path, knit_thread_file *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof *out);
  uint8_t *data;
  size_t got;
  if (knit_read_whole_file(path, &data, &got, err, errlen) != 0)
    return -1;
  /* A file that shrank while being read is parsed as what was read, and
   * reported as truncated if it is. */
  int rc = knit_thread_file_parse(data, got, out, err, errlen);
  free(data);
  if (rc == 0) {
    const char *slash = strrchr(path, '/');
    out->name = strdup(slash ? slash + 1 : path);
  }
  return rc;
}
