/* Frames named once the map knows their library: see late_names.h. */
#include "core/late_names.h"

#include "core/unloads.h"
#include "measure/format.h"
#include "unwind/object_lookup.h"

const knit_loadmap *knit_late_names_map(void)
{
  return knit_loadmap_current();
}

void knit_late_name(const knit_loadmap *map, uint32_t *module, uint64_t *offset)
{
  if (!map || *module != KNIT_MODULE_UNKNOWN)
    return;
  /* knit_loadmap_find looks in the modules' executable segments only. */
  const knit_module *m = knit_loadmap_find(map, *offset);
  uint64_t since, now, lo, hi;
  if (!m || !knit_object_lookup_since(*offset, &since, &lo, &hi) || !knit_unloads_settled(&now) ||
      now != since)
    return;
  /* The map's module is the object the frame was found in: its code lies
   * in that object's mapping. */
  if (m->text_lo < lo || m->text_hi > hi)
    return;
  *module = m->id;
  *offset -= m->base;
}
