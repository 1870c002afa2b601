/* knit conform: one report in Markdown, JSON, JUnit XML, HTML, or the
 * tab-separated form the summary reads back (conform_tsv.c). */
#include <stdio.h>
#include <string.h>

#include "conform/conform.h"
#include "conform/conform_escape.h"
#include "conform/conform_tsv.h"

/* The one sentence that says what kind of OMPT the runtime has. */
static void headline(const knit_conform_report *r, char *buf, size_t len)
{
  if (!r->ompt)
    snprintf(buf, len,
             "This runtime offers no OMPT: it never calls ompt_start_tool, so no tool "
             "can attach; every OMPT check is \"not supported\".");
  else
    snprintf(buf, len, "OMPT found: runtime version \"%s\", omp_version %s.", r->runtime_version,
             r->omp_version);
}

static void write_md(const knit_conform_report *r, FILE *out)
{
  char head[512];
  headline(r, head, sizeof head);
  fputs("# Conformance: ", out);
  knit_put_md_text(out, knit_conform_label(r));
  fputs(" on ", out);
  knit_put_md_text(out, r->isa);
  fputs("\n\n", out);
  knit_put_md_text(out, head);
  fputs("\n\nABI checked: ", out);
  knit_put_md_text(out, r->abis);
  fprintf(out, ". Verdicts: %d pass, %d fail, %d not supported, %d not observable.\n",
          knit_conform_count(r, KNIT_V_PASS), knit_conform_count(r, KNIT_V_FAIL),
          knit_conform_count(r, KNIT_V_UNSUPPORTED), knit_conform_count(r, KNIT_V_UNOBSERVABLE));
  for (int c = 0; c < KNIT_CATEGORY_COUNT; c++) {
    bool any = false;
    for (int i = 0; i < r->n_checks; i++) {
      const knit_check *k = &r->checks[i];
      if (strcmp(k->category, knit_check_category_name((knit_check_category)c)) != 0)
        continue;
      if (!any)
        fprintf(out, "\n## %s\n\n| check | verdict | evidence | run |\n|---|---|---|---|\n",
                knit_check_category_name((knit_check_category)c));
      any = true;
      fputs("| ", out);
      knit_put_md_text(out, k->name);
      fprintf(out, " | %s%s%s | ", k->verdict == KNIT_V_FAIL ? "**" : "",
              knit_verdict_name(k->verdict), k->verdict == KNIT_V_FAIL ? "**" : "");
      knit_put_md_text(out, k->evidence);
      fputs(" | ", out);
      knit_put_md_text(out, k->source);
      fputs(" |\n", out);
    }
  }
  if (r->mutated) {
    int caught, applicable;
    knit_conform_mutation_score(r, &caught, &applicable);
    fprintf(out,
            "\n## mutation score\n\n%d of %d injectable faults caught (%d%%).\n\n"
            "| fault | result | checks that failed |\n|---|---|---|\n",
            caught, applicable, applicable ? 100 * caught / applicable : 0);
    for (int i = 0; i < r->n_faults; i++) {
      fputs("| ", out);
      knit_put_md_text(out, r->faults[i].fault);
      fprintf(out, " | %s | ", knit_fault_state_name(r->faults[i].state));
      knit_put_md_text(out, r->faults[i].checks);
      fputs(" |\n", out);
    }
  }
}

static void write_json(const knit_conform_report *r, FILE *out)
{
  fputs("{\"runtime\": ", out);
  knit_put_json_string(out, r->runtime);
  fputs(", \"label\": ", out);
  knit_put_json_string(out, knit_conform_label(r));
  fputs(", \"isa\": ", out);
  knit_put_json_string(out, r->isa);
  fputs(", \"runtime_version\": ", out);
  knit_put_json_string(out, r->runtime_version);
  fputs(", \"omp_version\": ", out);
  knit_put_json_string(out, r->omp_version);
  fputs(", \"abi\": ", out);
  knit_put_json_string(out, r->abis);
  fprintf(out,
          ", \"ompt\": %s, \"counts\": {\"pass\": %d, \"fail\": %d, \"not supported\": %d, "
          "\"not observable\": %d},\n \"checks\": [",
          r->ompt ? "true" : "false", knit_conform_count(r, KNIT_V_PASS),
          knit_conform_count(r, KNIT_V_FAIL), knit_conform_count(r, KNIT_V_UNSUPPORTED),
          knit_conform_count(r, KNIT_V_UNOBSERVABLE));
  for (int i = 0; i < r->n_checks; i++) {
    const knit_check *k = &r->checks[i];
    fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
    knit_put_json_string(out, k->name);
    fputs(", \"category\": ", out);
    knit_put_json_string(out, k->category);
    fputs(", \"verdict\": ", out);
    knit_put_json_string(out, knit_verdict_name(k->verdict));
    fputs(", \"evidence\": ", out);
    knit_put_json_string(out, k->evidence);
    fputs(", \"run\": ", out);
    knit_put_json_string(out, k->source);
    fputc('}', out);
  }
  fputs("]", out);
  if (r->mutated) {
    int caught, applicable;
    knit_conform_mutation_score(r, &caught, &applicable);
    fprintf(out, ",\n \"mutation\": {\"caught\": %d, \"injectable\": %d, \"faults\": [", caught,
            applicable);
    for (int i = 0; i < r->n_faults; i++) {
      fputs(i ? ", {\"fault\": " : "{\"fault\": ", out);
      knit_put_json_string(out, r->faults[i].fault);
      fputs(", \"result\": ", out);
      knit_put_json_string(out, knit_fault_state_name(r->faults[i].state));
      fputs(", \"checks\": ", out);
      knit_put_json_string(out, r->faults[i].checks);
      fputc('}', out);
    }
    fputs("]}", out);
  }
  fputs("}\n", out);
}

