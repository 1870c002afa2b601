/* The calls workload's shared library. */
#include "calls_lib.h"

#include "work.h"

__attribute__((noinline)) static uint64_t lib_digest(uint64_t x, unsigned units)
{
  return knit_work(x, units) ^ 0x5bd1e995u;
}

uint64_t calls_lib_checksum(uint64_t seed, unsigned units)
{
  uint64_t x = lib_digest(seed, units);
  /* Work after the call keeps lib_digest's call out of tail position. */
  return knit_work(x, units) + 1;
}
