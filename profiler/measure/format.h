/* The measurement format: what libknit writes and `knit report` reads.
 *
 * A measurement is a directory:
 *   thread-<index>-<tid>.knit   one per thread: load map, CCT, metrics, stats
 *   trace-<index>-<tid>.knit    with `knit record -t` only: the thread's
 *                               events in time order (below)
 *   trace-device-<N>.knit       with `knit record -t` and a traced target
 *                               device N: its operations (below)
 *   knit.log                    text; its last line is the SUMMARY line
 *   linux-vdso.so.1             the vdso's image (core/vdso_copy.h)
 *   images/                     copies of modules whose files would be gone
 *                               by the report's time, and their index
 *                               (core/image_copy.h)
 *
 * A thread file is binary in the byte order of the process that wrote it
 * (little-endian but for ppc64's); the reader knows the other order by its
 * byte-order mark and swaps the fields defined here (measure/read_byte_order.c):
 *
 *   header   knit_file_header
 *   sections, each a knit_section_header followed by `length` bytes:
 *     MODULES  u32 count, then per module: u32 id, u32 path_len, u64 base,
 *              path bytes (no NUL)
 *     NODES    u32 count, then knit_node_record[count]; node 0 is the root
 *              and every parent id is smaller than its child's id
 *     METRICS  u32 count, then knit_metric_record[count] (sparse: only
 *              non-zero values)
 *     STATS    u32 count, then knit_stat_record[count]
 *     STEPS    u32 count, then knit_steps_record[count]: unwind steps by
 *              class, per module (of the frame the step left)
 *   END section (length 0)
 *
 * Readers skip sections with unknown tags, so sections can be added without
 * breaking old readers; a change to an existing record bumps the version.
 */
#ifndef KNIT_MEASURE_FORMAT_H
#define KNIT_MEASURE_FORMAT_H

#include <stdint.h>

#define KNIT_FILE_MAGIC      "KNITMEAS"
#define KNIT_FILE_VERSION    1
#define KNIT_BYTE_ORDER_MARK 0x01020304u

typedef struct knit_file_header {
  char magic[8];         /* KNIT_FILE_MAGIC, not NUL-terminated */
  uint32_t version;      /* KNIT_FILE_VERSION */
  uint32_t byte_order;   /* KNIT_BYTE_ORDER_MARK as written */
  uint32_t tid;          /* kernel thread id */
  uint32_t thread_index; /* order in which threads were seen, from 0 */
  uint32_t thread_flags; /* KNIT_THREAD_* */
  uint32_t elf_machine;  /* ISA of the profiled process */
  uint64_t period;       /* sampling period in ns (0 for PROBE) */
  char event[32];        /* "CPUTIME", "REALTIME", "PROBE"; NUL-padded */
} knit_file_header;

#define KNIT_THREAD_MAIN    0x1 /* the process's initial thread */
#define KNIT_THREAD_OPENMP  0x2 /* announced by OMPT thread_begin */
#define KNIT_THREAD_RUNTIME 0x4 /* a runtime helper that runs no user code */

typedef struct knit_section_header {
  uint32_t tag;
  uint32_t reserved;
  uint64_t length;
} knit_section_header;

enum knit_section_tag {
  KNIT_SECTION_END = 0,
  KNIT_SECTION_MODULES = 1,
  KNIT_SECTION_NODES = 2,
  KNIT_SECTION_METRICS = 3,
  KNIT_SECTION_STATS = 4,
  KNIT_SECTION_STEPS = 5,
};

/* Module ids index the process's load map. Two ids are reserved: */
#define KNIT_MODULE_PLACEHOLDER 0xFFFFFFFFu /* offset is a knit_placeholder */
#define KNIT_MODULE_UNKNOWN     0xFFFFFFFEu /* offset is an absolute address */

/* Placeholder frames: named alike on every runtime. */
enum knit_placeholder {
  KNIT_PH_ROOT = 0,            /* the root of every thread's tree */
  KNIT_PH_OMP_IDLE = 1,        /* a thread of the runtime with no work */
  KNIT_PH_OMP_BARRIER = 2,     /* waiting in a barrier */
  KNIT_PH_OMP_LOCK_WAIT = 3,   /* waiting for a lock, critical, ordered */
  KNIT_PH_OMP_OVERHEAD = 4,    /* inside the runtime, outside any task */
  KNIT_PH_PARTIAL = 5,         /* the unwind stopped early: what follows is
                                the innermost part of the path */
  KNIT_PH_SIGNAL = 6,          /* a signal interrupted the frames above; the
                                handler's frames follow */
  KNIT_PH_OMP_TARGET_WAIT = 7, /* the host waits for a target device: a
                                  target region, a mapping or an update */
  KNIT_PH_OMP_TARGET = 8,      /* a target construct (target, target data,
                                  enter/exit data, update), under the
                                  program's call that launched it: what its
                                  device did is charged here */
};

