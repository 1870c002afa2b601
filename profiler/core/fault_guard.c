/* The fault guard: see fault_guard.h. */
#include "core/fault_guard.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "core/sampler.h"
#include "core/session.h"
#include "core/thread.h"

static const int guarded[] = {SIGSEGV, SIGBUS};
/* The program's actions for them: set before knit's (found at install) or
 * since (core/signal_wrap.c). */
static struct sigaction previous[2];
static volatile bool installed;

static int slot_of(int sig) { return sig == SIGSEGV ? 0 : 1; }

KNIT_ALIGNED_ENTRY static void on_fault(int sig, siginfo_t *info, void *uc)
{
  knit_thread *t = knit_thread_self();
  if (t && t->in_unwind) {
    t->in_unwind = 0;
    /* The jump goes back to a sigsetjmp that saved no signal mask (saving
     * it is a system call on every sample and every region), so the mask
     * is put back here, on the rare fault, to the one the faulting read ran
     * with: the mask at the sigsetjmp, since nothing in between changes it.
     * The mask in force now is that one plus sa_mask plus the signal unless
     * SA_NODEFER; with the flags installed below that adds nothing, but a
     * guard left with a blocked SIGSEGV would turn the next fault in an
     * unwind into the death of the process, so the recovery does not rest
     * on those flags. */
    const ucontext_t *interrupted = uc;
    sigprocmask(SIG_SETMASK, &interrupted->uc_sigmask, NULL);
    siglongjmp(t->fault_jump, 1);
  }
  const struct sigaction *prev = &previous[slot_of(sig)];
  if ((prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction) {
    prev->sa_sigaction(sig, info, uc);
    return;
  }
  if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
    prev->sa_handler(sig);
    return;
  }
  knit_session_finish(sig == SIGSEGV ? "crash: SIGSEGV" : "crash: SIGBUS");
  /* Returning re-executes the faulting instruction under the default
   * action: the process dies exactly as it would have without knit. */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  knit_real_sigaction(sig, &dfl, NULL);
}

bool knit_fault_guard_install(void)
{
  for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    /* SA_NODEFER: a fault inside the program's own handler, reached through
     * the chain, must still be delivered. */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (knit_real_sigaction(guarded[i], &sa, &previous[slot_of(guarded[i])]) != 0)
      return false;
  }
  installed = true;
  return true;
}

bool knit_fault_guard_keeps(int sig) { return installed && (sig == SIGSEGV || sig == SIGBUS); }

int knit_fault_guard_program_action(int sig, const struct sigaction *act, struct sigaction *old)
{
  if (!knit_fault_guard_keeps(sig)) {
    errno = EINVAL;
    return -1;
  }
  struct sigaction *prev = &previous[slot_of(sig)];
  struct sigaction was = *prev;
  if (act)
    *prev = *act;
  if (old)
    *old = was;
  return 0;
}
