/*
 * The __tgt_* entry points clang 14 calls for target constructs (and the
 * older forms without mappers and names, as LLVM 14's libomptarget still
 * exports them).  Each takes its caller's return address as the
 * construct's codeptr_ra, so none may be inlined into another.
 *
 * The nowait forms run synchronously: clang 14 calls them from inside the
 * target task it creates, so the task's completion is the construct's.
 */
#include "target.h"

#define MOCKRT_TGT_ENTRY     MOCKRT_TGT_EXPORT __attribute__((noinline))
#define MOCKRT_TGT_CODEPTR() __builtin_return_address(0)

typedef struct mockrt_tgt_ident mockrt_tgt_ident_t; /* clang's ident_t: unused */

MOCKRT_TGT_ENTRY void __tgt_register_requires(int64_t flags)
{
  /* The mock device shares nothing with the host but what is mapped; a
   * program that requires more still runs, with its maps. */
  (void)flags;
}

MOCKRT_TGT_ENTRY void __kmpc_push_target_tripcount_mapper(mockrt_tgt_ident_t *loc,
                                                          int64_t device_id, uint64_t tripcount)
{
  (void)loc;
  (void)device_id;
  mockrt_tgt_push_tripcount(tripcount);
}

MOCKRT_TGT_ENTRY void __kmpc_push_target_tripcount(int64_t device_id, uint64_t tripcount)
{
  (void)device_id;
  mockrt_tgt_push_tripcount(tripcount);
}

static int mockrt_tgt_target(int64_t device_id, void *host_ptr, int32_t n, void **bases,
                             void **begins, int64_t *sizes, int64_t *types, void **mappers,
                             int32_t num_teams, const void *codeptr)
{
  mockrt_tgt_maps_t maps = {n, bases, begins, sizes, types, mappers};
  return mockrt_tgt_target_construct(device_id, host_ptr, &maps, num_teams, codeptr);
}

static int mockrt_tgt_data(int64_t device_id, ompt_target_t kind, int32_t n, void **bases,
                           void **begins, int64_t *sizes, int64_t *types, void **mappers,
                           const void *codeptr)
{
  mockrt_tgt_maps_t maps = {n, bases, begins, sizes, types, mappers};
  return mockrt_tgt_data_construct(device_id, kind, &maps, codeptr);
}

/* ---- target regions ---- */
MOCKRT_TGT_ENTRY int __tgt_target_mapper(mockrt_tgt_ident_t *loc, int64_t device_id, void *host_ptr,
                                         int32_t n, void **bases, void **begins, int64_t *sizes,
                                         int64_t *types, void **names, void **mappers)
{
  (void)loc;
  (void)names;
  return mockrt_tgt_target(device_id, host_ptr, n, bases, begins, sizes, types, mappers, 0,
                           MOCKRT_TGT_CODEPTR());
}

MOCKRT_TGT_ENTRY int __tgt_target(int64_t device_id, void *host_ptr, int32_t n, void **bases,
                                  void **begins, int64_t *sizes, int64_t *types)
{
  return mockrt_tgt_target(device_id, host_ptr, n, bases, begins, sizes, types, NULL, 0,
                           MOCKRT_TGT_CODEPTR());
}

MOCKRT_TGT_ENTRY int __tgt_target_nowait_mapper(mockrt_tgt_ident_t *loc, int64_t device_id,
                                                void *host_ptr, int32_t n, void **bases,
                                                void **begins, int64_t *sizes, int64_t *types,
                                                void **names, void **mappers, int32_t ndeps,
                                                void *deps, int32_t nnoalias, void *noalias)
{
  (void)loc, (void)names, (void)ndeps, (void)deps, (void)nnoalias, (void)noalias;
  return mockrt_tgt_target(device_id, host_ptr, n, bases, begins, sizes, types, mappers, 0,
                           MOCKRT_TGT_CODEPTR());
}

MOCKRT_TGT_ENTRY int __tgt_target_nowait(int64_t device_id, void *host_ptr, int32_t n, void **bases,
                                         void **begins, int64_t *sizes, int64_t *types,
                                         int32_t ndeps, void *deps, int32_t nnoalias, void *noalias)
{
  (void)ndeps, (void)deps, (void)nnoalias, (void)noalias;
  return mockrt_tgt_target(device_id, host_ptr, n, bases, begins, sizes, types, NULL, 0,
                           MOCKRT_TGT_CODEPTR());
}

MOCKRT_TGT_ENTRY int __tgt_target_teams_mapper(mockrt_tgt_ident_t *loc, int64_t device_id,
                                               void *host_ptr, int32_t n, void **bases,
                                               void **begins, int64_t *sizes, int64_t *types,
                                               void **names, void **mappers, int32_t num_teams,
                                               int32_t thread_limit)
{
  (void)loc, (void)names, (void)thread_limit;
  return mockrt_tgt_target(device_id, host_ptr, n, bases, begins, sizes, types, mappers, num_teams,
                           MOCKRT_TGT_CODEPTR());
}

