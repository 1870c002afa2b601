/* The program's signal masks and knit's sample signal: see signal_masks.h. */
#define _GNU_SOURCE
#include "core/signal_masks.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/sampler.h"
#include "core/session.h"
#include "core/next_symbol.h"

/* Bit sig - 1: the program blocked sig in this thread, and knit keeps it
 * unblocked (its sample signal) or has not applied it yet (a signal knit
 * left since). */
static __thread uint64_t program_blocked __attribute__((tls_model("initial-exec")));

static uint64_t bit_of(int sig)
{
  return sig > 0 && sig <= 64 ? 1ull << (sig - 1) : 0;
}

static void set_of(uint64_t bits, sigset_t *set)
{
  sigemptyset(set);
  for (int sig = 1; sig <= 64; sig++)
    if (bits & bit_of(sig))
      sigaddset(set, sig);
}

int knit_real_sigmask(int how, const sigset_t *set, sigset_t *old)
{
  return (int)syscall(SYS_rt_sigprocmask, how, set, old, (size_t)(_NSIG / 8));
}

typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);

static mask_fn real_pthread_sigmask(void)
{
  return KNIT_NEXT_SYMBOL(mask_fn, "pthread_sigmask");
}

static mask_fn real_sigprocmask(void)
{
  return KNIT_NEXT_SYMBOL(mask_fn, "sigprocmask");
}

/* Applies for real the signals recorded but no longer knit's. */
static void apply_left(mask_fn real, int keep)
{
  uint64_t left = program_blocked & ~bit_of(keep);
  if (!left)
    return;
  sigset_t set;
  set_of(left, &set);
  if (real(SIG_BLOCK, &set, NULL) == 0)
    program_blocked &= ~left;
}

/* SIGSEGV and SIGBUS as the program blocks them (bits as in
 * program_blocked), for the fault guard: they stay blocked for real, and
 * knit unblocks them only around its own guarded reads. */
static __thread uint64_t faults_blocked __attribute__((tls_model("initial-exec")));

static uint64_t faults_in(const sigset_t *set)
{
  return (sigismember(set, SIGSEGV) == 1 ? bit_of(SIGSEGV) : 0) |
         (sigismember(set, SIGBUS) == 1 ? bit_of(SIGBUS) : 0);
}

static void note_faults(int how, const sigset_t *set)
{
  if (!set)
    return;
  uint64_t in = faults_in(set);
  if (how == SIG_BLOCK)
    faults_blocked |= in;
  else if (how == SIG_UNBLOCK)
    faults_blocked &= ~in;
  else if (how == SIG_SETMASK)
    faults_blocked = in;
}

bool knit_masks_block_faults(void)
{
  return faults_blocked != 0;
}

static int change_mask(mask_fn real, int how, const sigset_t *set, sigset_t *old)
{
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  int sig = knit_sample_signal();
  if (!program_blocked && (sig == 0 || !set || !sigismember(set, sig)) && !old) {
    /* Nothing of knit's in it: the common case. */
    int rc = real(how, set, old);
    if (rc == 0)
      note_faults(how, set);
    return rc;
  }
  apply_left(real, sig);
  uint64_t bit = bit_of(sig);
  bool was_blocked = (program_blocked & bit) != 0;
  bool now_blocked = was_blocked;
  sigset_t copy;
  const sigset_t *pass = set;
  if (set && sig != 0) {
    bool in = sigismember(set, sig) == 1;
    if (how == SIG_BLOCK)
      now_blocked = was_blocked || in;
    else if (how == SIG_UNBLOCK)
      now_blocked = was_blocked && !in;
    else if (how == SIG_SETMASK)
      now_blocked = in;
    copy = *set;
    if (how != SIG_UNBLOCK)
      sigdelset(&copy, sig);
    pass = &copy;
  }
  int rc = real(how, pass, old);
  if (rc != 0)
    return rc;
  note_faults(how, set);
  if (old && sig != 0) {
    if (was_blocked)
      sigaddset(old, sig);
    else
      sigdelset(old, sig);
  }
  program_blocked = now_blocked ? program_blocked | bit : program_blocked & ~bit;
  return rc;
}

__attribute__((visibility("default"))) int pthread_sigmask(int how, const sigset_t *set,
                                                           sigset_t *old)
{
  return change_mask(real_pthread_sigmask(), how, set, old);
}

__attribute__((visibility("default"))) int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
  return change_mask(real_sigprocmask(), how, set, old);
}

void knit_masks_take_over(int sig)
{
  /* Found here, outside any handler: dlsym is not async-signal-safe, and a
   * program's handler may be the first to change its mask. */
  real_sigprocmask();
  mask_fn real = real_pthread_sigmask();
  sigset_t now;
  if (!real || real(SIG_BLOCK, NULL, &now) != 0)
    return;
  faults_blocked = faults_in(&now); /* inherited over exec */
  if (sigismember(&now, sig) != 1)
    return;
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  if (real(SIG_UNBLOCK, &one, NULL) == 0)
    program_blocked |= bit_of(sig);
}

void knit_masks_signal_moved(int left, int next)
{
  (void)left;
  mask_fn real = real_pthread_sigmask();
  if (!real)
    return;
  apply_left(real, next);
  if (next != 0)
    knit_masks_take_over(next);
}

void knit_masks_restore_left(void *ucontext, int sig)
{
  (void)sig; /* a probe's or a timer's: the one knit samples by now counts */
  uint64_t left = program_blocked & ~bit_of(knit_sample_signal());
  if (!left || !ucontext)
    return;
  ucontext_t *uc = ucontext;
  for (int s = 1; s <= 64; s++)
    if (left & bit_of(s))
      sigaddset(&uc->uc_sigmask, s);
  program_blocked &= ~left;
}

/* The record carries the fault signals too: knit's sample signal is never
 * SIGSEGV or SIGBUS, so their bits are free. */
uint64_t knit_masks_record(void)
{
  return program_blocked | faults_blocked;
}

void knit_masks_inherit(uint64_t record)
{
  uint64_t faults = bit_of(SIGSEGV) | bit_of(SIGBUS);
  program_blocked = record & ~faults;
  faults_blocked = record & faults;
}

/* After fork the child runs without knit: its mask becomes what the
 * program asked for. */
static void in_child(void)
{
  mask_fn real = real_pthread_sigmask();
  if (real)
    apply_left(real, 0);
}

__attribute__((constructor)) static void register_fork_hook(void)
{
  pthread_atfork(NULL, NULL, in_child);
}
