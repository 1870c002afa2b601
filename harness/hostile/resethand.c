/* resethand: a program's SIGSEGV and SIGBUS actions, taken at their word.
 *   faults:  a one-shot handler (SA_RESETHAND) with SIGUSR1 in its sa_mask
 *            catches a fault and jumps back; in it, SIGUSR1 and SIGSEGV are
 *            blocked and the action is back to the default; the second
 *            fault then kills the process (SIGSEGV).
 *   nodefer: with SA_NODEFER the handler runs with SIGSEGV unblocked.
 *   ignore:  SIGSEGV and SIGBUS ignored, then raised and sent with kill:
 *            nothing happens; then a handler takes a raised one.
 *   default: SIG_DFL, then raise(SIGBUS): the process dies of it.
 * Each works first, so that there is something to sample. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"

static sigjmp_buf back;
static volatile sig_atomic_t usr1_blocked, segv_blocked, reset_to_default, code_from_user;

__attribute__((noinline)) static unsigned spin(double how_long)
{
  return hostile_spin(how_long);
}

static void on_fault(int sig, siginfo_t *info, void *uc)
{
  (void)uc;
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  usr1_blocked = sigismember(&now, SIGUSR1);
  segv_blocked = sigismember(&now, sig);
  struct sigaction cur;
  sigaction(sig, NULL, &cur);
  reset_to_default = cur.sa_handler == SIG_DFL;
  code_from_user = info->si_code <= 0;
  siglongjmp(back, 1);
}

static void set_action(int sig, int flags)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGUSR1);
  sigaction(sig, &sa, NULL);
}

static void fault(void)
{
  volatile int *volatile nowhere = NULL;
  *nowhere = 1;
}

static void report(const char *what)
{
  printf("%s: SIGUSR1 %s, the signal %s, action %s, %s\n", what,
         usr1_blocked ? "blocked" : "not blocked", segv_blocked ? "blocked" : "not blocked",
         reset_to_default ? "reset" : "kept", code_from_user ? "sent" : "a fault");
  fflush(stdout);
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "faults";
  volatile unsigned sink = spin(0.3);
  (void)sink;
  if (!strcmp(mode, "faults")) {
    set_action(SIGSEGV, SA_RESETHAND);
    if (sigsetjmp(back, 1) == 0)
      fault();
    report("first fault");
    printf("second fault\n");
    fflush(stdout);
    fault();
    printf("survived the second fault\n");
    return 0;
  }
  if (!strcmp(mode, "nodefer")) {
    set_action(SIGSEGV, SA_NODEFER);
    if (sigsetjmp(back, 1) == 0)
      fault();
    report("fault");
    if (sigsetjmp(back, 1) == 0)
      fault();
    report("another fault");
    return 0;
  }
  if (!strcmp(mode, "ignore")) {
    signal(SIGSEGV, SIG_IGN);
    signal(SIGBUS, SIG_IGN);
    raise(SIGSEGV);
    kill(getpid(), SIGBUS);
    printf("ignored a raised SIGSEGV and a sent SIGBUS\n");
    set_action(SIGBUS, 0);
    if (sigsetjmp(back, 1) == 0)
      raise(SIGBUS);
    report("raised SIGBUS");
    return 0;
  }
  if (!strcmp(mode, "default")) {
    signal(SIGBUS, SIG_DFL);
    printf("raising SIGBUS\n");
    fflush(stdout);
    raise(SIGBUS);
    printf("survived SIGBUS\n");
    return 0;
  }
  return 2;
}