MOCKRT_TGT_ENTRY int __tgt_target_teams(int64_t device_id, void *host_ptr, int32_t n, void **bases,
                                        void **begins, int64_t *sizes, int64_t *types,
                                        int32_t num_teams, int32_t thread_limit)
{
  (void)thread_limit;
  return mockrt_tgt_target(device_id, host_ptr, n, bases, begins, sizes, types, NULL, num_teams,
                           MOCKRT_TGT_CODEPTR());
}

MOCKRT_TGT_ENTRY int __tgt_target_teams_nowait_mapper(
    mockrt_tgt_ident_t *loc, int64_t device_id, void *host_ptr, int32_t n, void **bases,
    void **begins, int64_t *sizes, int64_t *types, void **names, void **mappers, int32_t num_teams,
    int32_t thread_limit, int32_t ndeps, void *deps, int32_t nnoalias, void *noalias)
{
  (void)loc, (void)names, (void)thread_limit, (void)ndeps, (void)deps, (void)nnoalias,
      (void)noalias;
  return mockrt_tgt_target(device_id, host_ptr, n, bases, begins, sizes, types, mappers, num_teams,
                           MOCKRT_TGT_CODEPTR());
}

MOCKRT_TGT_ENTRY int __tgt_target_teams_nowait(int64_t device_id, void *host_ptr, int32_t n,
                                               void **bases, void **begins, int64_t *sizes,
                                               int64_t *types, int32_t num_teams,
                                               int32_t thread_limit, int32_t ndeps, void *deps,
                                               int32_t nnoalias, void *noalias)
{
  (void)thread_limit, (void)ndeps, (void)deps, (void)nnoalias, (void)noalias;
  return mockrt_tgt_target(device_id, host_ptr, n, bases, begins, sizes, types, NULL, num_teams,
                           MOCKRT_TGT_CODEPTR());
}

/* ---- data constructs: begin (target data, enter data), end, update ---- */
#define MOCKRT_TGT_DATA_ENTRIES(suffix, kind)                                                      \
  MOCKRT_TGT_ENTRY void __tgt_target_data_##suffix##_mapper(                                       \
      mockrt_tgt_ident_t *loc, int64_t device_id, int32_t n, void **bases, void **begins,          \
      int64_t *sizes, int64_t *types, void **names, void **mappers)                                \
  {                                                                                                \
    (void)loc, (void)names;                                                                        \
    mockrt_tgt_data(device_id, kind, n, bases, begins, sizes, types, mappers,                      \
                    MOCKRT_TGT_CODEPTR());                                                         \
  }                                                                                                \
  MOCKRT_TGT_ENTRY void __tgt_target_data_##suffix(int64_t device_id, int32_t n, void **bases,     \
                                                   void **begins, int64_t *sizes, int64_t *types)  \
  {                                                                                                \
    mockrt_tgt_data(device_id, kind, n, bases, begins, sizes, types, NULL, MOCKRT_TGT_CODEPTR());  \
  }                                                                                                \
  MOCKRT_TGT_ENTRY void __tgt_target_data_##suffix##_nowait_mapper(                                \
      mockrt_tgt_ident_t *loc, int64_t device_id, int32_t n, void **bases, void **begins,          \
      int64_t *sizes, int64_t *types, void **names, void **mappers, int32_t ndeps, void *deps,     \
      int32_t nnoalias, void *noalias)                                                             \
  {                                                                                                \
    (void)loc, (void)names, (void)ndeps, (void)deps, (void)nnoalias, (void)noalias;                \
    mockrt_tgt_data(device_id, kind, n, bases, begins, sizes, types, mappers,                      \
                    MOCKRT_TGT_CODEPTR());                                                         \
  }                                                                                                \
  MOCKRT_TGT_ENTRY void __tgt_target_data_##suffix##_nowait(                                       \
      int64_t device_id, int32_t n, void **bases, void **begins, int64_t *sizes, int64_t *types,   \
      int32_t ndeps, void *deps, int32_t nnoalias, void *noalias)                                  \
  {                                                                                                \
    (void)ndeps, (void)deps, (void)nnoalias, (void)noalias;                                        \
    mockrt_tgt_data(device_id, kind, n, bases, begins, sizes, types, NULL, MOCKRT_TGT_CODEPTR());  \
  }

MOCKRT_TGT_DATA_ENTRIES(begin, ompt_target_enter_data)
MOCKRT_TGT_DATA_ENTRIES(end, ompt_target_exit_data)
MOCKRT_TGT_DATA_ENTRIES(update, ompt_target_update)
