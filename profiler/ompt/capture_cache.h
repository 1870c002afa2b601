/* The region paths a thread captured before, and how to tell, without a
 * walk, that a capture would give one of them again.
 *
 * A program opens its regions from few places, again and again (a region
 * in a loop, a function with a region called many times), and every
 * capture unwinds the thread's whole stack. An entry keeps one capture's
 * result with everything that decided it: the registers the walk started
 * from and the words it read that mattered (unwind/walk_deps.h), the load
 * map, the limit of the walk, the encountering task's frame record and its
 * prefix. When all of these are the same again, the walk would be the
 * same, frame for frame, and so would the path: the entry's path is the
 * capture's result, exactly. Anything that differs (another call chain,
 * another depth, a frame pointer a rule uses, a map rebuilt, a library
 * unloaded since) is a miss, and the thread walks.
 *
 * A hit needs no look at the loaded libraries: every pc of the remembered
 * walk lay in a library of its map, and a library loaded since cannot have
 * taken those addresses; only an unload can free them for other code, and
 * unloads are counted in the key. A walk that ended partial (in code of no
 * known library, say, which may be new) is not remembered
 * (unwind/walk_deps.h). Every miss refreshes the map before it walks.
 *
 * Per thread: no locks; entries hold interned paths, which are never freed.
 */
#ifndef KNIT_OMPT_CAPTURE_CACHE_H
#define KNIT_OMPT_CAPTURE_CACHE_H

#include <stdint.h>

#include "ompt/attribution.h"
#include "unwind/walk_deps.h"

/* Entries per thread, in sets of eight chosen by the construct's call
 * site, the capture's stack pointer, frame record, prefix and load map:
 * enough for the call sites a thread opens regions from in turn. A proxy
 * hydrodynamics code opens 34 regions a time step from as many functions;
 * eight entries looked at in turn were replaced before they were met
 * again, and 91% of its captures walked. Call chains that differ only in
 * the words their walks read (one function with a region, called from
 * several places at one depth: workloads/callsites calls it from four)
 * share a set, which holds eight of them; more than that in turn, and they
 * walk. A lookup looks at the entry that answered last and at one set; the
 * entries are in the thread's arena, whose pages cost memory only once an
 * entry is written. */
#define KNIT_CAPTURE_CACHE_SETS    16
#define KNIT_CAPTURE_CACHE_WAYS    8
#define KNIT_CAPTURE_CACHE_ENTRIES (KNIT_CAPTURE_CACHE_SETS * KNIT_CAPTURE_CACHE_WAYS)

/* Everything but the registers and the words that decides a capture. */
typedef struct knit_capture_key {
  const knit_loadmap *map;
  const knit_call_path *outer;
  /* The construct's call site, or 0: one caller may open regions from many
   * sites at one stack depth (a time step calling 34 functions that each
   * open one), which only the words the walks read tell apart; filed by
   * site, they do not compete for one set. */
  uint64_t site;
  uint64_t enter, exit; /* the encountering task's frame addresses */
  int enter_flags, exit_flags;
  uint32_t stop_module; /* the walk's knit_unwinder.stop_module */
  uint64_t unloads;     /* libraries unloaded so far (core/unloads.h) */
} knit_capture_key;

typedef struct knit_capture_entry {
  const knit_call_path *path; /* NULL: the entry is empty */
  knit_capture_key key;
  knit_regs regs; /* fp and lr count only where deps says they do */
  knit_walk_deps deps;
} knit_capture_entry;

typedef struct knit_capture_cache {
  knit_capture_entry entries[KNIT_CAPTURE_CACHE_ENTRIES]; /* set by set */
  uint8_t recent[KNIT_CAPTURE_CACHE_SETS];                /* per set, the way used last */
  unsigned last;                                          /* the entry found or added last */
} knit_capture_cache;

/* The path of an entry whose key, registers and words are those of a
 * capture from regs with key k now, or NULL. Reads the entries' words:
 * call it under the fault guard. */
const knit_call_path *knit_capture_cache_find(knit_capture_cache *c, const knit_capture_key *k,
                                              const knit_regs *regs);

/* Remembers path as the capture from regs with key k, whose walk depended
 * on deps, in place of the oldest entry. */
void knit_capture_cache_add(knit_capture_cache *c, const knit_capture_key *k, const knit_regs *regs,
                            const knit_walk_deps *deps, const knit_call_path *path);

#endif /* KNIT_OMPT_CAPTURE_CACHE_H */
