/*
 * An OMPT tool and a clang-built offloading program in one executable
 * (clang 14 -fopenmp -fopenmp-targets=<host triple>), for the mock device
 * (mockrt/target, libomptarget.so next to mock-intel's libomp.so.5) and,
 * with --real, LLVM 14's own libomptarget and libomp.
 *
 * The program maps arrays of known sizes (map to/from/tofrom, a target
 * data region, enter/exit data, an update with nowait) and runs two
 * kernels whose trip counts are 2:1, from two functions.  The tool records
 * the target and device callbacks and every trace record, and at the end
 * checks that
 * - device_initialize, device_load, device_unload and device_finalize
 *   came once each, and every trace buffer requested was handed back;
 * - the records are the callbacks: one per target callback, data
 *   operation and kernel, with the same target ids and host_op_ids;
 * - the bytes are the map clauses' sizes, operation by operation, and
 *   target_map names the mapped arrays with their sizes;
 * - device times are ordered (no operation starts before the one before
 *   it ended, none ends before it starts) and translate into the host's
 *   run; under MOCKRT_DETERMINISTIC=1 their durations are the cost model's
 *   exactly (MOCKRT_TARGET_LATENCY_NS, _BANDWIDTH, _NS_PER_ITER);
 * - a host thread waits in wait_target during a kernel and in
 *   wait_target_map or _update during data operations, and
 *   ompt_get_target_info names the construct and operation meanwhile;
 * - the program's results are right.
 * With --real only the results are checked, and that libomp 14 answers
 * ompt_set_callback with never for every target and device callback: it
 * has no OMPT support for devices (printed as a note).
 *
 * Exit status 0 means pass.
 */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define N        2048
#define HALF     (N / 2)
#define MAX_RECS 256
#define MAX_OPS  64

static double a[N], b[N], c[N], d[HALF];

/* ---- the program ---- */
__attribute__((noinline)) static void scale(void)
{
#pragma omp target teams distribute parallel for map(to : a) map(from : b)
  for (int i = 0; i < N; i++)
    b[i] = 2.0 * a[i];
}

__attribute__((noinline)) static void shift(void)
{
#pragma omp target teams distribute parallel for map(tofrom : c) map(to : d)
  for (int i = 0; i < HALF; i++)
    c[i] += d[i];
}

static double run_program(void)
{
  for (int i = 0; i < N; i++) {
    a[i] = 0.5 * i;
    c[i] = 1.0;
  }
  for (int i = 0; i < HALF; i++)
    d[i] = i;
  scale();
#pragma omp target data map(tofrom : c)
  {
#pragma omp target enter data map(to : d)
    for (int i = 0; i < HALF; i++)
      d[i] = 2.0 * i;
      /* A target task (__kmpc_omp_target_task_alloc), run to its end here. */
#pragma omp target update to(d) nowait
#pragma omp taskwait
    shift();
#pragma omp target exit data map(from : d)
  }
  double sum = 0;
  for (int i = 0; i < N; i++)
    sum += b[i] + c[i];
  for (int i = 0; i < HALF; i++)
    sum += d[i];
  return sum;
}

/* What the program computes, on the host alone. */
static double expected_sum(void)
{
  double sum = 0;
  for (int i = 0; i < N; i++)
    sum += i + 1.0 + (i < HALF ? 2.0 * i : 0.0);
  for (int i = 0; i < HALF; i++)
    sum += 2.0 * i;
  return sum;
}

/* ---- the tool ---- */
static int real_runtime;
static ompt_set_callback_t set_callback;
static ompt_get_state_t get_state;
static ompt_get_target_info_t get_target_info;
static ompt_finalize_tool_t finalize_tool;

static ompt_set_trace_ompt_t set_trace_ompt;
static ompt_start_trace_t start_trace;
static ompt_stop_trace_t stop_trace;
static ompt_advance_buffer_cursor_t advance_cursor;
static ompt_get_record_ompt_t get_record_ompt;
static ompt_translate_time_t translate_time;
static ompt_device_t *the_device;

static int n_init, n_fini, n_load, n_unload, n_requested, n_completed;
static int answers_never, answers_always;

/* The callbacks, as they came. */
typedef struct op_seen {
  int type; /* ompt_callback_target_data_op or _submit */
  ompt_id_t target_id, host_op_id;
  int optype;
  size_t bytes;
} op_seen_t;
static op_seen_t ops[MAX_OPS];
static int n_ops;
static ompt_id_t target_ids[MAX_OPS];
static int n_target_cbs, n_target_ids;
static int n_wait_checked;

static ompt_record_ompt_t recs[MAX_RECS];
static int n_recs;
static double host_begin_s;

