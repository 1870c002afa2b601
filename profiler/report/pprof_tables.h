/* The tables a pprof profile refers to by number (pprof.h): its string
 * table, where every text is stored once and named by its index, and maps
 * from what identifies a location or a function to the id it was given.
 * Ids are given in order of first use, so the same profile always gets the
 * same numbers. */
#ifndef KNIT_REPORT_PPROF_TABLES_H
#define KNIT_REPORT_PPROF_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "report/row_table.h"

/* Distinct strings, each named by its index; index 0 is "", as the format
 * wants. */
typedef struct knit_pprof_strings {
  char **strings; /* owned copies */
  size_t count;
  knit_row_table index; /* the strings' indexes by their text */
} knit_pprof_strings;

/* An empty table holding "". Returns 0, or -1 when out of memory. */
int knit_pprof_strings_init(knit_pprof_strings *t);

/* The index of s (NULL stands for ""), added when new; -1 out of memory. */
int64_t knit_pprof_string(knit_pprof_strings *t, const char *s);

void knit_pprof_strings_free(knit_pprof_strings *t);

/* A map from a key of three numbers to an id from 1 up. */
typedef struct knit_pprof_ids {
  uint64_t (*keys)[3]; /* keys[id - 1] */
  size_t count;
  knit_row_table index; /* id - 1 by key */
} knit_pprof_ids;

/* The id of key, a new one (count, after the call) when *added is set to
 * 1; 0 when out of memory. */
uint32_t knit_pprof_id(knit_pprof_ids *t, const uint64_t key[3], int *added);

void knit_pprof_ids_free(knit_pprof_ids *t);

#endif /* KNIT_REPORT_PPROF_TABLES_H */
