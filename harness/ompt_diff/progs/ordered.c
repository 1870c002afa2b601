/*
 * Ordered: a doacross loop of one dimension (depend(sink: i - 1) and
 * depend(source)), one of two dimensions, and an ordered region in a
 * static loop of one iteration per chunk.  Static schedules: each thread's
 * iterations, and so its events, are the same in every run.
 */
#include <omp.h>
#include <stdio.h>

int a[16];
int b[4][4];
int order[16], next;

int main(void)
{
#pragma omp parallel num_threads(4)
  {
#pragma omp for ordered(1) schedule(static, 1)
    for (int i = 1; i < 9; i++) {
#pragma omp ordered depend(sink : i - 1)
      a[i] = a[i - 1] + i;
#pragma omp ordered depend(source)
    }

#pragma omp for ordered(2) schedule(static)
    for (int i = 1; i < 4; i++)
      for (int j = 1; j < 4; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
        b[i][j] = b[i - 1][j] + b[i][j - 1] + 1;
#pragma omp ordered depend(source)
      }

#pragma omp for ordered schedule(static, 1)
    for (int i = 0; i < 8; i++) {
#pragma omp ordered
      order[next++] = i;
    }
  }
  int inorder = 1;
  for (int i = 0; i < 8; i++)
    inorder &= order[i] == i;
  printf("ordered: %d %d %d\n", a[8], b[3][3], inorder);
  return 0;
}