static double host_now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The construct and operation ompt_get_target_info names now. */
static void check_target_info(ompt_id_t target_id, ompt_id_t host_op_id)
{
  uint64_t device = 99;
  ompt_id_t tid = 0, hid = 0;
  CHECK(get_target_info(&device, &tid, &hid) == 1);
  CHECK(device == 0);
  CHECK(tid == target_id);
  CHECK(hid == host_op_id);
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                      ompt_data_t *task_data, ompt_id_t target_id, const void *codeptr_ra)
{
  (void)task_data;
  CHECK(device_num == 0);
  CHECK(codeptr_ra != NULL);
  CHECK(kind == ompt_target || kind == ompt_target_enter_data || kind == ompt_target_exit_data ||
        kind == ompt_target_update);
  n_target_cbs++;
  if (endpoint == ompt_scope_begin && n_target_ids < MAX_OPS)
    target_ids[n_target_ids++] = target_id;
}

static void on_data_op(ompt_id_t target_id, ompt_id_t host_op_id, ompt_target_data_op_t optype,
                       void *src, int src_dev, void *dst, int dst_dev, size_t bytes,
                       const void *codeptr_ra)
{
  (void)src, (void)dst, (void)src_dev, (void)dst_dev, (void)codeptr_ra;
  int state = get_state(NULL);
  CHECK(state == ompt_state_wait_target_map || state == ompt_state_wait_target_update);
  n_wait_checked++;
  check_target_info(target_id, host_op_id);
  if (n_ops < MAX_OPS)
    ops[n_ops++] = (op_seen_t){ompt_callback_target_data_op, target_id, host_op_id, optype, bytes};
}

/* target_map: the list of each construct, named by host and device address. */
static int n_map_cbs, n_map_items_wrong;
static void on_target_map(ompt_id_t target_id, unsigned int nitems, void **host_addr,
                          void **device_addr, size_t *bytes, unsigned int *mapping_flags,
                          const void *codeptr_ra)
{
  (void)mapping_flags, (void)codeptr_ra;
  n_map_cbs++;
  check_target_info(target_id, 0);
  for (unsigned i = 0; i < nitems; i++) {
    int known = host_addr[i] == a || host_addr[i] == b || host_addr[i] == c || host_addr[i] == d;
    size_t want = host_addr[i] == d ? sizeof d : sizeof a;
    if (!known || bytes[i] != want || !device_addr[i])
      n_map_items_wrong++;
  }
}

static void on_submit(ompt_id_t target_id, ompt_id_t host_op_id, unsigned int requested_num_teams)
{
  (void)requested_num_teams;
  CHECK(get_state(NULL) == ompt_state_wait_target);
  n_wait_checked++;
  check_target_info(target_id, host_op_id);
  if (n_ops < MAX_OPS)
    ops[n_ops++] = (op_seen_t){ompt_callback_target_submit, target_id, host_op_id, 0, 0};
}

/* Small buffers, so that several are handed back. */
static void on_buffer_request(int device_num, ompt_buffer_t **buffer, size_t *bytes)
{
  CHECK(device_num == 0);
  *bytes = 5 * sizeof(ompt_record_ompt_t);
  *buffer = malloc(*bytes);
  n_requested++;
}

static void on_buffer_complete(int device_num, ompt_buffer_t *buffer, size_t bytes,
                               ompt_buffer_cursor_t begin, int buffer_owned)
{
  CHECK(device_num == 0);
  n_completed++;
  ompt_buffer_cursor_t cur = begin;
  size_t seen = 0;
  if (bytes > 0) {
    do {
      ompt_record_ompt_t *r = get_record_ompt(buffer, cur);
      CHECK(r != NULL);
      if (r && n_recs < MAX_RECS)
        recs[n_recs++] = *r;
      seen += sizeof *r;
    } while (advance_cursor(the_device, buffer, bytes, cur, &cur));
  }
  CHECK(seen == bytes);
  if (buffer_owned)
    free(buffer);
}

static void on_device_initialize(int device_num, const char *type, ompt_device_t *device,
                                 ompt_function_lookup_t lookup, const char *documentation)
{
  (void)type, (void)documentation;
  CHECK(device_num == 0);
  n_init++;
  the_device = device;
  set_trace_ompt = (ompt_set_trace_ompt_t)lookup("ompt_set_trace_ompt");
  start_trace = (ompt_start_trace_t)lookup("ompt_start_trace");
  stop_trace = (ompt_stop_trace_t)lookup("ompt_stop_trace");
  advance_cursor = (ompt_advance_buffer_cursor_t)lookup("ompt_advance_buffer_cursor");
  get_record_ompt = (ompt_get_record_ompt_t)lookup("ompt_get_record_ompt");
  translate_time = (ompt_translate_time_t)lookup("ompt_translate_time");
  CHECK(set_trace_ompt && start_trace && stop_trace && advance_cursor && get_record_ompt &&
        translate_time);
  if (!set_trace_ompt || !start_trace)
    return;
  CHECK(set_trace_ompt(device, 1, 0) == ompt_set_always);
  CHECK(set_trace_ompt(device, 1, ompt_callback_parallel_begin) == ompt_set_never);
  CHECK(start_trace(device, on_buffer_request, on_buffer_complete) == 1);
}

