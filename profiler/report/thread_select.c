/* Choosing threads; see thread_select.h. */
#include "report/thread_select.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct range {
  unsigned long first, last;
} range;

/* The next item of *text ("N" or "N-M"), advancing past it and its comma.
 * Returns 1 for an item, 0 at the end, -1 with the reason in err. */
static int next_range(const char **text, range *r, const char *list, char *err, size_t errlen)
{
  const char *s = *text;
  if (*s == '\0')
    return 0;
  char *end;
  errno = 0;
  if (*s < '0' || *s > '9' || (r->first = strtoul(s, &end, 10), errno != 0))
    goto bad;
  r->last = r->first;
  if (*end == '-') {
    s = end + 1;
    if (*s < '0' || *s > '9' || (r->last = strtoul(s, &end, 10), errno != 0))
      goto bad;
    if (r->last < r->first) {
      snprintf(err, errlen, "--thread=%s: the range %lu-%lu runs backwards", list, r->first,
               r->last);
      return -1;
    }
  }
  if (r->first > UINT32_MAX || r->last > UINT32_MAX || (*end != ',' && *end != '\0') ||
      (*end == ',' && end[1] == '\0'))
    goto bad;
  *text = *end == ',' ? end + 1 : end;
  return 1;
bad:
  snprintf(err, errlen,
           "--thread=%s: want thread indexes as the --threads table shows them, separated by "
           "commas, each a number or a range N-M: 0,2-5",
           list);
  return -1;
}

int knit_thread_list_check(const char *list, char *err, size_t errlen)
{
  const char *s = list;
  range r;
  int rc;
  if (*list == '\0') {
    snprintf(err, errlen, "--thread wants thread indexes: 0,2-5");
    return -1;
  }
  while ((rc = next_range(&s, &r, list, err, errlen)) == 1)
    ;
  return rc;
}

static int compare_indexes(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* m's thread indexes, sorted, without repeats, into *out; their number. */
static size_t thread_indexes(const knit_measurement *m, uint32_t **out)
{
  uint32_t *idx = malloc((m->thread_count ? m->thread_count : 1) * sizeof *idx);
  if (idx == NULL) {
    *out = NULL;
    return 0;
  }
  for (size_t i = 0; i < m->thread_count; i++)
    idx[i] = m->threads[i].header.thread_index;
  qsort(idx, m->thread_count, sizeof *idx, compare_indexes);
  size_t n = 0;
  for (size_t i = 0; i < m->thread_count; i++)
    if (n == 0 || idx[n - 1] != idx[i])
      idx[n++] = idx[i];
  *out = idx;
  return n;
}

/* "0-3, 5" into buf. */
static void describe_indexes(const uint32_t *idx, size_t n, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && used < len; i++) {
    size_t j = i;
    while (j + 1 < n && idx[j + 1] == idx[j] + 1)
      j++;
    int w = j > i ? snprintf(buf + used, len - used, "%s%u-%u", i ? ", " : "", idx[i], idx[j])
                  : snprintf(buf + used, len - used, "%s%u", i ? ", " : "", idx[i]);
    used += w > 0 ? (size_t)w : 0;
    i = j;
  }
}

/* How many of the sorted idx[0..n) lie in r. */
static size_t count_in(const uint32_t *idx, size_t n, range r)
{
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    count += idx[i] >= r.first && idx[i] <= r.last;
  return count;
}

static int listed(const char *list, uint32_t index)
{
  const char *s = list;
  range r;
  char err[8];
  while (next_range(&s, &r, list, err, sizeof err) == 1)
    if (index >= r.first && index <= r.last)
      return 1;
  return 0;
}

int knit_thread_select(knit_measurement *m, const char *list, char *err, size_t errlen)
{
  if (knit_thread_list_check(list, err, errlen) != 0)
    return -1;
  uint32_t *idx;
  size_t n = thread_indexes(m, &idx);
  if (idx == NULL) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  const char *s = list;
  range r;
  while (next_range(&s, &r, list, err, errlen) == 1) {
    if (count_in(idx, n, r) == r.last - r.first + 1)
      continue;
    /* The first index of the range the measurement lacks. */
    unsigned long missing = r.first;
    for (size_t i = 0; i < n && idx[i] <= r.last; i++)
      if (idx[i] == missing)
        missing++;
    char have[400];
    describe_indexes(idx, n, have, sizeof have);
    snprintf(err, errlen, "--thread: unknown thread %lu (this measurement has: %s)", missing, have);
    free(idx);
    return -1;
  }
  free(idx);
  size_t kept = 0;
  for (size_t i = 0; i < m->thread_count; i++) {
    if (listed(list, m->threads[i].header.thread_index))
      m->threads[kept++] = m->threads[i];
    else
      knit_thread_file_free(&m->threads[i]);
  }
  m->thread_count = kept;
  return 0;
}
