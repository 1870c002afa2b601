/*
 * Locks initialized with every synchronization hint (simple and nestable),
 * and the nest lock's test variants: a free lock, a lock held by its owner
 * (the depth), a lock held by another thread (0).
 */
#include <omp.h>
#include <stdio.h>

#define NHINTS 7

omp_lock_t hinted[NHINTS];
omp_nest_lock_t nest_hinted[NHINTS];
omp_nest_lock_t nest_b;
int count, gate;

static const omp_sync_hint_t hints[NHINTS] = {
    omp_sync_hint_none,
    omp_sync_hint_uncontended,
    omp_sync_hint_contended,
    omp_sync_hint_nonspeculative,
    omp_sync_hint_speculative,
    omp_sync_hint_uncontended | omp_sync_hint_nonspeculative,
    omp_sync_hint_contended | omp_sync_hint_speculative,
};

int main(void)
{
  for (int i = 0; i < NHINTS; i++) {
    omp_init_lock_with_hint(&hinted[i], hints[i]);
    omp_init_nest_lock_with_hint(&nest_hinted[i], hints[i]);
  }
  omp_init_nest_lock(&nest_b);
  int depth_free = omp_test_nest_lock(&nest_b);
  int depth_owner = omp_test_nest_lock(&nest_b);
  omp_unset_nest_lock(&nest_b);
  omp_unset_nest_lock(&nest_b);
#pragma omp parallel num_threads(2)
  {
    for (int i = 0; i < NHINTS; i++) {
      omp_set_lock(&hinted[i]);
      count++;
      omp_unset_lock(&hinted[i]);
      omp_set_nest_lock(&nest_hinted[i]);
      omp_set_nest_lock(&nest_hinted[i]);
      count++;
      omp_unset_nest_lock(&nest_hinted[i]);
      omp_unset_nest_lock(&nest_hinted[i]);
    }
    /* Thread 0 holds nest_b while thread 1 tests it. */
    if (omp_get_thread_num() == 0) {
      omp_set_nest_lock(&nest_b);
      __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
      while (__atomic_load_n(&gate, __ATOMIC_ACQUIRE) != 2)
        ;
      omp_unset_nest_lock(&nest_b);
    } else {
      while (__atomic_load_n(&gate, __ATOMIC_ACQUIRE) != 1)
        ;
      if (omp_test_nest_lock(&nest_b) == 0)
        count += 100;
      __atomic_store_n(&gate, 2, __ATOMIC_RELEASE);
    }
  }
  for (int i = 0; i < NHINTS; i++) {
    omp_destroy_lock(&hinted[i]);
    omp_destroy_nest_lock(&nest_hinted[i]);
  }
  omp_destroy_nest_lock(&nest_b);
  printf("lockhints: %d %d %d\n", count, depth_free, depth_owner);
  return 0;
}
