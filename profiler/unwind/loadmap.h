/* The load map: which modules (the program, shared libraries) are mapped
 * where, with the function bounds of each.
 *
 * The map is rebuilt outside the handler (at start-up, at thread start,
 * after dlopen) and published through one atomic pointer; the handler reads
 * the current map without a lock. Modules are never freed: an old map may
 * still be in a handler's hands. Module ids are stable for the whole run.
 */
#ifndef KNIT_UNWIND_LOADMAP_H
#define KNIT_UNWIND_LOADMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind/bounds.h"

#define KNIT_MAX_MODULES    4096u
#define KNIT_MAX_ROOT_FUNCS 6u

typedef struct knit_module {
  uint32_t id;
  const char *path; /* file path as the process sees it */
  uint64_t base;    /* load bias: runtime address - ELF vaddr */
  uint64_t text_lo; /* executable segments, runtime addresses */
  uint64_t text_hi;
  knit_func_table funcs; /* ELF virtual addresses */
  /* Runtime start addresses of functions where every stack begins (_start,
   * clone, clone3): unwinding ends successfully in them. */
  uint64_t roots[KNIT_MAX_ROOT_FUNCS];
  unsigned root_count;
  bool is_self; /* the module that holds knit's own code */
} knit_module;

typedef struct knit_loadmap {
  /* glibc's counts of objects loaded and unloaded when the map was built:
   * while they stand, the map is current. */
  unsigned long long adds, subs;
  uint32_t count;
  const knit_module *by_address[]; /* sorted by text_lo */
} knit_loadmap;

/* Rebuilds the map from dl_iterate_phdr when the set of loaded objects
 * changed. self_addr is any address inside knit's own module (its frames are
 * marked so probes can cut them away). Not async-signal-safe: takes a lock
 * and allocates when something changed. Finding that nothing did takes no
 * lock of knit's (it runs at every parallel region). */
void knit_loadmap_refresh(const void *self_addr);

/* The current map (NULL before the first refresh). Async-signal-safe. */
const knit_loadmap *knit_loadmap_current(void);

/* The module whose executable segments contain pc, or NULL.
 * Async-signal-safe. */
const knit_module *knit_loadmap_find(const knit_loadmap *map, uint64_t pc);

/* Every module seen so far, by id (ids run from 0 to count-1).
 * Async-signal-safe. */
uint32_t knit_loadmap_module_count(void);
const knit_module *knit_loadmap_module(uint32_t id);

/* Whether module id is knit's own library (its frames are never the
 * program's). Async-signal-safe. */
bool knit_loadmap_is_self(uint32_t id);

/* Called once for each module the refresh that found it added, after the
 * new map is published and before the refresh returns (so outside any
 * handler, under the refresh's lock: calls never overlap). The recording
 * keeps there what the report will need of a module while it is still at
 * hand (core/image_copy.h). NULL: none. */
typedef void (*knit_loadmap_new_module_fn)(const knit_module *m);
void knit_loadmap_on_new_module(knit_loadmap_new_module_fn fn);

/* Registers a module built by hand (tests, or objects dl_iterate_phdr does
 * not show). Takes ownership of m. Returns its id. */
uint32_t knit_loadmap_add(knit_module *m);

#endif /* KNIT_UNWIND_LOADMAP_H */
