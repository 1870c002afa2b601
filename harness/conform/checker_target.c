/*
 * The OMPT checker's target devices: the host-side target callbacks and the
 * device tracing interface (OpenMP 5.0 sections 4.2.5, 4.5.2.19-28 and
 * 4.6.2).  At device_initialize the checker looks the tracing entry points
 * up, enables the target, data operation and kernel records and starts
 * tracing with its own buffer callbacks; every delivered buffer is walked
 * record by record and compared with the host callbacks of the same
 * target_id and host_op_id.  The offloading program tells the checker what
 * it maps and launches (knit_ompt_checker_target_expect) and, at its end,
 * has it flush and stop tracing (knit_ompt_checker_target_stop), after
 * which every buffer must be back.
 *
 * A runtime that offers OpenMP 5.1's _emi forms gets them registered
 * instead of the 5.0 ones (it would dispatch only those): the checker then
 * fills each construct's target_data with a word of its own, sets every
 * operation's host_op_id, and learns the target id the records name from
 * ompt_get_target_info inside the construct.
 *
 * The runtime calls the buffer callbacks from inside start, flush and stop
 * too, so the checker never holds checker_mu across a call into the
 * device's entry points.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checker.h"
#include "checker_state.h"

#define EXPORT __attribute__((visibility("default")))

#define MAX_DEVICES        8
#define MAX_TARGETS        1024
#define MAX_HOST_OPS       4096
#define MAX_BUFFERS        1024
#define MAX_EXPECTED       32
/* Small, so that even a short program fills several buffers. */
#define TRACE_BUFFER_BYTES 2048
/* Floating-point slack when comparing translated device times with the
 * host's clock, in seconds. */
#define TIME_SLACK         1e-6
/* How long the host thread that launched a kernel may take to report its
 * wait once the kernel runs. */
#define TARGET_JUDGE_MS    300.0

typedef struct device_rec {
  int num;
  ompt_device_t *device;
  int initialized, finalized;
  unsigned long first_event; /* sequence number of its first event, 0 if none */
  unsigned long init_seq, fini_seq, last_event;
  bool tracing;
  ompt_set_trace_ompt_t set_trace_ompt;
  ompt_start_trace_t start_trace;
  ompt_flush_trace_t flush_trace;
  ompt_stop_trace_t stop_trace;
  ompt_advance_buffer_cursor_t advance_buffer_cursor;
  ompt_get_record_type_t get_record_type;
  ompt_get_record_ompt_t get_record_ompt;
  ompt_get_device_time_t get_device_time;
  ompt_translate_time_t translate_time;
} device_rec_t;

typedef struct target_rec {
  ompt_id_t id;
  int kind, device_num;
  int thread; /* the host thread's index (checker_threads) */
  bool open;
  int begin_records, end_records;
  ompt_device_time_t begin_time; /* of its begin record */
  uint64_t token;                /* what the checker put in its target_data (_emi) */
} target_rec_t;

/* A target_data_op or target_submit callback, found again by its record. */
typedef struct host_op_rec {
  ompt_id_t id, target_id;
  int type; /* ompt_callback_target_data_op or ompt_callback_target_submit */
  int optype;
  size_t bytes;
  int records;
  bool emi_open; /* an _emi begin whose end has not come */
} host_op_rec_t;

/* The checker's words in the _emi callbacks: a construct's target_data
 * (the tag and its index + 1 in targets) and the host_op_ids it sets (the
 * tag and a count), in ranges a runtime's own ids do not reach, so that a
 * record that names the runtime's id instead is told apart. */
#define EMI_TARGET_TAG 0x7467000000000000ull
#define EMI_OP_TAG     0x686f000000000000ull
#define EMI_TAG_MASK   0xffff000000000000ull

typedef struct buffer_rec {
  void *buffer;
  size_t bytes;
  int device_num;
  bool returned;
} buffer_rec_t;

static device_rec_t devices[MAX_DEVICES];
static int n_devices;
static target_rec_t targets[MAX_TARGETS];
static int n_targets;
static host_op_rec_t host_ops[MAX_HOST_OPS];
static int n_host_ops;
static buffer_rec_t buffers[MAX_BUFFERS];
static int n_buffers;
static unsigned long seq;
static double run_start; /* host CLOCK_MONOTONIC seconds when the tool started */
static bool stopped;     /* the program had tracing stopped */
/* The latest end of any record on the host's clock, and whose. */
static double latest_end;
static int latest_end_type;
static ompt_id_t latest_end_target;

/* What the program says it maps and launches. */
static bool expected_given;
static unsigned expected_kernels;
static unsigned long expected_to[MAX_EXPECTED], expected_from[MAX_EXPECTED];
static int n_expected_to, n_expected_from;
static unsigned long seen_to[MAX_HOST_OPS], seen_from[MAX_HOST_OPS];
static int n_seen_to, n_seen_from;
static unsigned submits, kernel_records;
/* The runtime took the _emi forms; the host_op_ids set so far. */
static bool emi;
static uint64_t emi_ops_set;

