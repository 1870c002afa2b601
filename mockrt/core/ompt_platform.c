/*
 * OMPT inquiries about the platform: places and processors, devices, and
 * the mutex implementations, answered as LLVM's libomp 14 answers them on
 * the host with no OMP_PLACES and no offloading.  libomp sets its places
 * up after the tool's initialize, so while initialize runs there are none
 * (no places, place -1, no processor, 0 processors); from then on the
 * whole machine is one place, 0, which every thread's partition holds.
 * A worker is in it from its start, an initial thread from its first fork:
 * until then (its initial task's begin) it has no place (-1) and an empty
 * partition.  Async-signal-safe: flags and the thread's own processor.
 */
#define _GNU_SOURCE
#include "mockrt.h"

#include <sched.h>

/* Set once the tool's initialize has returned (mockrt_ompt_places_ready). */
static atomic_int mockrt_places_ready;

void mockrt_ompt_places_ready(void)
{
  atomic_store_explicit(&mockrt_places_ready, 1, memory_order_release);
}

/* Set at the first fork (mockrt_ompt_places_bound). */
static atomic_int mockrt_places_bound;

void mockrt_ompt_places_bound(void)
{
  if (!atomic_load_explicit(&mockrt_places_bound, memory_order_relaxed))
    atomic_store_explicit(&mockrt_places_bound, 1, memory_order_release);
  mockrt_self_tls.place_bound = true;
}

/* Whether the calling thread has a place yet (an initial thread: its first
 * fork; a thread the runtime does not know has none). */
static bool mockrt_ompt_thread_placed(void)
{
  return mockrt_self_tls.place_bound;
}

bool mockrt_ompt_forked_once(void)
{
  return atomic_load_explicit(&mockrt_places_bound, memory_order_acquire) != 0;
}

static bool mockrt_places_known(void)
{
  return atomic_load_explicit(&mockrt_places_ready, memory_order_acquire) != 0;
}

int mockrt_ompt_get_num_procs(void)
{
  return mockrt_places_known() ? mockrt_icv.num_procs : 0;
}

int mockrt_ompt_get_num_places(void)
{
  return mockrt_places_known() ? 1 : 0;
}

/* The one place holds every processor, numbered as the system does. */
int mockrt_ompt_get_place_proc_ids(int place_num, int ids_size, int *ids)
{
  if (!mockrt_places_known() || place_num != 0)
    return 0;
  int n = mockrt_icv.num_procs;
  for (int i = 0; i < n && i < ids_size && ids; i++)
    ids[i] = i;
  return n;
}

int mockrt_ompt_get_place_num(void)
{
  return mockrt_places_known() && mockrt_ompt_thread_placed() ? 0 : -1;
}

int mockrt_ompt_get_partition_place_nums(int place_nums_size, int *place_nums)
{
  if (!mockrt_places_known() || !mockrt_ompt_thread_placed())
    return 0;
  if (place_nums_size >= 1 && place_nums)
    place_nums[0] = 0;
  return 1;
}

int mockrt_ompt_get_proc_id(void)
{
  return mockrt_places_known() ? sched_getcpu() : -1;
}

/* Without the mock device the host is the one device libomp 14 counts;
 * with it, its devices. */
int mockrt_ompt_get_num_devices(void)
{
  int devices = mockrt_target_num_devices();
  return devices > 0 ? devices : 1;
}

/* Only the calling thread's TLS: this may run in a signal handler. */
int mockrt_ompt_get_target_info(uint64_t *device_num, ompt_id_t *target_id, ompt_id_t *host_op_id)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  if (!self->kind)
    return 0;
  ompt_id_t id = self->target_id;
  atomic_signal_fence(memory_order_seq_cst);
  if (id == 0)
    return 0;
  if (device_num)
    *device_num = (uint64_t)self->target_device;
  if (target_id)
    *target_id = id;
  if (host_op_id)
    *host_op_id = self->target_host_op_id;
  return 1;
}

/* libomp's lock kinds, by the names and numbers it enumerates (none, 0,
 * is where the enumeration starts and is not itself listed). */
int mockrt_ompt_enumerate_mutex_impls(int current, int *next, const char **name)
{
  static const char *const names[] = {
      NULL,
      "kmp_mutex_impl_spin",
      "kmp_mutex_impl_queuing",
      "kmp_mutex_impl_speculative",
  };
  const int count = (int)(sizeof names / sizeof names[0]);
  if (current < 0 || current + 1 >= count)
    return 0;
  *next = current + 1;
  *name = names[current + 1];
  return 1;
}
