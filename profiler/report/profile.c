/* Loading a measurement for the views; see profile.h. */
#include "report/profile.h"

#include <string.h>

int knit_profile_load(knit_profile *p, const char *dir, const char *who, FILE *diag)
{
  memset(p, 0, sizeof *p);
  char err[600];
  if (knit_measurement_read(dir, &p->measurement, err, sizeof err) != 0) {
    fprintf(diag, "%s: error: %s\n", who, err);
    return -1;
  }
  const knit_measurement *m = &p->measurement;
  for (size_t i = 0; i < m->failed_count; i++)
    fprintf(diag, "%s: warning: %s/%s\n", who, dir, m->failures[i]);
  if (m->thread_count == 0) {
    fprintf(diag, "%s: error: none of the %zu thread files of %s could be read\n", who,
            m->failed_count, dir);
    knit_profile_free(p);
    return -1;
  }
  if (m->failed_count > 0)
    fprintf(diag, "%s: warning: %zu of %zu thread files could not be read\n", who,
            m->failed_count,
            m->failed_count + m->thread_count);
  if (m->mixed_events)
    fprintf(diag, "%s: warning: the thread files of %s were recorded with different "
            "events; the first thread's (%s) is shown\n", who, dir, m->event);

  if (knit_report_tree_init(&p->tree) != 0 ||
      (p->symbolizer = knit_symbolizer_new()) == NULL) {
    fprintf(diag, "%s: error: out of memory\n", who);
    knit_profile_free(p);
    return -1;
  }
  if (m->thread_count > 0)
    knit_symbolizer_set_machine(p->symbolizer, (uint16_t)m->threads[0].header.elf_machine);
  for (size_t i = 0; i < m->thread_count; i++) {
    if (knit_report_tree_add_thread(&p->tree, &m->threads[i]) != 0) {
      fprintf(diag, "%s: error: out of memory merging %s\n", who, m->threads[i].name);
      knit_profile_free(p);
      return -1;
    }
  }
  knit_report_tree_symbolize(&p->tree, p->symbolizer);
  if (knit_report_tree_link(&p->tree) != 0) {
    fprintf(diag, "%s: error: out of memory\n", who);
    knit_profile_free(p);
    return -1;
  }
  return 0;
}

void knit_profile_free(knit_profile *p)
{
  knit_report_tree_free(&p->tree);
  knit_symbolizer_free(p->symbolizer);
  knit_measurement_free(&p->measurement);
  memset(p, 0, sizeof *p);
}

uint64_t knit_profile_samples(const knit_profile *p)
{
  return p->tree.node_count ? p->tree.nodes[0].inclusive[KNIT_METRIC_SAMPLES] : 0;
}

uint64_t knit_profile_stat(const knit_profile *p, int stat)
{
  uint64_t sum = 0;
  for (size_t i = 0; i < p->measurement.thread_count; i++)
    sum += p->measurement.threads[i].stats[stat];
  return sum;
}

void knit_profile_describe_event(const knit_profile *p, char *buf, size_t len)
{
  const knit_measurement *m = &p->measurement;
  const char *event = m->event[0] ? m->event : "unknown event";
  uint64_t ns = m->period;
  if (ns == 0)
    snprintf(buf, len, "%s", event);
  else if (ns % 1000000 == 0)
    snprintf(buf, len, "%s every %llu ms", event, (unsigned long long)(ns / 1000000));
  else if (ns % 1000 == 0)
    snprintf(buf, len, "%s every %llu us", event, (unsigned long long)(ns / 1000));
  else
    snprintf(buf, len, "%s every %llu ns", event, (unsigned long long)ns);
}
