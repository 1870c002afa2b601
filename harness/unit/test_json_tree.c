/* The JSON tree of `knit report --format=json` (report/json_tree.h) on a
 * small profile built in memory: the nodes in pre-order with their parents,
 * kinds, names by number, raw symbols and values in the shown unit; --min;
 * and valid JSON whatever bytes the names hold (checked by a strict reader
 * of JSON's grammar). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profiler/report/json_tree.h"
#include "profiler/report/json_write.h"

#define EXE     "/usr/bin/app"
#define SRC     "/src/app.c"
/* A symbol no UTF-8 reader takes, with an escape and text that would end
 * an HTML script element. */
#define HOSTILE "wo\xffrk\x1b</script>"

static knit_read_module modules[] = {{.id = 0, .path = EXE}};
static knit_read_node nodes[] = {
    {0, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_ROOT},
    {0, 0, KNIT_NODE_CALL, 0x100},                                         /* 1 main */
    {1, 0, KNIT_NODE_CALL, 0x200},                                         /* 2 compute */
    {2, 0, KNIT_NODE_SAMPLE, 0x300},                                       /* 3 the hostile name */
    {1, KNIT_MODULE_PLACEHOLDER, KNIT_NODE_PLACEHOLDER, KNIT_PH_OMP_IDLE}, /* 4 */
    {1, 0, KNIT_NODE_SAMPLE, 0x204},                                       /* 5 compute itself */
};
/* Probes: 3 in the hostile function, 2 in compute, 1 idle; half a probe of
 * idleness charged to the hostile function (blame is in milli-periods). */
static knit_read_metric metrics[] = {{3, KNIT_METRIC_SAMPLES, 3},
                                     {5, KNIT_METRIC_SAMPLES, 2},
                                     {4, KNIT_METRIC_SAMPLES, 1},
                                     {3, KNIT_METRIC_OMP_IDLE, 500}};

typedef struct fixture {
  knit_profile profile;
  knit_thread_file thread;
  char *text;
  size_t len;
} fixture;

static void name_nodes(knit_report_tree *t)
{
  for (size_t i = 0; i < t->node_count; i++) {
    knit_report_node *n = &t->nodes[i];
    n->function = "ROOT";
    if (n->kind == KNIT_NODE_PLACEHOLDER) {
      if (n->offset == KNIT_PH_OMP_IDLE)
        n->function = "<omp-idle>";
      continue;
    }
    n->file = SRC;
    if (n->offset == 0x100) {
      n->function = "main";
      n->line = 10;
    } else if (n->offset == 0x200 || n->offset == 0x204) {
      n->function = "compute";
      n->raw_function = "_Z7computev";
      n->line = n->offset == 0x200 ? 20 : 21;
    } else {
      n->function = HOSTILE;
      n->line = 30;
    }
  }
}

static fixture *make_fixture(void)
{
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->thread = (knit_thread_file){.name = "thread-0-1.knit",
                                 .module_count = 1,
                                 .modules = modules,
                                 .node_count = sizeof nodes / sizeof nodes[0],
                                 .nodes = nodes,
                                 .metric_count = sizeof metrics / sizeof metrics[0],
                                 .metrics = metrics};
  f->thread.header.thread_flags = KNIT_THREAD_MAIN;
  f->thread.stats[KNIT_STAT_SAMPLES] = 6;
  knit_measurement *m = &f->profile.measurement;
  m->dir = "/m\x1b\xc3";
  m->thread_count = 1;
  m->threads = &f->thread;
  snprintf(m->event, sizeof m->event, "PROBE");
  knit_report_tree *t = &f->profile.tree;
  assert_int_equal(knit_report_tree_init(t), 0);
  assert_int_equal(knit_report_tree_add_thread(t, &f->thread), 0);
  name_nodes(t);
  assert_int_equal(knit_report_tree_link(t), 0);
  return f;
}

static void free_fixture(fixture *f)
{
  knit_report_tree_free(&f->profile.tree);
  free(f->text);
  free(f);
}

static char *render(fixture *f, double min_percent)
{
  knit_calltree_options o = {.sort = KNIT_SORT_INCLUSIVE};
  free(f->text);
  f->text = NULL;
  FILE *out = open_memstream(&f->text, &f->len);
  assert_non_null(out);
  assert_int_equal(knit_json_tree_write(&f->profile, &o, min_percent, out, stderr), 0);
  fclose(out);
  return f->text;
}

/* A strict reader of JSON (RFC 8259): returns the text after one value, or
 * NULL where the text is no JSON. */
static const char *value(const char *p);

static const char *space(const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return p;
}

static const char *string(const char *p)
{
  if (*p++ != '"')
    return NULL;
  while (*p != '"') {
    unsigned char c = (unsigned char)*p;
    if (c < 0x20)
      return NULL;
    if (c == '\\') {
      p++;
      if (*p == 'u') {
        for (int i = 1; i <= 4; i++)
          if (strchr("0123456789abcdefABCDEF", p[i]) == NULL || p[i] == '\0')
            return NULL;
        p += 5;
      } else if (*p != '\0' && strchr("\"\\/bfnrt", *p) != NULL) {
        p++;
      } else {
        return NULL;
      }
    } else {
      size_t n = knit_utf8_sequence((const unsigned char *)p, strlen(p));
      if (n == 0)
        return NULL;
      p += n;
    }
  }
  return p + 1;
}

