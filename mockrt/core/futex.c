/*
 * Futex waits and a three-state lock word (0 free, 1 held, 2 held with
 * waiters).  The lock word is 4 bytes so that it fits gcc's omp_lock_t and
 * the pointer slot gcc reserves for a named critical section.
 */
#define _GNU_SOURCE
#include "mockrt.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void mockrt_futex_wait(atomic_uint *addr, unsigned val)
{
  /* Spurious returns (EINTR, EAGAIN) are fine: every caller loops. */
  syscall(SYS_futex, (void *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void mockrt_futex_wake(atomic_uint *addr, int n)
{
  syscall(SYS_futex, (void *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
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
  for (int i = 0; i < 100; i++) {
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
