/*
 * OMPT's device tracing interface on the mock device: the entry points the
 * lookup function of device_initialize hands out, and the records.
 *
 * Records are ompt_record_ompt_t, of three types: ompt_callback_target
 * (a construct's begin and end, written by the host thread when it
 * announces them), ompt_callback_target_data_op and
 * ompt_callback_target_submit (written by the device thread when the
 * operation is done, with its start in time and its end in end_time).
 * Times are the device's clock, ns since its initialization;
 * ompt_translate_time turns them into the host's CLOCK_MONOTONIC seconds.
 *
 * A record is queued first and the device thread moves queued records into
 * the tool's buffers after each operation: buffer_request and
 * buffer_complete are always called on the device thread, never on a host
 * thread that waits for the device (a flush from a host thread is a device
 * operation like any other).  A buffer is handed back when the next record
 * would not fit, or at a flush; cursors are the addresses of records.
 * A record type is traced only once set_trace_ompt enabled it and while
 * tracing is started.
 */
#include "target.h"

#include <stdlib.h>
#include <string.h>

#define MOCKRT_TGT_RECORD sizeof(ompt_record_ompt_t)

void mockrt_tgt_trace_init(mockrt_tgt_trace_t *t)
{
  memset(t, 0, sizeof *t);
  pthread_mutex_init(&t->lock, NULL);
}

mockrt_tgt_device_t *mockrt_tgt_trace_device(ompt_device_t *handle)
{
  for (int i = 0; i < MOCKRT_TGT_MAX_DEVICES; i++) {
    if (handle == (ompt_device_t *)&mockrt_tgt_devices[i])
      return atomic_load(&mockrt_tgt_devices[i].initialized) ? &mockrt_tgt_devices[i] : NULL;
  }
  return NULL;
}

static uint64_t mockrt_tgt_traced_types(void)
{
  return (1ull << ompt_callback_target) | (1ull << ompt_callback_target_data_op) |
         (1ull << ompt_callback_target_submit);
}

bool mockrt_tgt_trace_add(mockrt_tgt_device_t *dev, const ompt_record_ompt_t *rec)
{
  mockrt_tgt_trace_t *t = &dev->trace;
  bool queued = false;
  pthread_mutex_lock(&t->lock);
  if (t->started && (t->enabled & (1ull << rec->type))) {
    if (t->npending == t->cap) {
      size_t cap = t->cap ? t->cap * 2 : 64;
      ompt_record_ompt_t *grown = realloc(t->pending, cap * sizeof *grown);
      if (grown) {
        t->pending = grown;
        t->cap = cap;
      }
    }
    if (t->npending < t->cap) {
      t->pending[t->npending++] = *rec;
      queued = true;
    } else {
      t->dropped++;
    }
  }
  pthread_mutex_unlock(&t->lock);
  return queued;
}

/* The current buffer goes back to the tool, which owns it from then on. */
static void mockrt_tgt_hand_back(mockrt_tgt_device_t *dev, ompt_callback_buffer_complete_t done)
{
  mockrt_tgt_trace_t *t = &dev->trace;
  char *buffer = t->buffer;
  size_t used = t->used;
  t->buffer = NULL;
  t->size = t->used = 0;
  if (!buffer || mockrt_tgt_faulty(MOCKRT_FAULT_BUFFER_COMPLETE_NEVER))
    return;
  done(dev->num, buffer, used, (ompt_buffer_cursor_t)(uintptr_t)buffer, 1);
}

void mockrt_tgt_trace_deliver(mockrt_tgt_device_t *dev, bool complete_all)
{
  mockrt_tgt_trace_t *t = &dev->trace;
  static _Thread_local bool delivering;
  /* A tool's buffer callbacks may flush: what is delivered now is enough. */
  if (delivering)
    return;
  delivering = true;
  pthread_mutex_lock(&t->lock);
  ompt_record_ompt_t *recs = t->pending;
  size_t n = t->npending;
  t->pending = NULL;
  t->npending = t->cap = 0;
  ompt_callback_buffer_request_t request = t->request;
  ompt_callback_buffer_complete_t complete = t->complete;
  pthread_mutex_unlock(&t->lock);
  for (size_t i = 0; i < n && request && complete; i++) {
    if (!t->buffer) {
      ompt_buffer_t *buffer = NULL;
      size_t bytes = 0;
      request(dev->num, &buffer, &bytes);
      if (!buffer || bytes < MOCKRT_TGT_RECORD) {
        t->dropped++;
        continue;
      }
      t->buffer = buffer;
      t->size = bytes;
      t->used = 0;
    }
    memcpy(t->buffer + t->used, &recs[i], MOCKRT_TGT_RECORD);
    t->used += MOCKRT_TGT_RECORD;
    if (t->used + MOCKRT_TGT_RECORD > t->size)
      mockrt_tgt_hand_back(dev, complete);
  }
  if (complete_all && t->buffer && t->used > 0 && complete)
    mockrt_tgt_hand_back(dev, complete);
  free(recs);
  delivering = false;
}

