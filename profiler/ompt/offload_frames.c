/* The offloading library's frames: see offload_frames.h. */
#include "ompt/offload_frames.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "measure/format.h"
#include "unwind/loadmap.h"
#include "unwind/object_lookup.h"

enum {
  ROLE_UNSEEN = 0,
  ROLE_OTHER = 1,
  ROLE_OFFLOAD = 2,      /* libomptarget and its plugins */
  ROLE_FOREIGN_CALL = 3, /* libffi: how a plugin calls a kernel */
  ROLE_SYSTEM = 4,       /* the C library, the dynamic linker */
};

/* A module's role by id, found at its first frame: a byte a module, so a
 * frame costs one load once its module has been seen. */
static _Atomic uint8_t roles[KNIT_MAX_MODULES];

static bool has_prefix(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static uint8_t role_of_path(const char *path)
{
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (has_prefix(name, "libomptarget"))
    return ROLE_OFFLOAD;
  if (has_prefix(name, "libffi.so"))
    return ROLE_FOREIGN_CALL;
  if (has_prefix(name, "libc.so") || has_prefix(name, "ld-linux") || has_prefix(name, "ld64.so"))
    return ROLE_SYSTEM;
  return ROLE_OTHER;
}

static uint8_t role_of(uint32_t module)
{
  if (module >= KNIT_MAX_MODULES)
    return ROLE_OTHER; /* unknown code, or a placeholder */
  uint8_t role = atomic_load_explicit(&roles[module], memory_order_relaxed);
  if (role != ROLE_UNSEEN)
    return role;
  const knit_module *m = knit_loadmap_module(module);
  role = m && m->path ? role_of_path(m->path) : ROLE_OTHER;
  atomic_store_explicit(&roles[module], role, memory_order_relaxed);
  return role;
}

/* The role of a frame's code. A frame of an object the load map did not
 * know yet (unwind/object_lookup.h; a plugin dlopened by libomptarget's
 * constructor, libffi brought in with it) is told by the path the dynamic
 * linker has for the object, looked up at each such frame: those frames
 * last only until the map's next refresh. */
static uint8_t role_of_frame(const knit_frame *f)
{
  if (f->module != KNIT_MODULE_UNKNOWN)
    return role_of(f->module);
  const char *path = knit_object_lookup_path(f->pc - (f->pc > 0));
  return path && path[0] ? role_of_path(path) : ROLE_OTHER;
}

knit_offload_run knit_offload_run_find(const knit_frame *frames, int first, int last,
                                       bool runtime_inward)
{
  knit_offload_run run = {-1, -1};
  int i = last;
  while (i >= first && role_of_frame(&frames[i]) != ROLE_OFFLOAD)
    i--;
  /* The library entered from the program: a construct's call. A thread
   * the library started itself (the mock device's, which runs kernels on
   * its own) enters it from the C library's thread start instead. */
  if (i < first || i == last || role_of(frames[i + 1].module) != ROLE_OTHER ||
      frames[i + 1].module == KNIT_MODULE_UNKNOWN)
    return run;
  int outer = i;
  /* Inward through the library, the plugin, the call bridge and what they
   * call of the system's, up to the first frame of other code. */
  while (i >= first && role_of_frame(&frames[i]) >= ROLE_OFFLOAD)
    i--;
  if (i >= first || runtime_inward) {
    run.outer = outer;
    run.inner = i + 1;
  }
  return run;
}