static const char *number(const char *p)
{
  if (*p == '-')
    p++;
  if (*p == '0')
    p++;
  else if (*p >= '1' && *p <= '9')
    while (*p >= '0' && *p <= '9')
      p++;
  else
    return NULL;
  if (*p == '.') {
    if (*++p < '0' || *p > '9')
      return NULL;
    while (*p >= '0' && *p <= '9')
      p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-')
      p++;
    if (*p < '0' || *p > '9')
      return NULL;
    while (*p >= '0' && *p <= '9')
      p++;
  }
  return p;
}

static const char *members(const char *p, char close, int keyed)
{
  p = space(p + 1);
  if (*p == close)
    return p + 1;
  for (;;) {
    if (keyed) {
      if ((p = string(space(p))) == NULL)
        return NULL;
      p = space(p);
      if (*p++ != ':')
        return NULL;
    }
    if ((p = value(p)) == NULL)
      return NULL;
    p = space(p);
    if (*p == close)
      return p + 1;
    if (*p++ != ',')
      return NULL;
  }
}

static const char *value(const char *p)
{
  p = space(p);
  switch (*p) {
  case '{': return members(p, '}', 1);
  case '[': return members(p, ']', 0);
  case '"': return string(p);
  case 't': return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
  case 'f': return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
  case 'n': return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
  default: return number(p);
  }
}

static void assert_json(const char *text)
{
  const char *end = value(text);
  if (end == NULL || *space(end) != '\0')
    fail_msg("not one JSON value:\n%s", text);
}

static void assert_has(const char *text, const char *part)
{
  if (strstr(text, part) == NULL) {
    fprintf(stderr, "%s\n", text);
    fail_msg("no \"%s\" in the text above", part);
  }
}

static void test_reader_refuses_bad_json(void **state)
{
  (void)state;
  /* The reader itself: without this it could pass anything. */
  assert_non_null(value("{\"a\":[1,-2.5e3,\"\\u00e9\",true,null]}"));
  assert_null(value("{\"a\":[1,]}"));
  assert_null(value("\"raw\x1b\""));
  assert_null(value("\"\xff\""));
  assert_null(value("[01]"));
}

static void test_nodes_in_preorder(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  const char *text = render(f, 0);
  assert_json(text);
  assert_has(text,
             "\"event\":\"PROBE\",\"event_text\":\"PROBE\",\"period_ns\":0,\"unit\":\"probes\","
             "\"samples\":6,\"periods\":6,\"threads\":1,");
  assert_has(text, "{\"name\":\"PROBE\",\"unit\":\"probes\",\"description\":");
  assert_has(text, "\"total\":6}");
  assert_has(text, "{\"name\":\"OMP_IDLE\",");
  assert_has(text, "\"total\":0.5}");
  /* Node by node, parents before children, children by inclusive value;
   * strings numbered as first used. */
  assert_has(text, "\"nodes\":[\n"
                   "[-1,\"root\",0,-1,-1,-1,0,0,1,[6,0,0.5,0,0,0,0,0]],\n"
                   "[0,\"function\",1,-1,2,3,10,0,1,[6,0,0.5,0,0,0,0,0]],\n"
                   "[1,\"function\",4,5,2,3,20,1,1,[5,2,0.5,0,0,0,0,0]],\n"
                   "[2,\"function\",6,-1,2,3,30,0,1,[3,3,0.5,0.5,0,0,0,0]],\n"
                   "[1,\"placeholder\",7,-1,-1,-1,0,0,1,[1,1,0,0,0,0,0,0]]],\n");
  assert_has(text, "\"strings\":[\n\"\\u003croot\\u003e\",\n\"main\",\n\"" EXE "\",\n\"" SRC
                   "\",\n\"compute\",\n\"_Z7computev\",\n"
                   "\"wo\\ufffdrk\\u001b\\u003c/script\\u003e\",\n\"\\u003comp-idle\\u003e\"]}");
  assert_has(text, "\"dir\":\"/m\\u001b\\ufffd\"");
  free_fixture(f);
}

static void test_min_leaves_out_subtrees(void **state)
{
  (void)state;
  fixture *f = make_fixture();
  /* 20% of 6 probes: the idle probe (17%) goes, the rest stays. */
  const char *text = render(f, 20);
  assert_json(text);
  assert_has(text, "\"min_percent\":20}");
  assert_null(strstr(text, "\"placeholder\""));
  assert_has(text, "[2,\"function\",6,-1,2,3,30,0,1,[3,3,0.5,0.5,0,0,0,0]]],\n\"strings\"");
  /* 100%: main alone holds every probe and stays, with the root's totals. */
  text = render(f, 100.0);
  assert_json(text);
  assert_has(text, "\"nodes\":[\n[-1,\"root\",0,-1,-1,-1,0,0,1,[6,0,0.5,0,0,0,0,0]],\n"
                   "[0,\"function\",1,-1,2,3,10,0,1,[6,0,0.5,0,0,0,0,0]]],");
  free_fixture(f);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reader_refuses_bad_json),
      cmocka_unit_test(test_nodes_in_preorder),
      cmocka_unit_test(test_min_leaves_out_subtrees),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
