/* Progress lines; see progress.h. */
#include "console/progress.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A run shorter than this prints no line at all. */
#define FIRST_LINE_NS    1000000000LL
/* Rewriting the line more often than this only costs the terminal. */
#define LINE_INTERVAL_NS 250000000LL

static long long ns_between(const struct timespec *a, const struct timespec *b)
{
  return (long long)(b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

void knit_progress_init(knit_progress *p, const char *who, FILE *out)
{
  memset(p, 0, sizeof *p);
  p->who = who;
  const char *forced = getenv("KNIT_PROGRESS");
  int on = forced != NULL && *forced ? strcmp(forced, "0") != 0 : isatty(fileno(out));
  if (!on)
    return;
  p->out = out;
  clock_gettime(CLOCK_MONOTONIC, &p->start);
  p->shown = p->start;
  /* Forced on (tests): from the first update, not after a second. */
  p->immediate = forced != NULL && strcmp(forced, "1") == 0;
}

void knit_progress_update(knit_progress *p, const char *phase, size_t done, size_t total)
{
  if (p == NULL || p->out == NULL)
    return;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if ((!p->immediate && ns_between(&p->start, &now) < FIRST_LINE_NS) ||
      (p->visible && ns_between(&p->shown, &now) < LINE_INTERVAL_NS))
    return;
  char line[160];
  int n;
  if (total > 0)
    n = snprintf(line, sizeof line, "%s: %s: %zu of %zu (%zu%%)", p->who, phase, done, total,
                 done >= total ? (size_t)100 : done * 100 / total);
  else
    n = snprintf(line, sizeof line, "%s: %s", p->who, phase);
  if (n < 0)
    return;
  if (n >= (int)sizeof line)
    n = (int)sizeof line - 1;
  /* Pad over what is left of a longer line before it. */
  int pad = p->visible && p->width > n ? p->width - n : 0;
  fprintf(p->out, "\r%s%*s", line, pad, "");
  fflush(p->out);
  p->visible = 1;
  p->width = n;
  p->shown = now;
}

void knit_progress_clear(knit_progress *p)
{
  if (p == NULL || p->out == NULL || !p->visible)
    return;
  fprintf(p->out, "\r%*s\r", p->width, "");
  fflush(p->out);
  p->visible = 0;
}
