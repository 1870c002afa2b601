/* Frames recorded in code of a library the load map did not know yet
 * (unwind/object_lookup.h: module KNIT_MODULE_UNKNOWN, offset the absolute
 * address), named in the thread's file when the map knows the library by
 * then: as (module id, address - load bias), like any other frame, so the
 * report names their functions and lines.
 *
 * Only while that is sound: an address names the code the sample saw only
 * if no library was unloaded since (a library loaded later may be mapped
 * where an unloaded one was). A frame's time is not kept, but for each
 * object frames were found in, the smallest count of dlclose calls
 * (core/unloads.h) under which one was is (knit_object_lookup_since):
 * while the count still stands, the object at the address is the one the
 * samples saw, and a map built since then names it; the map's module must
 * also lie within that object's mapping. After one more dlclose, or where
 * two objects were seen at the address, the frames stay raw. Unloads that
 * pass through no dlclose are not seen: the C library's character-set
 * converters (whose code is reached only through iconv, and which stay
 * loaded in practice once used) and the objects of a dlopen that fails
 * (which have run no code yet). The walks note every object they find a
 * frame in, with or without its function's bounds; a walk that could not
 * look one up (an unload under way) leaves every frame raw. The absolute
 * addresses a tree holds all come from walks' frames (the region paths'
 * too); a signal trampoline's, the one kind not looked up, lies in a page
 * of no object, which no note holds.
 *
 * Async-signal-safe (a thread's file may be written from a handler).
 */
#ifndef KNIT_CORE_LATE_NAMES_H
#define KNIT_CORE_LATE_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/loadmap.h"

/* The map to name frames by (NULL: none yet), taken once per file. */
const knit_loadmap *knit_late_names_map(void);

/* Rewrites *module and *offset of a frame recorded as (KNIT_MODULE_UNKNOWN,
 * address) as (id, address - base) when the address lies in the text of a
 * module of map (from knit_late_names_map) and that is sound (above).
 * Leaves anything else as it is. */
void knit_late_name(const knit_loadmap *map, uint32_t *module, uint64_t *offset);

#endif /* KNIT_CORE_LATE_NAMES_H */
