/* Target devices (ompt/device.c, ompt/device_trace.c): launching contexts
 * filed at a target construct's begin, and device trace records charged to
 * them. A fake device stands in for the offloading library: its lookup
 * hands out entry points that walk buffers of ompt_record_ompt_t the test
 * writes, so the attribution is checked record by record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <omp-tools.h>

#include "core/session.h"
#include "core/thread.h"
#include "base/arena.h"
#include "measure/format.h"
#include "ompt/device.h"
#include "ompt/ompt_state.h"
#include "unwind/loadmap.h"

/* --- what device.c and device_trace.c call, standing in for the tool --- */
knit_ompt knit_ompt_runtime = {.runtime_module = KNIT_MODULE_UNKNOWN,
                               .target_module = KNIT_MODULE_UNKNOWN};
/* Tracing (-t), into a directory of the test's own (setup): device 0's
 * operations go to its trace-device-0.knit. */
knit_session knit_the_session;
static knit_thread *current;
knit_thread *knit_thread_self(void)
{
  return current;
}
void knit_take_missed(knit_thread *t)
{
  (void)t;
}
static char log_text[4096];
void knit_log_line(const char *line)
{
  strncat(log_text, line, sizeof log_text - strlen(log_text) - 2);
  strcat(log_text, "\n");
}
/* The log's count of device records (core/trace.c): what was written,
 * lost, and the files made. */
static uint64_t device_written, device_lost, device_files;
void knit_trace_count_device(uint64_t written, uint64_t lost, bool new_file)
{
  device_written += written;
  device_lost += lost;
  device_files += new_file;
}
const void *knit_self_address(void)
{
  return NULL;
}
bool knit_ompt_frame_is_live(const void *frame, const void *below)
{
  (void)below;
  return frame != NULL;
}
static int fake_task_info(int level, int *flags, ompt_data_t **task_data, ompt_frame_t **tf,
                          ompt_data_t **parallel_data, int *thread_num)
{
  (void)level;
  (void)task_data;
  (void)tf;
  (void)parallel_data;
  (void)thread_num;
  *flags = ompt_task_initial;
  return 2;
}
const knit_call_path *knit_task_prefix(int flags, ompt_data_t *task_data,
                                       ompt_data_t *parallel_data, const ompt_frame_t *tf)
{
  (void)flags;
  (void)task_data;
  (void)parallel_data;
  (void)tf;
  return NULL;
}

/* The program's module (id 1, base 0x1000) and the offloading library's
 * (id 2). A capture gives main's call (0x10), the launching function's call
 * into the library (0x20 + the construct's index) and a frame of the
 * library (module 2): the construct's node is the launching call's. */
static knit_module program = {.id = 1, .base = 0x1000};
static knit_module library = {.id = 2, .base = 0x900000};
void knit_loadmap_refresh(const void *self_addr)
{
  (void)self_addr;
}
const knit_loadmap *knit_loadmap_current(void)
{
  return NULL;
}
const knit_module *knit_loadmap_find(const knit_loadmap *map, uint64_t pc)
{
  (void)map;
  if (pc >= 0x1000 && pc < 0x2000)
    return &program;
  if (pc >= 0x900000 && pc < 0x901000)
    return &library;
  return NULL;
}
static uint64_t capture_site; /* the launching call's offset in the program */
static int captures;
const knit_call_path *knit_capture_call_path(const ompt_frame_t *here, const knit_call_path *outer,
                                             const void *site)
{
  (void)here;
  (void)outer;
  capture_site = (uint64_t)(uintptr_t)site - program.base;
  captures++;
  return (const knit_call_path *)&capture_site; /* only knit_path_copy reads it */
}
uint32_t knit_path_copy(const knit_call_path *p, knit_path_frame *out, uint32_t max)
{
  assert_true(max >= 3);
  uint64_t site = *(const uint64_t *)p;
  out[0] = (knit_path_frame){.module = 1, .offset = 0x10, .kind = KNIT_NODE_CALL};
  out[1] = (knit_path_frame){.module = 1, .offset = site, .kind = KNIT_NODE_CALL};
  out[2] = (knit_path_frame){.module = 2, .offset = 0x44, .kind = KNIT_NODE_CALL};
  return 3;
}
/* A construct's node: <omp-target> under its launching call, whose
 * offset is the node's id here; the length the construct's path was cut
 * to is kept. */
