/* What the symbol tests share about their fixture programs (symbols.cmake):
 * whether one was built, the call sites it reports about itself, and the
 * lines its source marks. */
#ifndef KNIT_TEST_FIXTURE_SITES_H
#define KNIT_TEST_FIXTURE_SITES_H

#include <stddef.h>
#include <stdint.h>

typedef struct site {
  char label[32];
  uint64_t offset; /* the return address */
} site;

/* 1 when path can be read; else says it is skipped (its compiler is
 * missing) and gives 0. */
int fixture_present(const char *path);

/* The last component of path. */
const char *fixture_base_name(const char *path);

/* Runs program and reads its "label offset" lines, at most cap; fails the
 * test when it does not run to its end. */
size_t fixture_run_sites(const char *program, site *sites, size_t cap);

/* The line of source that carries "@label" (and not "@labelmore"); fails
 * the test when none does. */
unsigned fixture_marker_line(const char *source, const char *label);

#endif /* KNIT_TEST_FIXTURE_SITES_H */
