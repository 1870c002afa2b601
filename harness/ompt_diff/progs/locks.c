/*
 * Locks: simple and nestable, set/unset, test (held and free), a nest
 * lock taken again by its owner, init with a hint, destroy.  Each thread's
 * sequence of lock events is fixed whatever the contention.
 */
#include <omp.h>
#include <stdio.h>

omp_lock_t lock_a;
omp_lock_t lock_hinted;
omp_nest_lock_t nest_a;
int shared_count;

int main(void)
{
  omp_init_lock(&lock_a);
  omp_init_lock_with_hint(&lock_hinted, omp_sync_hint_contended);
  omp_init_nest_lock(&nest_a);
#pragma omp parallel num_threads(4)
  {
    omp_set_lock(&lock_a);
    shared_count++;
    /* The owner's test of a held simple lock fails. */
    if (omp_test_lock(&lock_a))
      shared_count += 1000;
    omp_unset_lock(&lock_a);

    omp_set_lock(&lock_hinted);
    shared_count++;
    omp_unset_lock(&lock_hinted);

    omp_set_nest_lock(&nest_a);
    omp_set_nest_lock(&nest_a); /* re-acquired by its owner */
    int depth = omp_test_nest_lock(&nest_a);
    shared_count += depth == 3;
    omp_unset_nest_lock(&nest_a);
    omp_unset_nest_lock(&nest_a);
    omp_unset_nest_lock(&nest_a);
  }
  /* A free lock's test succeeds. */
  if (omp_test_lock(&lock_a))
    omp_unset_lock(&lock_a);
  if (omp_test_nest_lock(&nest_a))
    omp_unset_nest_lock(&nest_a);
  omp_destroy_nest_lock(&nest_a);
  omp_destroy_lock(&lock_hinted);
  omp_destroy_lock(&lock_a);
  printf("locks: %d\n", shared_count);
  return 0;
}