static double host_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static device_rec_t *device_of_locked(int num, bool make)
{
  for (int i = 0; i < n_devices; i++)
    if (devices[i].num == num)
      return &devices[i];
  if (!make || n_devices == MAX_DEVICES)
    return NULL;
  device_rec_t *d = &devices[n_devices++];
  memset(d, 0, sizeof *d);
  d->num = num;
  return d;
}

/* The host device (omp_get_initial_device()) runs target regions without
 * being initialized as a device: its events need no device_initialize. */
static bool is_host_device(int num)
{
  int (*initial)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_initial_device");
  return num < 0 || (initial && num == initial());
}

/* An event of device num: it must come between the device's initialize and
 * its finalize.  Called with checker_mu held. */
static void device_event_locked(int num, const char *what)
{
  if (is_host_device(num))
    return;
  device_rec_t *d = device_of_locked(num, true);
  if (!d)
    return;
  seq++;
  if (!d->first_event)
    d->first_event = seq;
  d->last_event = seq;
  if (d->initialized)
    checker_held(CHK_DEVICE_INITIALIZE_FIRST);
  /* else judged at the end: a device that is never initialized at all */
  if (d->finalized)
    checker_violate(CHK_DEVICE_FINALIZE_AT_END, "%s on device %d after its device_finalize", what,
                    num);
}

static target_rec_t *target_of_locked(ompt_id_t id)
{
  for (int i = n_targets - 1; i >= 0; i--)
    if (targets[i].id == id)
      return &targets[i];
  return NULL;
}

static host_op_rec_t *host_op_of_locked(ompt_id_t id)
{
  for (int i = n_host_ops - 1; i >= 0; i--)
    if (host_ops[i].id == id)
      return &host_ops[i];
  return NULL;
}

static const char *target_kind_name(int kind)
{
  switch (kind & ~8) {
  case ompt_target: return "target";
  case ompt_target_enter_data: return "enter data";
  case ompt_target_exit_data: return "exit data";
  case ompt_target_update: return "update";
  default: return "unknown kind";
  }
}

/* A construct's begin: its record, or NULL (target_id reused, or too
 * many).  Called with checker_mu held. */
static target_rec_t *target_begins_locked(const thread_rec_t *me, ompt_target_t kind,
                                          int device_num, ompt_id_t target_id)
{
  target_rec_t *t = target_of_locked(target_id);
  EXPECT(CHK_TARGET_PAIRED, !t, "target begin (%s) reuses target_id %llu", target_kind_name(kind),
         (unsigned long long)target_id);
  if (t || n_targets == MAX_TARGETS)
    return NULL;
  t = &targets[n_targets++];
  memset(t, 0, sizeof *t);
  t->id = target_id;
  t->kind = (int)kind;
  t->device_num = device_num;
  t->thread = me->index;
  t->open = true;
  return t;
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                      ompt_data_t *task_data, ompt_id_t target_id, const void *codeptr)
{
  (void)task_data, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *me = checker_event_locked(ompt_callback_target, "target");
  device_event_locked(device_num, "a target callback");
  target_rec_t *t = target_of_locked(target_id);
  if (endpoint == ompt_scope_begin) {
    target_begins_locked(me, kind, device_num, target_id);
  } else {
    EXPECT(CHK_TARGET_PAIRED, t && t->open && t->kind == (int)kind,
           "target end (%s) of target_id %llu, %s", target_kind_name(kind),
           (unsigned long long)target_id,
           !t         ? "which never began"
           : !t->open ? "which had ended"
                      : "which began as another kind");
    if (t)
      t->open = false;
  }
  pthread_mutex_unlock(&checker_mu);
}

/* The construct whose target_data the checker filled with this, or NULL. */
static target_rec_t *emi_target_locked(const ompt_data_t *target_data)
{
  if (!target_data || (target_data->value & EMI_TAG_MASK) != EMI_TARGET_TAG)
    return NULL;
  uint64_t i = target_data->value & ~EMI_TAG_MASK;
  return i >= 1 && i <= (uint64_t)n_targets ? &targets[i - 1] : NULL;
}

/* The target id the construct the calling thread is in has, as the
 * records name it (0: none answered). */
