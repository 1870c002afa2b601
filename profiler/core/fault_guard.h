/* Faults while unwinding, and faults of the program.
 *
 * Unwinding reads stack memory that a corrupt or foreign stack may not have
 * mapped. The guard's SIGSEGV/SIGBUS handler turns a fault during an unwind
 * into a jump back to the sample handler, which keeps the frames found so
 * far as a partial path. Any other fault is the program's: the measurement
 * is written (so a crash loses nothing that was collected), and the fault
 * goes on to the handler the program had, or kills the process as it would
 * have without knit.
 */
#ifndef KNIT_CORE_FAULT_GUARD_H
#define KNIT_CORE_FAULT_GUARD_H

#include <signal.h>
#include <stdbool.h>

bool knit_fault_guard_install(void);

/* Whether the guard is installed and sig is one it keeps (SIGSEGV,
 * SIGBUS): the program's sigaction and signal for it then go through
 * knit_fault_guard_program_action (core/signal_wrap.c). */
bool knit_fault_guard_keeps(int sig);
/* The program sets (act) or asks for (old) its action for a kept signal:
 * the handler the guard passes the program's faults on to. Returns 0, or
 * -1 with errno EINVAL. */
int knit_fault_guard_program_action(int sig, const struct sigaction *act, struct sigaction *old);

/* A fault inside the guard must reach it: a thread whose mask blocks
 * SIGSEGV or SIGBUS (a program that blocks every signal around its work)
 * would otherwise be killed by knit's own fault, as the kernel kills on a
 * synchronous fault it finds blocked. knit_fault_guard_open unblocks them
 * for real when mask (the thread's mask) blocks either, and says whether
 * it did; knit_fault_guard_close(true) blocks them again. A signal handler
 * need not close: the kernel gives the interrupted code its mask back.
 * knit_fault_guard_open_here does the same for the calling thread from the
 * mask the program set through knit's wrappers (core/signal_masks.h),
 * without a system call when it blocks neither. Async-signal-safe. */
bool knit_fault_guard_open(const sigset_t *mask);
bool knit_fault_guard_open_here(void);
void knit_fault_guard_close(bool opened);

/* The C library's sigaction, past knit's wrapper (core/signal_wrap.c). */
int knit_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

#endif /* KNIT_CORE_FAULT_GUARD_H */
