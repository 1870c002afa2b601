/* knit conform --summary: one table across every report of a folder (the
 * .tsv form each report is also written in), one row per runtime and ISA,
 * and in md and html the check-by-runtime table (conform_matrix.c). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/paths.h"
#include "conform/conform.h"
#include "conform/conform_escape.h"
#include "conform/conform_matrix.h"
#include "conform/conform_tsv.h"

#define MAX_REPORTS 64

/* The row's facts, as text, shared by every format. */
typedef struct row {
  const knit_conform_report *r;
  char ompt[200];
  char mutation[32];
  char failed[600]; /* names of the failed checks */
} row;

static void describe(const knit_conform_report *r, row *w)
{
  w->r = r;
  if (r->ompt)
    snprintf(w->ompt, sizeof w->ompt, "%s (omp_version %s)", r->runtime_version, r->omp_version);
  else
    snprintf(w->ompt, sizeof w->ompt, "none: no OMPT");
  int caught, applicable;
  knit_conform_mutation_score(r, &caught, &applicable);
  if (r->mutated)
    snprintf(w->mutation, sizeof w->mutation, "%d/%d", caught, applicable);
  else
    snprintf(w->mutation, sizeof w->mutation, "-");
  w->failed[0] = '\0';
  for (int i = 0; i < r->n_checks; i++) {
    if (r->checks[i].verdict != KNIT_V_FAIL)
      continue;
    size_t used = strlen(w->failed);
    snprintf(w->failed + used, sizeof w->failed - used, "%s%s", used ? ", " : "",
             r->checks[i].name);
  }
}

static int by_name(const void *a, const void *b)
{
  const knit_conform_report *x = *(knit_conform_report *const *)a;
  const knit_conform_report *y = *(knit_conform_report *const *)b;
  int c = strcmp(knit_conform_label(x), knit_conform_label(y));
  return c ? c : strcmp(x->isa, y->isa);
}

static void write_rows(const row *rows, int n, const char *format, FILE *out)
{
  if (strcmp(format, "md") == 0) {
    fputs("# Conformance summary\n\n| runtime | ISA | OMPT | pass | fail | not supported | "
          "not observable | mutation score | failed checks "
          "|\n|---|---|---|---|---|---|---|---|---|\n",
          out);
    for (int i = 0; i < n; i++) {
      const knit_conform_report *r = rows[i].r;
      fputs("| ", out);
      knit_put_md_text(out, knit_conform_label(r));
      fputs(" | ", out);
      knit_put_md_text(out, r->isa);
      fputs(" | ", out);
      knit_put_md_text(out, rows[i].ompt);
      fprintf(out, " | %d | %d | %d | %d | %s | ", knit_conform_count(r, KNIT_V_PASS),
              knit_conform_count(r, KNIT_V_FAIL), knit_conform_count(r, KNIT_V_UNSUPPORTED),
              knit_conform_count(r, KNIT_V_UNOBSERVABLE), rows[i].mutation);
      knit_put_md_text(out, rows[i].failed);
      fputs(" |\n", out);
    }
  } else if (strcmp(format, "json") == 0) {
    fputs("[", out);
    for (int i = 0; i < n; i++) {
      const knit_conform_report *r = rows[i].r;
      fputs(i ? ",\n {\"runtime\": " : "\n {\"runtime\": ", out);
      knit_put_json_string(out, knit_conform_label(r));
      fputs(", \"isa\": ", out);
      knit_put_json_string(out, r->isa);
      fputs(", \"ompt\": ", out);
      knit_put_json_string(out, rows[i].ompt);
      fprintf(out,
              ", \"pass\": %d, \"fail\": %d, \"not supported\": %d, \"not observable\": %d, "
              "\"mutation\": \"%s\", \"failed\": ",
              knit_conform_count(r, KNIT_V_PASS), knit_conform_count(r, KNIT_V_FAIL),
              knit_conform_count(r, KNIT_V_UNSUPPORTED), knit_conform_count(r, KNIT_V_UNOBSERVABLE),
              rows[i].mutation);
      knit_put_json_string(out, rows[i].failed);
      fputc('}', out);
    }
    fputs("]\n", out);
  } else if (strcmp(format, "junit") == 0) {
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"knit "
          "conform summary\">\n",
          out);
    for (int i = 0; i < n; i++) {
      const knit_conform_report *r = rows[i].r;
      fputs("  <testcase classname=\"summary\" name=\"", out);
      knit_put_xml_text(out, knit_conform_label(r));
      fputc(' ', out);
      knit_put_xml_text(out, r->isa);
      fputs("\">", out);
      if (rows[i].failed[0]) {
        fputs("<failure message=\"failed: ", out);
        knit_put_xml_text(out, rows[i].failed);
        fputs("\"/>", out);
      }
      fputs("</testcase>\n", out);
    }
    fputs("</testsuite>\n</testsuites>\n", out);
  } else {
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>knit conform summary"
          "</title></head><body>\n<h1>Conformance summary</h1>\n<table border=\"1\" "
          "cellspacing=\"0\" cellpadding=\"3\">\n<tr><th>runtime</th><th>ISA</th><th>OMPT</th>"
          "<th>pass</th><th>fail</th><th>not supported</th><th>not observable</th><th>mutation "
          "score</th><th>failed checks</th></tr>\n",
          out);
    for (int i = 0; i < n; i++) {
      const knit_conform_report *r = rows[i].r;
      fputs("<tr><td>", out);
      knit_put_xml_text(out, knit_conform_label(r));
      fputs("</td><td>", out);
      knit_put_xml_text(out, r->isa);
      fputs("</td><td>", out);
      knit_put_xml_text(out, rows[i].ompt);
      fprintf(out, "</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>",
              knit_conform_count(r, KNIT_V_PASS), knit_conform_count(r, KNIT_V_FAIL),
              knit_conform_count(r, KNIT_V_UNSUPPORTED), knit_conform_count(r, KNIT_V_UNOBSERVABLE),
              rows[i].mutation);
      knit_put_xml_text(out, rows[i].failed);
      fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
  }
}

bool knit_conform_summary(const char *dir, const char *format, FILE *out, char *err, size_t errlen)
{
  DIR *d = opendir(dir);
  if (!d) {
    snprintf(err, errlen, "cannot read %s: %s", dir, strerror(errno));
    return false;
  }
  knit_conform_report *reports[MAX_REPORTS];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < MAX_REPORTS) {
    size_t len = strlen(e->d_name);
    char path[4096];
    if (len < 5 || strcmp(e->d_name + len - 4, ".tsv") != 0 ||
        !knit_path_printf(path, sizeof path, "%s/%s", dir, e->d_name))
      continue;
    reports[n] = malloc(sizeof *reports[n]);
    if (reports[n] && knit_conform_read_tsv(path, reports[n]))
      n++;
    else
      free(reports[n]);
  }
  closedir(d);
  if (n == 0) {
    snprintf(err, errlen, "no reports (.tsv) in %s", dir);
    return false;
  }
  qsort(reports, (size_t)n, sizeof reports[0], by_name);
  row *rows = calloc((size_t)n, sizeof *rows);
  for (int i = 0; rows && i < n; i++)
    describe(reports[i], &rows[i]);
  if (rows) {
    write_rows(rows, n, format, out);
    knit_conform_matrix((const knit_conform_report *const *)reports, n, format, out);
    if (strcmp(format, "html") == 0)
      fputs("</body></html>\n", out);
  }
  free(rows);
  for (int i = 0; i < n; i++)
    free(reports[i]);
  return rows != NULL;
}
