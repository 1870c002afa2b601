/* An index of the rows the report builds (the call tree's nodes, the
 * callers tree's rows, the flat view's rows, knit diff's contexts, the
 * pprof export's strings and locations): the rows stay in the caller's own
 * array, and the table maps a row's key to its id, the row's index there.
 *
 * The table is open-addressing over uint32 ids, at most half full so that
 * probe chains stay short, and doubles when an addition would pass that.
 * The caller says what a key is (knit_row_keys): it hashes a key itself,
 * gives the hash of a row already in the table (for placing it again as
 * the table grows), and whether a row is the one a key names. The table
 * keeps no pointer to the caller, so a struct that holds one may be
 * copied or moved freely. */
#ifndef KNIT_REPORT_ROW_TABLE_H
#define KNIT_REPORT_ROW_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define KNIT_ROW_NONE UINT32_MAX

/* FNV-1a's starting value, for hashes built with knit_row_hash_text. */
#define KNIT_ROW_HASH_SEED 0xcbf29ce484222325ull

/* What a caller's keys are: the hash of the row with id id, as the
 * caller's lookups hash their keys (for placing the row again as the table
 * grows), and whether the row with id id is the one key names. Both read
 * the rows through context, which the caller passes with every call. */
typedef struct knit_row_keys {
  uint64_t (*hash_of)(const void *context, uint32_t id);
  int (*matches)(const void *context, uint32_t id, const void *key);
} knit_row_keys;

/* All zero is an empty table; it takes memory at its first addition. */
typedef struct knit_row_table {
  uint32_t *slots; /* ids, KNIT_ROW_NONE where empty */
  size_t slot_count;
  size_t count; /* ids indexed */
} knit_row_table;

/* The id of the row key names, whose hash is hash; KNIT_ROW_NONE when the
 * table has none. */
uint32_t knit_row_table_find(const knit_row_table *t, const knit_row_keys *keys,
                             const void *context, uint64_t hash, const void *key);

/* Indexes the row with id id (not in the table yet) under hash. Returns 0,
 * or -1 out of memory (the table is then as it was). */
int knit_row_table_add(knit_row_table *t, const knit_row_keys *keys, const void *context,
                       uint64_t hash, uint32_t id);

void knit_row_table_free(knit_row_table *t);

/* Hash building blocks for the callers' keys: text folded into h by
 * FNV-1a (NULL folds in nothing), and a final mix that spreads every bit
 * of h over the low bits the table uses. */
uint64_t knit_row_hash_text(uint64_t h, const char *text);
uint64_t knit_row_hash_mix(uint64_t h);

#endif /* KNIT_REPORT_ROW_TABLE_H */