static knit_cct_node a_node;
static int last_len;
knit_cct_node *knit_thread_path_node(knit_thread *t, const knit_path_frame *path, int n)
{
  last_len = n;
  assert_true(n >= 2);
  assert_int_equal(path[n - 1].module, KNIT_MODULE_PLACEHOLDER);
  assert_int_equal(path[n - 1].offset, KNIT_PH_OMP_TARGET);
  t->path_leaf = (uint32_t)path[n - 2].offset;
  return &a_node;
}

/* A device metric of the construct whose node is id (0 when it has none). */
static uint64_t device_metric(uint32_t id, int metric)
{
  const knit_device_nodes *d = current->device_nodes;
  for (uint32_t i = 0; d && i < d->count; i++)
    if (d->at[i].node == id)
      return d->at[i].metrics[metric - KNIT_METRIC_HOST_COUNT];
  return 0;
}

/* --- the fake runtime: callbacks registered, and one device --- */
static ompt_callback_t registered[64];
/* An OpenMP 5.0 runtime, unless a test makes it one of 5.1 too: the _emi
 * target callbacks are then offered, and knit takes them. */
static bool offer_emi;
static ompt_set_result_t fake_set_callback(ompt_callbacks_t which, ompt_callback_t callback)
{
  bool is_emi = which >= ompt_callback_target_emi && which <= ompt_callback_target_map_emi;
  if (is_emi && !offer_emi)
    return ompt_set_never;
  registered[which] = callback;
  return ompt_set_always;
}
/* ompt_get_target_info of the fake 5.1 runtime: the construct in progress. */
static ompt_id_t fake_current_target;
static int fake_target_info(uint64_t *device_num, ompt_id_t *target_id, ompt_id_t *host_op_id)
{
  *device_num = 0;
  *target_id = fake_current_target;
  *host_op_id = 0;
  return fake_current_target != 0;
}

static ompt_callback_buffer_request_t request;
static ompt_callback_buffer_complete_t complete;
static int traced_types[64];
static ompt_record_ompt_t pending[16]; /* the device's records not yet delivered */
static size_t pending_count;
static int buffers_handed_back;

static ompt_set_result_t fake_set_trace(ompt_device_t *device, unsigned int enable,
                                        unsigned int etype)
{
  (void)device;
  traced_types[etype] = (int)enable;
  return ompt_set_always;
}
static int fake_start(ompt_device_t *device, ompt_callback_buffer_request_t req,
                      ompt_callback_buffer_complete_t done)
{
  (void)device;
  request = req;
  complete = done;
  return 1;
}
/* Delivers the pending records in one buffer the tool hands out. */
static int fake_flush(ompt_device_t *device)
{
  (void)device;
  ompt_buffer_t *buffer = NULL;
  size_t bytes = 0;
  request(0, &buffer, &bytes);
  assert_non_null(buffer);
  size_t used = pending_count * sizeof(ompt_record_ompt_t);
  assert_true(bytes >= used);
  memcpy(buffer, pending, used);
  pending_count = 0;
  complete(0, buffer, used, 0, 1);
  buffers_handed_back++;
  return 1;
}
static int fake_stop(ompt_device_t *device)
{
  return fake_flush(device);
}
static int fake_advance(ompt_device_t *device, ompt_buffer_t *buffer, size_t size,
                        ompt_buffer_cursor_t current_cursor, ompt_buffer_cursor_t *next)
{
  (void)device;
  (void)buffer;
  *next = current_cursor + sizeof(ompt_record_ompt_t);
  return *next < size;
}
static ompt_record_t fake_record_type(ompt_buffer_t *buffer, ompt_buffer_cursor_t current_cursor)
{
  (void)buffer;
  (void)current_cursor;
  return ompt_record_ompt;
}
static ompt_record_ompt_t *fake_record(ompt_buffer_t *buffer, ompt_buffer_cursor_t current_cursor)
{
  return (ompt_record_ompt_t *)((char *)buffer + current_cursor);
}
/* The device's clock: device time t is the host's fake_origin + t. */
static uint64_t fake_origin;
static ompt_device_time_t fake_device_time(ompt_device_t *device)
{
  (void)device;
  return 0;
}
static double fake_translate(ompt_device_t *device, ompt_device_time_t time)
{
  (void)device;
  return (double)(fake_origin + time) * 1e-9;
}
static ompt_interface_fn_t fake_lookup(const char *name)
{
  static const struct {
    const char *name;
    ompt_interface_fn_t fn;
  } table[] = {
      {"ompt_set_trace_ompt", (ompt_interface_fn_t)fake_set_trace},
      {"ompt_start_trace", (ompt_interface_fn_t)fake_start},
      {"ompt_flush_trace", (ompt_interface_fn_t)fake_flush},
      {"ompt_stop_trace", (ompt_interface_fn_t)fake_stop},
      {"ompt_advance_buffer_cursor", (ompt_interface_fn_t)fake_advance},
      {"ompt_get_record_type", (ompt_interface_fn_t)fake_record_type},
      {"ompt_get_record_ompt", (ompt_interface_fn_t)fake_record},
      {"ompt_get_device_time", (ompt_interface_fn_t)fake_device_time},
      {"ompt_translate_time", (ompt_interface_fn_t)fake_translate},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(name, table[i].name) == 0)
      return table[i].fn;
  return NULL;
}

