/* The structure analysis's results on disk (structure.h): per analyzed
 * function of a module, its loops, so that a module is analyzed once per
 * binary rather than once per report.
 *
 * A file per module, named by the module's GNU build-id (a module without
 * one is never cached: nothing else says two files hold the same code),
 * in structure/ under the cache directory: $KNIT_CACHE_DIR, else
 * $XDG_CACHE_HOME/knit, else $HOME/.cache/knit. KNIT_CACHE_DIR set to the
 * empty string turns the cache off. The file's header holds a format
 * version, the build-id, the ISA, whether the analysis had source lines
 * (they split loops sharing a header and name every loop), and the
 * build-id of the program that analyzed (knit itself: a knit built from
 * other code may find other loops, and a version number bumped by hand
 * would be forgotten some day; a program without one caches nothing);
 * a file whose
 * header differs from what is asked, or whose checksum (crc32 of what
 * follows the header) does not match, reads as empty and is rewritten.
 * Files are written whole to a temporary file of the same folder, then
 * renamed over the old one: a concurrent reader sees the old file or the
 * new one, never part of one. The file is untrusted input: every count and
 * index is checked before use.
 *
 * Every failure (no build-id, no cache folder, an unwritable one, a bad
 * file) means no cache, silently: the analysis runs as if there were
 * none. */
#ifndef KNIT_STRUCTURE_STRUCTURE_CACHE_H
#define KNIT_STRUCTURE_STRUCTURE_CACHE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One loop of a function, as the report's knit_loop_ref shows it. */
typedef struct knit_cached_loop {
  uint64_t header; /* its header block's address */
  uint64_t latch;  /* the branch of the back edge that names it */
  int32_t parent;  /* the innermost loop around it (a smaller index), or -1 */
  uint32_t depth;  /* 1 for an outermost loop, the parent's + 1 otherwise */
  uint32_t line;   /* the line naming it, 0 when unknown */
} knit_cached_loop;

/* Code [start, end) whose innermost loop is loop: a function's blocks in
 * loops, adjacent blocks of one innermost loop merged. Code in no span is
 * in no loop. */
typedef struct knit_loop_span {
  uint64_t start, end;
  int32_t loop;
} knit_loop_span;

/* One function's loops: what knit_structure_loops_at answers from. */
typedef struct knit_function_loops {
  uint64_t start, end; /* the function's bounds: the key */
  bool analyzed;       /* false: its code could not be read or decoded */
  uint32_t loop_count; /* outer loops before the loops they hold */
  knit_cached_loop *loops;
  uint32_t span_count; /* ascending, disjoint, inside [start, end) */
  knit_loop_span *spans;
} knit_function_loops;

/* What a cache file must match to be used. */
typedef struct knit_structure_key {
  uint8_t build_id[64];
  uint32_t build_id_len;
  uint16_t machine;    /* e_machine */
  uint8_t elf_class;   /* EI_CLASS */
  uint8_t elf_data;    /* EI_DATA */
  bool lines;          /* whether the analysis had source lines */
  uint8_t tool_id[64]; /* the running program's build-id */
  uint32_t tool_id_len;
} knit_structure_key;

/* The key of the module elf; false when it or the running program has no
 * build-id. */
bool knit_structure_key_of(Elf *elf, bool lines, knit_structure_key *key);

/* The cache file of a key (malloc'd), or NULL when the cache is off or no
 * folder can be named. Creates nothing. */
char *knit_structure_cache_path(const knit_structure_key *key);

/* Reads the file at path: its functions, by ascending start (malloc'd, each
 * released with knit_function_loops_free), when it is a valid file of key.
 * Returns false, with *out NULL and *count 0, when there is no such file or
 * it is not valid. */
bool knit_structure_cache_read(const char *path, const knit_structure_key *key,
                               knit_function_loops **out, size_t *count);

/* Writes count functions (ascending, distinct starts) as the file at path,
 * replacing it atomically; creates the folders it needs. Returns false
 * when it could not (the old file, if any, stays). */
bool knit_structure_cache_write(const char *path, const knit_structure_key *key,
                                const knit_function_loops *f, size_t count);

void knit_function_loops_free(knit_function_loops *f);

#endif /* KNIT_STRUCTURE_STRUCTURE_CACHE_H */
