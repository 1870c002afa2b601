/* Code of an object the load map does not know yet: a library dlopened
 * since the map's last refresh (knit does not wrap dlopen, see
 * docs/design-notes.md), found through glibc's _dl_find_object.
 *
 * A program that dlopens a library and then runs in it for a long time
 * before the next refresh point would otherwise get every sample there
 * unwound no further than the library's first frame. The object's
 * .eh_frame_hdr gives the bounds of the one function at pc, enough to
 * analyze it from memory as a known module's.
 */
#ifndef KNIT_UNWIND_OBJECT_LOOKUP_H
#define KNIT_UNWIND_OBJECT_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

/* The loaded object that holds pc: the span of its mapping, [*map_lo,
 * *map_hi), and the bounds [*start, *end) of the function containing pc.
 * Returns false when no object holds pc (code not loaded by the dynamic
 * linker), or the object's .eh_frame_hdr gives no function there, or the C
 * library has no _dl_find_object. *map_lo is set whenever an object was
 * found (0 otherwise). Async-signal-safe; reads the object's memory
 * directly, so call it under the handler's fault guard (an object being
 * unloaded may be unmapped under the reads). */
bool knit_object_lookup(uint64_t pc, uint64_t *map_lo, uint64_t *map_hi, uint64_t *start,
                        uint64_t *end);

/* The path of the loaded object that holds pc, as the dynamic linker
 * names it ("" for the program), or NULL when none does. The string is
 * the linker's, valid while the object stays loaded. Async-signal-safe,
 * under the handler's fault guard as knit_object_lookup. */
const char *knit_object_lookup_path(uint64_t pc);

/* Notes that a walk placed a frame in the object mapped at [map_lo,
 * map_hi) (from knit_object_lookup) while unloads libraries had been
 * unloaded (core/unloads.h). Keeps, per object, the smallest such count, for
 * the first KNIT_LOOKUP_OBJECTS objects. Async-signal-safe (atomics). */
void knit_object_lookup_used(uint64_t map_lo, uint64_t map_hi, uint64_t unloads);

#define KNIT_LOOKUP_OBJECTS 64u

/* Notes that a walk left a frame in code of no module of the map without
 * looking its object up (an unload was under way): from then on no noted
 * object is trusted to be the one at an address. Async-signal-safe. */
void knit_object_lookup_unnoted(void);

/* The smallest count noted by knit_object_lookup_used for the object that
 * holds addr, in *unloads, and its mapping in *map_lo and *map_hi. False
 * when no noted object holds addr, or more than one does (one unloaded and
 * another loaded over it), or the notes are incomplete (more objects than
 * they hold, one being noted, or a frame left unnoted). A frame recorded by its absolute address
 * in that object still names the same code as long as no library was
 * unloaded since that count (core/late_names.h). */
bool knit_object_lookup_since(uint64_t addr, uint64_t *unloads, uint64_t *map_lo, uint64_t *map_hi);

#endif /* KNIT_UNWIND_OBJECT_LOOKUP_H */
