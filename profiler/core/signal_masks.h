/* knit's sample signal is kept out of the program's blocked sets.
 *
 * A program that blocks every signal around some work (pthread_sigmask or
 * sigprocmask with a full set: to keep its own handlers off its data, or
 * before creating threads that should not take signals) would hold off
 * knit's samples too, and the timer's overruns would then put all that time
 * on the call that unblocks them: a profile that names pthread_sigmask for
 * work it did not do. Counting that time as lost instead would be honest
 * but leave a hole where the work was. knit's handler touches none of the
 * program's data and is async-signal-safe, so letting it in changes
 * nothing the blocking protects: the sample signal is taken out of every
 * set the program blocks, and the program is answered as if it were in:
 * queries of the mask show it blocked while the program has it blocked (a
 * per-thread record, inherited by new threads as the mask is), and a fork
 * child, where knit does not run, gets the mask the program asked for.
 * The waits the kernel does not restart after a handler (core/waits.c)
 * hold the signal off themselves, for their own duration only.
 */
#ifndef KNIT_CORE_SIGNAL_MASKS_H
#define KNIT_CORE_SIGNAL_MASKS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* The kernel's sigprocmask for the calling thread, past the wrappers:
 * for knit's own changes. Async-signal-safe. */
int knit_real_sigmask(int how, const sigset_t *set, sigset_t *old);

/* At install: if the mask knit started with (inherited over exec) blocks
 * sig, it is unblocked and recorded as the program's. */
void knit_masks_take_over(int sig);

/* knit moved from the signal left to the signal next (0: none): the
 * calling thread's record of left is applied for real now, and next
 * unblocked if the program had blocked it here. Other threads apply
 * theirs in their next sample (knit_masks_restore_left). */
void knit_masks_signal_moved(int left, int next);

/* In the sample handler (signal sig): signals the program blocked while
 * they were knit's and knit has left since are added to the mask the
 * interrupted code gets back. Async-signal-safe. */
void knit_masks_restore_left(void *ucontext, int sig);

/* Whether the calling thread's mask, as the program set it through the
 * wrappers, blocks SIGSEGV or SIGBUS (core/fault_guard.h). */
bool knit_masks_block_faults(void);

/* The calling thread's record (bit sig - 1 for each signal the program
 * blocked that knit keeps unblocked), for pthread_create to hand on, and
 * the setter a new thread calls with it. */
uint64_t knit_masks_record(void);
void knit_masks_inherit(uint64_t record);

#endif /* KNIT_CORE_SIGNAL_MASKS_H */
