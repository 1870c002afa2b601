/* The definition a wrapper of knit's stands in front of: the next one in
 * the lookup order after libknit.so (the C library's, usually), found at
 * the first call and kept. NULL when there is none.
 *
 * Every wrapper (sigaction, the exec family, pthread_create, the mask
 * calls) needs one; the first lookup takes the loader's lock, so a wrapper
 * that may run in a signal handler is called once outside one first. */
#ifndef KNIT_CORE_NEXT_SYMBOL_H
#define KNIT_CORE_NEXT_SYMBOL_H

#include <dlfcn.h>

#define KNIT_NEXT_SYMBOL(fn_type, name)                                                            \
  __extension__({                                                                                  \
    static fn_type next_definition;                                                                \
    if (!next_definition)                                                                          \
      next_definition = (fn_type)dlsym(RTLD_NEXT, name);                                           \
    next_definition;                                                                               \
  })

#endif /* KNIT_CORE_NEXT_SYMBOL_H */
