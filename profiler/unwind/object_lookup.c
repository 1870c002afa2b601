/* Objects loaded since the map's refresh: see object_lookup.h. */
#define _GNU_SOURCE
#include "unwind/object_lookup.h"

#include <dlfcn.h>
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

/* UINT64_MAX: no frame placed yet. */
static _Atomic uint64_t earliest_unloads = UINT64_MAX;

void knit_object_lookup_used(uint64_t unloads)
{
  uint64_t seen = atomic_load_explicit(&earliest_unloads, memory_order_relaxed);
  while (unloads < seen && !atomic_compare_exchange_weak(&earliest_unloads, &seen, unloads))
    ;
}

bool knit_object_lookup_earliest(uint64_t *unloads)
{
  *unloads = atomic_load(&earliest_unloads);
  return *unloads != UINT64_MAX;
}