static void add_kernel(uint64_t target_id, uint64_t begin, uint64_t end)
{
  ompt_record_ompt_t *r = &pending[pending_count++];
  memset(r, 0, sizeof *r);
  r->type = ompt_callback_target_submit;
  r->time = begin;
  r->target_id = target_id;
  r->record.target_kernel.end_time = end;
}
static void add_data_op(uint64_t target_id, ompt_target_data_op_t optype, size_t bytes,
                        uint64_t begin, uint64_t end)
{
  ompt_record_ompt_t *r = &pending[pending_count++];
  memset(r, 0, sizeof *r);
  r->type = ompt_callback_target_data_op;
  r->time = begin;
  r->target_id = target_id;
  r->record.target_data_op.optype = optype;
  r->record.target_data_op.bytes = bytes;
  r->record.target_data_op.end_time = end;
}

/* A target construct of the current thread, launched from the program's
 * call at offset site. */
static void target_begins(uint64_t target_id, uint64_t site)
{
  ompt_callback_target_t on_target = (ompt_callback_target_t)registered[ompt_callback_target];
  on_target(ompt_target, ompt_scope_begin, 0, NULL, target_id,
            (const void *)(uintptr_t)(program.base + site));
  on_target(ompt_target, ompt_scope_end, 0, NULL, target_id,
            (const void *)(uintptr_t)(program.base + site));
}

static int setup(void **state)
{
  (void)state;
  static bool registered_once;
  if (!registered_once) {
    knit_ompt_runtime.get_task_info = fake_task_info;
    knit_device_register(fake_set_callback);
    current = calloc(1, sizeof *current);
    knit_arena_init(&current->arena, 256u << 10, 1u << 20);
    current->cct_ready = true;
    current->index = 3;
    char dir[] = "/tmp/knit-device-track-XXXXXX";
    assert_non_null(mkdtemp(dir));
    snprintf(knit_the_session.output, sizeof knit_the_session.output, "%s", dir);
    knit_the_session.trace = true;
    knit_the_session.active = true;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    /* Whole microseconds: the translation's double keeps them exactly. */
    fake_origin = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) / 1000 * 1000;
    ompt_callback_device_initialize_t init =
        (ompt_callback_device_initialize_t)registered[ompt_callback_device_initialize];
    init(0, "fake", (ompt_device_t *)&pending, fake_lookup, NULL);
    init(1, "plain", NULL, NULL, NULL);
    registered_once = true;
  }
  return 0;
}

static void registers_the_target_callbacks(void **state)
{
  (void)state;
  assert_non_null(registered[ompt_callback_target]);
  assert_non_null(registered[ompt_callback_target_data_op]);
  assert_non_null(registered[ompt_callback_device_initialize]);
  assert_non_null(registered[ompt_callback_device_finalize]);
  assert_int_equal(traced_types[ompt_callback_target_submit], 1);
  assert_int_equal(traced_types[ompt_callback_target_data_op], 1);
  assert_int_equal(knit_device_stat(KNIT_STAT_DEVICES_TRACED), 1);
  assert_int_equal(knit_device_stat(KNIT_STAT_DEVICES_UNTRACED), 1);
  assert_true(knit_device_traced(0));
  assert_false(knit_device_traced(1));
  assert_false(knit_device_traced(KNIT_MAX_DEVICES));
  /* The offloading library is the module of the lookup: fake_lookup is
   * in no module this map knows, so none is named. */
  assert_int_equal(knit_ompt_runtime.target_module, KNIT_MODULE_UNKNOWN);
  assert_non_null(strstr(log_text, "ompt: device 0 (fake): traced"));
  assert_non_null(strstr(log_text, "ompt: device 1 (plain): no tracing interface; transfer bytes "
                                   "come from target_data_op callbacks, no device times"));
}

