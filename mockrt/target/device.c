/*
 * The mock devices: their settings, their initialization on first use,
 * the thread each one runs its operations on, its clock, and their end.
 *
 * Every device operation (allocation, transfer, kernel, release, a trace
 * flush) runs on the device's own thread while the host thread that asked
 * for it waits, as a host waits for a real device.  The clock is virtual:
 * an operation starts when the device is free (never before the host's
 * present, so device times stay in step with the host's) and lasts what
 * the cost model says, and the device thread then sleeps until that end
 * has come on the host's clock, so the host's wait lasts what the device
 * time says.  Under MOCKRT_DETERMINISTIC=1 a kernel costs its trip count
 * times MOCKRT_TARGET_NS_PER_ITER, so every duration a tool measures is
 * exact and the same on every ISA; otherwise it costs the time it ran.
 */
#define _GNU_SOURCE
#include "target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <time.h>

mockrt_tgt_settings_t mockrt_tgt_settings;
mockrt_tgt_device_t mockrt_tgt_devices[MOCKRT_TGT_MAX_DEVICES];

static pthread_mutex_t mockrt_tgt_init_lock = PTHREAD_MUTEX_INITIALIZER;
static bool mockrt_tgt_exit_registered;
static bool mockrt_tgt_deterministic_env;
static _Thread_local const mockrt_tgt_device_t *mockrt_tgt_current_device;

static uint64_t mockrt_tgt_env_u64(const char *name, uint64_t fallback, uint64_t min)
{
  const char *s = getenv(name);
  if (!s || !*s)
    return fallback;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || s[0] == '-' || v < min) {
    fprintf(stderr, "mockrt target: %s='%s' is not a whole number >= %llu; using %llu\n", name, s,
            (unsigned long long)min, (unsigned long long)fallback);
    return fallback;
  }
  return v;
}

static int mockrt_tgt_num_devices(void)
{
  return mockrt_tgt_settings.num_devices;
}

static const mockrt_target_device_ops_t mockrt_tgt_ops = {
    .num_devices = mockrt_tgt_num_devices,
    .shutdown = mockrt_tgt_shutdown,
};

/*
 * A child of fork has none of its parent's device threads: its devices
 * start again on their first construct (device_initialize again), with the
 * maps and images the child inherited, its memory being a copy of the
 * parent's.  Locks another thread held at the fork are made anew.
 */
static void mockrt_tgt_after_fork_child(void)
{
  for (int i = 0; i < MOCKRT_TGT_MAX_DEVICES; i++) {
    mockrt_tgt_device_t *dev = &mockrt_tgt_devices[i];
    if (!atomic_load(&dev->ready) || dev->finalized)
      continue;
    atomic_store(&dev->ready, false);
    atomic_store(&dev->initialized, false);
    dev->op = NULL;
    dev->op_done = false;
  }
  pthread_mutex_init(&mockrt_tgt_init_lock, NULL);
  pthread_mutex_init(&mockrt_tgt_libs_lock, NULL);
}

/* Before main: the settings, and the host runtime learns of the devices
 * (omp_get_num_devices is answered by whichever library comes first). */
