/* knit conform: one report in Markdown, JSON, JUnit XML, HTML, or the
 * tab-separated form the summary reads back (conform.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conform/conform.h"

const char *const knit_conform_categories[KNIT_CONFORM_CATEGORIES] = {
  "lifecycle", "discovery", "callbacks", "pairing", "ids", "links", "teams",
  "frames", "states", "ancestors", "platform",
};

static const char *fault_state_name(knit_fault_state s)
{
  return s == KNIT_FAULT_CAUGHT ? "caught" : s == KNIT_FAULT_MISSED ? "missed" : "not applicable";
}

void knit_put_json_string(FILE *out, const char *s)
{
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf(out, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(out, "\\u%04x", *s);
    else
      fputc(*s, out);
  }
  fputc('"', out);
}

void knit_put_xml_text(FILE *out, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '&': fputs("&amp;", out); break;
    case '"': fputs("&quot;", out); break;
    default: fputc(*s, out);
    }
  }
}

/* Markdown renderers pass HTML through, and a '|' ends a table cell, so
 * text from a runtime (its version string, its path, a check's evidence)
 * could end a cell early or inject markup. A line break would end the
 * table row: it becomes a space, as do the other control characters. */
void knit_put_md_text(FILE *out, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '|': fputs("\\|", out); break;
    case '\\': fputs("\\\\", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '&': fputs("&amp;", out); break;
    default: fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
    }
  }
}

/* A .tsv field: a tab, line break or backslash in it would split the field
 * or the line when read back, so they are written as \t, \n, \r and \\. */
static void put_tsv_field(FILE *out, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '\t': fputs("\\t", out); break;
    case '\n': fputs("\\n", out); break;
    case '\r': fputs("\\r", out); break;
    case '\\': fputs("\\\\", out); break;
    default: fputc(*s, out);
    }
  }
}

/* Undoes put_tsv_field in place. */
static void unescape_tsv_field(char *s)
{
  char *to = s;
  for (const char *from = s; *from; from++) {
    if (*from != '\\' || from[1] == '\0') {
      *to++ = *from;
      continue;
    }
    from++;
    *to++ = *from == 't' ? '\t' : *from == 'n' ? '\n' : *from == 'r' ? '\r' : *from;
  }
  *to = '\0';
}

/* A line of tab-separated fields, each escaped, ending in a newline. */
static void put_tsv_line(FILE *out, int n, const char *const *fields)
{
  for (int i = 0; i < n; i++) {
    if (i > 0)
      fputc('\t', out);
    put_tsv_field(out, fields[i]);
  }
  fputc('\n', out);
}