static void charges_records_to_their_launching_contexts(void **state)
{
  (void)state;
  int before = captures;
  target_begins(101, 0x21);
  assert_int_equal(last_len, 3); /* the library's frame is cut */
  target_begins(102, 0x22);
  assert_int_equal(captures, before + 2); /* once per construct, at its begin */
  add_data_op(101, ompt_target_data_alloc, 4096, 10, 12);
  add_data_op(101, ompt_target_data_transfer_to_device, 4096, 12, 1012);
  add_kernel(101, 1100, 9100);
  add_data_op(101, ompt_target_data_transfer_from_device, 1024, 9100, 9350);
  add_kernel(102, 9400, 13400);
  add_data_op(102, ompt_target_data_transfer_to_device_async, 100, 13400, 13500);
  add_data_op(102, ompt_target_data_delete, 4096, 13500, 13501);
  fake_flush(NULL);
  assert_int_equal(device_metric(0x21, KNIT_METRIC_DEVICE_ALLOC_BYTES), 4096);
  assert_int_equal(device_metric(0x21, KNIT_METRIC_DEVICE_H2D_BYTES), 4096);
  assert_int_equal(device_metric(0x21, KNIT_METRIC_DEVICE_H2D_TIME), 1000);
  assert_int_equal(device_metric(0x21, KNIT_METRIC_DEVICE_KERNEL), 8000);
  assert_int_equal(device_metric(0x21, KNIT_METRIC_DEVICE_D2H_BYTES), 1024);
  assert_int_equal(device_metric(0x21, KNIT_METRIC_DEVICE_D2H_TIME), 250);
  assert_int_equal(device_metric(0x22, KNIT_METRIC_DEVICE_KERNEL), 4000);
  assert_int_equal(device_metric(0x22, KNIT_METRIC_DEVICE_H2D_BYTES), 100);
  assert_int_equal(device_metric(0x22, KNIT_METRIC_DEVICE_H2D_TIME), 100);
  assert_int_equal(device_metric(0x22, KNIT_METRIC_DEVICE_ALLOC_BYTES), 0);
  /* Two constructs, and no host metric touched. */
  assert_int_equal(current->device_nodes->count, 2);
  for (int m = 0; m < KNIT_METRIC_HOST_COUNT; m++)
    assert_int_equal(a_node.metrics[m], 0);
}

static void counts_unknown_target_ids(void **state)
{
  (void)state;
  uint64_t before = knit_device_stat(KNIT_STAT_DEVICE_UNATTRIBUTED);
  add_kernel(999, 0, 5000);
  add_kernel(0, 0, 5000);                                           /* ompt_id_none */
  add_data_op(998, ompt_target_data_transfer_to_device, 64, 0, 64); /* one, not two */
  fake_flush(NULL);
  assert_int_equal(knit_device_stat(KNIT_STAT_DEVICE_UNATTRIBUTED), before + 3);
  /* An end before its begin charges nothing rather than wrapping around. */
  target_begins(103, 0x23);
  add_kernel(103, 5000, 4000);
  fake_flush(NULL);
  assert_int_equal(device_metric(0x23, KNIT_METRIC_DEVICE_KERNEL), 0);
}

static void gives_every_buffer_back(void **state)
{
  (void)state;
  for (int round = 0; round < 20; round++) {
    target_begins(200 + (uint64_t)round, 0x24);
    add_kernel(200 + (uint64_t)round, 0, 10);
    fake_flush(NULL);
  }
  assert_int_equal(device_metric(0x24, KNIT_METRIC_DEVICE_KERNEL), 200);
  /* The pool is whole again: its buffers can all be had at once, and no
   * more. */
  ompt_buffer_t *held[16];
  size_t bytes = 0;
  int got = 0;
  for (; got < 16; got++) {
    request(0, &held[got], &bytes);
    if (!held[got])
      break;
    assert_true(bytes >= 64 * sizeof(ompt_record_ompt_t));
  }
  assert_int_equal(got, 8);
  for (int i = 0; i < got; i++)
    complete(0, held[i], 0, 0, 1);
  ompt_buffer_t *again = NULL;
  request(0, &again, &bytes);
  assert_non_null(again);
  complete(0, again, 0, 0, 1);
}

