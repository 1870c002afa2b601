/* knit conform --summary: the check-by-runtime table, one row per check
 * and one column per report (a runtime, with its ABI where it speaks two,
 * on one ISA), so that a vendor sees at a glance where a promise holds on
 * one runtime and not on another.  Rows follow the categories' order
 * (conform/checks.def); a check a report has no verdict for (its programs
 * did not run it) is left blank. */
#define _GNU_SOURCE
#include <string.h>

#include "conform/conform_escape.h"
#include "conform/conform_matrix.h"

#define MAX_ROWS (2 * KNIT_MAX_CHECKS)

/* The verdict as a table cell: short, with a fail standing out. */
static const char *cell(knit_verdict v, bool md)
{
  switch (v) {
  case KNIT_V_PASS: return "pass";
  case KNIT_V_FAIL: return md ? "**FAIL**" : "FAIL";
  case KNIT_V_UNSUPPORTED: return "n/s";
  default: return "n/o";
  }
}

/* Every check of any report, once, in category order and then as first seen. */
static int collect_rows(const knit_conform_report *const *reports, int n, const knit_check **rows)
{
  int count = 0;
  for (int c = 0; c < KNIT_CATEGORY_COUNT; c++) {
    for (int r = 0; r < n; r++) {
      for (int i = 0; i < reports[r]->n_checks; i++) {
        const knit_check *k = &reports[r]->checks[i];
        if (strcmp(k->category, knit_check_category_name((knit_check_category)c)) != 0)
          continue;
        bool seen = false;
        for (int j = 0; j < count && !seen; j++)
          seen = strcmp(rows[j]->name, k->name) == 0;
        if (!seen && count < MAX_ROWS)
          rows[count++] = k;
      }
    }
  }
  return count;
}

static void write_md(const knit_conform_report *const *reports, int n, const knit_check **rows,
                     int nrows, FILE *out)
{
  fputs("\n## Checks by runtime\n\npass, **FAIL**, n/s (not supported), n/o (not observable); "
        "blank: not run.\n\n| check |",
        out);
  for (int r = 0; r < n; r++) {
    fputc(' ', out);
    knit_put_md_text(out, knit_conform_label(reports[r]));
    fputc(' ', out);
    knit_put_md_text(out, reports[r]->isa);
    fputs(" |", out);
  }
  fputs("\n|---|", out);
  for (int r = 0; r < n; r++)
    fputs("---|", out);
  fputc('\n', out);
  for (int i = 0; i < nrows; i++) {
    fputs("| ", out);
    knit_put_md_text(out, rows[i]->name);
    fputs(" |", out);
    for (int r = 0; r < n; r++) {
      const knit_check *k = knit_conform_find(reports[r], rows[i]->name);
      fprintf(out, " %s |", k ? cell(k->verdict, true) : "");
    }
    fputc('\n', out);
  }
}

static void write_html(const knit_conform_report *const *reports, int n, const knit_check **rows,
                       int nrows, FILE *out)
{
  static const char *const colour[] = {"#ddd", "#cfc", "#ffd", "#fcc"};
  fputs("<h2>Checks by runtime</h2>\n<p>pass, FAIL, n/s (not supported), n/o (not "
        "observable); blank: not run. A cell's tooltip is its evidence.</p>\n<table border=\"1\" "
        "cellspacing=\"0\" cellpadding=\"3\">\n<tr><th>check</th>",
        out);
  for (int r = 0; r < n; r++) {
    fputs("<th>", out);
    knit_put_xml_text(out, knit_conform_label(reports[r]));
    fputs("<br>", out);
    knit_put_xml_text(out, reports[r]->isa);
    fputs("</th>", out);
  }
  fputs("</tr>\n", out);
  for (int i = 0; i < nrows; i++) {
    fputs("<tr><td>", out);
    knit_put_xml_text(out, rows[i]->name);
    fputs("</td>", out);
    for (int r = 0; r < n; r++) {
      const knit_check *k = knit_conform_find(reports[r], rows[i]->name);
      if (!k) {
        fputs("<td></td>", out);
        continue;
      }
      fprintf(out, "<td style=\"background:%s\" title=\"", colour[k->verdict]);
      knit_put_xml_text(out, k->evidence);
      fprintf(out, "\">%s</td>", cell(k->verdict, false));
    }
    fputs("</tr>\n", out);
  }
  fputs("</table>\n", out);
}

void knit_conform_matrix(const knit_conform_report *const *reports, int n, const char *format,
                         FILE *out)
{
  static const knit_check *rows[MAX_ROWS];
  int nrows = collect_rows(reports, n, rows);
  if (strcmp(format, "md") == 0)
    write_md(reports, n, rows, nrows, out);
  else if (strcmp(format, "html") == 0)
    write_html(reports, n, rows, nrows, out);
}
