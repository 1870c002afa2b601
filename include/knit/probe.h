/* knit probes: deterministic samples at fixed places in a program.
 *
 * Include this header and call knit_probe() wherever a sample should be
 * taken when the program runs under `knit record -e PROBE`. Nothing of
 * knit's needs to be linked: the first call looks the sampler up in the
 * process (it is there only when libknit.so was preloaded), and when knit is
 * not loaded every call is a cheap test of a cached pointer.
 *
 * The sample is taken through a real signal frame on the calling thread,
 * exactly as a timer sample would be, so its call path is the program's own:
 * the frames of knit itself are cut away.
 */
#ifndef KNIT_PROBE_H
#define KNIT_PROBE_H

#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*knit_probe_fn)(void);

/* One cache per translation unit: the look-up is done once per file, and a
 * race between threads only repeats it. The sentinel (void *)1 means "looked
 * up, not present". */
static knit_probe_fn knit_probe_cached_;

static inline __attribute__((always_inline)) void knit_probe(void)
{
  knit_probe_fn fn = __atomic_load_n(&knit_probe_cached_, __ATOMIC_RELAXED);
  if (fn == (knit_probe_fn)0) {
    void *self = dlopen((const char *)0, RTLD_LAZY | RTLD_NOLOAD);
    void *sym = self ? dlsym(self, "knit_probe_fire") : (void *)0;
    fn = sym ? (knit_probe_fn)sym : (knit_probe_fn)1;
    __atomic_store_n(&knit_probe_cached_, fn, __ATOMIC_RELAXED);
  }
  if (fn != (knit_probe_fn)1)
    fn();
  /* Keeps the call out of tail position: a probe at the end of a function
   * must not turn into a jump that removes the function's own frame. */
  __asm__ __volatile__("" ::: "memory");
}

#ifdef __cplusplus
}
#endif

#endif /* KNIT_PROBE_H */
