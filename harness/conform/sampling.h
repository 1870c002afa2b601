/*
 * The platform's sampling acceptance tests (conform_sampling): what a
 * sampling profiler needs from the kernel, the C library and (under QEMU)
 * the emulator.  Each test returns a verdict with its evidence; the
 * handlers they install are async-signal-safe (they touch only
 * sig_atomic_t and lock-free atomics, and call only system calls and
 * knit_native_regs_from_ucontext).
 */
#ifndef KNIT_CONFORM_SAMPLING_H
#define KNIT_CONFORM_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { SAMPLING_PASS, SAMPLING_FAIL, SAMPLING_UNSUPPORTED } sampling_verdict;

typedef sampling_verdict (*sampling_test_fn)(char *evidence, size_t len);

/* sampling_signals.c */
sampling_verdict sampling_sigaction_context(char *evidence, size_t len);
sampling_verdict sampling_nested_sigsegv(char *evidence, size_t len);
sampling_verdict sampling_handler_mask_restored(char *evidence, size_t len);
sampling_verdict sampling_itimer_prof_signal(char *evidence, size_t len);
sampling_verdict sampling_mmap_in_handler(char *evidence, size_t len);

/* sampling_threads.c */
sampling_verdict sampling_many_threads(char *evidence, size_t len);
sampling_verdict sampling_thread_timer_target(char *evidence, size_t len);
sampling_verdict sampling_fork(char *evidence, size_t len);
sampling_verdict sampling_exec(char *evidence, size_t len);
/* The exec'ed child's side of sampling_exec: exit status 0 when it sampled. */
int sampling_exec_child(void);

/* Spins on the calling thread's CPU until *done is set or about
 * max_ms of wall time have passed; returns whether *done was set. */
bool sampling_spin_until(volatile int *done, int max_ms);

/* Arms a per-thread timer (SIGEV_THREAD_ID) on the calling thread: clock
 * CLOCK_MONOTONIC or CLOCK_THREAD_CPUTIME_ID, period_us apart (0: once
 * after first_us).  Returns false with errno set when it cannot. */
bool sampling_thread_timer(int clock, long first_us, long period_us, int signo, void **timer);
void sampling_timer_delete(void *timer);

#endif
