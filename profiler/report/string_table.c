/* Numbered distinct strings; see string_table.h. */
#include "report/string_table.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_text(const char *s)
{
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (; *s != '\0'; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

void knit_string_table_init(knit_string_table *t)
{
  memset(t, 0, sizeof *t);
}

/* The slot that holds s or the empty one where it would go. */
static size_t slot_of(const knit_string_table *t, const char *s)
{
  size_t mask = t->slot_count - 1;
  size_t i = (size_t)hash_text(s) & mask;
  while (t->slots[i] != 0 && strcmp(t->strings[t->slots[i] - 1], s) != 0)
    i = (i + 1) & mask;
  return i;
}

/* Doubles the slots, keeping them under half full. */
static int grow_slots(knit_string_table *t)
{
  size_t count = t->slot_count ? t->slot_count * 2 : 1024;
  uint32_t *slots = calloc(count, sizeof *slots);
  if (slots == NULL)
    return -1;
  free(t->slots);
  t->slots = slots;
  t->slot_count = count;
  for (size_t n = 0; n < t->count; n++)
    t->slots[slot_of(t, t->strings[n])] = (uint32_t)n + 1;
  return 0;
}

uint32_t knit_string_table_add(knit_string_table *t, const char *s)
{
  if (2 * (t->count + 1) > t->slot_count && grow_slots(t) != 0)
    return KNIT_STRING_NONE;
  size_t i = slot_of(t, s);
  if (t->slots[i] != 0)
    return t->slots[i] - 1;
  if (t->count == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    const char **strings = realloc(t->strings, cap * sizeof *strings);
    if (strings == NULL)
      return KNIT_STRING_NONE;
    t->strings = strings;
    t->cap = cap;
  }
  t->strings[t->count] = s;
  t->slots[i] = (uint32_t)++t->count;
  return (uint32_t)t->count - 1;
}

uint32_t knit_string_table_find(const knit_string_table *t, const char *s)
{
  if (t->slot_count == 0)
    return KNIT_STRING_NONE;
  size_t i = slot_of(t, s);
  return t->slots[i] != 0 ? t->slots[i] - 1 : KNIT_STRING_NONE;
}

void knit_string_table_free(knit_string_table *t)
{
  free(t->strings);
  free(t->slots);
  memset(t, 0, sizeof *t);
}
