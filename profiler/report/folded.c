/* Folded stacks and their normalization; the rules are in folded.h. */
#include "report/folded.h"

#include <stdlib.h>
#include <string.h>

#include "measure/count.h"
#include "report/construct_label.h"

static const char OUTLINED[] = "omp.outlined";

static int starts_with(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* clang names outlined bodies ".omp_outlined.[.N]" (up to clang 16) or
 * "name.omp_outlined[.N]" (later); both hold ".omp_outlined". The readable
 * form of the later ones (report/names.h) is "name [omp_outlined...]"; in
 * folded text, where spaces became '_', "name_[omp_outlined...]". */
static int is_clang_outlined(const char *name)
{
  return strstr(name, ".omp_outlined") != NULL || strstr(name, "[omp_outlined") != NULL;
}

static int is_clang_debug_body(const char *name)
{
  return is_clang_outlined(name) && strstr(name, "_debug__") != NULL;
}

/* gcc: "name._omp_fn.N"; readable: "name [omp_fn.N]" (report/names.h). */
static int is_gcc_outlined(const char *name)
{
  return strstr(name, "._omp_fn.") != NULL || strstr(name, "[omp_fn.") != NULL;
}

int knit_folded_is_wrapper(const char *name)
{
  return is_gcc_outlined(name) || is_clang_outlined(name) ||
         starts_with(name, ".omp_task_entry.") || knit_construct_name_kind(name) != 0;
}

const char *knit_folded_frame_name(const char *name)
{
  if (is_gcc_outlined(name) || is_clang_outlined(name) || knit_construct_name_kind(name) != 0)
    return OUTLINED;
  return name;
}

int knit_folded_is_system_module(const char *path)
{
  if (path == NULL)
    return 0;
  const char *slash = strrchr(path, '/');
  const char *base = slash != NULL ? slash + 1 : path;
  return starts_with(base, "libc.so") || starts_with(base, "libc-") ||
         starts_with(base, "libpthread.so") || starts_with(base, "libpthread-") ||
         starts_with(base, "ld-linux") || starts_with(base, "ld64.so") ||
         starts_with(base, "ld.so") || starts_with(base, "ld-2.");
}

/* Appends name to buf at *len, with ';' before it unless first; spaces and
 * ';' in the name become '_'. buf has room (the caller sized it). */
static void append_frame(char *buf, size_t *len, const char *name)
{
  if (*len > 0)
    buf[(*len)++] = ';';
  for (const char *c = name; *c != '\0'; c++)
    buf[(*len)++] = (*c == ' ' || *c == ';' || *c == '\n' || *c == '\t') ? '_' : *c;
  buf[*len] = '\0';
}

static void append_mark(char *buf, size_t *len, const char *mark)
{
  size_t n = strlen(mark);
  memcpy(buf + *len, mark, n + 1);
  *len += n;
}

char *knit_folded_frame_text(const char *name)
{
  const char *folded = knit_folded_frame_name(name);
  char *out = malloc(strlen(folded) + 1);
  if (out == NULL)
    return NULL;
  size_t len = 0;
  append_frame(out, &len, folded);
  return out;
}

size_t knit_folded_path_start(const knit_folded_frame *frames, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!frames[i].inlined && strcmp(frames[i].function, "main") == 0)
      return i;
  size_t start = 0;
  while (start + 1 < n && knit_folded_is_system_module(frames[start].module))
    start++;
  return start;
}

/* The path of frames[0..n) by rule (a), and by rule (b) too when
 * normalize is set. */
static char *fold_path(const knit_folded_frame *frames, size_t n, int normalize)
{
  size_t room = 16;
  for (size_t i = 0; i < n; i++)
    room += strlen(frames[i].function) + 1 + sizeof KNIT_FOLDED_INLINED_MARK;
  char *buf = malloc(room);
  if (buf == NULL)
    return NULL;
  size_t len = 0;
  buf[0] = '\0';

  /* Rule (b), frame by frame, from where rule (a) starts the path. */
  int under_clang_wrapper = 0;
  for (size_t i = knit_folded_path_start(frames, n); i < n; i++) {
    const char *name = frames[i].function;
    if (frames[i].inlined) {
      /* clang -O2 inlines the debug body into its wrapper, which is then
       * the one body, as at -O0; and a task's body into its task entry. */
      if (is_clang_debug_body(name) && under_clang_wrapper)
        continue;
      append_frame(buf, &len, knit_folded_frame_name(name));
      append_mark(buf, &len, KNIT_FOLDED_INLINED_MARK);
      continue;
    }
    if (frames[i].module == NULL && strcmp(name, "ROOT") == 0)
      continue;
    if (!normalize) {
      append_frame(buf, &len, name);
      continue;
    }
    /* A construct's body right under its wrapper (construct_names.h) is
     * one frame with it, as the clang wrappers below are. */
    int construct = knit_construct_name_kind(name);
    if (construct == 2 && under_clang_wrapper) {
      under_clang_wrapper = 0;
      continue;
    }
    if (construct != 0) {
      under_clang_wrapper = construct == 1;
      append_frame(buf, &len, OUTLINED);
      continue;
    }
    if (starts_with(name, ".omp_task_entry.")) {
      under_clang_wrapper = 0;
      continue;
    }
    if (is_clang_debug_body(name) && under_clang_wrapper) {
      under_clang_wrapper = 0;
      continue;
    }
    under_clang_wrapper = is_clang_outlined(name) && !is_clang_debug_body(name);
    append_frame(buf, &len, knit_folded_frame_name(name));
  }
  if (len == 0)
    append_frame(buf, &len, "<empty>");
  return buf;
}

