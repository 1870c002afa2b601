/* Step classes in `knit report`: see view_steps.h. */
#include "report/view_steps.h"

#include <stdlib.h>
#include <string.h>

static const char *step_module_path(const knit_thread_file *t, uint32_t module)
{
  if (module == KNIT_MODULE_UNKNOWN || module >= t->module_count)
    return "<unknown>";
  return t->modules[module].path;
}

static int compare_rows(const void *a, const void *b)
{
  const knit_steps_row *x = a, *y = b;
  uint64_t tx = x->confirmed + x->probable + x->wrong;
  uint64_t ty = y->confirmed + y->probable + y->wrong;
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
      out[k].confirmed += r->confirmed;
      out[k].probable += r->probable;
      out[k].wrong += r->wrong;
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
    for (long i = 0; i < n; i++) {
      c += rows[i].confirmed;
      pr += rows[i].probable;
      w += rows[i].wrong;
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
  for (long i = 0; i < n; i++)
    fprintf(out, "%12llu %12llu %12llu  %s\n", (unsigned long long)rows[i].confirmed,
            (unsigned long long)rows[i].probable, (unsigned long long)rows[i].wrong,
            rows[i].path);
  fputc('\n', out);
  free(rows);
}
