/* aarch64: what a spinning waiter does between polls (yield: the spin-wait hint). */
#ifndef MOCKRT_CPU_RELAX_H
#define MOCKRT_CPU_RELAX_H

static inline void mockrt_cpu_relax(void)
{
  __asm__ __volatile__("yield" ::: "memory");
}

#endif /* MOCKRT_CPU_RELAX_H */
