/* Objects loaded since the map's refresh: see object_lookup.h. */
#define _GNU_SOURCE
#include "unwind/object_lookup.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>

#include "unwind/eh_frame_hdr.h"

bool knit_object_lookup(uint64_t pc, uint64_t *map_lo, uint64_t *map_hi, uint64_t *start,
                        uint64_t *end)
{
  *map_lo = *map_hi = 0;
#ifdef DLFO_EH_SEGMENT_TYPE
  /* What this relies on (glibc's manual, "Dynamic Linker Introspection",
   * glibc >= 2.35): _dl_find_object is MT-Safe, AS-Safe and AC-Safe and is
   * made for unwinders; it takes no lock (it reads a copy of the loaded
   * objects' ranges that dlopen and dlclose publish with version counters
   * and retries), so it may run in a handler that interrupted dlopen
   * itself. The data it points to (dlfo_eh_frame) stays valid only while
   * the object stays loaded: an unload on another thread may unmap it
   * under the reads below, which the handler's fault guard catches. */
  struct dl_find_object found;
  if (_dl_find_object((void *)(uintptr_t)pc, &found) != 0)
    return false;
  uint64_t lo = (uint64_t)(uintptr_t)found.dlfo_map_start;
  uint64_t hi = (uint64_t)(uintptr_t)found.dlfo_map_end;
  if (hi <= lo)
    return false;
  *map_lo = lo;
  *map_hi = hi;
  uint64_t hdr = (uint64_t)(uintptr_t)found.dlfo_eh_frame;
  if (!hdr)
    return false;
  /* The header, its table and the FDEs lie in the object's mapping. */
  knit_dwarf_reader mem = {
      .base = (const uint8_t *)found.dlfo_map_start,
      .size = (size_t)(hi - lo),
      .vaddr = lo,
      .big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
      .addr_size = (int)sizeof(void *),
  };
  return knit_eh_frame_hdr_find(&mem, hdr, pc, start, end);
#else
  (void)pc;
  (void)start;
  (void)end;
  return false;
#endif
}

const char *knit_object_lookup_path(uint64_t pc)
{
#ifdef DLFO_EH_SEGMENT_TYPE
  struct dl_find_object found;
  if (_dl_find_object((void *)(uintptr_t)pc, &found) != 0 || !found.dlfo_link_map)
    return NULL;
  return found.dlfo_link_map->l_name;
#else
  (void)pc;
  return NULL;
#endif
}

/* The objects frames were placed in, in the order first seen. An entry is
 * claimed by count, filled, then marked ready; one never goes. */
typedef struct noted_object {
  _Atomic uint64_t lo, hi;
  _Atomic uint64_t earliest; /* smallest unload count noted */
  _Atomic bool ready;
} noted_object;

static noted_object noted[KNIT_LOOKUP_OBJECTS];
static _Atomic uint32_t noted_count; /* claimed, may exceed the table */
static _Atomic bool unnoted;

void knit_object_lookup_unnoted(void)
{
  atomic_store(&unnoted, true);
}

static void lower_to(_Atomic uint64_t *v, uint64_t to)
{
  uint64_t seen = atomic_load_explicit(v, memory_order_relaxed);
  while (to < seen && !atomic_compare_exchange_weak(v, &seen, to))
    ;
}

void knit_object_lookup_used(uint64_t map_lo, uint64_t map_hi, uint64_t unloads)
{
  uint32_t n = atomic_load(&noted_count);
  for (uint32_t i = 0; i < n && i < KNIT_LOOKUP_OBJECTS; i++) {
    noted_object *o = &noted[i];
    if (atomic_load(&o->ready) && atomic_load(&o->lo) == map_lo && atomic_load(&o->hi) == map_hi) {
      lower_to(&o->earliest, unloads);
      return;
    }
  }
  /* Two threads may note the same new object at once: two entries of the
   * same range, which later look-ups find as ambiguous (no name). */
  uint32_t i = atomic_fetch_add(&noted_count, 1);
  if (i >= KNIT_LOOKUP_OBJECTS)
    return;
  atomic_store(&noted[i].lo, map_lo);
  atomic_store(&noted[i].hi, map_hi);
  atomic_store(&noted[i].earliest, unloads);
  atomic_store(&noted[i].ready, true);
}

bool knit_object_lookup_since(uint64_t addr, uint64_t *unloads, uint64_t *map_lo, uint64_t *map_hi)
{
  uint32_t n = atomic_load(&noted_count);
  if (n > KNIT_LOOKUP_OBJECTS || atomic_load(&unnoted))
    return false;
  int found = 0;
  for (uint32_t i = 0; i < n; i++) {
    const noted_object *o = &noted[i];
    if (!atomic_load(&o->ready))
      return false;
    uint64_t lo = atomic_load(&o->lo), hi = atomic_load(&o->hi);
    if (addr < lo || addr >= hi)
      continue;
    found++;
    *unloads = atomic_load(&o->earliest);
    *map_lo = lo;
    *map_hi = hi;
  }
  return found == 1;
}