__attribute__((constructor)) static void mockrt_tgt_settings_init(void)
{
  mockrt_tgt_settings_t *s = &mockrt_tgt_settings;
  s->num_devices = (int)mockrt_tgt_env_u64("MOCKRT_TARGET_DEVICES", 1, 0);
  if (s->num_devices > MOCKRT_TGT_MAX_DEVICES) {
    fprintf(stderr, "mockrt target: MOCKRT_TARGET_DEVICES=%d: at most %d devices\n", s->num_devices,
            MOCKRT_TGT_MAX_DEVICES);
    s->num_devices = MOCKRT_TGT_MAX_DEVICES;
  }
  s->latency_ns = mockrt_tgt_env_u64("MOCKRT_TARGET_LATENCY_NS", 2000, 0);
  s->bandwidth = mockrt_tgt_env_u64("MOCKRT_TARGET_BANDWIDTH", 10000000000ull, 1);
  s->ns_per_iter = mockrt_tgt_env_u64("MOCKRT_TARGET_NS_PER_ITER", 10, 0);
  s->memory_limit = mockrt_tgt_env_u64("MOCKRT_TARGET_MEMORY", 0, 0);
  s->stats = mockrt_tgt_env_u64("MOCKRT_TARGET_STATS", 0, 0) == 1;
  const char *offload = getenv("OMP_TARGET_OFFLOAD");
  if (offload && strcasecmp(offload, "disabled") == 0)
    s->num_devices = 0;
  s->mandatory = offload && strcasecmp(offload, "mandatory") == 0;
  const char *det = getenv("MOCKRT_DETERMINISTIC");
  mockrt_tgt_deterministic_env = det && strcmp(det, "1") == 0;
  for (int i = 0; i < MOCKRT_TGT_MAX_DEVICES; i++)
    mockrt_tgt_devices[i].num = i;
  const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
  if (hooks)
    hooks->attach_devices(&mockrt_tgt_ops);
  pthread_atfork(NULL, NULL, mockrt_tgt_after_fork_child);
}

bool mockrt_tgt_deterministic(void)
{
  const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
  return hooks ? hooks->deterministic() : mockrt_tgt_deterministic_env;
}

static uint64_t mockrt_tgt_host_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t mockrt_tgt_device_now(mockrt_tgt_device_t *dev)
{
  uint64_t real = mockrt_tgt_host_ns() - dev->host_origin_ns;
  uint64_t virt = __atomic_load_n(&dev->clock_ns, __ATOMIC_ACQUIRE);
  return real > virt ? real : virt;
}

double mockrt_tgt_device_translate(mockrt_tgt_device_t *dev, uint64_t device_ns)
{
  if (mockrt_tgt_faulty(MOCKRT_FAULT_TRANSLATE_TIME_WRONG))
    return (double)device_ns * 1e-9;
  return (double)(dev->host_origin_ns + device_ns) * 1e-9;
}

bool mockrt_tgt_on_device_thread(const mockrt_tgt_device_t *dev)
{
  return mockrt_tgt_current_device == dev;
}

/* What a data operation says, in its callback and in its record alike. */
void mockrt_tgt_op_describe(const mockrt_tgt_device_t *dev, const mockrt_tgt_op_t *op,
                            ompt_record_target_data_op_t *out)
{
  int host = mockrt_tgt_settings.num_devices; /* the initial device's number */
  memset(out, 0, sizeof *out);
  out->host_op_id = op->host_op_id;
  out->bytes = op->bytes;
  out->codeptr_ra = op->codeptr;
  switch (op->kind) {
  case MOCKRT_OP_ALLOC:
    out->optype = ompt_target_data_alloc;
    out->src_addr = op->host, out->src_device_num = host;
    out->dest_addr = op->dev, out->dest_device_num = dev->num;
    break;
  case MOCKRT_OP_DELETE:
    out->optype = ompt_target_data_delete;
    out->src_addr = op->dev, out->src_device_num = dev->num;
    out->dest_addr = NULL, out->dest_device_num = dev->num;
    break;
  case MOCKRT_OP_TO_DEVICE:
    out->optype = ompt_target_data_transfer_to_device;
    out->src_addr = op->host, out->src_device_num = host;
    out->dest_addr = op->dev, out->dest_device_num = dev->num;
    if (mockrt_tgt_faulty(MOCKRT_FAULT_DATA_OP_BYTES_WRONG))
      out->bytes += 8;
    break;
  case MOCKRT_OP_FROM_DEVICE:
    out->optype = ompt_target_data_transfer_from_device;
    out->src_addr = op->dev, out->src_device_num = dev->num;
    out->dest_addr = op->host, out->dest_device_num = host;
    break;
  default: break;
  }
}

