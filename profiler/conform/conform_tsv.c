/* knit conform's reports as tab-separated lines (conform_tsv.h). */
#define _GNU_SOURCE
#include "conform/conform_tsv.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* One line per fact, its fields escaped (put_tsv_field), so that a runtime
 * path or evidence holding a tab or a line break reads back whole. */
void knit_conform_write_tsv(const knit_conform_report *r, FILE *out)
{
  const char *const facts[][2] = {
      {"label", knit_conform_label(r)},
      {"runtime", r->runtime},
      {"isa", r->isa},
      {"runtime_version", r->runtime_version},
      {"omp_version", r->omp_version},
      {"abis", r->abis},
      {"ompt", r->ompt ? "1" : "0"},
      {"mutated", r->mutated ? "1" : "0"},
  };
  for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
    put_tsv_line(out, 3, (const char *const[]){"report", facts[i][0], facts[i][1]});
  for (int i = 0; i < r->n_checks; i++) {
    const knit_check *k = &r->checks[i];
    put_tsv_line(out, 6,
                 (const char *const[]){"check", k->name, k->category, knit_verdict_name(k->verdict),
                                       k->evidence, k->source});
  }
  for (int i = 0; i < r->n_faults; i++)
    put_tsv_line(out, 4,
                 (const char *const[]){"mutation", r->faults[i].fault,
                                       knit_fault_state_name(r->faults[i].state),
                                       r->faults[i].checks});
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
      if (strcmp(x[1], "runtime") == 0)
        snprintf(r->runtime, sizeof r->runtime, "%s", x[2]);
      else if (strcmp(x[1], "label") == 0)
        snprintf(r->label, sizeof r->label, "%s", x[2]);
      else if (strcmp(x[1], "isa") == 0)
        snprintf(r->isa, sizeof r->isa, "%s", x[2]);
      else if (strcmp(x[1], "runtime_version") == 0)
        snprintf(r->runtime_version, sizeof r->runtime_version, "%s", x[2]);
      else if (strcmp(x[1], "omp_version") == 0)
        snprintf(r->omp_version, sizeof r->omp_version, "%s", x[2]);
      else if (strcmp(x[1], "abis") == 0)
        snprintf(r->abis, sizeof r->abis, "%s", x[2]);
      else if (strcmp(x[1], "ompt") == 0)
        r->ompt = atoi(x[2]) != 0;
      else if (strcmp(x[1], "mutated") == 0)
        r->mutated = atoi(x[2]) != 0;
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
