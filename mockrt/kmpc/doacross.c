/*
 * Doacross loops under the __kmpc_* ABI, as clang 14 emits them for
 * ordered(n) with depend(sink:) and depend(source):
 *
 *   __kmpc_doacross_init(loc, gtid, n, dims)   dims[i] = {lo, up, st}, up inclusive
 *   __kmpc_for_static_init_* or __kmpc_dispatch_init_* ... the loop ...
 *     __kmpc_doacross_wait(loc, gtid, vec) / __kmpc_doacross_post(loc, gtid, vec)
 *   __kmpc_doacross_fini(loc, gtid)
 *
 * Vectors are the iterations' values (int64 per dimension); the core
 * (core/doacross.c) ignores a wait for an iteration outside [lo, up].
 */
#include "kmpc.h"
#include "../core/doacross.h"

#include <stdio.h>
#include <stdlib.h>

/* LLVM's struct kmp_dim. */
typedef struct mockrt_kmp_dim {
  int64_t lo;
  int64_t up;
  int64_t st;
} mockrt_kmp_dim_t;

MOCKRT_EXPORT void __kmpc_doacross_init(mockrt_ident_t *loc, int32_t gtid, int32_t num_dims,
                                        const mockrt_kmp_dim_t *dims)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  mockrt_doacross_dim_t d[MOCKRT_DOACROSS_MAX_DIMS];
  (void)loc;
  (void)gtid;
  if (num_dims < 1 || num_dims > MOCKRT_DOACROSS_MAX_DIMS) {
    fprintf(stderr, "mockrt: doacross loop with %d dimensions is not supported (at most %d)\n",
            (int)num_dims, MOCKRT_DOACROSS_MAX_DIMS);
    abort();
  }
  for (int32_t i = 0; i < num_dims; i++) {
    int64_t lo = dims[i].lo, up = dims[i].up, st = dims[i].st ? dims[i].st : 1;
    d[i].lo = (long)lo;
    d[i].st = (long)st;
    if (st > 0)
      d[i].count = up < lo ? 0 : ((uint64_t)up - (uint64_t)lo) / (uint64_t)st + 1;
    else
      d[i].count = lo < up ? 0 : ((uint64_t)lo - (uint64_t)up) / (0 - (uint64_t)st) + 1;
  }
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  mockrt_doacross_begin(t, num_dims, d);
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void __kmpc_doacross_wait(mockrt_ident_t *loc, int32_t gtid, const int64_t *vec)
{
  mockrt_task_t *t = mockrt_kmpc_task();
  (void)loc;
  (void)gtid;
  mockrt_frame_enter(t, MOCKRT_ENTRY_FRAME());
  mockrt_doacross_wait(t, (const long *)vec);
  mockrt_frame_leave(t);
}

MOCKRT_EXPORT void __kmpc_doacross_post(mockrt_ident_t *loc, int32_t gtid, const int64_t *vec)
{
  (void)loc;
  (void)gtid;
  mockrt_doacross_post(mockrt_kmpc_task(), (const long *)vec);
}

MOCKRT_EXPORT void __kmpc_doacross_fini(mockrt_ident_t *loc, int32_t gtid)
{
  (void)loc;
  (void)gtid;
  mockrt_doacross_end(mockrt_kmpc_task());
}