static ompt_id_t current_target_id(void)
{
  uint64_t device = 0;
  ompt_id_t target_id = 0, host_op_id = 0;
  if (!checker_get_target_info || !checker_get_target_info(&device, &target_id, &host_op_id))
    return 0;
  return target_id;
}

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                          ompt_data_t *task_data, ompt_data_t *target_task_data,
                          ompt_data_t *target_data, const void *codeptr)
{
  (void)task_data, (void)target_task_data, (void)codeptr;
  ompt_id_t target_id = current_target_id();
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *me = checker_event_locked(ompt_callback_target_emi, "target_emi");
  device_event_locked(device_num, "a target_emi callback");
  bool begin = endpoint == ompt_scope_begin;
  if (!target_data) {
    checker_violate(CHK_EMI_TARGET_DATA, "target_emi %s (%s) passes no target_data",
                    begin ? "begin" : "end", target_kind_name(kind));
  } else if (begin) {
    EXPECT(CHK_TARGET_PAIRED, target_id != 0,
           "inside a target_emi begin (%s), ompt_get_target_info names no target id",
           target_kind_name(kind));
    target_rec_t *t = target_begins_locked(me, kind, device_num, target_id);
    if (t) {
      t->token = EMI_TARGET_TAG | (uint64_t)n_targets;
      target_data->value = t->token;
    }
  } else {
    target_rec_t *t = emi_target_locked(target_data);
    EXPECT(CHK_EMI_TARGET_DATA, t && t->open && t->kind == (int)kind,
           "target_emi end (%s) passes target_data %#llx, %s", target_kind_name(kind),
           (unsigned long long)target_data->value,
           !t         ? "not what the tool filled at a begin"
           : !t->open ? "of a construct that had ended"
                      : "of a construct that began as another kind");
    if (t && t->open) {
      EXPECT(CHK_TARGET_PAIRED, target_id == t->id,
             "inside target %llu's target_emi end, ompt_get_target_info names target id %llu",
             (unsigned long long)t->id, (unsigned long long)target_id);
      t->open = false;
    }
  }
  pthread_mutex_unlock(&checker_mu);
}

/* An _emi data operation or kernel: at its begin the checker sets its
 * host_op_id and remembers it for its record, at its end the same must come
 * back.  Called with checker_mu held. */
static void emi_host_op_locked(int type, ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
                               ompt_id_t *host_op_id, int optype, size_t bytes, const char *what)
{
  bool begin = endpoint == ompt_scope_begin;
  target_rec_t *t = emi_target_locked(target_data);
  EXPECT(CHK_EMI_TARGET_DATA, t && t->open, "%s %s passes target_data %#llx, %s", what,
         begin ? "begin" : "end", target_data ? (unsigned long long)target_data->value : 0ull,
         !t ? "not what the tool filled at a target_emi begin" : "of a construct that had ended");
  if (!host_op_id) {
    checker_violate(CHK_EMI_HOST_OP_ID, "%s %s passes no host_op_id", what,
                    begin ? "begin" : "end");
    return;
  }
  if (begin) {
    ompt_id_t tool_id = EMI_OP_TAG | ++emi_ops_set;
    *host_op_id = tool_id;
    if (t)
      device_event_locked(t->device_num, what);
    if (n_host_ops < MAX_HOST_OPS)
      host_ops[n_host_ops++] =
          (host_op_rec_t){tool_id, t ? t->id : 0, type, optype, bytes, 0, true};
    return;
  }
  host_op_rec_t *op = host_op_of_locked(*host_op_id);
  EXPECT(CHK_EMI_HOST_OP_ID, op && op->type == type && op->emi_open,
         "%s end passes host_op_id %#llx, %s", what, (unsigned long long)*host_op_id,
         !op                ? "not the one the tool set at its begin"
         : op->type != type ? "which the tool set for another kind of operation"
                            : "whose operation had ended");
  if (op && op->type == type)
    op->emi_open = false;
}

/* A data operation or kernel names an open target; its op is remembered
 * for its record.  Called with checker_mu held. */
static void host_op_locked(int type, ompt_id_t target_id, ompt_id_t host_op_id, int optype,
                           size_t bytes, const char *what)
{
  target_rec_t *t = target_of_locked(target_id);
  EXPECT(CHK_TARGET_PAIRED, t && t->open, "%s names target_id %llu, %s", what,
         (unsigned long long)target_id, t ? "which had ended" : "which never began");
  if (t)
    device_event_locked(t->device_num, what);
  if (n_host_ops < MAX_HOST_OPS)
    host_ops[n_host_ops++] = (host_op_rec_t){host_op_id, target_id, type, optype, bytes, 0, false};
}

/* The transfers a data operation's callback reports, for data_op_bytes. */
static void seen_transfer_locked(ompt_target_data_op_t optype, size_t bytes)
{
  int op = (int)optype & ~16; /* the asynchronous ones transfer alike */
  if (op == ompt_target_data_transfer_to_device && n_seen_to < MAX_HOST_OPS)
    seen_to[n_seen_to++] = bytes;
  if (op == ompt_target_data_transfer_from_device && n_seen_from < MAX_HOST_OPS)
    seen_from[n_seen_from++] = bytes;
}

