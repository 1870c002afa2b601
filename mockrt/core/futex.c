/*
 * Futex waits and a three-state lock word (0 free, 1 held, 2 held with
 * waiters).  The lock word is 4 bytes so that it fits gcc's omp_lock_t and
 * the pointer slot gcc reserves for a named critical section.
 */
#define _GNU_SOURCE
#include "mockrt.h"

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu_relax.h" /* core/<isa>/ */

void mockrt_futex_wait(atomic_uint *addr, unsigned val)
{
  /* Spurious returns (EINTR, EAGAIN) are fine: every caller loops. */
  syscall(SYS_futex, (void *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void mockrt_futex_wake(atomic_uint *addr, int n)
{
  syscall(SYS_futex, (void *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/*
 * OMP_WAIT_POLICY=active: about MOCKRT_ACTIVE_PAUSES polls with a pause
 * hint, then a sched_yield at each poll, so that a waiter on a machine with
 * more threads than CPUs lets the thread it waits for run; a futex sleep
 * only after MOCKRT_ACTIVE_YIELDS of those (a second or more), as libgomp's active
 * policy also gives up in the end.
 */
#define MOCKRT_ACTIVE_PAUSES 1000
#define MOCKRT_ACTIVE_YIELDS 1000000

bool mockrt_spin_active(int *spins)
{
  int n = *spins;
  if (n >= MOCKRT_ACTIVE_PAUSES + MOCKRT_ACTIVE_YIELDS)
    return false;
  *spins = n + 1;
  if (n < MOCKRT_ACTIVE_PAUSES)
    mockrt_cpu_relax();
  else
    sched_yield();
  return true;
}

bool mockrt_word_trylock(atomic_int *w)
{
  int expected = 0;
  return atomic_compare_exchange_strong_explicit(w, &expected, 1, memory_order_acquire,
                                                 memory_order_relaxed);
}

void mockrt_word_lock(atomic_int *w)
{
  if (mockrt_word_trylock(w))
    return;
  /* A short spin keeps short critical sections out of the kernel. */
  for (int spins = 0; mockrt_spin(&spins, MOCKRT_SPIN_LOCK);) {
    if (atomic_load_explicit(w, memory_order_relaxed) == 0 && mockrt_word_trylock(w))
      return;
  }
  /* Marking the word 2 tells the holder that it must wake someone. */
  while (atomic_exchange_explicit(w, 2, memory_order_acquire) != 0)
    mockrt_futex_wait((atomic_uint *)w, 2);
}

void mockrt_word_unlock(atomic_int *w)
{
  if (atomic_exchange_explicit(w, 0, memory_order_release) == 2)
    mockrt_futex_wake((atomic_uint *)w, 1);
}