static void host_callbacks_give_bytes_without_tracing(void **state)
{
  (void)state;
  ompt_callback_target_data_op_t data_op =
      (ompt_callback_target_data_op_t)registered[ompt_callback_target_data_op];
  target_begins(301, 0x25);
  /* Device 1 has no tracing: its bytes come from the host's callbacks. */
  data_op(301, 1, ompt_target_data_alloc, NULL, 2, NULL, 1, 512, NULL);
  data_op(301, 2, ompt_target_data_transfer_to_device, NULL, 2, NULL, 1, 512, NULL);
  data_op(301, 3, ompt_target_data_transfer_from_device, NULL, 1, NULL, 2, 256, NULL);
  /* Device 0 is traced: its records count, its callbacks do not. */
  data_op(301, 4, ompt_target_data_transfer_to_device, NULL, 2, NULL, 0, 77, NULL);
  assert_int_equal(device_metric(0x25, KNIT_METRIC_DEVICE_ALLOC_BYTES), 512);
  assert_int_equal(device_metric(0x25, KNIT_METRIC_DEVICE_H2D_BYTES), 512);
  assert_int_equal(device_metric(0x25, KNIT_METRIC_DEVICE_D2H_BYTES), 256);
  assert_int_equal(device_metric(0x25, KNIT_METRIC_DEVICE_H2D_TIME), 0);
}

static void a_device_never_initialized_counts_untraced(void **state)
{
  (void)state;
  uint64_t before = knit_device_stat(KNIT_STAT_DEVICES_UNTRACED);
  ompt_callback_target_t on_target = (ompt_callback_target_t)registered[ompt_callback_target];
  for (int i = 0; i < 3; i++)
    on_target(ompt_target, ompt_scope_begin, 2, NULL, 600 + (uint64_t)i,
              (const void *)(uintptr_t)(program.base + 0x28));
  /* Once, however many constructs; and known as a device without tracing,
   * whose host callbacks charge the bytes. */
  assert_int_equal(knit_device_stat(KNIT_STAT_DEVICES_UNTRACED), before + 1);
  assert_false(knit_device_traced(2));
  assert_non_null(strstr(log_text, "ompt: device 2: a target construct with no device_initialize"));
  ompt_callback_target_data_op_t data_op =
      (ompt_callback_target_data_op_t)registered[ompt_callback_target_data_op];
  data_op(601, 7, ompt_target_data_transfer_to_device, NULL, 3, NULL, 2, 64, NULL);
  assert_int_equal(device_metric(0x28, KNIT_METRIC_DEVICE_H2D_BYTES), 64);
}

static void a_written_thread_takes_no_more(void **state)
{
  (void)state;
  target_begins(401, 0x26);
  uint64_t before = knit_device_stat(KNIT_STAT_DEVICE_UNATTRIBUTED);
  atomic_store(&current->written, true);
  add_kernel(401, 0, 10);
  fake_flush(NULL);
  atomic_store(&current->written, false);
  assert_int_equal(device_metric(0x26, KNIT_METRIC_DEVICE_KERNEL), 0);
  assert_int_equal(knit_device_stat(KNIT_STAT_DEVICE_UNATTRIBUTED), before + 1);
}

static void a_forgotten_thread_takes_no_more(void **state)
{
  (void)state;
  target_begins(701, 0x29);
  add_kernel(701, 0, 10);
  fake_flush(NULL);
  assert_int_equal(device_metric(0x29, KNIT_METRIC_DEVICE_KERNEL), 10);
  /* Its file written, its state about to serve another thread. */
  uint64_t before = knit_device_stat(KNIT_STAT_DEVICE_UNATTRIBUTED);
  knit_device_forget_thread(current);
  add_kernel(701, 0, 10);
  fake_flush(NULL);
  assert_int_equal(device_metric(0x29, KNIT_METRIC_DEVICE_KERNEL), 10);
  assert_int_equal(knit_device_stat(KNIT_STAT_DEVICE_UNATTRIBUTED), before + 1);
}