static void on_target_data_op(ompt_id_t target_id, ompt_id_t host_op_id,
                              ompt_target_data_op_t optype, void *src_addr, int src_device_num,
                              void *dest_addr, int dest_device_num, size_t bytes,
                              const void *codeptr)
{
  (void)src_addr, (void)dest_addr, (void)src_device_num, (void)dest_device_num, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_target_data_op, "target_data_op");
  host_op_locked(ompt_callback_target_data_op, target_id, host_op_id, (int)optype, bytes,
                 "target_data_op");
  seen_transfer_locked(optype, bytes);
  pthread_mutex_unlock(&checker_mu);
}

static void on_target_data_op_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
                                  ompt_data_t *target_data, ompt_id_t *host_op_id,
                                  ompt_target_data_op_t optype, void *src_addr, int src_device_num,
                                  void *dest_addr, int dest_device_num, size_t bytes,
                                  const void *codeptr)
{
  (void)target_task_data, (void)src_addr, (void)dest_addr, (void)src_device_num;
  (void)dest_device_num, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_target_data_op_emi, "target_data_op_emi");
  emi_host_op_locked(ompt_callback_target_data_op, endpoint, target_data, host_op_id, (int)optype,
                     bytes, "target_data_op_emi");
  if (endpoint == ompt_scope_begin)
    seen_transfer_locked(optype, bytes);
  pthread_mutex_unlock(&checker_mu);
}

static void on_target_submit_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
                                 ompt_id_t *host_op_id, unsigned int requested_num_teams)
{
  (void)requested_num_teams;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_target_submit_emi, "target_submit_emi");
  emi_host_op_locked(ompt_callback_target_submit, endpoint, target_data, host_op_id, 0, 0,
                     "target_submit_emi");
  if (endpoint == ompt_scope_begin)
    submits++;
  pthread_mutex_unlock(&checker_mu);
}

static void on_target_map_emi(ompt_data_t *target_data, unsigned int nitems, void **host_addr,
                              void **device_addr, size_t *bytes, unsigned int *mapping_flags,
                              const void *codeptr)
{
  (void)nitems, (void)host_addr, (void)device_addr, (void)bytes, (void)mapping_flags;
  (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_target_map_emi, "target_map_emi");
  target_rec_t *t = emi_target_locked(target_data);
  EXPECT(CHK_EMI_TARGET_DATA, t && t->open, "target_map_emi passes target_data %#llx, %s",
         target_data ? (unsigned long long)target_data->value : 0ull,
         !t ? "not what the tool filled at a target_emi begin" : "of a construct that had ended");
  pthread_mutex_unlock(&checker_mu);
}

static void on_target_submit(ompt_id_t target_id, ompt_id_t host_op_id,
                             unsigned int requested_num_teams)
{
  (void)requested_num_teams;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_target_submit, "target_submit");
  host_op_locked(ompt_callback_target_submit, target_id, host_op_id, 0, 0, "target_submit");
  submits++;
  pthread_mutex_unlock(&checker_mu);
}

static void on_target_map(ompt_id_t target_id, unsigned int nitems, void **host_addr,
                          void **device_addr, size_t *bytes, unsigned int *mapping_flags,
                          const void *codeptr)
{
  (void)target_id, (void)nitems, (void)host_addr, (void)device_addr, (void)bytes;
  (void)mapping_flags, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_target_map, "target_map");
  pthread_mutex_unlock(&checker_mu);
}

static void on_device_load(int device_num, const char *filename, int64_t offset, void *vma,
                           size_t bytes, void *host_addr, void *device_addr, uint64_t module_id)
{
  (void)filename, (void)offset, (void)vma, (void)bytes, (void)host_addr, (void)device_addr;
  (void)module_id;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_device_load, "device_load");
  device_event_locked(device_num, "device_load");
  pthread_mutex_unlock(&checker_mu);
}

static void on_device_unload(int device_num, uint64_t module_id)
{
  (void)module_id;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_device_unload, "device_unload");
  device_event_locked(device_num, "device_unload");
  pthread_mutex_unlock(&checker_mu);
}

static void on_buffer_request(int device_num, ompt_buffer_t **buffer, size_t *bytes)
{
  void *b = malloc(TRACE_BUFFER_BYTES);
  pthread_mutex_lock(&checker_mu);
  if (b && n_buffers < MAX_BUFFERS) {
    buffers[n_buffers++] = (buffer_rec_t){b, TRACE_BUFFER_BYTES, device_num, false};
  } else {
    free(b);
    b = NULL;
  }
  pthread_mutex_unlock(&checker_mu);
  *buffer = b;
  *bytes = b ? TRACE_BUFFER_BYTES : 0;
}

