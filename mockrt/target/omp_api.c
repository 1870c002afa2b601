/*
 * The OpenMP device memory routines libomptarget exports, on the mock
 * device.  Device memory is host memory the device accounts for, so a copy
 * is a memcpy; these routines are not device operations (no callbacks, no
 * records, no clock), as they have no construct to belong to.
 */
#include "target.h"

#include <stdlib.h>
#include <string.h>

MOCKRT_TGT_EXPORT int omp_get_num_devices(void)
{
  return mockrt_tgt_settings.num_devices;
}

MOCKRT_TGT_EXPORT int omp_get_initial_device(void)
{
  return mockrt_tgt_settings.num_devices;
}

static bool mockrt_tgt_is_host(int device_num)
{
  return device_num == mockrt_tgt_settings.num_devices;
}

MOCKRT_TGT_EXPORT void *omp_target_alloc(size_t size, int device_num)
{
  if (mockrt_tgt_is_host(device_num))
    return malloc(size);
  mockrt_tgt_device_t *dev = mockrt_tgt_device_acquire(device_num);
  if (!dev)
    return NULL;
  void *p = mockrt_tgt_mem_alloc(dev, size);
  mockrt_tgt_device_release(dev);
  return p;
}

MOCKRT_TGT_EXPORT void omp_target_free(void *ptr, int device_num)
{
  if (!ptr)
    return;
  if (mockrt_tgt_is_host(device_num)) {
    free(ptr);
    return;
  }
  mockrt_tgt_device_t *dev = mockrt_tgt_device_acquire(device_num);
  if (!dev)
    return;
  mockrt_tgt_mem_free(dev, ptr);
  mockrt_tgt_device_release(dev);
}

MOCKRT_TGT_EXPORT int omp_target_is_present(const void *ptr, int device_num)
{
  if (!ptr || mockrt_tgt_is_host(device_num))
    return 1;
  mockrt_tgt_device_t *dev = mockrt_tgt_device_acquire(device_num);
  if (!dev)
    return 0;
  int present = mockrt_tgt_map_lookup(dev, ptr, 0) != NULL;
  mockrt_tgt_device_release(dev);
  return present;
}

MOCKRT_TGT_EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length,
                                        size_t dst_offset, size_t src_offset, int dst_device_num,
                                        int src_device_num)
{
  int n = mockrt_tgt_settings.num_devices;
  if (!dst || !src || dst_device_num < 0 || dst_device_num > n || src_device_num < 0 ||
      src_device_num > n)
    return -1;
  memmove((char *)dst + dst_offset, (const char *)src + src_offset, length);
  return 0;
}
