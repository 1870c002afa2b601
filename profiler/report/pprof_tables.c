/* String and id tables of the pprof export; see pprof_tables.h. Both are
 * indexed by the report's row table (row_table.h). */
#include "report/pprof_tables.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const void *data, size_t n)
{
  const unsigned char *p = data;
  uint64_t h = KNIT_ROW_HASH_SEED;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ull; /* FNV-1a */
  return knit_row_hash_mix(h);
}

static uint64_t string_hash(const char *s)
{
  return hash_bytes(s, strlen(s));
}

static uint64_t string_hash_at(const void *table, uint32_t index)
{
  return string_hash(((const knit_pprof_strings *)table)->strings[index]);
}

static int string_matches(const void *table, uint32_t index, const void *key)
{
  return strcmp(((const knit_pprof_strings *)table)->strings[index], key) == 0;
}

static const knit_row_keys string_keys = {string_hash_at, string_matches};

int knit_pprof_strings_init(knit_pprof_strings *t)
{
  memset(t, 0, sizeof *t);
  return knit_pprof_string(t, "") == 0 ? 0 : -1;
}

int64_t knit_pprof_string(knit_pprof_strings *t, const char *s)
{
  if (s == NULL)
    s = "";
  uint64_t hash = string_hash(s);
  uint32_t found = knit_row_table_find(&t->index, &string_keys, t, hash, s);
  if (found != KNIT_ROW_NONE)
    return found;
  char **strings = realloc(t->strings, (t->count + 1) * sizeof *strings);
  if (strings == NULL)
    return -1;
  t->strings = strings;
  if ((strings[t->count] = strdup(s)) == NULL)
    return -1;
  if (knit_row_table_add(&t->index, &string_keys, t, hash, (uint32_t)t->count) != 0) {
    free(strings[t->count]);
    return -1;
  }
  return (int64_t)t->count++;
}

void knit_pprof_strings_free(knit_pprof_strings *t)
{
  for (size_t i = 0; i < t->count; i++)
    free(t->strings[i]);
  free(t->strings);
  knit_row_table_free(&t->index);
  memset(t, 0, sizeof *t);
}

static uint64_t key_hash(const uint64_t key[3])
{
  return hash_bytes(key, 3 * sizeof key[0]);
}

static uint64_t key_hash_at(const void *table, uint32_t index)
{
  return key_hash(((const knit_pprof_ids *)table)->keys[index]);
}

static int key_matches(const void *table, uint32_t index, const void *key)
{
  return memcmp(((const knit_pprof_ids *)table)->keys[index], key, 3 * sizeof(uint64_t)) == 0;
}

static const knit_row_keys id_keys = {key_hash_at, key_matches};

uint32_t knit_pprof_id(knit_pprof_ids *t, const uint64_t key[3], int *added)
{
  *added = 0;
  uint64_t hash = key_hash(key);
  uint32_t found = knit_row_table_find(&t->index, &id_keys, t, hash, key);
  if (found != KNIT_ROW_NONE)
    return found + 1;
  uint64_t(*keys)[3] = realloc(t->keys, (t->count + 1) * sizeof *keys);
  if (keys == NULL)
    return 0;
  t->keys = keys;
  memcpy(keys[t->count], key, 3 * sizeof key[0]);
  if (knit_row_table_add(&t->index, &id_keys, t, hash, (uint32_t)t->count) != 0)
    return 0;
  *added = 1;
  return (uint32_t)++t->count;
}

void knit_pprof_ids_free(knit_pprof_ids *t)
{
  free(t->keys);
  knit_row_table_free(&t->index);
  memset(t, 0, sizeof *t);
}