static void on_device_load(int device_num, const char *filename, int64_t offset_in_file,
                           void *vma_in_file, size_t bytes, void *host_addr, void *device_addr,
                           uint64_t module_id)
{
  (void)offset_in_file, (void)vma_in_file;
  CHECK(device_num == 0 && bytes > 0 && host_addr && device_addr && module_id);
  CHECK(filename != NULL);
  n_load++;
}

static void on_device_unload(int device_num, uint64_t module_id)
{
  CHECK(device_num == 0 && module_id);
  n_unload++;
}

static void on_device_finalize(int device_num)
{
  CHECK(device_num == 0);
  n_fini++;
  if (stop_trace && the_device)
    CHECK(stop_trace(the_device) == 1);
}

static void set_cb(ompt_callbacks_t which, ompt_callback_t cb)
{
  ompt_set_result_t r = set_callback(which, cb);
  answers_never += r == ompt_set_never;
  answers_always += r == ompt_set_always;
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data)
{
  (void)initial_device_num, (void)tool_data;
  set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_state = (ompt_get_state_t)lookup("ompt_get_state");
  get_target_info = (ompt_get_target_info_t)lookup("ompt_get_target_info");
  finalize_tool = (ompt_finalize_tool_t)lookup("ompt_finalize_tool");
  set_cb(ompt_callback_target, (ompt_callback_t)on_target);
  set_cb(ompt_callback_target_data_op, (ompt_callback_t)on_data_op);
  set_cb(ompt_callback_target_submit, (ompt_callback_t)on_submit);
  set_cb(ompt_callback_target_map, (ompt_callback_t)on_target_map);
  set_cb(ompt_callback_device_initialize, (ompt_callback_t)on_device_initialize);
  set_cb(ompt_callback_device_finalize, (ompt_callback_t)on_device_finalize);
  set_cb(ompt_callback_device_load, (ompt_callback_t)on_device_load);
  set_cb(ompt_callback_device_unload, (ompt_callback_t)on_device_unload);
  return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
  (void)tool_data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  (void)omp_version, (void)runtime_version;
  return &result;
}

/* ---- the checks ---- */
static uint64_t env_u64(const char *name, uint64_t fallback)
{
  const char *s = getenv(name);
  return s && *s ? strtoull(s, NULL, 10) : fallback;
}

static const op_seen_t *op_of(ompt_id_t host_op_id)
{
  for (int i = 0; i < n_ops; i++)
    if (ops[i].host_op_id == host_op_id)
      return &ops[i];
  return NULL;
}

static int announced(ompt_id_t target_id)
{
  for (int i = 0; i < n_target_ids; i++)
    if (target_ids[i] == target_id)
      return 1;
  return 0;
}

/* Transfers and their sizes, as the map clauses say (see run_program). */
static void check_bytes(void)
{
  size_t to_bytes = 0, from_bytes = 0;
  int allocs = 0, deletes = 0, tos = 0, froms = 0, kernels = 0;
  for (int i = 0; i < n_ops; i++) {
    if (ops[i].type == ompt_callback_target_submit) {
      kernels++;
      continue;
    }
    CHECK(ops[i].bytes == sizeof a || ops[i].bytes == sizeof d);
    switch (ops[i].optype) {
    case ompt_target_data_alloc: allocs++; break;
    case ompt_target_data_delete: deletes++; break;
    case ompt_target_data_transfer_to_device: tos++, to_bytes += ops[i].bytes; break;
    case ompt_target_data_transfer_from_device: froms++, from_bytes += ops[i].bytes; break;
    default: CHECK(!"an unexpected data operation");
    }
  }
  /* to: a, c, d, then d again (update); from: b, d, c. */
  CHECK(kernels == 2);
  CHECK(allocs == 4 && deletes == 4);
  CHECK(tos == 4 && to_bytes == sizeof a + sizeof c + 2 * sizeof d);
  CHECK(froms == 3 && from_bytes == sizeof b + sizeof c + sizeof d);
  /* 7 constructs: 2 target, 2 enter data, 1 update, 2 exit data. */
  CHECK(n_target_cbs == 14);
}