static ompt_set_result_t mockrt_tgt_set_trace_ompt(ompt_device_t *device, unsigned int enable,
                                                   unsigned int etype)
{
  mockrt_tgt_device_t *dev = mockrt_tgt_trace_device(device);
  if (!dev)
    return ompt_set_error;
  /* An _emi tool may name the records by its callbacks: they are the same
   * records (their type the 5.0 callback's). */
  switch (etype) {
  case ompt_callback_target_emi: etype = ompt_callback_target; break;
  case ompt_callback_target_data_op_emi: etype = ompt_callback_target_data_op; break;
  case ompt_callback_target_submit_emi: etype = ompt_callback_target_submit; break;
  default: break;
  }
  uint64_t bits = etype == 0 ? mockrt_tgt_traced_types() : (1ull << (etype & 63));
  if (etype > 63 || !(bits & mockrt_tgt_traced_types()))
    return ompt_set_never;
  pthread_mutex_lock(&dev->trace.lock);
  if (enable)
    dev->trace.enabled |= bits;
  else
    dev->trace.enabled &= ~bits;
  pthread_mutex_unlock(&dev->trace.lock);
  return ompt_set_always;
}

static int mockrt_tgt_start_trace(ompt_device_t *device, ompt_callback_buffer_request_t request,
                                  ompt_callback_buffer_complete_t complete)
{
  mockrt_tgt_device_t *dev = mockrt_tgt_trace_device(device);
  if (!dev || !request || !complete)
    return 0;
  pthread_mutex_lock(&dev->trace.lock);
  dev->trace.request = request;
  dev->trace.complete = complete;
  dev->trace.started = true;
  pthread_mutex_unlock(&dev->trace.lock);
  return 1;
}

static int mockrt_tgt_flush_trace(ompt_device_t *device)
{
  mockrt_tgt_device_t *dev = mockrt_tgt_trace_device(device);
  if (!dev || !dev->trace.request)
    return 0;
  mockrt_tgt_op_t flush = {.kind = MOCKRT_OP_FLUSH};
  mockrt_tgt_device_run(dev, &flush);
  return 1;
}

static int mockrt_tgt_stop_trace(ompt_device_t *device)
{
  mockrt_tgt_device_t *dev = mockrt_tgt_trace_device(device);
  if (!dev || !mockrt_tgt_flush_trace(device))
    return 0;
  pthread_mutex_lock(&dev->trace.lock);
  dev->trace.started = false;
  pthread_mutex_unlock(&dev->trace.lock);
  return 1;
}

static int mockrt_tgt_advance_buffer_cursor(ompt_device_t *device, ompt_buffer_t *buffer,
                                            size_t size, ompt_buffer_cursor_t current,
                                            ompt_buffer_cursor_t *next)
{
  (void)device;
  uintptr_t begin = (uintptr_t)buffer;
  uintptr_t following = (uintptr_t)current + MOCKRT_TGT_RECORD;
  if (!buffer || !next || current < begin || following + MOCKRT_TGT_RECORD > begin + size)
    return 0;
  *next = following;
  return 1;
}

static ompt_record_t mockrt_tgt_get_record_type(ompt_buffer_t *buffer, ompt_buffer_cursor_t current)
{
  return buffer && current ? ompt_record_ompt : ompt_record_invalid;
}

static ompt_record_ompt_t *mockrt_tgt_get_record_ompt(ompt_buffer_t *buffer,
                                                      ompt_buffer_cursor_t current)
{
  return buffer && current ? (ompt_record_ompt_t *)(uintptr_t)current : NULL;
}

static ompt_device_time_t mockrt_tgt_get_device_time(ompt_device_t *device)
{
  mockrt_tgt_device_t *dev = mockrt_tgt_trace_device(device);
  return dev ? mockrt_tgt_device_now(dev) : ompt_time_none;
}

static double mockrt_tgt_translate_time(ompt_device_t *device, ompt_device_time_t time)
{
  mockrt_tgt_device_t *dev = mockrt_tgt_trace_device(device);
  return dev ? mockrt_tgt_device_translate(dev, time) : 0.0;
}

ompt_interface_fn_t mockrt_tgt_trace_lookup(const char *name)
{
  static const struct {
    const char *name;
    ompt_interface_fn_t fn;
  } table[] = {
      {"ompt_set_trace_ompt", (ompt_interface_fn_t)mockrt_tgt_set_trace_ompt},
      {"ompt_start_trace", (ompt_interface_fn_t)mockrt_tgt_start_trace},
      {"ompt_flush_trace", (ompt_interface_fn_t)mockrt_tgt_flush_trace},
      {"ompt_stop_trace", (ompt_interface_fn_t)mockrt_tgt_stop_trace},
      {"ompt_advance_buffer_cursor", (ompt_interface_fn_t)mockrt_tgt_advance_buffer_cursor},
      {"ompt_get_record_type", (ompt_interface_fn_t)mockrt_tgt_get_record_type},
      {"ompt_get_record_ompt", (ompt_interface_fn_t)mockrt_tgt_get_record_ompt},
      {"ompt_get_device_time", (ompt_interface_fn_t)mockrt_tgt_get_device_time},
      {"ompt_translate_time", (ompt_interface_fn_t)mockrt_tgt_translate_time},
  };
  for (size_t i = 0; name && i < sizeof table / sizeof table[0]; i++) {
    if (strcmp(name, table[i].name) == 0)
      return table[i].fn;
  }
  return NULL;
}
