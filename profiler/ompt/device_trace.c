/* OMPT device tracing: a device's records, charged to the host contexts
 * that launched them (device.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "core/log_file.h"
#include "core/session.h"
#include "ompt/device.h"
#include "ompt/device_track.h"
#include "ompt/ompt_state.h"
#include "unwind/loadmap.h"

/* The buffers the runtime fills: a fixed pool, mapped at the first traced
 * device's initialization (never in a signal handler, never grown), so
 * that tracing costs bounded memory however long the program runs. A
 * request finds no free buffer only when the runtime holds them all: it
 * then gets none, its records are lost, and the log says how often. */
#define TRACE_BUFFERS      8
#define TRACE_BUFFER_BYTES (64u * 1024u)

static unsigned char *pool;
static _Atomic bool pool_busy[TRACE_BUFFERS];
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t refused_requests;

enum device_state {
  DEVICE_UNSEEN = 0,
  DEVICE_UNTRACED = 1, /* initialized without tracing */
  DEVICE_TRACED = 2,   /* tracing started */
  DEVICE_DONE = 3,     /* traced, and finalized: its records are all in */
};

typedef struct trace_device {
  _Atomic int state;
  ompt_device_t *device;
  ompt_flush_trace_t flush;
  ompt_stop_trace_t stop;
  ompt_advance_buffer_cursor_t advance;
  ompt_get_record_type_t record_type;
  ompt_get_record_ompt_t record_ompt;
  /* The host's CLOCK_MONOTONIC ns of device time 0, for the trace's
   * device tracks; time_known is false when the device gives no way to
   * tell, and its operations are then left out of the trace. */
  bool time_known;
  uint64_t host_origin_ns;
} trace_device;

static trace_device devices[KNIT_MAX_DEVICES];
static _Atomic uint64_t traced_devices, untraced_devices;

static trace_device *device_at(int device_num)
{
  return device_num >= 0 && device_num < KNIT_MAX_DEVICES ? &devices[device_num] : NULL;
}

bool knit_device_traced(int device_num)
{
  const trace_device *d = device_at(device_num);
  return d && atomic_load(&d->state) >= DEVICE_TRACED;
}

uint64_t knit_device_stat(int stat)
{
  switch (stat) {
  case KNIT_STAT_DEVICES_TRACED: return atomic_load(&traced_devices);
  case KNIT_STAT_DEVICES_UNTRACED: return atomic_load(&untraced_devices);
  case KNIT_STAT_DEVICE_UNATTRIBUTED: return knit_device_unattributed();
  default: return 0;
  }
}

static bool pool_ready(void)
{
  pthread_mutex_lock(&pool_lock);
  if (!pool) {
    void *p = mmap(NULL, (size_t)TRACE_BUFFERS * TRACE_BUFFER_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED)
      pool = p;
  }
  pthread_mutex_unlock(&pool_lock);
  return pool != NULL;
}

static void buffer_request(int device_num, ompt_buffer_t **buffer, size_t *bytes)
{
  (void)device_num;
  for (int i = 0; i < TRACE_BUFFERS; i++) {
    if (!atomic_exchange(&pool_busy[i], true)) {
      *buffer = pool + (size_t)i * TRACE_BUFFER_BYTES;
      *bytes = TRACE_BUFFER_BYTES;
      return;
    }
  }
  atomic_fetch_add(&refused_requests, 1);
  *buffer = NULL;
  *bytes = 0;
}

/* The pool's index of a buffer, or -1 for one knit did not hand out. */
static int buffer_index(const ompt_buffer_t *buffer)
{
  const unsigned char *b = buffer;
  if (!pool || b < pool || b >= pool + (size_t)TRACE_BUFFERS * TRACE_BUFFER_BYTES)
    return -1;
  return (int)((size_t)(b - pool) / TRACE_BUFFER_BYTES);
}

static uint64_t elapsed(ompt_device_time_t begin, ompt_device_time_t end)
{
  return end > begin ? end - begin : 0;
}

/* One record's worth of metrics, to its target id's launching context.
 * The two times of a record are both the device's: their difference needs
 * no translation to the host's clock. */
static void charge_record(const ompt_record_ompt_t *r)
{
  if (r->type == ompt_callback_target_submit) {
    knit_device_amount kernel = {KNIT_METRIC_DEVICE_KERNEL,
                                 elapsed(r->time, r->record.target_kernel.end_time)};
    knit_device_charge(r->target_id, &kernel, 1);
    return;
  }
  if (r->type != ompt_callback_target_data_op)
    return;
  const ompt_record_target_data_op_t *op = &r->record.target_data_op;
  uint64_t ns = elapsed(r->time, op->end_time);
  knit_device_amount a[2];
  switch (op->optype & 0xf) {
  case ompt_target_data_alloc:
    a[0] = (knit_device_amount){KNIT_METRIC_DEVICE_ALLOC_BYTES, op->bytes};
    knit_device_charge(r->target_id, a, 1);
    break;
  case ompt_target_data_transfer_to_device:
    a[0] = (knit_device_amount){KNIT_METRIC_DEVICE_H2D_BYTES, op->bytes};
    a[1] = (knit_device_amount){KNIT_METRIC_DEVICE_H2D_TIME, ns};
    knit_device_charge(r->target_id, a, 2);
    break;
  case ompt_target_data_transfer_from_device:
    a[0] = (knit_device_amount){KNIT_METRIC_DEVICE_D2H_BYTES, op->bytes};
    a[1] = (knit_device_amount){KNIT_METRIC_DEVICE_D2H_TIME, ns};
    knit_device_charge(r->target_id, a, 2);
    break;
  default: break;
  }
}

