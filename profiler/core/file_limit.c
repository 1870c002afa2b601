/* knit's files and the file-size limit: see file_limit.h. */
#define _GNU_SOURCE
#include "core/file_limit.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The kernel's signal set, as rt_sigprocmask and rt_sigtimedwait take it. */
#define KERNEL_SIGSET_BYTES (_NSIG / 8)

static bool pending_xfsz(void)
{
  sigset_t pending;
  sigemptyset(&pending);
  return syscall(SYS_rt_sigpending, &pending, KERNEL_SIGSET_BYTES) == 0 &&
         sigismember(&pending, SIGXFSZ);
}

void knit_file_limit_enter(knit_file_limit_hold *h)
{
  h->held = false;
  struct rlimit lim;
  if (getrlimit(RLIMIT_FSIZE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
    return;
  sigset_t xfsz;
  sigemptyset(&xfsz);
  sigaddset(&xfsz, SIGXFSZ);
  if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &xfsz, &h->mask, KERNEL_SIGSET_BYTES) != 0)
    return;
  h->held = true;
  h->was_pending = pending_xfsz();
}

void knit_file_limit_leave(knit_file_limit_hold *h)
{
  if (!h->held)
    return;
  if (!h->was_pending && pending_xfsz()) {
    sigset_t xfsz;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    struct timespec now = {0, 0};
    syscall(SYS_rt_sigtimedwait, &xfsz, NULL, &now, KERNEL_SIGSET_BYTES);
  }
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &h->mask, NULL, KERNEL_SIGSET_BYTES);
  h->held = false;
}
