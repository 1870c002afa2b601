/* ppc64: what a spinning waiter does between polls (low then medium thread priority, as Linux's cpu_relax). */
#ifndef MOCKRT_CPU_RELAX_H
#define MOCKRT_CPU_RELAX_H

static inline void mockrt_cpu_relax(void)
{
  __asm__ __volatile__("or 1,1,1\n\tor 2,2,2" ::: "memory"); /* as Linux's cpu_relax */
}

#endif /* MOCKRT_CPU_RELAX_H */