/* The host's time of device time t: device times are translated by the
 * origin found at initialization, and durations kept as the device's, so
 * that a slice lasts what the device metrics say. */
static uint64_t host_time(const trace_device *d, ompt_device_time_t t)
{
  return d->host_origin_ns + t;
}

/* One record's operation onto its device's track. */
static void track_record(const trace_device *d, const ompt_record_ompt_t *r,
                         knit_device_track_batch *b)
{
  knit_device_op op = {.start_ns = host_time(d, r->time), .thread_index = UINT32_MAX};
  if (r->type == ompt_callback_target_submit) {
    op.kind = KNIT_TRACE_DEVICE_KERNEL;
    op.end_ns = op.start_ns + elapsed(r->time, r->record.target_kernel.end_time);
  } else if (r->type == ompt_callback_target_data_op) {
    const ompt_record_target_data_op_t *data = &r->record.target_data_op;
    switch (data->optype & 0xf) {
    case ompt_target_data_alloc: op.kind = KNIT_TRACE_DEVICE_ALLOC; break;
    case ompt_target_data_transfer_to_device: op.kind = KNIT_TRACE_DEVICE_TO_DEVICE; break;
    case ompt_target_data_transfer_from_device: op.kind = KNIT_TRACE_DEVICE_FROM_DEVICE; break;
    default: return;
    }
    op.end_ns = op.start_ns + elapsed(r->time, data->end_time);
    op.bytes = data->bytes;
  } else {
    return;
  }
  if (!knit_device_origin(r->target_id, &op.thread_index, &op.node))
    op.thread_index = UINT32_MAX;
  knit_device_track_add(b, &op);
}

/* The records of a buffer, from begin, walked with the device's own entry
 * points (a record's size is the runtime's business). A runtime whose
 * cursor never reaches the end is stopped after as many steps as the
 * buffer has bytes: no walk can take more. */
static void buffer_complete(int device_num, ompt_buffer_t *buffer, size_t bytes,
                            ompt_buffer_cursor_t begin, int buffer_owned)
{
  trace_device *d = device_at(device_num);
  /* On the stack: a buffer's operations go out a batch at a time. */
  knit_device_track_batch batch = {.device_num = device_num, .count = 0};
  bool tracking = d && d->time_known && knit_device_track_enabled();
  if (d && d->record_ompt && d->advance && buffer && bytes > 0) {
    ompt_buffer_cursor_t cursor = begin;
    for (size_t step = 0; step < bytes; step++) {
      bool ompt_record = !d->record_type || d->record_type(buffer, cursor) == ompt_record_ompt;
      const ompt_record_ompt_t *r = ompt_record ? d->record_ompt(buffer, cursor) : NULL;
      if (r)
        charge_record(r);
      if (r && tracking)
        track_record(d, r, &batch);
      ompt_buffer_cursor_t next = cursor;
      if (!d->advance(d->device, buffer, bytes, cursor, &next) || next == cursor)
        break;
      cursor = next;
    }
  }
  knit_device_track_write(&batch);
  int i = buffer_owned ? buffer_index(buffer) : -1;
  if (i >= 0)
    atomic_store(&pool_busy[i], false);
}

static void log_device(int device_num, const char *type, const char *what)
{
  char line[384];
  if (type)
    snprintf(line, sizeof line, "ompt: device %d (%s): %s", device_num, type, what);
  else
    snprintf(line, sizeof line, "ompt: device %d: %s", device_num, what);
  knit_log_line(line);
}

/* The device's tracing entry points, from its lookup; false when any that
 * knit needs is missing. */
static bool look_up(trace_device *d, ompt_function_lookup_t lookup, ompt_set_trace_ompt_t *set,
                    ompt_start_trace_t *start)
{
  *set = (ompt_set_trace_ompt_t)lookup("ompt_set_trace_ompt");
  *start = (ompt_start_trace_t)lookup("ompt_start_trace");
  d->flush = (ompt_flush_trace_t)lookup("ompt_flush_trace");
  d->stop = (ompt_stop_trace_t)lookup("ompt_stop_trace");
  d->advance = (ompt_advance_buffer_cursor_t)lookup("ompt_advance_buffer_cursor");
  d->record_type = (ompt_get_record_type_t)lookup("ompt_get_record_type");
  d->record_ompt = (ompt_get_record_ompt_t)lookup("ompt_get_record_ompt");
  return *set && *start && d->flush && d->advance && d->record_ompt;
}

/* Where device time 0 falls on the host's CLOCK_MONOTONIC, from the
 * device's translate_time, checked against its get_device_time and the
 * host's clock now: a translation more than a second off the host's now
 * is not trusted, and the device's now taken as the host's instead. */
