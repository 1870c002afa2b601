/* Sampling: the profiling signal, per-thread timers, and probes. */
#ifndef KNIT_CORE_SAMPLER_H
#define KNIT_CORE_SAMPLER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/thread.h"

/* Marks a function that may be entered on a misaligned stack (see
 * profiler/CMakeLists.txt): it realigns it where the ISA needs that. */
#ifndef KNIT_ALIGNED_ENTRY
#define KNIT_ALIGNED_ENTRY
#endif

/* The signal samples arrive by at first, timer or probe alike. */
#define KNIT_SAMPLE_SIGNAL SIGPROF

/* Installs the sample and fault handlers. Not async-signal-safe. */
bool knit_sampler_install(void);

/* The signal samples arrive by now: KNIT_SAMPLE_SIGNAL until the program
 * sets an action of its own for it, then a free real-time signal; 0 when
 * knit is not sampling (not installed, or no free signal was left).
 * Async-signal-safe. */
int knit_sample_signal(void);

/* Its name as the log and the SUMMARY write it ("SIGPROF", "SIGRTMIN+4").
 * Async-signal-safe. */
void knit_sample_signal_name(int sig, char *buf, size_t len);

/* The program's sigaction for the sample signal (core/signal_wrap.c): a
 * query is answered with the action the program had (knit's is not the
 * program's business); setting one moves knit to another signal first, then
 * installs the program's action for real. Returns as sigaction does. */
int knit_sampler_program_action(int sig, const struct sigaction *act, struct sigaction *old);

/* Notes that the program set an action for sig (any signal): knit never
 * moves to a signal the program has claimed. Async-signal-safe. */
void knit_sampler_note_claim(int sig);

/* What the SUMMARY says about sampling beyond its counts: the signal, and
 * the threads whose period knit lengthened. */
unsigned knit_sampler_slowed_threads(void);

/* Logs what a sample cost on average (at the end). */
void knit_sampler_log_cost(void);

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