/* The one sentence that says what kind of OMPT the runtime has. */
static void headline(const knit_conform_report *r, char *buf, size_t len)
{
  if (!r->ompt)
    snprintf(buf, len, "This runtime offers no OMPT: it never calls ompt_start_tool, so no tool "
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
  for (size_t c = 0; c < KNIT_CONFORM_CATEGORIES; c++) {
    bool any = false;
    for (int i = 0; i < r->n_checks; i++) {
      const knit_check *k = &r->checks[i];
      if (strcmp(k->category, knit_conform_categories[c]) != 0)
        continue;
      if (!any)
        fprintf(out, "\n## %s\n\n| check | verdict | evidence | run |\n|---|---|---|---|\n",
                knit_conform_categories[c]);
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
    fprintf(out, "\n## mutation score\n\n%d of %d injectable faults caught (%d%%).\n\n"
            "| fault | result | checks that failed |\n|---|---|---|\n", caught, applicable,
            applicable ? 100 * caught / applicable : 0);
    for (int i = 0; i < r->n_faults; i++) {
      fputs("| ", out);
      knit_put_md_text(out, r->faults[i].fault);
      fprintf(out, " | %s | ", fault_state_name(r->faults[i].state));
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
  fprintf(out, ", \"ompt\": %s, \"counts\": {\"pass\": %d, \"fail\": %d, \"not supported\": %d, "
          "\"not observable\": %d},\n \"checks\": [", r->ompt ? "true" : "false",
          knit_conform_count(r, KNIT_V_PASS), knit_conform_count(r, KNIT_V_FAIL),
          knit_conform_count(r, KNIT_V_UNSUPPORTED), knit_conform_count(r, KNIT_V_UNOBSERVABLE));
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
      knit_put_json_string(out, fault_state_name(r->faults[i].state));
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
  fprintf(out, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n",
          r->n_checks + r->n_faults, knit_conform_count(r, KNIT_V_FAIL) + faults_missed,
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
  fprintf(out, ". %d pass, %d fail, %d not supported, %d not observable."
          "</p>\n<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\">\n<tr><th>category</th>"
          "<th>check</th><th>verdict</th><th>evidence</th><th>run</th></tr>\n",
          knit_conform_count(r, KNIT_V_PASS), knit_conform_count(r, KNIT_V_FAIL),
          knit_conform_count(r, KNIT_V_UNSUPPORTED), knit_conform_count(r, KNIT_V_UNOBSERVABLE));
  for (size_t c = 0; c < KNIT_CONFORM_CATEGORIES; c++) {
    for (int i = 0; i < r->n_checks; i++) {
      const knit_check *k = &r->checks[i];
      if (strcmp(k->category, knit_conform_categories[c]) != 0)
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
    fprintf(out, "<h2>Mutation score: %d of %d injectable faults caught</h2>\n<table border=\"1\" "
            "cellspacing=\"0\" cellpadding=\"3\"><tr><th>fault</th><th>result</th><th>checks that "
            "failed</th></tr>\n", caught, applicable);
    for (int i = 0; i < r->n_faults; i++) {
      fputs("<tr><td>", out);
      knit_put_xml_text(out, r->faults[i].fault);
      fprintf(out, "</td><td>%s</td><td>", fault_state_name(r->faults[i].state));
      knit_put_xml_text(out, r->faults[i].checks);
      fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
  }
  fputs("</body></html>\n", out);
}

/* One line per fact, its fields escaped (put_tsv_field), so that a runtime
 * path or evidence holding a tab or a line break reads back whole. */
static void write_tsv(const knit_conform_report *r, FILE *out)
{
  const char *const facts[][2] = {
      {"label", knit_conform_label(r)}, {"runtime", r->runtime},
      {"isa", r->isa},                  {"runtime_version", r->runtime_version},
      {"omp_version", r->omp_version},  {"abis", r->abis},
      {"ompt", r->ompt ? "1" : "0"},    {"mutated", r->mutated ? "1" : "0"},
  };
  for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
    put_tsv_line(out, 3, (const char *const[]){"report", facts[i][0], facts[i][1]});
  for (int i = 0; i < r->n_checks; i++) {
    const knit_check *k = &r->checks[i];
    put_tsv_line(out, 6, (const char *const[]){"check", k->name, k->category,
                                                knit_verdict_name(k->verdict), k->evidence,
                                                k->source});
  }
  for (int i = 0; i < r->n_faults; i++)
    put_tsv_line(out, 4, (const char *const[]){"mutation", r->faults[i].fault,
                                                fault_state_name(r->faults[i].state),
                                                r->faults[i].checks});
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
    write_tsv(r, out);
  else
    return false;
  return true;
}

/* Splits a tab-separated line in place into at most max fields, each
 * unescaped (put_tsv_field). */
static int split(char *line, char **field, int max)
{
  int n = 0;
  field[n++] = line;
  for (char *p = line; *p && n < max; p++) {
    if (*p == '\t') {
      *p = '\0';
      field[n++] = p + 1;
    }
  }
  for (int i = 0; i < n; i++)
    unescape_tsv_field(field[i]);
  return n;
}

bool knit_conform_read_tsv(const char *path, knit_conform_report *r)
{
  /* Only a regular file: a FIFO would block the summary (O_NONBLOCK makes
   * the open return, fstat then tells). */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat st;
  FILE *f = NULL;
  if (fd < 0)
    return false;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (f = fdopen(fd, "r")) == NULL) {
    close(fd);
    return false;
  }
  memset(r, 0, sizeof *r);
  /* Lines of any length: escaped evidence may be twice its 800 bytes. */
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) >= 0) {
    line[strcspn(line, "\n")] = '\0';
    char *x[6] = {0};
    int n = split(line, x, 6);
    if (n == 3 && strcmp(x[0], "report") == 0) {
      if (strcmp(x[1], "runtime") == 0) snprintf(r->runtime, sizeof r->runtime, "%s", x[2]);
      else if (strcmp(x[1], "label") == 0) snprintf(r->label, sizeof r->label, "%s", x[2]);
      else if (strcmp(x[1], "isa") == 0) snprintf(r->isa, sizeof r->isa, "%s", x[2]);
      else if (strcmp(x[1], "runtime_version") == 0)
        snprintf(r->runtime_version, sizeof r->runtime_version, "%s", x[2]);
      else if (strcmp(x[1], "omp_version") == 0)
        snprintf(r->omp_version, sizeof r->omp_version, "%s", x[2]);
      else if (strcmp(x[1], "abis") == 0) snprintf(r->abis, sizeof r->abis, "%s", x[2]);
      else if (strcmp(x[1], "ompt") == 0) r->ompt = atoi(x[2]) != 0;
      else if (strcmp(x[1], "mutated") == 0) r->mutated = atoi(x[2]) != 0;
    } else if (n == 6 && strcmp(x[0], "check") == 0) {
      knit_verdict v;
      if (knit_verdict_parse(x[3], &v))
        knit_conform_merge(r, x[1], x[2], v, x[4], x[5]);
    } else if (n == 4 && strcmp(x[0], "mutation") == 0 && r->n_faults < KNIT_MAX_FAULTS) {
      knit_mutation *m = &r->faults[r->n_faults++];
      snprintf(m->fault, sizeof m->fault, "%s", x[1]);
      m->state = strcmp(x[2], "caught") == 0   ? KNIT_FAULT_CAUGHT
                 : strcmp(x[2], "missed") == 0 ? KNIT_FAULT_MISSED
                                               : KNIT_FAULT_NOT_APPLICABLE;
      snprintf(m->checks, sizeof m->checks, "%s", x[3]);
    }
  }
  free(line);
  fclose(f);
  return r->runtime[0] != '\0';
}