/* One record against the host callbacks.  delivered: host seconds now; a
 * record cannot begin after it is delivered. */
static void check_record_locked(device_rec_t *d, const ompt_record_ompt_t *r, double delivered)
{
  device_event_locked(d->num, "a trace record");
  target_rec_t *t = target_of_locked(r->target_id);
  EXPECT(CHK_RECORD_TARGET_ANNOUNCED, t != NULL,
         "a record of type %d names target_id %llu, which no target callback announced",
         (int)r->type, (unsigned long long)r->target_id);
  ompt_device_time_t end = r->time;
  if (r->type == ompt_callback_target_data_op || r->type == ompt_callback_target_submit) {
    bool data = r->type == ompt_callback_target_data_op;
    ompt_id_t op_id =
        data ? r->record.target_data_op.host_op_id : r->record.target_kernel.host_op_id;
    end = data ? r->record.target_data_op.end_time : r->record.target_kernel.end_time;
    host_op_rec_t *op = host_op_of_locked(op_id);
    bool same = op && op->type == (int)r->type && op->target_id == r->target_id;
    EXPECT(CHK_RECORD_HOST_OP_IDS, same && op->records == 0,
           "a %s record names host_op_id %llu (target %llu), %s", data ? "data op" : "kernel",
           (unsigned long long)op_id, (unsigned long long)r->target_id,
           !op     ? "which no callback gave"
           : !same ? "which a callback gave for another kind or target"
                   : "which another record named already");
    if (emi)
      EXPECT(CHK_EMI_HOST_OP_ID, (op_id & EMI_TAG_MASK) == EMI_OP_TAG && op,
             "a %s record (target %llu) names host_op_id %#llx, not one the tool set at a %s begin",
             data ? "data op" : "kernel", (unsigned long long)r->target_id,
             (unsigned long long)op_id, data ? "target_data_op_emi" : "target_submit_emi");
    if (op)
      op->records++;
    if (data && same) {
      const ompt_record_target_data_op_t *rd = &r->record.target_data_op;
      EXPECT(CHK_DATA_OP_BYTES, rd->bytes == op->bytes && (int)rd->optype == op->optype,
             "the record of data op %llu says optype %d, %zu bytes; its callback said optype %d, "
             "%zu bytes",
             (unsigned long long)op_id, (int)rd->optype, rd->bytes, op->optype, op->bytes);
    }
    if (!data)
      kernel_records++;
  } else if (r->type == ompt_callback_target && t) {
    if (r->record.target.endpoint == ompt_scope_begin) {
      t->begin_records++;
      t->begin_time = r->time;
    } else {
      EXPECT(CHK_RECORD_TIMES_ORDERED, t->begin_records == 0 || r->time >= t->begin_time,
             "target %llu's end record (time %llu) comes before its begin record (%llu)",
             (unsigned long long)t->id, (unsigned long long)r->time,
             (unsigned long long)t->begin_time);
      t->end_records++;
    }
  }
  EXPECT(CHK_RECORD_TIMES_ORDERED, end >= r->time,
         "a record of type %d (target %llu) ends at %llu, before its time %llu", (int)r->type,
         (unsigned long long)r->target_id, (unsigned long long)end, (unsigned long long)r->time);
  double from = d->translate_time(d->device, r->time);
  double to = d->translate_time(d->device, end);
  EXPECT(CHK_RECORD_TIMES_IN_RUN,
         from >= run_start - TIME_SLACK && from <= delivered + TIME_SLACK &&
             to >= from - TIME_SLACK,
         "a record of type %d (target %llu) spans %.6f to %.6f s on the host's clock; the tool "
         "started at %.6f s and the record was delivered at %.6f s",
         (int)r->type, (unsigned long long)r->target_id, from, to, run_start, delivered);
  /* A device may deliver a record while the operation's end is still ahead
   * on the host's clock (it knows the end): the end is judged against the
   * end of the run. */
  if (to > latest_end) {
    latest_end = to;
    latest_end_type = (int)r->type;
    latest_end_target = r->target_id;
  }
}

