/* Sampling: the profiling signal, per-thread timers, and probes. */
#ifndef KNIT_CORE_SAMPLER_H
#define KNIT_CORE_SAMPLER_H

#include <stdbool.h>

#include "core/thread.h"

/* Marks a function that may be entered on a misaligned stack (see
 * profiler/CMakeLists.txt): it realigns it where the ISA needs that. */
#ifndef KNIT_ALIGNED_ENTRY
#define KNIT_ALIGNED_ENTRY
#endif

/* The signal every sample arrives by, timer or probe alike. */
#define KNIT_SAMPLE_SIGNAL SIGPROF

/* Installs the sample and fault handlers. Not async-signal-safe. */
bool knit_sampler_install(void);

/* Fills in the unwinder's memory reader. */
void knit_sampler_prepare_unwinder(knit_unwinder *u);

/* Starts the calling thread's timer (timer events only). */
void knit_sampler_start_thread(knit_thread *t);

/* Stops the thread's timer and waits until its handler is not running. */
void knit_sampler_stop_thread(knit_thread *t);

/* The handler (exposed for the crash path's bookkeeping and for tests). */
void knit_sample_handler(int sig, siginfo_t *info, void *ucontext);

/* Takes a sample of the calling thread now (what knit_probe() calls). */
void knit_probe_fire(void);

#endif /* KNIT_CORE_SAMPLER_H */