/* bytes / bandwidth in ns, without overflow for any size a host can hold. */
static uint64_t mockrt_tgt_transfer_ns(size_t bytes)
{
  unsigned __int128 ns = (unsigned __int128)bytes * 1000000000u;
  return (uint64_t)(ns / mockrt_tgt_settings.bandwidth);
}

/* Waits shorter than this are polled: a sleep would last the timer's
 * slack at least, which would make every operation cost tens of µs. */
#define MOCKRT_TGT_POLL_NS 20000

static void mockrt_tgt_sleep_until(const mockrt_tgt_device_t *dev, uint64_t device_ns)
{
  uint64_t host = dev->host_origin_ns + device_ns;
  uint64_t now = mockrt_tgt_host_ns();
  if (now >= host)
    return;
  if (host - now > MOCKRT_TGT_POLL_NS) {
    uint64_t wake = host - MOCKRT_TGT_POLL_NS / 2;
    struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ull),
                          .tv_nsec = (long)(wake % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
  }
  while (mockrt_tgt_host_ns() < host) {
  }
}

static void mockrt_tgt_record_op(mockrt_tgt_device_t *dev, const mockrt_tgt_op_t *op,
                                 uint64_t start, uint64_t end)
{
  ompt_record_ompt_t rec;
  memset(&rec, 0, sizeof rec);
  rec.time = start;
  rec.thread_id = dev->thread_id;
  rec.target_id = op->target_id;
  if (mockrt_tgt_faulty(MOCKRT_FAULT_TARGET_ID_MISMATCH))
    rec.target_id |= 1ull << 62;
  if (mockrt_tgt_faulty(MOCKRT_FAULT_RECORD_TIME_REVERSED)) {
    rec.time = end;
    end = start;
  }
  ompt_id_t host_op_id = op->host_op_id + mockrt_tgt_faulty(MOCKRT_FAULT_HOST_OP_ID_MISMATCH);
  if (op->kind == MOCKRT_OP_KERNEL) {
    rec.type = ompt_callback_target_submit;
    rec.record.target_kernel.host_op_id = host_op_id;
    rec.record.target_kernel.requested_num_teams = op->requested_teams;
    /* The kernel's own teams construct decides its teams, on the host
     * runtime; the device grants what was asked, or one team. */
    rec.record.target_kernel.granted_num_teams = op->requested_teams ? op->requested_teams : 1;
    rec.record.target_kernel.end_time = end;
  } else {
    rec.type = ompt_callback_target_data_op;
    mockrt_tgt_op_describe(dev, op, &rec.record.target_data_op);
    rec.record.target_data_op.host_op_id = host_op_id;
    rec.record.target_data_op.end_time = end;
  }
  mockrt_tgt_trace_add(dev, &rec);
}

/* One operation, on the device thread. */
static void mockrt_tgt_execute(mockrt_tgt_device_t *dev, mockrt_tgt_op_t *op)
{
  const mockrt_tgt_settings_t *s = &mockrt_tgt_settings;
  uint64_t start = mockrt_tgt_device_now(dev);
  uint64_t cost = s->latency_ns;
  op->result = MOCKRT_TGT_SUCCESS;
  switch (op->kind) {
  case MOCKRT_OP_ALLOC: /* the memory itself was taken by the host side (map.c) */ break;
  case MOCKRT_OP_DELETE: mockrt_tgt_mem_free(dev, op->dev); break;
  case MOCKRT_OP_TO_DEVICE:
    memcpy(op->dev, op->host, op->bytes);
    mockrt_tgt_shadow_after_copy(dev, op);
    cost += mockrt_tgt_transfer_ns(op->bytes);
    dev->to_count++, dev->to_bytes += op->bytes;
    break;
  case MOCKRT_OP_FROM_DEVICE:
    memcpy(op->host, op->dev, op->bytes);
    mockrt_tgt_shadow_after_copy(dev, op);
    cost += mockrt_tgt_transfer_ns(op->bytes);
    dev->from_count++, dev->from_bytes += op->bytes;
    break;
  case MOCKRT_OP_KERNEL: {
    uint64_t ran = mockrt_tgt_host_ns();
    mockrt_tgt_kernel_call(op->fn, op->argc, op->argv);
    ran = mockrt_tgt_host_ns() - ran;
    cost += mockrt_tgt_deterministic() ? op->tripcount * s->ns_per_iter : ran;
    dev->kernels++;
    break;
  }
  case MOCKRT_OP_FLUSH: mockrt_tgt_trace_deliver(dev, true); return;
  default: return;
  }
  uint64_t end = start + cost;
  dev->busy_ns += cost;
  __atomic_store_n(&dev->clock_ns, end, __ATOMIC_RELEASE);
  /* The operation is over when its end has come: only then is its record
   * written, so no record the tool gets ends in its future. */
  mockrt_tgt_sleep_until(dev, end);
  mockrt_tgt_record_op(dev, op, start, end);
  mockrt_tgt_trace_deliver(dev, false);
}

