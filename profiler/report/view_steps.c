/* Step classes in `knit report`: see view_steps.h. */
#include "report/view_steps.h"

#include <stdlib.h>
#include <string.h>

#include "measure/count.h"
#include "measure/read_printable.h"

static const char *step_module_path(const knit_thread_file *t, uint32_t module)
{
  if (module == KNIT_MODULE_UNKNOWN || module >= t->module_count)
    return "<unknown>";
  return t->modules[module].path;
}

/* The steps of a row, all classes. Sums of counts saturate; the profile
 * says when one did (knit_profile.saturated), so the flags are not kept. */
static uint64_t row_total(const knit_steps_row *r)
{
  int saturated = 0;
  return knit_count_add(knit_count_add(r->confirmed, r->probable, &saturated), r->wrong,
                        &saturated);
}

static int compare_rows(const void *a, const void *b)
{
  const knit_steps_row *x = a, *y = b;
  uint64_t tx = row_total(x);
  uint64_t ty = row_total(y);
  if (tx != ty)
    return tx > ty ? -1 : 1;
  return strcmp(x->path, y->path);
}

long knit_steps_merge(const knit_measurement *m, knit_steps_row **rows, int *present)
{
  *rows = NULL;
  *present = 0;
  size_t cap = 0;
  for (size_t i = 0; i < m->thread_count; i++) {
    cap += m->threads[i].step_count;
    *present |= m->threads[i].has_steps;
  }
  knit_steps_row *out = calloc(cap ? cap : 1, sizeof *out);
  if (out == NULL)
    return -1;
  /* Module ids are per process, but threads are merged by path, as the
   * tree merges them: a measurement may hold threads of several runs. A
   * linear search is enough for the few modules a program runs. */
  size_t n = 0;
  int saturated = 0; /* known already: knit_profile.saturated */
  for (size_t i = 0; i < m->thread_count; i++) {
    const knit_thread_file *t = &m->threads[i];
    for (size_t s = 0; s < t->step_count; s++) {
      const knit_read_steps *r = &t->steps[s];
      const char *path = step_module_path(t, r->module);
      size_t k = 0;
      while (k < n && strcmp(out[k].path, path) != 0)
        k++;
      if (k == n)
        out[n++].path = path;
      out[k].confirmed = knit_count_add(out[k].confirmed, r->confirmed, &saturated);
      out[k].probable = knit_count_add(out[k].probable, r->probable, &saturated);
      out[k].wrong = knit_count_add(out[k].wrong, r->wrong, &saturated);
    }
  }
  qsort(out, n, sizeof *out, compare_rows);
  *rows = out;
  return (long)n;
}

void knit_view_steps_line(const knit_profile *p, FILE *out)
{
  knit_steps_row *rows;
  int present;
  long n = knit_steps_merge(&p->measurement, &rows, &present);
  if (n >= 0 && present) {
    uint64_t c = 0, pr = 0, w = 0;
    int saturated = 0; /* known already: knit_profile.saturated */
    for (long i = 0; i < n; i++) {
      c = knit_count_add(c, rows[i].confirmed, &saturated);
      pr = knit_count_add(pr, rows[i].probable, &saturated);
      w = knit_count_add(w, rows[i].wrong, &saturated);
    }
    fprintf(out, "steps: %llu confirmed, %llu probable, %llu wrong\n", (unsigned long long)c,
            (unsigned long long)pr, (unsigned long long)w);
  }
  free(rows);
}

void knit_view_steps(const knit_profile *p, FILE *out)
{
  knit_steps_row *rows;
  int present;
  long n = knit_steps_merge(&p->measurement, &rows, &present);
  if (n < 0) {
    fprintf(out, "(out of memory for the step table)\n\n");
    return;
  }
  if (!present) {
    fprintf(out, "(no unwind step classes in this measurement)\n\n");
    free(rows);
    return;
  }
  fprintf(out, "%12s %12s %12s  %s\n", "confirmed", "probable", "wrong", "module");
  for (long i = 0; i < n; i++) {
    /* A module path is the program's to choose: printed in printable form. */
    char *path = knit_printable_dup(rows[i].path);
    fprintf(out, "%12llu %12llu %12llu  %s\n", (unsigned long long)rows[i].confirmed,
            (unsigned long long)rows[i].probable, (unsigned long long)rows[i].wrong,
            path != NULL ? path : "<out of memory>");
    free(path);
  }
  fputc('\n', out);
  free(rows);
}
