/* Frames named once the map knows their library: see late_names.h. */
#include "core/late_names.h"

#include "core/unloads.h"
#include "measure/format.h"
#include "unwind/object_lookup.h"

const knit_loadmap *knit_late_names_map(void)
{
  uint64_t earliest, now;
  if (!knit_object_lookup_earliest(&earliest) || !knit_unloads_settled(&now) || now != earliest)
    return NULL;
  return knit_loadmap_current();
}

void knit_late_name(const knit_loadmap *map, uint32_t *module, uint64_t *offset)
{
  if (!map || *module != KNIT_MODULE_UNKNOWN)
    return;
  /* knit_loadmap_find looks in the modules' executable segments only. */
  const knit_module *m = knit_loadmap_find(map, *offset);
  if (!m)
    return;
  *module = m->id;
  *offset -= m->base;
}
