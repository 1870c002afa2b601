/* Distinct strings numbered in the order first seen, so that a form which
 * repeats names (the JSON tree's functions, modules and files) can write
 * each once and refer to it by number. Strings are compared by content and
 * not copied: they must outlive the table. */
#ifndef KNIT_REPORT_STRING_TABLE_H
#define KNIT_REPORT_STRING_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct knit_string_table {
  const char **strings; /* by number */
  size_t count;
  size_t cap;
  uint32_t *slots; /* open addressing: number + 1, 0 when empty */
  size_t slot_count;
} knit_string_table;

#define KNIT_STRING_NONE UINT32_MAX

void knit_string_table_init(knit_string_table *t);

/* The number of s, given one when new; KNIT_STRING_NONE when out of memory. */
uint32_t knit_string_table_add(knit_string_table *t, const char *s);

/* The number of s, or KNIT_STRING_NONE when the table does not hold it. */
uint32_t knit_string_table_find(const knit_string_table *t, const char *s);

void knit_string_table_free(knit_string_table *t);

#endif /* KNIT_REPORT_STRING_TABLE_H */