/* Node kinds. */
enum knit_node_kind {
  KNIT_NODE_CALL = 0,   /* a call site: offset is a return address */
  KNIT_NODE_SAMPLE = 1, /* a sampled instruction: offset is the pc */
  KNIT_NODE_PLACEHOLDER = 2,
};

typedef struct knit_node_record {
  uint32_t id;
  uint32_t parent; /* the root's parent is its own id, 0 */
  uint32_t module; /* load map id or KNIT_MODULE_* */
  uint8_t kind;    /* knit_node_kind */
  uint8_t pad[3];
  uint64_t offset; /* ELF virtual address within the module (pc - base) */
} knit_node_record;

/* Metric ids. */
enum knit_metric {
  KNIT_METRIC_SAMPLES = 0, /* periods of the event that ended at this node
                                  (exclusive): 1 per probe; for a timer, 1 +
                                  the overruns its signal stood for */
  /* Blame metrics, in milli-periods (KNIT_BLAME_SCALE per period of the
   * event), so that a sample's share of idleness keeps three decimals: */
  KNIT_METRIC_OMP_IDLE = 1,        /* undirected: charged to a working thread's
                                      sample, periods x idle / working threads */
  KNIT_METRIC_OMP_MUTEX_WAIT = 2,  /* a sample waiting for a lock, critical,
                                      ordered or atomic (at the waiter) */
  KNIT_METRIC_OMP_MUTEX_BLAME = 3, /* directed: the waits on a mutex, charged
                                      where its holder released it */
  /* Device metrics, charged to the host calling context that launched the
   * operation (a target construct's node in the launching thread's tree),
   * in their own units, not the event's. Times are the device's (ns), from
   * OMPT device tracing; without tracing only bytes are known (from the
   * host's target_data_op callbacks). They come last, so that a reader
   * that writes "the metrics" of a host-only measurement can stop at
   * KNIT_METRIC_HOST_COUNT and write what it always has. */
  KNIT_METRIC_DEVICE_KERNEL = 4,      /* ns of kernel time on the device */
  KNIT_METRIC_DEVICE_H2D_BYTES = 5,   /* bytes copied host to device */
  KNIT_METRIC_DEVICE_H2D_TIME = 6,    /* ns those copies took on the device */
  KNIT_METRIC_DEVICE_D2H_BYTES = 7,   /* bytes copied device to host */
  KNIT_METRIC_DEVICE_D2H_TIME = 8,    /* ns those copies took */
  KNIT_METRIC_DEVICE_ALLOC_BYTES = 9, /* bytes allocated on the device */
  KNIT_METRIC_COUNT = 10,
};
#define KNIT_METRIC_HOST_COUNT        4
#define KNIT_METRIC_IS_DEVICE(metric) ((metric) >= KNIT_METRIC_HOST_COUNT)
#define KNIT_BLAME_SCALE              1000u

typedef struct knit_metric_record {
  uint32_t node;
  uint32_t metric;
  uint64_t value;
} knit_metric_record;

/* Unwind and sampling statistics of one thread. */
enum knit_stat {
  KNIT_STAT_SAMPLES = 0,         /* handler invocations that took a sample */
  KNIT_STAT_PARTIAL = 1,         /* samples whose unwind stopped early */
  KNIT_STAT_BLOCKED = 2,         /* signals dropped (re-entry, not ready) */
  KNIT_STAT_FAULTS = 3,          /* faults recovered during unwinding */
  KNIT_STAT_FRAMES = 4,          /* frames unwound, all samples together */
  KNIT_STAT_RECIPES_BUILT = 5,   /* functions analyzed by this thread */
  KNIT_STAT_TRUNCATED = 6,       /* paths longer than the frame limit */
  KNIT_STAT_BLAME_LOST = 7,      /* milli-periods of mutex wait whose wait id
                                   found no room in the blame table (its
                                   OMP_MUTEX_WAIT is kept, its blame is lost) */
  KNIT_STAT_BLAME_UNCLAIMED = 8, /* milli-periods of mutex wait no release
                                   claimed: waits while the mutex was free
                                   (handed from one holder to the next), or
                                   not released before the process ended
                                   (on the main thread's file only) */
  /* Target devices (on the main thread's file only): */
  KNIT_STAT_DEVICES_TRACED = 9,       /* devices whose times came from OMPT
                                         device tracing */
  KNIT_STAT_DEVICES_UNTRACED = 10,    /* devices seen without tracing: their
                                         bytes came from target_data_op
                                         callbacks, and no device times */
  KNIT_STAT_DEVICE_UNATTRIBUTED = 11, /* device operations whose target id no
                                         launching context was kept for */
  KNIT_STAT_COUNT = 12,
};

typedef struct knit_stat_record {
  uint32_t key;
  uint32_t pad;
  uint64_t value;
} knit_stat_record;

/* Unwind steps of one thread that left a frame of one module, by class
 * (unwind/step_class.h). module is a load map id or KNIT_MODULE_UNKNOWN
 * (code outside every known module); only modules with a step are listed. */
typedef struct knit_steps_record {
  uint32_t module;
  uint32_t pad;
  uint64_t confirmed; /* a call to the frame's function ends at the RA */
  uint64_t probable;  /* an indirect call, or a call followed by a tail call */
  uint64_t wrong;     /* no call ends at the RA */
} knit_steps_record;