static void finalize_delivers_the_last_records(void **state)
{
  (void)state;
  target_begins(501, 0x27);
  add_kernel(501, 0, 30);
  int handed = buffers_handed_back;
  ompt_callback_device_finalize_t fini =
      (ompt_callback_device_finalize_t)registered[ompt_callback_device_finalize];
  fini(0);
  assert_true(buffers_handed_back > handed);
  assert_int_equal(device_metric(0x27, KNIT_METRIC_DEVICE_KERNEL), 30);
  /* Done: its host callbacks still charge nothing, and a second finalize
   * flushes nothing. */
  assert_true(knit_device_traced(0));
  handed = buffers_handed_back;
  fini(0);
  knit_device_flush_all();
  assert_int_equal(buffers_handed_back, handed);
}

/* The device's trace file as records: its groups of three. */
static size_t read_track(knit_trace_record *out, size_t max)
{
  char path[sizeof knit_the_session.output + 32];
  snprintf(path, sizeof path, "%s/trace-device-0.knit", knit_the_session.output);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  knit_trace_header h;
  assert_int_equal(fread(&h, sizeof h, 1, f), 1);
  assert_memory_equal(h.magic, KNIT_TRACE_MAGIC, 8);
  assert_int_equal(h.thread_index, 0);
  assert_int_equal(h.clock, 1);
  size_t n = fread(out, sizeof *out, max, f);
  fclose(f);
  assert_int_equal(n % 3, 0);
  return n;
}

static void writes_each_operation_to_the_device_track(void **state)
{
  (void)state;
  knit_trace_record before[3 * 64];
  size_t had = read_track(before, 3 * 64);
  target_begins(601, 0x2a);
  add_data_op(601, ompt_target_data_transfer_to_device, 65536, 2000, 2100);
  add_kernel(601, 2200, 5200);
  add_data_op(601, ompt_target_data_alloc, 512, 5300, 5300);
  add_kernel(999, 6000, 6500); /* no launching context */
  fake_flush(NULL);
  knit_trace_record r[3 * 64];
  size_t n = read_track(r, 3 * 64);
  assert_int_equal(n, had + 12);
  /* The log counts every record in the file, and the one file. */
  assert_int_equal(device_written, n);
  assert_int_equal(device_lost, 0);
  assert_int_equal(device_files, 1);
  const knit_trace_record *g = &r[had];
  /* The copy: start and end on the host's clock, the construct's node in
   * thread 3's tree, its bytes. */
  assert_int_equal(g[0].kind, KNIT_TRACE_DEVICE_TO_DEVICE);
  assert_int_equal(g[0].time_ns, fake_origin + 2000);
  assert_int_equal(g[0].node, 0x2a);
  assert_int_equal(g[1].kind, KNIT_TRACE_DEVICE_END);
  assert_int_equal(g[1].time_ns, fake_origin + 2100);
  assert_int_equal(g[1].node, 3);
  assert_int_equal(g[2].kind, KNIT_TRACE_DEVICE_BYTES);
  assert_int_equal(g[2].time_ns, 65536);
  assert_int_equal(g[3].kind, KNIT_TRACE_DEVICE_KERNEL);
  assert_int_equal(g[4].time_ns - g[3].time_ns, 3000);
  assert_int_equal(g[5].time_ns, 0);
  assert_int_equal(g[6].kind, KNIT_TRACE_DEVICE_ALLOC);
  assert_int_equal(g[8].time_ns, 512);
  /* Unattributed: node 0, no thread. */
  assert_int_equal(g[9].kind, KNIT_TRACE_DEVICE_KERNEL);
  assert_int_equal(g[9].node, 0);
  assert_int_equal(g[10].node, UINT32_MAX);
}

/* OpenMP 5.1's _emi forms: registered instead of the 5.0 ones, the
 * construct's node carried in target_data from its begin to its end, host
 * bytes charged once per operation (its begin), and trace records found by
 * the target id ompt_get_target_info names. */
