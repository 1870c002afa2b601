/* unreadable: walks that run into stack memory that cannot be read, one
 * after another. knit must recover from each fault (the walk ends partial
 * and the fault is counted), go on sampling, and leave the program's signal
 * mask as it was.
 *
 *   main -> region_probe -> [parallel, 2 threads] each -> probe
 *   thread_fn -> outer -> inner: the pages above inner's frame, the frames
 *   of outer and of thread_fn, made unreadable (PROT_NONE); then, twice,
 *   a probe and region_probe (the walk of the probe, and the capture of
 *   where the region begins, read their way up into those pages); then the
 *   pages readable again, and once more a probe and region_probe, whole.
 *
 * The work runs on a thread of the program's own, whose stack holds only
 * its frames below the thread's own start (the pages at the top of a
 * thread's stack hold its descriptor and TLS, which must stay readable).
 * The thread blocks SIGUSR2 first, and exits with status 3 if its mask
 * differs after the faults; main exits with it. With the argument
 * own-handler the program first sets SIGSEGV and SIGBUS handlers of its
 * own, which exit with status 4 if a fault of knit's reaches them. With
 * faults-blocked the thread blocks SIGSEGV and SIGBUS as well (as a
 * program that blocks every signal around its work does): the kernel kills
 * a thread that faults with them blocked, so knit must let its own faults
 * in for its reads and block them again after.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))
#define PAD      16384

NOINLINE static void region_probe(void)
{
#pragma omp parallel num_threads(2)
  knit_probe();
}

/* top: the first address above the pages this may make unreadable. */
NOINLINE static int inner(uintptr_t top)
{
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  /* Above inner's own frame, with room for what a callee reads from its
   * caller's frame on some ISAs (ppc64le's link-register save slot). */
  uintptr_t lo = ((uintptr_t)__builtin_dwarf_cfa() + 256 + page - 1) & ~(page - 1);
  uintptr_t hi = top & ~(page - 1);
  if (hi < lo + page)
    return 2;
  if (mprotect((void *)lo, hi - lo, PROT_NONE) != 0)
    return 2;
  for (int i = 0; i < 2; i++) {
    knit_probe();
    region_probe();
  }
  if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) != 0)
    return 2;
  knit_probe();
  region_probe();
  return 0;
}

/* A frame several pages tall, so that the unreadable pages hold all of it
 * but its bottom. */
NOINLINE static int outer(uintptr_t top)
{
  volatile char pad[PAD];
  pad[0] = 1;
  pad[PAD - 1] = 1;
  int rc = inner(top);
  return rc + pad[0] + pad[PAD - 1] - 2;
}

static int faults_blocked; /* faults-blocked */

static void *thread_fn(void *arg)
{
  (void)arg;
  volatile char pad[PAD];
  pad[0] = 1;
  pad[PAD - 1] = 1;
  sigset_t block, before, after;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  if (faults_blocked) {
    sigaddset(&block, SIGSEGV);
    sigaddset(&block, SIGBUS);
  }
  pthread_sigmask(SIG_BLOCK, &block, NULL);
  pthread_sigmask(SIG_SETMASK, NULL, &before);
  /* The lower half of this frame may go too: everything above stays. */
  int rc = outer((uintptr_t)__builtin_dwarf_cfa() - PAD / 2);
  pthread_sigmask(SIG_SETMASK, NULL, &after);
  for (int s = 1; s < NSIG && rc == 0; s++)
    if (sigismember(&before, s) != sigismember(&after, s)) {
      fprintf(stderr, "unreadable: signal %d is %s blocked after the faults\n", s,
              sigismember(&after, s) ? "now" : "no longer");
      rc = 3;
    }
  rc += pad[0] + pad[PAD - 1] - 2;
  return (void *)(intptr_t)rc;
}

/* The program's own SIGSEGV handler (own-handler): as gfortran's runtime
 * sets one at start. The faults of knit's walks are knit's: they must not
 * reach it. */
static void program_on_segv(int sig)
{
  (void)sig;
  static const char msg[] = "unreadable: the program's SIGSEGV handler ran\n";
  if (write(2, msg, sizeof msg - 1) < 0) {
  }
  _exit(4);
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "own-handler") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = program_on_segv;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0 || signal(SIGBUS, program_on_segv) == SIG_ERR)
      return 1;
  }
  faults_blocked = argc > 1 && strcmp(argv[1], "faults-blocked") == 0;
  region_probe();
  pthread_t t;
  void *rc = (void *)1;
  if (pthread_create(&t, NULL, thread_fn, NULL) != 0 || pthread_join(t, &rc) != 0)
    return 1;
  printf("unreadable: status %d\n", (int)(intptr_t)rc);
  return (int)(intptr_t)rc;
}
