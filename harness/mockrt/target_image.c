/*
 * A device image for harness/mockrt/target_maps.c: a shared object of the
 * tree's own ISA with kernels and a declare-target global, as clang 14
 * would embed one, but built by the project's compiler, so that the mock
 * device's maps are tested on every ISA the tree builds for.
 */
#include <stddef.h>
#include <stdint.h>

#define KERNEL __attribute__((visibility("default")))

KERNEL int g_dev = 42;

KERNEL void k_scale(double *x, uintptr_t n)
{
  for (uintptr_t i = 0; i < n; i++)
    x[i] *= 2;
}

struct pair {
  long n;
  double *p;
};

/* Reads through a pointer member: only its device copy points to device memory. */
KERNEL void k_ptr(struct pair *s)
{
  for (long i = 0; i < s->n; i++)
    s->p[i] += 1;
}

KERNEL void k_private(int *v)
{
  *v = 99;
}

KERNEL void k_isnull(void *p, int *flag)
{
  *flag = p == NULL;
}

KERNEL void k_global(void)
{
  g_dev++;
}

/* Never called: the mock device refuses its 17 arguments first. */
KERNEL void k_many(void) {}