static void on_buffer_complete(int device_num, ompt_buffer_t *buffer, size_t bytes,
                               ompt_buffer_cursor_t begin, int buffer_owned)
{
  double delivered = host_seconds();
  pthread_mutex_lock(&checker_mu);
  device_rec_t *d = device_of_locked(device_num, false);
  buffer_rec_t *b = NULL;
  for (int i = 0; i < n_buffers; i++)
    if (buffers[i].buffer == buffer && !buffers[i].returned)
      b = &buffers[i];
  EXPECT(CHK_TRACE_BUFFERS_RETURNED, b && b->device_num == device_num && bytes <= b->bytes,
         "buffer_complete of device %d hands back %p with %zu bytes: %s", device_num, buffer, bytes,
         !b                            ? "a buffer the tool did not give it, or gave back already"
         : b->device_num != device_num ? "a buffer another device requested"
                                       : "more than the buffer holds");
  /* Records are read only from a buffer the tool gave (and only within
   * it); a device without the entry points has nothing to read them by. */
  if (b && d && d->get_record_ompt && d->advance_buffer_cursor && d->translate_time && bytes > 0 &&
      bytes <= b->bytes) {
    ompt_buffer_cursor_t cur = begin;
    for (size_t n = 0; n < bytes; n++) {
      if (d->get_record_type && d->get_record_type(buffer, cur) != ompt_record_ompt) {
        checker_violate(CHK_TRACE_BUFFERS_RETURNED,
                        "a record of device %d's buffer is not an OMPT record (type %d)",
                        device_num, (int)d->get_record_type(buffer, cur));
        break;
      }
      ompt_record_ompt_t *r = d->get_record_ompt(buffer, cur);
      if (!r)
        break;
      check_record_locked(d, r, delivered);
      if (!d->advance_buffer_cursor(d->device, buffer, bytes, cur, &cur))
        break;
    }
  }
  if (b && buffer_owned) {
    b->returned = true;
    free(buffer);
  }
  pthread_mutex_unlock(&checker_mu);
}

/* The record types the checker asks for. */
static const ompt_callbacks_t traced[] = {ompt_callback_target, ompt_callback_target_data_op,
                                          ompt_callback_target_submit};

static void on_device_initialize(int device_num, const char *type, ompt_device_t *device,
                                 ompt_function_lookup_t lookup, const char *documentation)
{
  (void)type, (void)documentation;
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_device_initialize, "device_initialize");
  device_rec_t *d = device_of_locked(device_num, true);
  if (!d) {
    pthread_mutex_unlock(&checker_mu);
    return;
  }
  seq++;
  EXPECT(CHK_DEVICE_INITIALIZE_FIRST, d->initialized == 0 && d->first_event == 0,
         "device_initialize of device %d %s", device_num,
         d->initialized ? "came again" : "came after an event of the device");
  d->initialized++;
  d->init_seq = seq;
  d->device = device;
#define LOOK(field, name) d->field = lookup ? (__typeof__(d->field))lookup(name) : NULL
  LOOK(set_trace_ompt, "ompt_set_trace_ompt");
  LOOK(start_trace, "ompt_start_trace");
  LOOK(flush_trace, "ompt_flush_trace");
  LOOK(stop_trace, "ompt_stop_trace");
  LOOK(advance_buffer_cursor, "ompt_advance_buffer_cursor");
  LOOK(get_record_type, "ompt_get_record_type");
  LOOK(get_record_ompt, "ompt_get_record_ompt");
  LOOK(get_device_time, "ompt_get_device_time");
  LOOK(translate_time, "ompt_translate_time");
#undef LOOK
  bool all = d->set_trace_ompt && d->start_trace && d->flush_trace && d->stop_trace &&
             d->advance_buffer_cursor && d->get_record_type && d->get_record_ompt &&
             d->get_device_time && d->translate_time;
  if (!all)
    checker_violate(
        CHK_DEVICE_ENTRY_POINTS, "device %d's lookup lacks %s%s%s%s%s%s%s%s%s", device_num,
        d->set_trace_ompt ? "" : "set_trace_ompt ", d->start_trace ? "" : "start_trace ",
        d->flush_trace ? "" : "flush_trace ", d->stop_trace ? "" : "stop_trace ",
        d->advance_buffer_cursor ? "" : "advance_buffer_cursor ",
        d->get_record_type ? "" : "get_record_type ", d->get_record_ompt ? "" : "get_record_ompt ",
        d->get_device_time ? "" : "get_device_time ", d->translate_time ? "" : "translate_time");
  pthread_mutex_unlock(&checker_mu);
  if (!all)
    return;
  /* Outside the lock: the device may request a buffer at once. */
  for (size_t i = 0; i < sizeof traced / sizeof traced[0]; i++)
    d->set_trace_ompt(device, 1, (unsigned)traced[i]);
  int started = d->start_trace(device, on_buffer_request, on_buffer_complete);
  pthread_mutex_lock(&checker_mu);
  EXPECT(CHK_DEVICE_ENTRY_POINTS, started != 0, "ompt_start_trace of device %d returned 0",
         device_num);
  d->tracing = started != 0;
  pthread_mutex_unlock(&checker_mu);
}

static void on_device_finalize(int device_num)
{
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(ompt_callback_device_finalize, "device_finalize");
  device_rec_t *d = device_of_locked(device_num, true);
  if (d) {
    seq++;
    EXPECT(CHK_DEVICE_FINALIZE_AT_END, d->initialized && !d->finalized,
           "device_finalize of device %d %s", device_num,
           d->finalized ? "came again" : "came for a device never initialized");
    d->finalized++;
    d->fini_seq = seq;
  }
  pthread_mutex_unlock(&checker_mu);
}