static void *mockrt_tgt_device_main(void *arg)
{
  mockrt_tgt_device_t *dev = arg;
  mockrt_tgt_current_device = dev;
  /* Its sleeps end when the device time says, not up to 50 µs later. */
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  for (;;) {
    pthread_mutex_lock(&dev->q_lock);
    while (!dev->op)
      pthread_cond_wait(&dev->q_cond, &dev->q_lock);
    mockrt_tgt_op_t *op = dev->op;
    pthread_mutex_unlock(&dev->q_lock);
    bool stop = op->kind == MOCKRT_OP_STOP;
    if (stop) {
      /* A thread that ran kernels became an initial thread of the host
       * runtime: its end events now, while the tool still listens. */
      const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
      if (hooks)
        hooks->thread_end();
    } else {
      mockrt_tgt_execute(dev, op);
    }
    pthread_mutex_lock(&dev->q_lock);
    dev->op = NULL;
    dev->op_done = true;
    pthread_cond_broadcast(&dev->q_cond);
    pthread_mutex_unlock(&dev->q_lock);
    if (stop)
      return NULL;
  }
}

void mockrt_tgt_device_run(mockrt_tgt_device_t *dev, mockrt_tgt_op_t *op)
{
  if (mockrt_tgt_on_device_thread(dev) || dev->stopped) {
    mockrt_tgt_execute(dev, op);
    return;
  }
  pthread_mutex_lock(&dev->op_lock);
  pthread_mutex_lock(&dev->q_lock);
  dev->op = op;
  dev->op_done = false;
  pthread_cond_broadcast(&dev->q_cond);
  while (!dev->op_done)
    pthread_cond_wait(&dev->q_cond, &dev->q_lock);
  pthread_mutex_unlock(&dev->q_lock);
  pthread_mutex_unlock(&dev->op_lock);
}

static bool mockrt_tgt_device_init(mockrt_tgt_device_t *dev)
{
  const mockrt_target_hooks *hooks = mockrt_tgt_hooks();
  /* The host runtime first: it initializes the tool, which must exist
   * before device_initialize can reach it. */
  if (hooks)
    hooks->attach();
  pthread_mutex_init(&dev->lock, NULL);
  pthread_mutex_init(&dev->op_lock, NULL);
  pthread_mutex_init(&dev->q_lock, NULL);
  pthread_cond_init(&dev->q_cond, NULL);
  mockrt_tgt_trace_init(&dev->trace);
  dev->host_origin_ns = mockrt_tgt_host_ns();
  dev->clock_ns = 0;
  dev->thread_id = mockrt_tgt_unique_id();
  if (pthread_create(&dev->thread, NULL, mockrt_tgt_device_main, dev) != 0) {
    fprintf(stderr, "mockrt target: device %d: cannot start its thread\n", dev->num);
    return false;
  }
  if (!mockrt_tgt_exit_registered) {
    mockrt_tgt_exit_registered = true;
    atexit(mockrt_tgt_shutdown);
  }
  /* The tool may start tracing from device_initialize itself. */
  atomic_store(&dev->initialized, true);
  const mockrt_target_cbs_t *cbs = mockrt_tgt_cbs();
  ompt_callback_device_initialize_t init = cbs ? cbs->device_initialize : NULL;
  if (init && !mockrt_tgt_faulty(MOCKRT_FAULT_DEVICE_INITIALIZE_MISSING)) {
    init(dev->num, "knit-mock-device", (ompt_device_t *)dev, mockrt_tgt_trace_lookup,
         "knit's mock device (docs/mockrt.md): kernels of the host's ISA on a device thread, "
         "virtual device clock in ns");
  }
  return true;
}