/* Trace files (`knit record -t`): one per thread that took a sample or
 * saw an OpenMP transition, named after its thread file, in the same byte
 * order (the same mark):
 *
 *   header   knit_trace_header
 *   records  knit_trace_record, until the end of the file
 *
 * The file is written in pieces as the thread's buffer is drained (core/
 * trace_ring.h), not whole: a process that dies leaves the events up to
 * the last drain, and a reader takes every whole record and ignores a
 * torn last one. Records are in time order but for deferred samples
 * (ompt/region_paths.h), written when their region's path is known with
 * the time they were taken: readers sort a thread's records by time,
 * stably. node is the thread's own CCT node id (its thread file's
 * NODES id): for a sample, the node its periods went to; for a
 * transition, the node of the thread's last sample before it (0, the root,
 * when it has none), the code the thread ran as it entered the runtime.
 * KNIT_TRACE_DROPPED records carry, in node, how many events the full
 * buffer refused since the last such record (time: when the buffer had room
 * again).
 * A state too short to show (measure/short_state.h: its end less than
 * a hundredth of a sample, at most 10 us, after its begin) with no record
 * between its begin and its end is not in the file, neither record of it
 * (unless KNIT_TRACE_KEEP_SHORT=1); knit.log counts those left out.
 *
 * A device's trace file (trace-device-<N>.knit) has the same header, with
 * thread_index the device number and tid 0, and the same records, in
 * groups of three per device operation, written as the device's trace
 * buffers come back (ompt/device_track.h), in the order the device
 * reported them:
 *   KNIT_TRACE_DEVICE_KERNEL, _TO_DEVICE, _FROM_DEVICE or _ALLOC
 *        time_ns: the operation's start on the host's CLOCK_MONOTONIC;
 *        node: the target construct's node in the launching thread's tree
 *   KNIT_TRACE_DEVICE_END
 *        time_ns: its end, on the same clock (start plus the device's
 *        own duration, so that it equals the device metrics exactly);
 *        node: the launching thread's index (UINT32_MAX when no launching
 *        context was known: node is then 0)
 *   KNIT_TRACE_DEVICE_BYTES
 *        time_ns: the bytes moved or allocated (0 for a kernel); node: 0
 * A reader takes whole groups and ignores a torn last one. Thread traces
 * never hold these kinds. */
#define KNIT_TRACE_MAGIC   "KNITTRAC"
#define KNIT_TRACE_VERSION 1

typedef struct knit_trace_header {
  char magic[8];         /* KNIT_TRACE_MAGIC, not NUL-terminated */
  uint32_t version;      /* KNIT_TRACE_VERSION */
  uint32_t byte_order;   /* KNIT_BYTE_ORDER_MARK as written */
  uint32_t tid;          /* as the thread file's header */
  uint32_t thread_index; /* as the thread file's header */
  uint64_t clock;        /* 1: CLOCK_MONOTONIC, the only clock so far */
} knit_trace_header;

enum knit_trace_kind {
  KNIT_TRACE_SAMPLE = 0,         /* a sample (missed signals taken later: one) */
  KNIT_TRACE_PARALLEL_BEGIN = 1, /* the thread opens a parallel region */
  KNIT_TRACE_PARALLEL_END = 2,   /* the region it opened ends */
  KNIT_TRACE_BARRIER_BEGIN = 3,  /* a barrier, taskwait or taskgroup wait */
  KNIT_TRACE_BARRIER_END = 4,
  KNIT_TRACE_IDLE_BEGIN = 5, /* a worker back in the pool, between
                                     implicit tasks */
  KNIT_TRACE_IDLE_END = 6,
  KNIT_TRACE_LOCK_WAIT_BEGIN = 7, /* waits for a lock, critical, ordered */
  KNIT_TRACE_LOCK_WAIT_END = 8,   /* acquired */
  KNIT_TRACE_DROPPED = 9,         /* node: events lost to a full buffer */
  /* Device trace files only (a group of three per operation, above): */
  KNIT_TRACE_DEVICE_KERNEL = 10,      /* a kernel ran */
  KNIT_TRACE_DEVICE_TO_DEVICE = 11,   /* a copy from the host to the device */
  KNIT_TRACE_DEVICE_FROM_DEVICE = 12, /* a copy from the device to the host */
  KNIT_TRACE_DEVICE_ALLOC = 13,       /* an allocation on the device */
  KNIT_TRACE_DEVICE_END = 14,         /* the operation's end, its thread */
  KNIT_TRACE_DEVICE_BYTES = 15,       /* its bytes, in time_ns */
  KNIT_TRACE_KIND_COUNT = 16,
};

typedef struct knit_trace_record {
  uint64_t time_ns; /* CLOCK_MONOTONIC */
  uint32_t node;
  uint32_t kind; /* knit_trace_kind */
} knit_trace_record;

#endif /* KNIT_MEASURE_FORMAT_H */
