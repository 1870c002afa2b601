/* Waits the kernel does not restart after a signal handler, kept from
 * ending early because of knit's samples.
 *
 * A handler installed with SA_RESTART makes most interrupted system calls
 * start again, but not the sleeps (nanosleep, clock_nanosleep, and sleep
 * and usleep, which use them), the waits on descriptors (poll, ppoll,
 * select, pselect, epoll_wait, epoll_pwait), nor the waits for signals
 * (pause, sigsuspend, sigwaitinfo, sigtimedwait): they fail with EINTR, or
 * sleep returns the seconds left, whenever any handler ran. A REALTIME
 * timer keeps firing while its thread sleeps, so under knit a sleep of a
 * second ended after one period, and a program that counts on its sleeps,
 * or does not expect EINTR, changed what it did. Resuming the wait after
 * knit's signal would need to know that no handler of the program's ran
 * too (an EINTR the program must see). Instead each of these holds knit's
 * sample signal off for its own duration: the program's signals interrupt
 * it exactly as without knit, and knit's one pending signal comes as the
 * wait ends, its timer's overruns counting the time waited, which goes to
 * the wait's call, where it was spent. The cost is two system calls a
 * wait. The waits for signals also leave knit's signal out of the set
 * they wait for: it is not the program's to take.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "core/sampler.h"
#include "core/session.h"
#include "core/signal_masks.h"

#define EXPORT __attribute__((visibility("default")))

static __typeof__(&sleep) real_sleep;
static __typeof__(&usleep) real_usleep;
static __typeof__(&nanosleep) real_nanosleep;
static __typeof__(&clock_nanosleep) real_clock_nanosleep;
static __typeof__(&poll) real_poll;
static __typeof__(&ppoll) real_ppoll;
static __typeof__(&select) real_select;
static __typeof__(&pselect) real_pselect;
static __typeof__(&epoll_wait) real_epoll_wait;
static __typeof__(&epoll_pwait) real_epoll_pwait;
static __typeof__(&pause) real_pause;
static __typeof__(&sigsuspend) real_sigsuspend;
static __typeof__(&sigwaitinfo) real_sigwaitinfo;
static __typeof__(&sigtimedwait) real_sigtimedwait;
static __typeof__(&sigwait) real_sigwait;

/* Found before the program runs: a wait may be called from a handler, and
 * dlsym is not async-signal-safe. */
__attribute__((constructor)) static void find_real_waits(void)
{
#define FIND(name) real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name)
  FIND(sleep);
  FIND(usleep);
  FIND(nanosleep);
  FIND(clock_nanosleep);
  FIND(poll);
  FIND(ppoll);
  FIND(select);
  FIND(pselect);
  FIND(epoll_wait);
  FIND(epoll_pwait);
  FIND(pause);
  FIND(sigsuspend);
  FIND(sigwaitinfo);
  FIND(sigtimedwait);
  FIND(sigwait);
#undef FIND
}

/* The signal held off during one wait (0: none). Timer events only: a
 * probe's signal is sent by the thread to itself, never during a wait. */
static int hold(void)
{
  int sig = knit_sample_signal();
  if (sig == 0 || knit_the_session.event.kind == KNIT_EVENT_PROBE)
    return 0;
  sigset_t one, old;
  sigemptyset(&one);
  sigaddset(&one, sig);
  if (knit_real_sigmask(SIG_BLOCK, &one, &old) != 0 || sigismember(&old, sig))
    return 0; /* already held (a wait inside a wait's handler) */
  return sig;
}

static void release(int sig)
{
  if (sig == 0)
    return;
  int saved = errno;
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  knit_real_sigmask(SIG_UNBLOCK, &one, NULL);
  errno = saved;
}

/* A wait's own signal mask, with knit's signal added (held) or a set of
 * signals waited for, with it taken out (not the program's). */
static const sigset_t *with_held(const sigset_t *mask, sigset_t *copy)
{
  int sig = knit_sample_signal();
  if (!mask || sig == 0)
    return mask;
  *copy = *mask;
  sigaddset(copy, sig);
  return copy;
}

static const sigset_t *without_own(const sigset_t *set, sigset_t *copy)
{
  int sig = knit_sample_signal();
  if (!set || sig == 0)
    return set;
  *copy = *set;
  sigdelset(copy, sig);
  return copy;
}

#define MISSING(name)                                                                              \
  if (!real_##name) {                                                                              \
    errno = ENOSYS;                                                                                \
    return -1;                                                                                     \
  }

EXPORT unsigned int sleep(unsigned int seconds)
{
  if (!real_sleep)
    return seconds;
  int held = hold();
  unsigned int left = real_sleep(seconds);
  release(held);
  return left;
}

EXPORT int usleep(useconds_t usec)
{
  MISSING(usleep);
  int held = hold();
  int rc = real_usleep(usec);
  release(held);
  return rc;
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
  MISSING(nanosleep);
  int held = hold();
  int rc = real_nanosleep(req, rem);
  release(held);
  return rc;
}

EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
                           struct timespec *rem)
{
  if (!real_clock_nanosleep)
    return ENOSYS;
  int held = hold();
  int rc = real_clock_nanosleep(clock, flags, req, rem);
  release(held);
  return rc;
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
  MISSING(poll);
  int held = hold();
  int rc = real_poll(fds, n, timeout);
  release(held);
  return rc;
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask)
{
  MISSING(ppoll);
  sigset_t copy;
  int held = hold();
  int rc = real_ppoll(fds, n, timeout, with_held(mask, &copy));
  release(held);
  return rc;
}

EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout)
{
  MISSING(select);
  int held = hold();
  int rc = real_select(n, r, w, e, timeout);
  release(held);
  return rc;
}

EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *timeout,
                   const sigset_t *mask)
{
  MISSING(pselect);
  sigset_t copy;
  int held = hold();
  int rc = real_pselect(n, r, w, e, timeout, with_held(mask, &copy));
  release(held);
  return rc;
}

EXPORT int epoll_wait(int epfd, struct epoll_event *events, int max, int timeout)
{
  MISSING(epoll_wait);
  int held = hold();
  int rc = real_epoll_wait(epfd, events, max, timeout);
  release(held);
  return rc;
}

EXPORT int epoll_pwait(int epfd, struct epoll_event *events, int max, int timeout,
                       const sigset_t *mask)
{
  MISSING(epoll_pwait);
  sigset_t copy;
  int held = hold();
  int rc = real_epoll_pwait(epfd, events, max, timeout, with_held(mask, &copy));
  release(held);
  return rc;
}

EXPORT int pause(void)
{
  MISSING(pause);
  int held = hold();
  int rc = real_pause();
  release(held);
  return rc;
}

EXPORT int sigsuspend(const sigset_t *mask)
{
  MISSING(sigsuspend);
  sigset_t copy;
  return real_sigsuspend(with_held(mask, &copy));
}

EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
  MISSING(sigwaitinfo);
  sigset_t copy;
  int held = hold();
  int rc = real_sigwaitinfo(without_own(set, &copy), info);
  release(held);
  return rc;
}

EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
  MISSING(sigtimedwait);
  sigset_t copy;
  int held = hold();
  int rc = real_sigtimedwait(without_own(set, &copy), info, timeout);
  release(held);
  return rc;
}

EXPORT int sigwait(const sigset_t *set, int *sig)
{
  if (!real_sigwait)
    return ENOSYS;
  sigset_t copy;
  int held = hold();
  int rc = real_sigwait(without_own(set, &copy), sig);
  release(held);
  return rc;
}