static void find_origin(trace_device *d, ompt_function_lookup_t lookup)
{
  ompt_translate_time_t translate = (ompt_translate_time_t)lookup("ompt_translate_time");
  ompt_get_device_time_t device_now = (ompt_get_device_time_t)lookup("ompt_get_device_time");
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t host_now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  d->time_known = false;
  if (translate) {
    ompt_device_time_t at = device_now ? device_now(d->device) : 0;
    double host = translate(d->device, at) * 1e9;
    if (host >= (double)at) {
      uint64_t origin = (uint64_t)(host + 0.5) - at;
      uint64_t translated = origin + at;
      uint64_t off = translated > host_now ? translated - host_now : host_now - translated;
      if (!device_now || off < 1000000000ull) {
        d->host_origin_ns = origin;
        d->time_known = true;
        return;
      }
    }
  }
  if (device_now) {
    ompt_device_time_t at = device_now(d->device);
    if (at != ompt_time_none && at <= host_now) {
      d->host_origin_ns = host_now - at;
      d->time_known = true;
    }
  }
}

void knit_device_initialize(int device_num, const char *type, ompt_device_t *device,
                            ompt_function_lookup_t lookup, const char *documentation)
{
  (void)documentation;
  trace_device *d = device_at(device_num);
  if (!d) {
    log_device(device_num, type, "beyond the devices knit follows; its operations go unattributed");
    return;
  }
  d->device = device;
  ompt_set_trace_ompt_t set = NULL;
  ompt_start_trace_t start = NULL;
  const char *why = NULL;
  if (!lookup)
    why = "no tracing interface";
  else if (!look_up(d, lookup, &set, &start))
    why = "its tracing interface lacks an entry point knit needs";
  if (lookup && set) {
    /* Samples that wait in the offloading library (which answers the
     * lookup) are the host's wait for the device (ompt/attribution.c). */
    knit_loadmap_refresh(knit_self_address());
    const knit_module *m =
        knit_loadmap_find(knit_loadmap_current(), (uint64_t)(uintptr_t)(void *)lookup);
    if (m && !m->is_self)
      knit_ompt_runtime.target_module = m->id;
  }
  if (!why && (set(device, 1, ompt_callback_target_submit) == ompt_set_never ||
               set(device, 1, ompt_callback_target_data_op) == ompt_set_never))
    why = "it traces no kernels or no data operations";
  if (!why && !pool_ready())
    why = "no memory for trace buffers";
  if (!why && !start(device, buffer_request, buffer_complete))
    why = "start_trace failed";
  if (why) {
    atomic_store(&d->state, DEVICE_UNTRACED);
    atomic_fetch_add(&untraced_devices, 1);
    char what[200];
    snprintf(what, sizeof what,
             "%s; transfer bytes come from target_data_op callbacks, no device times", why);
    log_device(device_num, type, what);
    return;
  }
  if (knit_device_track_enabled()) {
    find_origin(d, lookup);
    if (!d->time_known)
      log_device(device_num, type, "no way to put its times on the host's clock; no trace track");
  }
  atomic_store(&d->state, DEVICE_TRACED);
  atomic_fetch_add(&traced_devices, 1);
  log_device(device_num, type, "traced (kernel and transfer times from its records)");
}

void knit_device_seen(int device_num)
{
  trace_device *d = device_at(device_num);
  int unseen = DEVICE_UNSEEN;
  if (!d || !atomic_compare_exchange_strong(&d->state, &unseen, DEVICE_UNTRACED))
    return;
  atomic_fetch_add(&untraced_devices, 1);
  log_device(device_num, NULL,
             "a target construct with no device_initialize before it; transfer bytes come from "
             "target_data_op callbacks, no device times");
}

void knit_device_finalize(int device_num)
{
  trace_device *d = device_at(device_num);
  int traced = DEVICE_TRACED;
  if (!d || !atomic_compare_exchange_strong(&d->state, &traced, DEVICE_DONE))
    return;
  d->flush(d->device);
  if (d->stop)
    d->stop(d->device);
  uint64_t refused = atomic_load(&refused_requests);
  if (refused > 0) {
    char what[128];
    snprintf(what, sizeof what, "%llu buffer requests refused (all buffers in use): records lost",
             (unsigned long long)refused);
    log_device(device_num, NULL, what);
  }
}

void knit_device_flush_all(void)
{
  for (int i = 0; i < KNIT_MAX_DEVICES; i++)
    if (atomic_load(&devices[i].state) == DEVICE_TRACED)
      devices[i].flush(devices[i].device);
}

void knit_device_load(int device_num, const char *filename, int64_t offset_in_file,
                      void *vma_in_file, size_t bytes, void *host_addr, void *device_addr,
                      uint64_t module_id)
{
  (void)offset_in_file;
  (void)vma_in_file;
  (void)host_addr;
  (void)device_addr;
  (void)module_id;
  char what[320];
  snprintf(what, sizeof what, "loaded %zu bytes of code from %s", bytes,
           filename ? filename : "the program");
  log_device(device_num, NULL, what);
}