char *knit_folded_normalize(const knit_folded_frame *frames, size_t n)
{
  return fold_path(frames, n, 1);
}

int knit_folded_add(knit_folded *f, const char *path, uint64_t count)
{
  if (f->count == f->cap) {
    size_t cap = f->cap ? 2 * f->cap : 64;
    knit_folded_line *grown = realloc(f->lines, cap * sizeof *grown);
    if (grown == NULL)
      return -1;
    f->lines = grown;
    f->cap = cap;
  }
  char *copy = strdup(path);
  if (copy == NULL)
    return -1;
  f->lines[f->count++] = (knit_folded_line){.path = copy, .count = count};
  f->total = knit_count_add(f->total, count, &f->saturated);
  return 0;
}

static int compare_lines(const void *a, const void *b)
{
  return strcmp(((const knit_folded_line *)a)->path, ((const knit_folded_line *)b)->path);
}

void knit_folded_finish(knit_folded *f)
{
  /* An empty set has no array at all, and qsort's array must not be NULL
   * even for no elements. */
  if (f->count == 0)
    return;
  qsort(f->lines, f->count, sizeof *f->lines, compare_lines);
  size_t out = 0;
  for (size_t i = 0; i < f->count; i++) {
    if (out > 0 && strcmp(f->lines[out - 1].path, f->lines[i].path) == 0) {
      f->lines[out - 1].count =
          knit_count_add(f->lines[out - 1].count, f->lines[i].count, &f->saturated);
      free(f->lines[i].path);
    } else {
      f->lines[out++] = f->lines[i];
    }
  }
  f->count = out;
}

int knit_folded_from_tree(const knit_report_tree *t, knit_folded *out)
{
  return knit_folded_of_metric(t, KNIT_METRIC_SAMPLES, out);
}

/* Every path of the tree as a folded line: normalized by rule (b) or as
 * named, with inlined calls as frames or not. */
static int fold_tree(const knit_report_tree *t, int metric, int normalize, int inlined,
                     knit_folded *out)
{
  memset(out, 0, sizeof *out);
  if (metric < 0 || metric >= KNIT_METRIC_COUNT)
    return -1;
  size_t cap = 64;
  knit_folded_frame *frames = malloc(cap * sizeof *frames);
  if (frames == NULL)
    return -1;
  int rc = 0;
  for (size_t i = 1; i < t->node_count && rc == 0; i++) {
    uint64_t count = t->nodes[i].exclusive[metric];
    if (count == 0)
      continue;
    size_t depth = 0;
    for (size_t j = i; j != 0; j = t->nodes[j].parent)
      depth += 1 + (inlined ? t->nodes[j].inlined_count : 0);
    if (depth > cap) {
      knit_folded_frame *grown = realloc(frames, depth * sizeof *frames);
      if (grown == NULL) {
        rc = -1;
        break;
      }
      frames = grown;
      cap = depth;
    }
    /* Walk up from the node, filling the path from its inner end. */
    size_t k = depth;
    for (size_t j = i; j != 0; j = t->nodes[j].parent) {
      const knit_report_node *n = &t->nodes[j];
      const char *module = knit_report_node_module(t, n);
      for (uint32_t l = inlined ? n->inlined_count : 0; l > 0; l--)
        frames[--k] = (knit_folded_frame){.function = n->inlined[l - 1].function,
                                          .module = module,
                                          .inlined = n->inlined[l - 1].loop ? 0 : 1};
      const char *name = n->function ? n->function : "?";
      /* A construct's name (construct_names.h) says less than its symbol
       * about what the golden form keeps: whether it is a wrapper clang
       * adds, which goes, or a body. */
      if (normalize && n->raw_function != NULL && knit_construct_name_kind(name) != 0)
        name = n->raw_function;
      frames[--k] = (knit_folded_frame){.function = name, .module = module};
    }
    char *path = fold_path(frames, depth, normalize);
    if (path == NULL || knit_folded_add(out, path, count) != 0)
      rc = -1;
    free(path);
  }
  free(frames);
  if (rc == 0)
    knit_folded_finish(out);
  return rc;
}

int knit_folded_of_metric(const knit_report_tree *t, int metric, knit_folded *out)
{
  return fold_tree(t, metric, 1, 0, out);
}

int knit_folded_of_metric_levels(const knit_report_tree *t, int metric, int inlined,
                                 knit_folded *out)
{
  return fold_tree(t, metric, 1, inlined, out);
}

int knit_folded_as_named(const knit_report_tree *t, int metric, int inlined, knit_folded *out)
{
  return fold_tree(t, metric, 0, inlined, out);
}

const knit_folded_line *knit_folded_find(const knit_folded *f, const char *path)
{
  if (f->count == 0)
    return NULL; /* no array to search: bsearch's must not be NULL */
  knit_folded_line key = {.path = (char *)path};
  return bsearch(&key, f->lines, f->count, sizeof *f->lines, compare_lines);
}

void knit_folded_write(const knit_folded *f, FILE *out)
{
  for (size_t i = 0; i < f->count; i++)
    fprintf(out, "%s %llu\n", f->lines[i].path, (unsigned long long)f->lines[i].count);
}

void knit_folded_free(knit_folded *f)
{
  for (size_t i = 0; i < f->count; i++)
    free(f->lines[i].path);
  free(f->lines);
  memset(f, 0, sizeof *f);
}
