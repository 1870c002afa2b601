/* The symbol tests' fixture programs; see fixture_sites.h. */
#include "harness/unit/fixture_sites.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

int fixture_present(const char *path)
{
  if (access(path, R_OK) == 0)
    return 1;
  print_message("skipping %s: not built (its compiler is missing)\n", path);
  return 0;
}

const char *fixture_base_name(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

size_t fixture_run_sites(const char *program, site *sites, size_t cap)
{
  FILE *p = popen(program, "r");
  assert_non_null(p);
  size_t n = 0;
  unsigned long offset;
  char label[32];
  while (n < cap && fscanf(p, "%31s %lx", label, &offset) == 2) {
    snprintf(sites[n].label, sizeof sites[n].label, "%s", label);
    sites[n++].offset = offset;
  }
  if (pclose(p) != 0)
    fail_msg("%s did not run to its end", program);
  return n;
}

unsigned fixture_marker_line(const char *source, const char *label)
{
  FILE *f = fopen(source, "r");
  assert_non_null(f);
  char text[512], marker[64];
  snprintf(marker, sizeof marker, "@%s", label);
  unsigned line = 0, found = 0;
  while (fgets(text, sizeof text, f) != NULL) {
    line++;
    const char *at = strstr(text, marker);
    if (at != NULL && (at[strlen(marker)] == ' ' || at[strlen(marker)] == '\n')) {
      found = line;
      break;
    }
  }
  fclose(f);
  if (found == 0)
    fail_msg("no @%s in %s", label, source);
  return found;
}
