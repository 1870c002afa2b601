/* Signals that end the program: see ending_signals.h. */
#define _GNU_SOURCE
#include "core/ending_signals.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fault_guard.h"
#include "base/safe_format.h"
#include "core/sampler.h"
#include "core/session.h"

/* SIGSEGV and SIGBUS are the fault guard's; SIGPROF is the sampler's;
 * SIGKILL and SIGSTOP cannot be caught. The real-time signals, whose
 * default also ends the process, are left alone: runtimes and libraries
 * claim them without sigaction's help (glibc's own, timers' signals). */
static const int ending[] = {SIGHUP,  SIGINT,    SIGQUIT, SIGILL,  SIGTRAP, SIGABRT,   SIGFPE,
                             SIGUSR1, SIGUSR2,   SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU,
                             SIGXFSZ, SIGVTALRM, SIGIO,   SIGPWR,  SIGSYS};

/* held[sig]: knit's handler stands in for the program's default action;
 * the program's own view of its action (a default, with its flags and
 * mask) is in view[sig]. */
static volatile bool held[NSIG];
static struct sigaction view[NSIG];

bool knit_ending_signals_covers(int sig)
{
  for (size_t i = 0; i < sizeof ending / sizeof *ending; i++)
    if (ending[i] == sig)
      return true;
  return false;
}

KNIT_ALIGNED_ENTRY static void on_ending_signal(int sig, siginfo_t *info, void *uc)
{
  (void)info;
  (void)uc;
  int saved = errno;
  char why[48];
  knit_safe_snprintf(why, sizeof why, "signal %d (%s)", sig, sigabbrev_np(sig));
  knit_session_finish(why);
  /* Then the default action, for real: the signal is blocked while this
   * handler runs, so the one sent here is taken as soon as it returns, and
   * ends the process as the first would have without knit. A fault
   * (SIGFPE, SIGILL) would also come back by itself, re-executed. */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  held[sig] = false;
  knit_real_sigaction(sig, &dfl, NULL);
  syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
  errno = saved;
}

/* Puts knit's handler on sig for real. */
static bool hold(int sig)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_ending_signal;
  /* SA_ONSTACK: a SIGABRT from a stack guard, or any of them on a thread
   * whose stack is nearly used up, runs where the program wants its
   * handlers to run. */
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  /* Nothing else runs while the measurement is written, but a fault in
   * it must still reach the fault guard. */
  sigfillset(&sa.sa_mask);
  sigdelset(&sa.sa_mask, SIGSEGV);
  sigdelset(&sa.sa_mask, SIGBUS);
  if (knit_real_sigaction(sig, &sa, NULL) != 0)
    return false;
  held[sig] = true;
  return true;
}

void knit_ending_signals_install(void)
{
  for (size_t i = 0; i < sizeof ending / sizeof *ending; i++) {
    int sig = ending[i];
    struct sigaction now;
    if (knit_real_sigaction(sig, NULL, &now) != 0 || now.sa_handler != SIG_DFL)
      continue;
    view[sig] = now;
    hold(sig);
  }
}

int knit_ending_signals_program_action(int sig, const struct sigaction *act, struct sigaction *old)
{
  if (sig <= 0 || sig >= NSIG || !knit_ending_signals_covers(sig))
    return knit_real_sigaction(sig, act, old);
  struct sigaction was;
  if (held[sig])
    was = view[sig];
  else if (knit_real_sigaction(sig, NULL, &was) != 0)
    return -1;
  if (act) {
    bool to_default = act->sa_handler == SIG_DFL;
    if (to_default && knit_the_session.active) {
      view[sig] = *act;
      if (!held[sig] && !hold(sig))
        return knit_real_sigaction(sig, act, old);
    } else {
      if (knit_real_sigaction(sig, act, NULL) != 0)
        return -1;
      held[sig] = false;
    }
  }
  if (old)
    *old = was;
  return 0;
}