mockrt_tgt_device_t *mockrt_tgt_device_acquire(int64_t device_id)
{
  int n = mockrt_tgt_settings.num_devices;
  if (device_id == -1)
    device_id = 0;
  if (device_id < 0 || device_id >= n)
    return NULL;
  mockrt_tgt_device_t *dev = &mockrt_tgt_devices[device_id];
  if (!atomic_load(&dev->ready)) {
    pthread_mutex_lock(&mockrt_tgt_init_lock);
    bool ok = atomic_load(&dev->ready) || mockrt_tgt_device_init(dev);
    if (ok)
      atomic_store(&dev->ready, true);
    pthread_mutex_unlock(&mockrt_tgt_init_lock);
    if (!ok)
      return NULL;
  }
  pthread_mutex_lock(&dev->lock);
  if (dev->finalized) {
    pthread_mutex_unlock(&dev->lock);
    return NULL;
  }
  mockrt_tgt_image_load_all(dev);
  return dev;
}

void mockrt_tgt_device_release(mockrt_tgt_device_t *dev)
{
  pthread_mutex_unlock(&dev->lock);
}

/* One line a device: under MOCKRT_DETERMINISTIC=1 every number is exact. */
static void mockrt_tgt_print_stats(const mockrt_tgt_device_t *dev)
{
  fprintf(stderr,
          "mockrt target: device %d: %llu kernels, %llu transfers to the device (%llu bytes), "
          "%llu from it (%llu bytes), %llu allocations (at most %llu bytes in use), busy %llu ns\n",
          dev->num, (unsigned long long)dev->kernels, (unsigned long long)dev->to_count,
          (unsigned long long)dev->to_bytes, (unsigned long long)dev->from_count,
          (unsigned long long)dev->from_bytes, (unsigned long long)dev->allocations,
          (unsigned long long)dev->bytes_peak, (unsigned long long)dev->busy_ns);
}

/*
 * At the host runtime's shutdown (before the tool's finalize) or at exit:
 * the last records handed back, each module's device_unload, then
 * device_finalize, and the device thread ends.  Once per device.
 */
void mockrt_tgt_shutdown(void)
{
  for (int i = 0; i < MOCKRT_TGT_MAX_DEVICES; i++) {
    mockrt_tgt_device_t *dev = &mockrt_tgt_devices[i];
    if (!atomic_load(&dev->ready))
      continue;
    pthread_mutex_lock(&dev->lock);
    if (dev->finalized) {
      pthread_mutex_unlock(&dev->lock);
      continue;
    }
    mockrt_tgt_op_t flush = {.kind = MOCKRT_OP_FLUSH};
    mockrt_tgt_device_run(dev, &flush);
    mockrt_tgt_image_unload_all(dev);
    const mockrt_target_cbs_t *cbs = mockrt_tgt_cbs();
    ompt_callback_device_finalize_t fini = cbs ? cbs->device_finalize : NULL;
    /* The tool may stop tracing here: the device thread still serves it. */
    if (fini)
      fini(dev->num);
    dev->finalized = true;
    if (mockrt_tgt_settings.stats)
      mockrt_tgt_print_stats(dev);
    mockrt_tgt_op_t stop = {.kind = MOCKRT_OP_STOP};
    mockrt_tgt_device_run(dev, &stop);
    pthread_join(dev->thread, NULL);
    dev->stopped = true;
    pthread_mutex_unlock(&dev->lock);
  }
}
