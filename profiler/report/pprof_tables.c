/* String and id tables of the pprof export; see pprof_tables.h. Both are
 * open-addressing hash tables kept at most half full. */
#include "report/pprof_tables.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull; /* FNV-1a */
  }
  return h;
}

#define HASH_SEED 0xcbf29ce484222325ull

/* Twice the slots of old, every entry placed again by rehash(entry index);
 * 0, or -1 when out of memory (nothing changed). */
static int grow_slots(uint32_t **slots, size_t *slot_count, size_t entries,
                      uint64_t (*hash_of)(const void *table, size_t index), const void *table)
{
  size_t count = *slot_count ? *slot_count * 2 : 64;
  uint32_t *fresh = calloc(count, sizeof *fresh);
  if (fresh == NULL)
    return -1;
  for (size_t i = 0; i < entries; i++) {
    size_t slot = (size_t)hash_of(table, i) & (count - 1);
    while (fresh[slot] != 0)
      slot = (slot + 1) & (count - 1);
    fresh[slot] = (uint32_t)(i + 1);
  }
  free(*slots);
  *slots = fresh;
  *slot_count = count;
  return 0;
}

static uint64_t string_hash(const char *s)
{
  return hash_bytes(HASH_SEED, s, strlen(s));
}

static uint64_t string_hash_at(const void *table, size_t index)
{
  return string_hash(((const knit_pprof_strings *)table)->strings[index]);
}

int knit_pprof_strings_init(knit_pprof_strings *t)
{
  memset(t, 0, sizeof *t);
  return knit_pprof_string(t, "") == 0 ? 0 : -1;
}

int64_t knit_pprof_string(knit_pprof_strings *t, const char *s)
{
  if (s == NULL)
    s = "";
  if ((t->count + 1) * 2 > t->slot_count &&
      grow_slots(&t->slots, &t->slot_count, t->count, string_hash_at, t) != 0)
    return -1;
  size_t mask = t->slot_count - 1;
  size_t slot = (size_t)string_hash(s) & mask;
  for (; t->slots[slot] != 0; slot = (slot + 1) & mask)
    if (strcmp(t->strings[t->slots[slot] - 1], s) == 0)
      return t->slots[slot] - 1;
  char **strings = realloc(t->strings, (t->count + 1) * sizeof *strings);
  if (strings == NULL)
    return -1;
  t->strings = strings;
  if ((strings[t->count] = strdup(s)) == NULL)
    return -1;
  t->slots[slot] = (uint32_t)(++t->count);
  return (int64_t)(t->count - 1);
}

void knit_pprof_strings_free(knit_pprof_strings *t)
{
  for (size_t i = 0; i < t->count; i++)
    free(t->strings[i]);
  free(t->strings);
  free(t->slots);
  memset(t, 0, sizeof *t);
}

static uint64_t key_hash(const uint64_t key[3])
{
  return hash_bytes(HASH_SEED, key, 3 * sizeof key[0]);
}

static uint64_t key_hash_at(const void *table, size_t index)
{
  return key_hash(((const knit_pprof_ids *)table)->keys[index]);
}

uint32_t knit_pprof_id(knit_pprof_ids *t, const uint64_t key[3], int *added)
{
  *added = 0;
  if ((t->count + 1) * 2 > t->slot_count &&
      grow_slots(&t->slots, &t->slot_count, t->count, key_hash_at, t) != 0)
    return 0;
  size_t mask = t->slot_count - 1;
  size_t slot = (size_t)key_hash(key) & mask;
  for (; t->slots[slot] != 0; slot = (slot + 1) & mask)
    if (memcmp(t->keys[t->slots[slot] - 1], key, 3 * sizeof key[0]) == 0)
      return t->slots[slot];
  uint64_t(*keys)[3] = realloc(t->keys, (t->count + 1) * sizeof *keys);
  if (keys == NULL)
    return 0;
  t->keys = keys;
  memcpy(keys[t->count], key, 3 * sizeof key[0]);
  t->slots[slot] = (uint32_t)(++t->count);
  *added = 1;
  return (uint32_t)t->count;
}

void knit_pprof_ids_free(knit_pprof_ids *t)
{
  free(t->keys);
  free(t->slots);
  memset(t, 0, sizeof *t);
}