void checker_register_target_callbacks(void)
{
  run_start = host_seconds();
  REGISTER(ompt_callback_device_initialize, on_device_initialize);
  REGISTER(ompt_callback_device_finalize, on_device_finalize);
  REGISTER(ompt_callback_device_load, on_device_load);
  REGISTER(ompt_callback_device_unload, on_device_unload);
  /* One form or the other, never both: a runtime that has the _emi forms
   * dispatches only them to a tool that registered both (LLVM 15 and
   * later), which would leave the 5.0 ones answered always and silent. */
  int answer = REGISTER(ompt_callback_target_emi, on_target_emi);
  emi = answer != ompt_set_never && answer != ompt_set_error;
  static const int forms[][2] = {
      {ompt_callback_target, ompt_callback_target_emi},
      {ompt_callback_target_data_op, ompt_callback_target_data_op_emi},
      {ompt_callback_target_submit, ompt_callback_target_submit_emi},
      {ompt_callback_target_map, ompt_callback_target_map_emi},
  };
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
    checker_set_answer[forms[i][emi ? 0 : 1]] = CHECKER_NOT_ASKED;
  if (emi) {
    REGISTER(ompt_callback_target_data_op_emi, on_target_data_op_emi);
    REGISTER(ompt_callback_target_submit_emi, on_target_submit_emi);
    REGISTER(ompt_callback_target_map_emi, on_target_map_emi);
  } else {
    checker_set_answer[ompt_callback_target_emi] = answer;
    REGISTER(ompt_callback_target, on_target);
    REGISTER(ompt_callback_target_data_op, on_target_data_op);
    REGISTER(ompt_callback_target_submit, on_target_submit);
    REGISTER(ompt_callback_target_map, on_target_map);
  }
}

static int compare_ulong(const void *a, const void *b)
{
  unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
  return x < y ? -1 : x > y;
}

/* The transfers of one direction against the program's map clauses: the
 * same sizes, as many of each. */
static void compare_transfers_locked(const char *direction, unsigned long *seen, int n_seen,
                                     unsigned long *expected, int n_expected)
{
  qsort(seen, (size_t)n_seen, sizeof *seen, compare_ulong);
  qsort(expected, (size_t)n_expected, sizeof *expected, compare_ulong);
  bool same = n_seen == n_expected;
  for (int i = 0; same && i < n_seen; i++)
    same = seen[i] == expected[i];
  char got[160] = "", want[160] = "";
  for (int i = 0; i < n_seen && strlen(got) < sizeof got - 24; i++)
    snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lu", i ? " " : "", seen[i]);
  for (int i = 0; i < n_expected && strlen(want) < sizeof want - 24; i++)
    snprintf(want + strlen(want), sizeof want - strlen(want), "%s%lu", i ? " " : "", expected[i]);
  EXPECT(CHK_DATA_OP_BYTES, same, "transfers %s the device of %s bytes; the program maps %s",
         direction, n_seen ? got : "no", want);
  if (same)
    checker_note(CHK_DATA_OP_BYTES, "%d transfers to the device, %d from it, as mapped",
                 n_expected_to, n_expected_from);
}

