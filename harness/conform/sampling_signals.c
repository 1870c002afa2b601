/*
 * Sampling acceptance tests about signals: the register context a handler
 * gets, a fault inside a handler, the blocked-signal mask, ITIMER_PROF and
 * mmap from a handler.  Every handler here is async-signal-safe: it saves
 * errno, touches only sig_atomic_t, and calls only system calls (mmap,
 * munmap, sigprocmask), sigismember, siglongjmp out of a fault (as a
 * profiler's fault guard does) and knit_native_regs_from_ucontext.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>

#include "sampling.h"
#include "unwind/isa.h"

static void install(int signo, void (*fn)(int, siginfo_t *, void *), int extra_blocked)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (extra_blocked)
    sigaddset(&sa.sa_mask, extra_blocked);
  sigaction(signo, &sa, NULL);
}

static void ignore(int signo)
{
  signal(signo, SIG_IGN);
}

/* ---- sigaction_context: the interrupted pc and sp ---- */

static volatile sig_atomic_t ctx_done;
static volatile uint64_t ctx_pc, ctx_sp;

static void ctx_handler(int sig, siginfo_t *si, void *uc)
{
  (void)sig, (void)si;
  int saved = errno;
  knit_regs r;
  knit_native_regs_from_ucontext(uc, &r);
  if (!ctx_done) {
    ctx_pc = r.pc;
    ctx_sp = r.sp;
    ctx_done = 1;
  }
  errno = saved;
}

/* The function the timer interrupts: a loop with no call in it, so the
 * interrupted pc lies inside it.  Exported so that dladdr can name it. */
__attribute__((noinline, visibility("default"))) void knit_conform_spin_here(uintptr_t *local_out)
{
  volatile char local = 0;
  *local_out = (uintptr_t)&local;
  volatile unsigned long sink = 0;
  for (unsigned long i = 0; i < 4000000000ul && !ctx_done; i++)
    sink += i;
}

sampling_verdict sampling_sigaction_context(char *ev, size_t len)
{
  install(SIGPROF, ctx_handler, 0);
  void *timer;
  if (!sampling_thread_timer(CLOCK_THREAD_CPUTIME_ID, 5000, 0, SIGPROF, &timer)) {
    snprintf(ev, len, "timer_create: %s", strerror(errno));
    return SAMPLING_FAIL;
  }
  uintptr_t local = 0;
  knit_conform_spin_here(&local);
  sampling_timer_delete(timer);
  ignore(SIGPROF);
  if (!ctx_done) {
    snprintf(ev, len, "no signal came while the thread spun");
    return SAMPLING_FAIL;
  }
  Dl_info info;
  bool named =
      dladdr((void *)(uintptr_t)ctx_pc, &info) && info.dli_saddr == (void *)knit_conform_spin_here;
  intptr_t dist = (intptr_t)(local - (uintptr_t)ctx_sp);
  bool sp_ok = dist > -4096 && dist < 4096;
  snprintf(ev, len,
           "pc 0x%llx in %s+0x%llx (want knit_conform_spin_here); sp 0x%llx, %+ld "
           "bytes from a local of that function",
           (unsigned long long)ctx_pc,
           named ? "knit_conform_spin_here" : (info.dli_sname ? info.dli_sname : "?"),
           (unsigned long long)(ctx_pc - (uintptr_t)(info.dli_saddr ? info.dli_saddr : 0)),
           (unsigned long long)ctx_sp, (long)dist);
  return named && sp_ok ? SAMPLING_PASS : SAMPLING_FAIL;
}

/* ---- nested_sigsegv: a fault inside the sampling handler ---- */

static sigjmp_buf segv_jmp;
static volatile sig_atomic_t in_guarded_read, recoveries, handler_ends;
static volatile int *guard_page;

static void segv_handler(int sig, siginfo_t *si, void *uc)
{
  (void)si, (void)uc;
  if (in_guarded_read)
    siglongjmp(segv_jmp, 1);
  /* A fault outside the guarded read is a real crash: die of it. */
  signal(sig, SIG_DFL);
}

static void faulting_handler(int sig, siginfo_t *si, void *uc)
{
  (void)sig, (void)si, (void)uc;
  int saved = errno;
  if (sigsetjmp(segv_jmp, 1) == 0) {
    in_guarded_read = 1;
    volatile int v = *guard_page;
    (void)v;
  } else {
    recoveries++;
  }
  in_guarded_read = 0;
  handler_ends++;
  errno = saved;
}

sampling_verdict sampling_nested_sigsegv(char *ev, size_t len)
{
  guard_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (guard_page == MAP_FAILED) {
    snprintf(ev, len, "mmap: %s", strerror(errno));
    return SAMPLING_FAIL;
  }
  install(SIGSEGV, segv_handler, 0);
  install(SIGPROF, faulting_handler, 0);
  for (int i = 0; i < 3; i++)
    raise(SIGPROF);
  ignore(SIGPROF);
  signal(SIGSEGV, SIG_DFL);
  munmap((void *)guard_page, 4096);
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  bool unblocked = !sigismember(&now, SIGSEGV) && !sigismember(&now, SIGPROF);
  snprintf(ev, len,
           "3 samples faulted in the handler: %d recovered by siglongjmp, %d handlers "
           "finished; afterwards SIGSEGV and SIGPROF are %s",
           (int)recoveries, (int)handler_ends, unblocked ? "unblocked" : "still blocked");
  return recoveries == 3 && handler_ends == 3 && unblocked ? SAMPLING_PASS : SAMPLING_FAIL;
}

