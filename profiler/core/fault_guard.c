/* The fault guard: see fault_guard.h. */
#define _GNU_SOURCE
#include "core/fault_guard.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/sampler.h"
#include "core/session.h"
#include "core/signal_masks.h"
#include "core/thread.h"

static const int guarded[] = {SIGSEGV, SIGBUS};
/* The program's actions for them: set before knit's (found at install) or
 * since (core/signal_wrap.c). */
static struct sigaction previous[2];
static volatile bool installed;

static int slot_of(int sig)
{
  return sig == SIGSEGV ? 0 : 1;
}

static bool is_handler(const struct sigaction *act)
{
  return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

KNIT_ALIGNED_ENTRY static void on_fault(int sig, siginfo_t *info, void *uc);

/* Installs knit's handler for sig shaped like the program's action, so
 * that the kernel treats a fault of the program as it would without knit:
 * the same alternate stack (SA_ONSTACK: a handler for stack overflows can
 * only run there), the same signals blocked while the handler runs
 * (sa_mask, and the signal itself unless SA_NODEFER), the same restart of
 * system calls. SA_RESETHAND is not passed on, knit's handler must stay
 * for the faults of its unwinds: on_fault resets the program's action
 * itself. With no handler of the program's there is nothing to mirror:
 * SA_NODEFER keeps a fault in an unwind from finding the signal blocked,
 * and no SA_ONSTACK, because the crash path writes the measurement and an
 * alternate stack sized for a small handler would overflow. */
static int install_for(int sig, struct sigaction *old)
{
  const struct sigaction *prog = &previous[slot_of(sig)];
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  if (old || !is_handler(prog)) {
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
  } else {
    sa.sa_flags = SA_SIGINFO | (prog->sa_flags & (SA_ONSTACK | SA_NODEFER | SA_RESTART));
    sa.sa_mask = prog->sa_mask;
  }
  return knit_real_sigaction(sig, &sa, old);
}

/* The program's handler, run as the kernel would have run it (the mask
 * and stack are already the program's: install_for). */
static void run_program_handler(const struct sigaction *prog, int sig, siginfo_t *info, void *uc)
{
  if (prog->sa_flags & SA_SIGINFO)
    prog->sa_sigaction(sig, info, uc);
  else
    prog->sa_handler(sig);
}

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
     * SA_NODEFER (the program's, install_for); a guard left with a blocked
     * SIGSEGV would turn the next fault in an unwind into the death of the
     * process, so the recovery does not rest on those flags. */
    const ucontext_t *interrupted = uc;
    /* The kernel's call: the C library's is wrapped (core/signal_masks.c). */
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &interrupted->uc_sigmask, NULL, (size_t)(_NSIG / 8));
    siglongjmp(t->fault_jump, 1);
  }
  /* A copy: the program's handler may set a new action. */
  struct sigaction prog = previous[slot_of(sig)];
  /* Sent by kill, raise, sigqueue or tgkill rather than raised by an
   * instruction: returning does not bring it back, and SIG_IGN applies to
   * it (the kernel forces the default on a fault it cannot deliver). */
  bool sent = info && info->si_code <= 0;
  if (is_handler(&prog)) {
    if (prog.sa_flags & SA_RESETHAND) {
      /* The kernel resets a one-shot action as the handler is entered. */
      struct sigaction dfl;
      memset(&dfl, 0, sizeof dfl);
      dfl.sa_handler = SIG_DFL;
      sigemptyset(&dfl.sa_mask);
      previous[slot_of(sig)] = dfl;
      install_for(sig, NULL);
    }
    run_program_handler(&prog, sig, info, uc);
    return;
  }
  if (sent && prog.sa_handler == SIG_IGN)
    return;
  knit_session_finish(sig == SIGSEGV ? "crash: SIGSEGV" : "crash: SIGBUS");
  /* Under the default action the process now dies exactly as it would have
   * without knit: a fault by re-executing the faulting instruction when
   * this returns, a sent signal by being sent again (it is not blocked
   * here: SA_NODEFER). */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  knit_real_sigaction(sig, &dfl, NULL);
  if (sent)
    syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
}

static void change_faults(int how)
{
  sigset_t faults;
  sigemptyset(&faults);
  sigaddset(&faults, SIGSEGV);
  sigaddset(&faults, SIGBUS);
  knit_real_sigmask(how, &faults, NULL);
}

bool knit_fault_guard_open(const sigset_t *mask)
{
  if (sigismember(mask, SIGSEGV) != 1 && sigismember(mask, SIGBUS) != 1)
    return false;
  change_faults(SIG_UNBLOCK);
  return true;
}

bool knit_fault_guard_open_here(void)
{
  if (!knit_masks_block_faults())
    return false;
  change_faults(SIG_UNBLOCK);
  return true;
}

void knit_fault_guard_close(bool opened)
{
  if (opened)
    change_faults(SIG_BLOCK);
}

bool knit_fault_guard_install(void)
{
  for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++)
    if (install_for(guarded[i], &previous[slot_of(guarded[i])]) != 0)
      return false;
  installed = true;
  /* A handler the program had before knit (none after exec, but a
   * library's constructor may have run first): mirror it. */
  for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++)
    if (is_handler(&previous[slot_of(guarded[i])]))
      install_for(guarded[i], NULL);
  return true;
}

bool knit_fault_guard_keeps(int sig)
{
  return installed && (sig == SIGSEGV || sig == SIGBUS);
}

int knit_fault_guard_program_action(int sig, const struct sigaction *act, struct sigaction *old)
{
  if (!knit_fault_guard_keeps(sig)) {
    errno = EINVAL;
    return -1;
  }
  struct sigaction *prev = &previous[slot_of(sig)];
  struct sigaction was = *prev;
  if (act) {
    *prev = *act;
    install_for(sig, NULL);
  }
  if (old)
    *old = was;
  return 0;
}