void checker_target_final_checks_locked(void)
{
  for (int i = 0; i < n_devices; i++) {
    device_rec_t *d = &devices[i];
    if (!d->initialized) {
      if (d->first_event)
        checker_violate(CHK_DEVICE_INITIALIZE_FIRST,
                        "device %d had events but never a device_initialize", d->num);
      continue;
    }
    EXPECT(CHK_DEVICE_FINALIZE_AT_END, d->finalized == 1 && d->fini_seq > d->last_event,
           "device %d %s before the tool's finalize", d->num,
           d->finalized ? "had an event after its device_finalize" : "had no device_finalize");
  }
  for (int i = 0; i < n_targets; i++)
    EXPECT(CHK_TARGET_PAIRED, !targets[i].open, "target %llu (%s) never ended by finalize",
           (unsigned long long)targets[i].id, target_kind_name(targets[i].kind));
  for (int i = 0; i < n_host_ops; i++)
    if (host_ops[i].emi_open)
      checker_violate(CHK_EMI_TARGET_DATA, "the %s_emi begin of host_op_id %#llx never ended",
                      host_ops[i].type == ompt_callback_target_submit ? "target_submit"
                                                                      : "target_data_op",
                      (unsigned long long)host_ops[i].id);
  if (stopped) {
    for (int i = 0; i < n_buffers; i++)
      EXPECT(CHK_TRACE_BUFFERS_RETURNED, buffers[i].returned,
             "device %d never handed back buffer %p (%d of %d requested)", buffers[i].device_num,
             buffers[i].buffer, i + 1, n_buffers);
    for (int i = 0; i < n_host_ops; i++) {
      const host_op_rec_t *op = &host_ops[i];
      EXPECT(CHK_TRACE_RECORDS_COMPLETE, op->records > 0,
             "the %s of host_op_id %llu (target %llu) has no trace record",
             op->type == ompt_callback_target_submit ? "kernel" : "data op",
             (unsigned long long)op->id, (unsigned long long)op->target_id);
    }
  }
  if (latest_end > 0) {
    double now = host_seconds();
    EXPECT(CHK_RECORD_TIMES_IN_RUN, latest_end <= now + TIME_SLACK,
           "a record of type %d (target %llu) ends at %.6f s on the host's clock, after the run "
           "(the tool's finalize at %.6f s)",
           latest_end_type, (unsigned long long)latest_end_target, latest_end, now);
  }
  if (!expected_given || n_targets == 0)
    return;
  compare_transfers_locked("to", seen_to, n_seen_to, expected_to, n_expected_to);
  compare_transfers_locked("from", seen_from, n_seen_from, expected_from, n_expected_from);
  EXPECT(CHK_KERNEL_COUNT, submits == expected_kernels,
         "%u target_submit callbacks; the program launched %u kernels", submits, expected_kernels);
  if (stopped)
    EXPECT(CHK_KERNEL_COUNT, kernel_records == expected_kernels,
           "%u kernel records; the program launched %u kernels", kernel_records, expected_kernels);
}

EXPORT void knit_ompt_checker_target_expect(unsigned kernels, const unsigned long *to_device,
                                            int n_to, const unsigned long *from_device, int n_from)
{
  pthread_mutex_lock(&checker_mu);
  expected_given = true;
  expected_kernels = kernels;
  n_expected_to = n_to < MAX_EXPECTED ? n_to : MAX_EXPECTED;
  n_expected_from = n_from < MAX_EXPECTED ? n_from : MAX_EXPECTED;
  memcpy(expected_to, to_device, (size_t)n_expected_to * sizeof *to_device);
  memcpy(expected_from, from_device, (size_t)n_expected_from * sizeof *from_device);
  pthread_mutex_unlock(&checker_mu);
}

EXPORT void knit_ompt_checker_target_stop(void)
{
  device_rec_t stopping[MAX_DEVICES];
  pthread_mutex_lock(&checker_mu);
  int n = n_devices;
  memcpy(stopping, devices, sizeof stopping);
  pthread_mutex_unlock(&checker_mu);
  /* Without the lock: both calls deliver buffers through on_buffer_complete. */
  for (int i = 0; i < n; i++) {
    device_rec_t *d = &stopping[i];
    if (!d->tracing || d->finalized)
      continue;
    d->flush_trace(d->device);
    d->stop_trace(d->device);
  }
  pthread_mutex_lock(&checker_mu);
  for (int i = 0; i < n; i++)
    devices[i].tracing = false;
  stopped = true;
  pthread_mutex_unlock(&checker_mu);
}

static bool is_target_wait_state(int s)
{
  return s == ompt_state_wait_target || s == ompt_state_wait_target_map ||
         s == ompt_state_wait_target_update;
}

EXPORT void knit_ompt_checker_target_await(void)
{
  pthread_mutex_lock(&checker_mu);
  const thread_rec_t *me = checker_me_locked();
  int host = -1;
  for (int i = n_targets - 1; i >= 0 && host < 0; i--)
    if (targets[i].open && (targets[i].kind & ~8) == ompt_target)
      host = targets[i].thread;
  bool self = host == me->index;
  if (self)
    checker_note(CHK_TARGET_WAIT_STATE, "a kernel ran on the thread that launched it");
  pthread_mutex_unlock(&checker_mu);
  /* No target callback came (a runtime without device OMPT), or the kernel
   * runs on the launching thread itself, which then waits for nothing. */
  if (host < 0 || self)
    return;
  int state = -1;
  ompt_wait_id_t wait_id;
  double give_up = checker_now_ms() + TARGET_JUDGE_MS;
  bool seen = false;
  while (!seen && checker_now_ms() < give_up) {
    if (!checker_sample(host, &state, &wait_id))
      break;
    seen = is_target_wait_state(state);
  }
  pthread_mutex_lock(&checker_mu);
  EXPECT(CHK_TARGET_WAIT_STATE, seen,
         "the host thread #%d that launched a kernel reports %s while the kernel runs on "
         "another thread",
         host, state < 0 ? "nothing (it did not answer the sample)" : checker_state_name(state));
  pthread_mutex_unlock(&checker_mu);
}
