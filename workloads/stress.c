/* stress: threads that live in the C library (malloc, free, formatted
 * output, sorting) while knit samples them thousands of times a second. A
 * handler that called malloc or took a lock the program may hold would
 * deadlock or corrupt the heap here; the result must be the same with and
 * without knit.
 *
 *   stress [THREADS] [ITERATIONS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int iterations = 20000;

static int by_value(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static void *churn(void *arg)
{
  uint32_t seed = (uint32_t)(uintptr_t)arg * 2654435761u + 1;
  uint64_t sum = 0;
  for (int i = 0; i < iterations; i++) {
    seed = seed * 1103515245u + 12345u;
    size_t n = 16 + seed % 256;
    uint32_t *v = malloc(n * sizeof *v);
    if (!v)
      return NULL;
    for (size_t k = 0; k < n; k++) {
      seed = seed * 1103515245u + 12345u;
      v[k] = seed >> 8;
    }
    qsort(v, n, sizeof *v, by_value);
    char text[64];
    snprintf(text, sizeof text, "%u:%u", v[0], v[n - 1]);
    sum += strlen(text) + v[n / 2] % 1000;
    free(v);
  }
  return (void *)(uintptr_t)sum;
}

int main(int argc, char **argv)
{
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  if (argc > 2)
    iterations = atoi(argv[2]);
  if (threads < 1 || threads > 64 || iterations < 1) {
    fprintf(stderr, "usage: stress [THREADS 1-64] [ITERATIONS]\n");
    return 2;
  }
  pthread_t th[64];
  for (int t = 0; t < threads; t++)
    if (pthread_create(&th[t], NULL, churn, (void *)(uintptr_t)(t + 1)) != 0)
      return 1;
  uint64_t total = 0;
  for (int t = 0; t < threads; t++) {
    void *r;
    pthread_join(th[t], &r);
    total += (uintptr_t)r;
  }
  printf("stress: %d threads, checksum %llu\n", threads, (unsigned long long)total);
  return 0;
}
