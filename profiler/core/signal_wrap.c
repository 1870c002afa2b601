/* knit wraps sigaction and signal for the signals it has a part in: the
 * fault guard's (below) and those that end the program, on which knit writes
 * the measurement first (core/ending_signals.h).
 *
 * Programs that set their own SIGSEGV or SIGBUS handler after knit's fault
 * guard is in place (gfortran's runtime does at start, for its backtrace)
 * would take the guard's place, and the next fault of an unwind, which the
 * guard turns into a partial walk, would reach the program's handler and
 * end the program. So knit wraps sigaction and signal: for the guarded
 * signals the program's handler becomes the one the guard passes the
 * program's own faults on to (fault_guard.c), and the program is answered
 * as it would have been without knit (the old action is the one it set
 * before). The sample signal is knit's until the program sets an action
 * for it: then knit moves to another (core/sampler.c). Every other signal
 * goes straight to the C library. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "core/ending_signals.h"
#include "core/fault_guard.h"
#include "core/sampler.h"
#include "core/next_symbol.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);

int knit_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
  sigaction_fn real = KNIT_NEXT_SYMBOL(sigaction_fn, "sigaction");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  return real(sig, act, old);
}

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
                                                     struct sigaction *old)
{
  if (act)
    knit_sampler_note_claim(sig);
  if (knit_fault_guard_keeps(sig))
    return knit_fault_guard_program_action(sig, act, old);
  if (sig != 0 && sig == knit_sample_signal())
    return knit_sampler_program_action(sig, act, old);
  if (knit_ending_signals_covers(sig))
    return knit_ending_signals_program_action(sig, act, old);
  return knit_real_sigaction(sig, act, old);
}

__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t handler)
{
  knit_sampler_note_claim(sig);
  if (knit_fault_guard_keeps(sig) || (sig != 0 && sig == knit_sample_signal()) ||
      knit_ending_signals_covers(sig)) {
    /* glibc's signal: BSD semantics, the signal blocked in its handler. */
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = SA_RESTART;
    sigemptyset(&act.sa_mask);
    sigaddset(&act.sa_mask, sig);
    if (sigaction(sig, &act, &old) != 0)
      return SIG_ERR;
    return old.sa_handler;
  }
  signal_fn real = KNIT_NEXT_SYMBOL(signal_fn, "signal");
  if (!real) {
    errno = ENOSYS;
    return SIG_ERR;
  }
  return real(sig, handler);
}