static void write_junit(const knit_conform_report *r, FILE *out)
{
  int faults_missed = 0;
  for (int i = 0; i < r->n_faults; i++)
    faults_missed += r->faults[i].state == KNIT_FAULT_MISSED;
  fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
               "<testsuite name=\"knit conform ");
  knit_put_xml_text(out, knit_conform_label(r));
  fputc(' ', out);
  knit_put_xml_text(out, r->isa);
  fprintf(out, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", r->n_checks + r->n_faults,
          knit_conform_count(r, KNIT_V_FAIL) + faults_missed,
          r->n_checks - knit_conform_count(r, KNIT_V_FAIL) - knit_conform_count(r, KNIT_V_PASS));
  for (int i = 0; i < r->n_checks; i++) {
    const knit_check *k = &r->checks[i];
    fputs("  <testcase classname=\"", out);
    knit_put_xml_text(out, k->category);
    fputs("\" name=\"", out);
    knit_put_xml_text(out, k->name);
    fputs("\">", out);
    if (k->verdict != KNIT_V_PASS) {
      fprintf(out, "<%s message=\"%s: ", k->verdict == KNIT_V_FAIL ? "failure" : "skipped",
              knit_verdict_name(k->verdict));
      knit_put_xml_text(out, k->evidence);
      fputs("\"/>", out);
    } else {
      fputs("<system-out>", out);
      knit_put_xml_text(out, k->evidence);
      fputs("</system-out>", out);
    }
    fputs("</testcase>\n", out);
  }
  for (int i = 0; i < r->n_faults; i++) {
    const knit_mutation *m = &r->faults[i];
    fputs("  <testcase classname=\"mutation\" name=\"", out);
    knit_put_xml_text(out, m->fault);
    fputs("\">", out);
    if (m->state == KNIT_FAULT_MISSED)
      fputs("<failure message=\"no check failed with this fault injected\"/>", out);
    else if (m->state == KNIT_FAULT_NOT_APPLICABLE)
      fputs("<skipped message=\"not injectable under this ABI\"/>", out);
    fputs("</testcase>\n", out);
  }
  fputs("</testsuite>\n</testsuites>\n", out);
}

static void write_html(const knit_conform_report *r, FILE *out)
{
  static const char *const colour[] = {"#ddd", "#cfc", "#ffd", "#fcc"};
  char head[512];
  headline(r, head, sizeof head);
  fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>knit conform ", out);
  knit_put_xml_text(out, knit_conform_label(r));
  fputc(' ', out);
  knit_put_xml_text(out, r->isa);
  fputs("</title></head><body>\n<h1>Conformance: ", out);
  knit_put_xml_text(out, knit_conform_label(r));
  fputs(" on ", out);
  knit_put_xml_text(out, r->isa);
  fputs("</h1>\n<p>", out);
  knit_put_xml_text(out, head);
  fputs("</p><p>ABI checked: ", out);
  knit_put_xml_text(out, r->abis);
  fprintf(out,
          ". %d pass, %d fail, %d not supported, %d not observable."
          "</p>\n<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\">\n<tr><th>category</th>"
          "<th>check</th><th>verdict</th><th>evidence</th><th>run</th></tr>\n",
          knit_conform_count(r, KNIT_V_PASS), knit_conform_count(r, KNIT_V_FAIL),
          knit_conform_count(r, KNIT_V_UNSUPPORTED), knit_conform_count(r, KNIT_V_UNOBSERVABLE));
  for (int c = 0; c < KNIT_CATEGORY_COUNT; c++) {
    for (int i = 0; i < r->n_checks; i++) {
      const knit_check *k = &r->checks[i];
      if (strcmp(k->category, knit_check_category_name((knit_check_category)c)) != 0)
        continue;
      fputs("<tr><td>", out);
      knit_put_xml_text(out, k->category);
      fputs("</td><td>", out);
      knit_put_xml_text(out, k->name);
      fprintf(out, "</td><td style=\"background:%s\">%s</td><td>", colour[k->verdict],
              knit_verdict_name(k->verdict));
      knit_put_xml_text(out, k->evidence);
      fputs("</td><td>", out);
      knit_put_xml_text(out, k->source);
      fputs("</td></tr>\n", out);
    }
  }
  fputs("</table>\n", out);
  if (r->mutated) {
    int caught, applicable;
    knit_conform_mutation_score(r, &caught, &applicable);
    fprintf(out,
            "<h2>Mutation score: %d of %d injectable faults caught</h2>\n<table border=\"1\" "
            "cellspacing=\"0\" cellpadding=\"3\"><tr><th>fault</th><th>result</th><th>checks that "
            "failed</th></tr>\n",
            caught, applicable);
    for (int i = 0; i < r->n_faults; i++) {
      fputs("<tr><td>", out);
      knit_put_xml_text(out, r->faults[i].fault);
      fprintf(out, "</td><td>%s</td><td>", knit_fault_state_name(r->faults[i].state));
      knit_put_xml_text(out, r->faults[i].checks);
      fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
  }
  fputs("</body></html>\n", out);
}

bool knit_conform_write(const knit_conform_report *r, const char *format, FILE *out)
{
  if (strcmp(format, "md") == 0)
    write_md(r, out);
  else if (strcmp(format, "json") == 0)
    write_json(r, out);
  else if (strcmp(format, "junit") == 0)
    write_junit(r, out);
  else if (strcmp(format, "html") == 0)
    write_html(r, out);
  else if (strcmp(format, "tsv") == 0)
    knit_conform_write_tsv(r, out);
  else
    return false;
  return true;
}
