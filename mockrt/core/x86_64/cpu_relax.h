/* x86_64: what a spinning waiter does between polls (pause: the spin-wait hint). */
#ifndef MOCKRT_CPU_RELAX_H
#define MOCKRT_CPU_RELAX_H

static inline void mockrt_cpu_relax(void)
{
  __builtin_ia32_pause();
}

#endif /* MOCKRT_CPU_RELAX_H */
