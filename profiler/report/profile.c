/* Loading a measurement for the views; see profile.h. */
#include "report/profile.h"

#include <elf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "console/progress.h"
#include "measure/count.h"
#include "measure/read_printable.h"

/* Whether adding up the statistics or unwind steps of every thread passes
 * UINT64_MAX. A whole-measurement total bounds every partial sum the views
 * make of the same numbers (per module, per thread), so checking the totals
 * is enough. */
static int totals_saturate(const knit_measurement *m)
{
  int saturated = 0;
  for (int stat = 0; stat < KNIT_STAT_COUNT; stat++) {
    uint64_t sum = 0;
    for (size_t i = 0; i < m->thread_count; i++)
      sum = knit_count_add(sum, m->threads[i].stats[stat], &saturated);
  }
  uint64_t confirmed = 0, probable = 0, wrong = 0;
  for (size_t i = 0; i < m->thread_count; i++) {
    saturated |= m->threads[i].saturated;
    for (size_t s = 0; s < m->threads[i].step_count; s++) {
      const knit_read_steps *r = &m->threads[i].steps[s];
      confirmed = knit_count_add(confirmed, r->confirmed, &saturated);
      probable = knit_count_add(probable, r->probable, &saturated);
      wrong = knit_count_add(wrong, r->wrong, &saturated);
    }
  }
  return saturated;
}

/* knit_profile_load, with dir as messages name it (printable). */
/* The machine table's row of the process that wrote a thread file: its
 * e_machine, and its byte order, which is this host's unless the reader
 * swapped the file. Every ISA of the table is 64-bit. */
static const knit_isa_ops *writer_isa(const knit_thread_file *f)
{
  bool host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
  bool writer_big = host_big != (f->other_byte_order != 0);
  return knit_isa_for_elf((uint16_t)f->header.elf_machine, ELFCLASS64,
                          writer_big ? ELFDATA2MSB : ELFDATA2LSB);
}

static int load(knit_profile *p, const char *dir_name, const char *dir, const char *who, FILE *diag,
                const knit_profile_options *options)
{
  char err[1200];
  if (knit_measurement_read(dir_name, &p->measurement, err, sizeof err) != 0) {
    fprintf(diag, "%s: error: %s\n", who, err);
    return -1;
  }
  const knit_measurement *m = &p->measurement;
  for (size_t i = 0; i < m->failed_count; i++)
    fprintf(diag, "%s: warning: %s/%s\n", who, dir, m->failures[i]);
  if (m->log_skipped)
    fprintf(diag, "%s: warning: %s/knit.log: not a regular file; skipped\n", who, dir);
  if (m->thread_count == 0) {
    fprintf(diag, "%s: error: none of the %zu thread files of %s could be read\n", who,
            m->failed_count, dir);
    knit_profile_free(p);
    return -1;
  }
  if (m->failed_count > 0)
    fprintf(diag, "%s: warning: %zu of %zu thread files could not be read\n", who, m->failed_count,
            m->failed_count + m->thread_count);
  if (m->mixed_events)
    fprintf(diag,
            "%s: warning: the thread files of %s were recorded with different "
            "events; the first thread's (%s) is shown\n",
            who, dir, m->event);

  if (knit_report_tree_init(&p->tree) != 0 || (p->symbolizer = knit_symbolizer_new()) == NULL) {
    fprintf(diag, "%s: error: out of memory\n", who);
    knit_profile_free(p);
    return -1;
  }
  knit_symbolizer_set_raw_names(p->symbolizer, options != NULL && options->raw_names);
  knit_symbolizer_set_inline(p->symbolizer, options == NULL || !options->no_inline);
  knit_symbolizer_set_loops(p->symbolizer, options == NULL || !options->no_loops);
  knit_symbolizer_set_measurement_dir(p->symbolizer, dir);
  if (m->thread_count > 0)
    knit_symbolizer_set_isa(p->symbolizer, writer_isa(&m->threads[0]));
  knit_progress *progress = options != NULL ? options->progress : NULL;
  knit_symbolizer_set_progress(p->symbolizer, progress);
  for (size_t i = 0; i < m->thread_count; i++) {
    knit_progress_update(progress, "merging threads", i, m->thread_count);
    if (knit_report_tree_add_thread(&p->tree, &m->threads[i]) != 0) {
      fprintf(diag, "%s: error: out of memory merging thread %u\n", who,
              m->threads[i].header.thread_index);
      knit_profile_free(p);
      return -1;
    }
  }
  knit_report_tree_symbolize(&p->tree, p->symbolizer);
  knit_symbolizer_set_progress(p->symbolizer, NULL);
  knit_progress_clear(progress);
  if (knit_report_tree_link(&p->tree) != 0) {
    fprintf(diag, "%s: error: out of memory\n", who);
    knit_profile_free(p);
    return -1;
  }
  p->saturated = p->tree.saturated || totals_saturate(m);
  if (p->saturated)
    fprintf(diag, "%s: warning: %s\n", who, KNIT_SATURATED_TEXT);
  return 0;
}

int knit_profile_load_with(knit_profile *p, const char *dir, const char *who, FILE *diag,
                           const knit_profile_options *options)
{
  memset(p, 0, sizeof *p);
  /* The directory is named in messages; its name may be anyone's. */
  char *shown = knit_printable_dup(dir);
  int rc = load(p, dir, shown != NULL ? shown : "?", who, diag, options);
  if (options != NULL)
    knit_progress_clear(options->progress);
  free(shown);
  return rc;
}

int knit_profile_load(knit_profile *p, const char *dir, const char *who, FILE *diag)
{
  return knit_profile_load_with(p, dir, who, diag, NULL);
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
  int saturated = 0; /* known already: knit_profile.saturated */
  for (size_t i = 0; i < p->measurement.thread_count; i++)
    sum = knit_count_add(sum, p->measurement.threads[i].stats[stat], &saturated);
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
