/* knit's measurements in a benchmark run: see scratch.h. */
#define _GNU_SOURCE
#include "scratch.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char scratch[4096];
static unsigned runs;

bool bench_scratch_open(const char *tag)
{
  const char *tmp = getenv("TMPDIR");
  snprintf(scratch, sizeof scratch, "%s/knit-%s-bench.XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
  if (!mkdtemp(scratch)) {
    fprintf(stderr, "bench: cannot make a scratch folder %s: ", scratch);
    perror(NULL);
    scratch[0] = '\0';
    return false;
  }
  return true;
}

unsigned bench_scratch_next(void)
{
  return runs++;
}

void bench_scratch_path_of(char *out, size_t size, const char *name, unsigned n)
{
  snprintf(out, size, "%s/%s-%u", scratch, name, n);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

void bench_remove_tree(const char *path)
{
  nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void bench_scratch_close(void)
{
  if (scratch[0])
    bench_remove_tree(scratch);
}

bench_knit_log bench_knit_log_read(const char *dir)
{
  bench_knit_log log = {false, false, 0, 0};
  char path[4300];
  snprintf(path, sizeof path, "%s/knit.log", dir);
  FILE *f = fopen(path, "r");
  if (!f)
    return log;
  char line[8192];
  while (fgets(line, sizeof line, f)) {
    log.active |= strncmp(line, "ompt: tool initialized", 22) == 0 ||
                  strncmp(line, "gomp: no OMPT; blame from the GOMP wrappers", 43) == 0;
    /* The last SUMMARY line is the process's own (profiler/core/session.c). */
    if (strncmp(line, "SUMMARY ", 8) == 0) {
      const char *s = strstr(line, " samples="), *b = strstr(line, " blocked=");
      log.summary = s && b;
      log.samples = s ? strtoull(s + 9, NULL, 10) : 0;
      log.blocked = b ? strtoull(b + 9, NULL, 10) : 0;
    }
  }
  fclose(f);
  return log;
}