static void takes_the_emi_callbacks_when_offered(void **state)
{
  (void)state;
  ompt_callback_t target50 = registered[ompt_callback_target];
  offer_emi = true;
  knit_ompt_runtime.get_target_info = fake_target_info;
  registered[ompt_callback_target] = NULL;
  registered[ompt_callback_target_data_op] = NULL;
  knit_device_register(fake_set_callback);
  assert_null(registered[ompt_callback_target]);
  assert_null(registered[ompt_callback_target_data_op]);
  ompt_callback_target_emi_t on_target_emi =
      (ompt_callback_target_emi_t)registered[ompt_callback_target_emi];
  ompt_callback_target_data_op_emi_t data_op_emi =
      (ompt_callback_target_data_op_emi_t)registered[ompt_callback_target_data_op_emi];
  assert_non_null(on_target_emi);
  assert_non_null(data_op_emi);

  /* Device 1, untraced: bytes from the host's callbacks, by target_data. */
  ompt_data_t untraced = {0};
  fake_current_target = 0; /* no look-up by id is needed for these */
  const void *site = (const void *)(uintptr_t)(program.base + 0x2d);
  on_target_emi(ompt_target, ompt_scope_begin, 1, NULL, NULL, &untraced, site);
  assert_non_null(untraced.ptr);
  ompt_id_t op_id = 0;
  for (int endpoint = ompt_scope_begin; endpoint <= ompt_scope_end; endpoint++) {
    data_op_emi((ompt_scope_endpoint_t)endpoint, NULL, &untraced, &op_id,
                ompt_target_data_transfer_to_device, NULL, 2, NULL, 1, 300, NULL);
    data_op_emi((ompt_scope_endpoint_t)endpoint, NULL, &untraced, &op_id,
                ompt_target_data_transfer_from_device, NULL, 1, NULL, 2, 40, NULL);
  }
  on_target_emi(ompt_target, ompt_scope_end, 1, NULL, NULL, &untraced, site);
  assert_null(untraced.ptr);
  assert_int_equal(device_metric(0x2d, KNIT_METRIC_DEVICE_H2D_BYTES), 300);
  assert_int_equal(device_metric(0x2d, KNIT_METRIC_DEVICE_D2H_BYTES), 40);

  /* Device 0, traced: the records name the runtime's target id. */
  ompt_data_t traced = {0};
  fake_current_target = 901;
  on_target_emi(ompt_target, ompt_scope_begin, 0, NULL, NULL, &traced,
                (const void *)(uintptr_t)(program.base + 0x2e));
  data_op_emi(ompt_scope_begin, NULL, &traced, &op_id, ompt_target_data_transfer_to_device, NULL, 2,
              NULL, 0, 64, NULL);
  on_target_emi(ompt_target, ompt_scope_end, 0, NULL, NULL, &traced,
                (const void *)(uintptr_t)(program.base + 0x2e));
  fake_current_target = 0;
  add_kernel(901, 20000, 20700);
  add_data_op(901, ompt_target_data_transfer_to_device, 64, 19000, 19010);
  fake_flush(NULL);
  assert_int_equal(device_metric(0x2e, KNIT_METRIC_DEVICE_KERNEL), 700);
  assert_int_equal(device_metric(0x2e, KNIT_METRIC_DEVICE_H2D_BYTES), 64);

  /* Back to the 5.0 runtime for the tests that follow. */
  offer_emi = false;
  knit_ompt_runtime.get_target_info = NULL;
  knit_device_register(fake_set_callback);
  assert_ptr_equal(registered[ompt_callback_target], target50);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(registers_the_target_callbacks, setup),
      cmocka_unit_test_setup(charges_records_to_their_launching_contexts, setup),
      cmocka_unit_test_setup(counts_unknown_target_ids, setup),
      cmocka_unit_test_setup(gives_every_buffer_back, setup),
      cmocka_unit_test_setup(host_callbacks_give_bytes_without_tracing, setup),
      cmocka_unit_test_setup(a_device_never_initialized_counts_untraced, setup),
      cmocka_unit_test_setup(a_written_thread_takes_no_more, setup),
      cmocka_unit_test_setup(a_forgotten_thread_takes_no_more, setup),
      cmocka_unit_test_setup(takes_the_emi_callbacks_when_offered, setup),
      cmocka_unit_test_setup(writes_each_operation_to_the_device_track, setup),
      cmocka_unit_test_setup(finalize_delivers_the_last_records, setup),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  /* The directory setup made for the device's trace file. */
  char path[sizeof knit_the_session.output + 32];
  snprintf(path, sizeof path, "%s/trace-device-0.knit", knit_the_session.output);
  unlink(path);
  if (knit_the_session.output[0] != '\0')
    rmdir(knit_the_session.output);
  return failed;
}
