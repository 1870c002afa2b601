/* The rows' open-addressing index; see row_table.h. */
#include "report/row_table.h"

#include <stdlib.h>
#include <string.h>

/* The first table's slots: room for 128 rows before it grows. */
#define FIRST_SLOT_COUNT 256

static void place(uint32_t *slots, size_t slot_count, uint64_t hash, uint32_t id)
{
  size_t s = (size_t)hash & (slot_count - 1);
  while (slots[s] != KNIT_ROW_NONE)
    s = (s + 1) & (slot_count - 1);
  slots[s] = id;
}

/* Doubles the slots and places every id again by its row's hash. */
static int grow(knit_row_table *t, const knit_row_keys *keys, const void *context)
{
  size_t count = t->slot_count ? 2 * t->slot_count : FIRST_SLOT_COUNT;
  uint32_t *slots = malloc(count * sizeof *slots);
  if (slots == NULL)
    return -1;
  memset(slots, 0xff, count * sizeof *slots);
  for (size_t s = 0; s < t->slot_count; s++)
    if (t->slots[s] != KNIT_ROW_NONE)
      place(slots, count, keys->hash_of(context, t->slots[s]), t->slots[s]);
  free(t->slots);
  t->slots = slots;
  t->slot_count = count;
  return 0;
}

uint32_t knit_row_table_find(const knit_row_table *t, const knit_row_keys *keys,
                             const void *context, uint64_t hash, const void *key)
{
  if (t->slot_count == 0)
    return KNIT_ROW_NONE;
  for (size_t s = (size_t)hash & (t->slot_count - 1); t->slots[s] != KNIT_ROW_NONE;
       s = (s + 1) & (t->slot_count - 1))
    if (keys->matches(context, t->slots[s], key))
      return t->slots[s];
  return KNIT_ROW_NONE;
}

int knit_row_table_add(knit_row_table *t, const knit_row_keys *keys, const void *context,
                       uint64_t hash, uint32_t id)
{
  if (2 * (t->count + 1) > t->slot_count && grow(t, keys, context) != 0)
    return -1;
  place(t->slots, t->slot_count, hash, id);
  t->count++;
  return 0;
}

void knit_row_table_free(knit_row_table *t)
{
  free(t->slots);
  t->slots = NULL;
  t->slot_count = 0;
  t->count = 0;
}

uint64_t knit_row_hash_text(uint64_t h, const char *text)
{
  for (const char *c = text; c != NULL && *c != '\0'; c++)
    h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
  return h;
}

uint64_t knit_row_hash_mix(uint64_t h)
{
  h ^= h >> 31;
  h *= 0x7fb5d329728ea185ull;
  h ^= h >> 27;
  h *= 0x81dadef4bc2dd44dull;
  h ^= h >> 33;
  return h;
}
