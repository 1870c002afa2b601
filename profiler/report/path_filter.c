/* Focus and ignore; see path_filter.h.
 *
 * Whether a node's own frame matches is asked once per node and kept:
 * paths share their prefixes, and regexec is the cost. Which frames of a
 * path count depends on the whole path (whether it reaches main), so each
 * path that ends in a value is walked from its start. */
#include "report/path_filter.h"

#include <stdlib.h>
#include <string.h>

#include "report/folded.h"
#include "report/metrics.h"

enum { UNKNOWN = 0, NO = 1, YES = 2 };

int knit_path_filter_compile(knit_path_filter *f, const char *focus, const char *ignore, char *err,
                             size_t errlen)
{
  memset(f, 0, sizeof *f);
  const char *texts[2] = {focus, ignore};
  const char *names[2] = {"--focus", "--ignore"};
  regex_t *res[2] = {&f->focus_re, &f->ignore_re};
  for (int i = 0; i < 2; i++) {
    if (texts[i] == NULL)
      continue;
    int rc = regcomp(res[i], texts[i], REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char why[200];
      regerror(rc, res[i], why, sizeof why);
      snprintf(err, errlen, "%s=%s: not a regular expression (POSIX extended): %s", names[i],
               texts[i], why);
      if (i == 1 && focus != NULL)
        regfree(&f->focus_re);
      memset(f, 0, sizeof *f);
      return -1;
    }
  }
  f->focus = focus;
  f->ignore = ignore;
  return 0;
}

int knit_path_filter_active(const knit_path_filter *f)
{
  return f->focus != NULL || f->ignore != NULL;
}

static const char *name_of(const knit_report_node *n)
{
  return n->function != NULL ? n->function : "?";
}

/* Whether node n's frame (its function or a level inlined in it) matches
 * re, from the memo when asked before. */
static int frame_matches(const knit_report_tree *t, uint32_t n, const regex_t *re, uint8_t *memo)
{
  if (memo[n] == UNKNOWN) {
    const knit_report_node *node = &t->nodes[n];
    int hit = regexec(re, name_of(node), 0, NULL, 0) == 0;
    for (uint32_t i = 0; !hit && i < node->inlined_count; i++)
      hit = regexec(re, node->inlined[i].function, 0, NULL, 0) == 0;
    memo[n] = hit ? YES : NO;
  }
  return memo[n] == YES;
}

/* Zeroes the values of nodes whose paths the filter drops (keep[n] 0), in
 * the tree and in every thread's metrics. */
static int drop_values(knit_profile *p, const uint8_t *keep)
{
  knit_report_tree *t = &p->tree;
  for (size_t i = 1; i < t->node_count; i++)
    if (!keep[i])
      memset(t->nodes[i].exclusive, 0, sizeof t->nodes[i].exclusive);
  for (size_t k = 0; k < p->measurement.thread_count; k++) {
    knit_thread_file *f = &p->measurement.threads[k];
    if (f->node_count == 0)
      continue;
    uint32_t *map = malloc(f->node_count * sizeof *map);
    if (map == NULL || knit_report_tree_map_thread(t, f, map) != 0) {
      free(map);
      return -1;
    }
    for (size_t r = 0; r < f->metric_count; r++) {
      uint32_t n = map[f->metrics[r].node];
      if (n != UINT32_MAX && !keep[n])
        f->metrics[r].value = 0;
    }
    free(map);
  }
  return 0;
}

int knit_path_filter_apply(knit_path_filter *f, knit_profile *p)
{
  knit_report_tree *t = &p->tree;
  memcpy(f->before, t->nodes[0].inclusive, sizeof f->before);
  if (!knit_path_filter_active(f))
    return 0;
  int rc = -1;
  uint8_t *keep = calloc(t->node_count, 1);
  uint8_t *focus_memo = calloc(t->node_count, 1);
  uint8_t *ignore_memo = calloc(t->node_count, 1);
  uint32_t *path = NULL;
  knit_folded_frame *frames = NULL;
  size_t cap = 0;
  if (keep == NULL || focus_memo == NULL || ignore_memo == NULL)
    goto out;
  for (size_t leaf = 1; leaf < t->node_count; leaf++) {
    int any = 0;
    for (int m = 0; m < KNIT_METRIC_COUNT; m++)
      any |= t->nodes[leaf].exclusive[m] != 0;
    if (!any)
      continue;
    size_t depth = 0;
    for (uint32_t j = (uint32_t)leaf; j != 0; j = t->nodes[j].parent)
      depth++;
    if (depth > cap) {
      uint32_t *grown_path = realloc(path, depth * sizeof *path);
      if (grown_path == NULL)
        goto out;
      path = grown_path;
      knit_folded_frame *grown = realloc(frames, depth * sizeof *frames);
      if (grown == NULL)
        goto out;
      frames = grown;
      cap = depth;
    }
    size_t k = depth;
    for (uint32_t j = (uint32_t)leaf; j != 0; j = t->nodes[j].parent) {
      path[--k] = j;
      frames[k] = (knit_folded_frame){.function = name_of(&t->nodes[j]),
                                      .module = knit_report_node_module(t, &t->nodes[j])};
    }
    int focused = f->focus == NULL, ignored = 0;
    for (k = f->all_frames ? 0 : knit_folded_path_start(frames, depth); k < depth; k++) {
      focused = focused || frame_matches(t, path[k], &f->focus_re, focus_memo);
      ignored =
          ignored || (f->ignore != NULL && frame_matches(t, path[k], &f->ignore_re, ignore_memo));
    }
    keep[leaf] = focused && !ignored;
  }
  if (drop_values(p, keep) != 0 || knit_report_tree_link(t) != 0)
    goto out;
  rc = 0;
out:
  free(keep);
  free(focus_memo);
  free(ignore_memo);
  free(path);
  free(frames);
  return rc;
}

void knit_path_filter_describe(const knit_path_filter *f, const knit_profile *p, FILE *out)
{
  if (!knit_path_filter_active(f))
    return;
  const knit_measurement *m = &p->measurement;
  int metric = KNIT_METRIC_SAMPLES;
  uint64_t before = f->before[metric];
  uint64_t after = p->tree.node_count ? p->tree.nodes[0].inclusive[metric] : 0;
  fputs("filter:", out);
  if (f->focus != NULL)
    fprintf(out, " --focus=%s", f->focus);
  if (f->ignore != NULL)
    fprintf(out, " --ignore=%s", f->ignore);
  char kept[48], all[48];
  knit_metric_format(m, metric, after, kept, sizeof kept);
  knit_metric_format(m, metric, before, all, sizeof all);
  fprintf(out,
          " kept %.1f%% of %s (%s of %s %s); the sample counts above are the whole "
          "measurement's\n",
          before ? 100.0 * (double)after / (double)before : 0.0, knit_metric_name(m, metric), kept,
          all, knit_metric_unit_of(m, metric));
}

void knit_path_filter_free(knit_path_filter *f)
{
  if (f->focus != NULL)
    regfree(&f->focus_re);
  if (f->ignore != NULL)
    regfree(&f->ignore_re);
  memset(f, 0, sizeof *f);
}