static void check_records(double host_end_s)
{
  int n_target_recs = 0, n_op_recs = 0;
  uint64_t prev_end = 0;
  int deterministic =
      getenv("MOCKRT_DETERMINISTIC") && !strcmp(getenv("MOCKRT_DETERMINISTIC"), "1");
  uint64_t latency = env_u64("MOCKRT_TARGET_LATENCY_NS", 2000);
  uint64_t bandwidth = env_u64("MOCKRT_TARGET_BANDWIDTH", 10000000000ull);
  uint64_t per_iter = env_u64("MOCKRT_TARGET_NS_PER_ITER", 10);
  uint64_t kernel_ns[2] = {0, 0};
  int k = 0;
  for (int i = 0; i < n_recs; i++) {
    const ompt_record_ompt_t *r = &recs[i];
    CHECK(announced(r->target_id));
    double t = translate_time(the_device, r->time);
    CHECK(t >= host_begin_s && t <= host_end_s);
    if (r->type == ompt_callback_target) {
      n_target_recs++;
      CHECK(r->record.target.target_id == r->target_id);
      continue;
    }
    n_op_recs++;
    CHECK(r->type == ompt_callback_target_data_op || r->type == ompt_callback_target_submit);
    ompt_id_t host_op_id = r->type == ompt_callback_target_submit
                               ? r->record.target_kernel.host_op_id
                               : r->record.target_data_op.host_op_id;
    uint64_t end = r->type == ompt_callback_target_submit ? r->record.target_kernel.end_time
                                                          : r->record.target_data_op.end_time;
    const op_seen_t *op = op_of(host_op_id);
    CHECK(op != NULL);
    CHECK(end >= r->time);
    CHECK(r->time >= prev_end);
    prev_end = end;
    CHECK(translate_time(the_device, end) <= host_end_s);
    if (!op)
      continue;
    CHECK(op->type == (int)r->type && op->target_id == r->target_id);
    uint64_t want = latency;
    if (r->type == ompt_callback_target_data_op) {
      CHECK(op->optype == (int)r->record.target_data_op.optype);
      CHECK(op->bytes == r->record.target_data_op.bytes);
      if (op->optype == ompt_target_data_transfer_to_device ||
          op->optype == ompt_target_data_transfer_from_device)
        want += (uint64_t)((unsigned __int128)op->bytes * 1000000000u / bandwidth);
    } else {
      CHECK(r->record.target_kernel.granted_num_teams >= 1);
      if (k < 2)
        kernel_ns[k++] = end - r->time;
      want = 0;
    }
    if (deterministic && want)
      CHECK(end - r->time == want);
  }
  CHECK(n_target_recs == n_target_cbs);
  CHECK(n_op_recs == n_ops);
  CHECK(k == 2);
  if (deterministic && k == 2) {
    /* Trip counts N and N/2: the first kernel costs twice the second's work. */
    CHECK(kernel_ns[0] == latency + N * per_iter);
    CHECK(kernel_ns[1] == latency + HALF * per_iter);
  }
}

int main(int argc, char **argv)
{
  real_runtime = argc > 1 && strcmp(argv[1], "--real") == 0;
  host_begin_s = host_now_s();
  CHECK(omp_get_num_devices() >= 1);
  double sum = run_program();
  CHECK(sum == expected_sum());
  if (real_runtime) {
    CHECK(answers_never == 8 && answers_always == 0);
    if (answers_never == 8)
      printf("note: this runtime answers ompt_set_callback with never for every target and "
             "device callback: no OMPT support for devices\n");
  } else {
    CHECK(omp_get_num_devices() == 1);
    CHECK(answers_always == 8);
    /* Two per target region (its begin and end), one per data construct. */
    CHECK(n_map_cbs == 9 && n_map_items_wrong == 0);
    /* The runtime's end, now: the devices end before the tool. */
    CHECK(finalize_tool != NULL);
    if (finalize_tool)
      finalize_tool();
    double host_end_s = host_now_s();
    CHECK(n_init == 1 && n_fini == 1 && n_load == 1 && n_unload == 1);
    CHECK(n_requested >= 2 && n_requested == n_completed);
    CHECK(n_wait_checked == n_ops);
    check_bytes();
    if (translate_time)
      check_records(host_end_s);
  }
  printf("target_ompt: %d callbacks of data operations and kernels, %d records, %d buffers, "
         "sum %.1f: %s\n",
         n_ops, n_recs, n_completed, sum, failures ? "FAIL" : "ok");
  return failures ? 1 : 0;
}
