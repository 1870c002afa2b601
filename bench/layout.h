/* A child's memory layout for one round (BENCH_LAYOUT=N, the driver's
 * round): its heap's next blocks and its stack moved by up to 4 KiB. Where
 * a runtime's hot words lie decides which of them share a cache line, and
 * one layout alone moved a runtime's time on tiny regions by a quarter: a
 * setup measured in one layout only carries that layout's luck. */
#ifndef KNIT_BENCH_LAYOUT_H
#define KNIT_BENCH_LAYOUT_H

#include <alloca.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Bytes by which layout n moves something: a multiple of 16 below 4096,
 * spread by a multiplicative hash; which picks another part of it. */
static inline size_t bench_layout_shift(unsigned n, unsigned which)
{
  uint32_t h = (n + 1u) * 2654435761u;
  return (size_t)((h >> (which ? 20 : 8)) & 0xff) * 16;
}

/* Applies BENCH_LAYOUT, when set, in the calling function's frame (a
 * macro: the stack's move is an alloca that must outlive it, and so must
 * the heap block, which the runtime's next allocations come after).
 * Evaluates to 0, or to -1 when the block could not be had. */
#define BENCH_APPLY_LAYOUT()                                                                       \
  __extension__({                                                                                  \
    int bench_layout_rc_ = 0;                                                                      \
    const char *bench_layout_env_ = getenv("BENCH_LAYOUT");                                        \
    if (bench_layout_env_) {                                                                       \
      unsigned bench_layout_ = (unsigned)atoi(bench_layout_env_);                                  \
      volatile char *bench_heap_pad_ = malloc(bench_layout_shift(bench_layout_, 0) + 1);           \
      volatile char *bench_stack_pad_ = alloca(bench_layout_shift(bench_layout_, 1) + 1);          \
      if (bench_heap_pad_) {                                                                       \
        bench_heap_pad_[0] = bench_stack_pad_[0] = 0;                                              \
        __asm__ __volatile__("" ::"r"(bench_stack_pad_) : "memory");                               \
      } else {                                                                                     \
        bench_layout_rc_ = -1;                                                                     \
      }                                                                                            \
    }                                                                                              \
    bench_layout_rc_;                                                                              \
  })

#endif /* KNIT_BENCH_LAYOUT_H */