/* ---- handler_mask_restored ---- */

static volatile sig_atomic_t mask_prof_blocked, mask_extra_blocked, mask_seen;

static void mask_handler(int sig, siginfo_t *si, void *uc)
{
  (void)sig, (void)si, (void)uc;
  int saved = errno;
  sigset_t inside;
  sigprocmask(SIG_BLOCK, NULL, &inside);
  mask_prof_blocked = sigismember(&inside, SIGPROF);
  mask_extra_blocked = sigismember(&inside, SIGUSR2);
  mask_seen = 1;
  errno = saved;
}

sampling_verdict sampling_handler_mask_restored(char *ev, size_t len)
{
  sigset_t block, before, after;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigprocmask(SIG_BLOCK, &block, NULL);
  sigprocmask(SIG_BLOCK, NULL, &before);
  install(SIGPROF, mask_handler, SIGUSR2);
  raise(SIGPROF);
  sigprocmask(SIG_BLOCK, NULL, &after);
  ignore(SIGPROF);
  sigprocmask(SIG_UNBLOCK, &block, NULL);
  int differ = 0;
  for (int s = 1; s < NSIG; s++)
    differ += sigismember(&before, s) != sigismember(&after, s);
  snprintf(ev, len,
           "in the handler SIGPROF %s and sa_mask's SIGUSR2 %s; after it returned %d "
           "signals differ from the mask before",
           mask_prof_blocked ? "blocked" : "NOT blocked",
           mask_extra_blocked ? "blocked" : "NOT blocked", differ);
  return mask_seen && mask_prof_blocked && mask_extra_blocked && differ == 0 ? SAMPLING_PASS
                                                                             : SAMPLING_FAIL;
}

/* ---- itimer_prof_signal: one shot, SIGPROF, once ---- */

static volatile sig_atomic_t got_prof, got_alrm, got_vtalrm;

static void count_handler(int sig, siginfo_t *si, void *uc)
{
  (void)si, (void)uc;
  if (sig == SIGPROF)
    got_prof++;
  else if (sig == SIGALRM)
    got_alrm++;
  else
    got_vtalrm++;
}

sampling_verdict sampling_itimer_prof_signal(char *ev, size_t len)
{
  install(SIGPROF, count_handler, 0);
  install(SIGALRM, count_handler, 0);
  install(SIGVTALRM, count_handler, 0);
  struct itimerval it = {{0, 0}, {0, 10000}};
  if (setitimer(ITIMER_PROF, &it, NULL) != 0) {
    snprintf(ev, len, "setitimer: %s", strerror(errno));
    return SAMPLING_FAIL;
  }
  static volatile int never;
  volatile int *first = (volatile int *)&got_prof;
  sampling_spin_until(first, 5000);
  /* A one-shot timer must not fire again: spin long past its period. */
  sampling_spin_until(&never, 100);
  ignore(SIGPROF);
  ignore(SIGALRM);
  ignore(SIGVTALRM);
  snprintf(ev, len, "one-shot ITIMER_PROF of 10 ms: SIGPROF %d, SIGALRM %d, SIGVTALRM %d",
           (int)got_prof, (int)got_alrm, (int)got_vtalrm);
  return got_prof == 1 && !got_alrm && !got_vtalrm ? SAMPLING_PASS : SAMPLING_FAIL;
}

/* ---- mmap_in_handler ---- */

static volatile sig_atomic_t mmap_ok, mmap_failed;

static void mmap_handler(int sig, siginfo_t *si, void *uc)
{
  (void)sig, (void)si, (void)uc;
  int saved = errno;
  char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    mmap_failed++;
  } else {
    for (int i = 0; i < 65536; i += 4096)
      p[i] = (char)(i >> 12);
    bool same = true;
    for (int i = 0; i < 65536; i += 4096)
      same = same && p[i] == (char)(i >> 12);
    if (munmap(p, 65536) == 0 && same)
      mmap_ok++;
    else
      mmap_failed++;
  }
  errno = saved;
}

sampling_verdict sampling_mmap_in_handler(char *ev, size_t len)
{
  install(SIGPROF, mmap_handler, 0);
  for (int i = 0; i < 100; i++)
    raise(SIGPROF);
  ignore(SIGPROF);
  snprintf(ev, len,
           "100 handlers mapped, wrote, read back and unmapped 64 KiB: %d succeeded, "
           "%d failed",
           (int)mmap_ok, (int)mmap_failed);
  return mmap_ok == 100 ? SAMPLING_PASS : SAMPLING_FAIL;
}
