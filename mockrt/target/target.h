/*
 * The mock device: a drop-in libomptarget.so for programs built with clang
 * 14 -fopenmp -fopenmp-targets=<the host's triple>.  Its devices run the
 * kernels of the device image the program carries (an ELF shared object
 * for the host's own ISA) on a thread of their own, with memory of their
 * own (malloc'ed, accounted) and a clock of their own (virtual
 * nanoseconds: a cost model, so that under MOCKRT_DETERMINISTIC=1 every
 * device time a tool measures is exact).  With the host mock runtime
 * (mockrt_ompt_target_hooks, core/target_hooks.h) it implements OMPT's
 * target callbacks and the device tracing interface.  docs/mockrt.md says
 * what it does and does not do.
 */
#ifndef MOCKRT_TARGET_TARGET_H
#define MOCKRT_TARGET_TARGET_H

#include "../core/fault.h"
#include "../core/target_hooks.h"

#include <omp-tools.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MOCKRT_TGT_EXPORT __attribute__((visibility("default")))

/* ---- the offloading ABI of clang 14 (its __tgt_* structures) ---- */
typedef struct mockrt_tgt_offload_entry {
  void *addr;  /* host: a region's id or a global's address */
  char *name;  /* the symbol of the kernel or global in the device image */
  size_t size; /* 0 for a kernel */
  int32_t flags;
  int32_t reserved;
} mockrt_tgt_offload_entry_t;

typedef struct mockrt_tgt_device_image {
  void *image_start;
  void *image_end;
  mockrt_tgt_offload_entry_t *entries_begin;
  mockrt_tgt_offload_entry_t *entries_end;
} mockrt_tgt_device_image_t;

typedef struct mockrt_tgt_bin_desc {
  int32_t num_images;
  mockrt_tgt_device_image_t *images;
  mockrt_tgt_offload_entry_t *host_entries_begin;
  mockrt_tgt_offload_entry_t *host_entries_end;
} mockrt_tgt_bin_desc_t;

/* Map types, as clang 14 encodes them in the arg_types arrays. */
enum {
  MOCKRT_MAP_TO = 0x01,
  MOCKRT_MAP_FROM = 0x02,
  MOCKRT_MAP_ALWAYS = 0x04,
  MOCKRT_MAP_DELETE = 0x08,
  MOCKRT_MAP_PTR_AND_OBJ = 0x10,
  MOCKRT_MAP_TARGET_PARAM = 0x20,
  MOCKRT_MAP_RETURN_PARAM = 0x40,
  MOCKRT_MAP_PRIVATE = 0x80,
  MOCKRT_MAP_LITERAL = 0x100,
  MOCKRT_MAP_IMPLICIT = 0x200,
  MOCKRT_MAP_CLOSE = 0x400,
  MOCKRT_MAP_PRESENT = 0x1000,
};
#define MOCKRT_MAP_MEMBER_OF 0xffff000000000000ull

/* What the __tgt_* entry points return: the host runs its own fallback
 * version of a target region the device refused. */
#define MOCKRT_TGT_SUCCESS 0
#define MOCKRT_TGT_FAIL    (-1)

/* The most arguments a kernel may take (kernel.c calls it by arity). */
#define MOCKRT_TGT_MAX_ARGS    16
#define MOCKRT_TGT_MAX_DEVICES 8
#define MOCKRT_TGT_MAX_LIBS    16

/* ---- settings (device.c): read once, at load ---- */
typedef struct mockrt_tgt_settings {
  int num_devices;       /* MOCKRT_TARGET_DEVICES (1), 0 under OMP_TARGET_OFFLOAD=disabled */
  uint64_t latency_ns;   /* MOCKRT_TARGET_LATENCY_NS: the cost of every device operation */
  uint64_t bandwidth;    /* MOCKRT_TARGET_BANDWIDTH: bytes per second of a transfer */
  uint64_t ns_per_iter;  /* MOCKRT_TARGET_NS_PER_ITER: a kernel's cost per loop iteration */
  uint64_t memory_limit; /* MOCKRT_TARGET_MEMORY: device bytes (0: no limit) */
  bool mandatory;        /* OMP_TARGET_OFFLOAD=mandatory: a refused region is fatal */
  bool stats;            /* MOCKRT_TARGET_STATS=1: each device's totals on stderr at its end */
} mockrt_tgt_settings_t;
extern mockrt_tgt_settings_t mockrt_tgt_settings;

/* ---- the host runtime's OMPT (hooks.c) ---- */
/* The host mock runtime's table, or NULL on any other runtime (no OMPT). */
const mockrt_target_hooks *mockrt_tgt_hooks(void);
/* The tool's target callbacks, or NULL when there is neither tool nor hooks. */
const mockrt_target_cbs_t *mockrt_tgt_cbs(void);
/* The fault in force (core/fault.h's ids; 0 without the host mock). */
int mockrt_tgt_fault(void);
static inline bool mockrt_tgt_faulty(enum mockrt_fault_id id)
{
  return __builtin_expect(mockrt_tgt_fault() == (int)id, 0);
}
/* A fresh id from the tool-visible source (0 without OMPT). */
uint64_t mockrt_tgt_unique_id(void);
/* The calling host thread's state: set (returning the old one, -1 without
 * the host mock) and restore (nothing for -1). */
int mockrt_tgt_state_enter(int state);
void mockrt_tgt_state_leave(int old);
void mockrt_tgt_target_info(int device_num, ompt_id_t target_id, ompt_id_t host_op_id);

/* ---- present table entries (map.c) ---- */
typedef struct mockrt_tgt_mapping {
  uintptr_t host_begin, host_end;
  char *dev;             /* device memory for [host_begin, host_end) */
  long refcount;         /* MOCKRT_TGT_REF_FOREVER: a declare target global */
  bool owned;            /* dev was allocated by the mock device (else the image's) */
  bool implicit_pointer; /* a pointer the device mapped for a PTR_AND_OBJ pointee */
  unsigned long fresh;   /* the construct that created it, for the copies its members need */
} mockrt_tgt_mapping_t;
#define MOCKRT_TGT_REF_FOREVER (-1L)

/* A host pointer the device's copy of which was made to point to device
 * memory (PTR_AND_OBJ): copies of the range that holds it keep each side's
 * value, so the host's pointer never becomes a device address. */
typedef struct mockrt_tgt_shadow {
  uintptr_t host_addr; /* where the pointer is, on the host */
  void *host_value;
  void *dev_value;
} mockrt_tgt_shadow_t;

/* ---- device operations (device.c), executed on the device's thread ---- */
enum mockrt_tgt_op_kind {
  MOCKRT_OP_ALLOC = 1,
  MOCKRT_OP_DELETE,
  MOCKRT_OP_TO_DEVICE,
  MOCKRT_OP_FROM_DEVICE,
  MOCKRT_OP_KERNEL,
  MOCKRT_OP_FLUSH,
  MOCKRT_OP_STOP,
};

typedef struct mockrt_tgt_op {
  int kind;
  ompt_id_t target_id, host_op_id;
  const void *codeptr;
  /* alloc: bytes in, dev out; delete: dev, bytes; transfers: from/to, bytes */
  void *host;
  void *dev;
  size_t bytes;
  /* kernel */
  void *fn;
  int argc;
  void **argv;
  uint64_t tripcount;
  unsigned requested_teams;
  int result; /* MOCKRT_TGT_SUCCESS or _FAIL */
} mockrt_tgt_op_t;

/* A registered program or library (a __tgt_bin_desc) and its image for
 * this ISA; a free slot has no desc. */
typedef struct mockrt_tgt_lib {
  const mockrt_tgt_bin_desc_t *desc;
  const mockrt_tgt_device_image_t *image; /* NULL: none the device can run */
} mockrt_tgt_lib_t;

/* The device tracing state of one device (trace.c). */
typedef struct mockrt_tgt_trace {
  pthread_mutex_t lock;
  uint64_t enabled; /* 1 << record type (a callback id) */
  bool started;
  ompt_callback_buffer_request_t request;
  ompt_callback_buffer_complete_t complete;
  /* Records not yet in a tool's buffer; the device thread moves them. */
  ompt_record_ompt_t *pending;
  size_t npending, cap;
  /* The tool's current buffer. */
  char *buffer;
  size_t size, used;
  uint64_t dropped; /* records no buffer could take */
} mockrt_tgt_trace_t;

typedef struct mockrt_tgt_device {
  int num;
  atomic_bool ready;
  bool finalized;
  bool stopped;            /* its thread has ended: what is left runs on the caller */
  atomic_bool initialized; /* its thread runs: tracing may start */
  /* One construct at a time: the device is a queue of one. */
  pthread_mutex_t lock;
  /* The device thread and the operation it is handed (op_lock: one poster). */
  pthread_t thread;
  pthread_mutex_t op_lock;
  pthread_mutex_t q_lock;
  pthread_cond_t q_cond;
  mockrt_tgt_op_t *op;
  bool op_done;
  ompt_id_t thread_id;
  /* The clock: device ns since initialization; host CLOCK_MONOTONIC ns then. */
  uint64_t clock_ns;
  uint64_t host_origin_ns;
  /* The present table (map.c), under lock. */
  mockrt_tgt_mapping_t *map;
  size_t nmap, map_cap;
  unsigned long construct_seq;
  mockrt_tgt_shadow_t *shadows;
  size_t nshadows, shadow_cap;
  /* Memory accounting. */
  uint64_t bytes_in_use, bytes_peak, allocations;
  /* What the device did (MOCKRT_TARGET_STATS=1 prints it at its end). */
  uint64_t kernels, to_count, to_bytes, from_count, from_bytes, busy_ns;
  /* Loaded images: one dlopen per registered library. */
  void *handles[MOCKRT_TGT_MAX_LIBS];
  uint64_t module_ids[MOCKRT_TGT_MAX_LIBS];
  bool loaded[MOCKRT_TGT_MAX_LIBS];
  mockrt_tgt_trace_t trace;
} mockrt_tgt_device_t;

extern mockrt_tgt_device_t mockrt_tgt_devices[MOCKRT_TGT_MAX_DEVICES];

/* The device a construct names (-1: the default device), initialized and
 * with every registered image loaded, its lock held; NULL if there is
 * none the program can offload to (then the host runs the region). */
mockrt_tgt_device_t *mockrt_tgt_device_acquire(int64_t device_id);
void mockrt_tgt_device_release(mockrt_tgt_device_t *dev);
/* Hands op to the device thread and waits for it (the caller has set its
 * wait state); the device thread writes the op's trace record. */
void mockrt_tgt_device_run(mockrt_tgt_device_t *dev, mockrt_tgt_op_t *op);
/* Device time now (ns), and its translation to host seconds. */
uint64_t mockrt_tgt_device_now(mockrt_tgt_device_t *dev);
double mockrt_tgt_device_translate(mockrt_tgt_device_t *dev, uint64_t device_ns);
/* Every device's end: trace flushed, modules unloaded, device_finalize. */
void mockrt_tgt_shutdown(void);
bool mockrt_tgt_deterministic(void);
/* What a data operation says, in its callback and in its record alike. */
void mockrt_tgt_op_describe(const mockrt_tgt_device_t *dev, const mockrt_tgt_op_t *op,
                            ompt_record_target_data_op_t *out);
/* The device thread's, or another's (flush_trace from the tool). */
bool mockrt_tgt_on_device_thread(const mockrt_tgt_device_t *dev);

/* ---- images (image.c) ---- */
extern mockrt_tgt_lib_t mockrt_tgt_libs[MOCKRT_TGT_MAX_LIBS];
extern pthread_mutex_t mockrt_tgt_libs_lock;
/* Loads the device's copy of every registered image it has not loaded yet
 * (device_load for each); under the device's lock. */
void mockrt_tgt_image_load_all(mockrt_tgt_device_t *dev);
/* device_unload for each loaded image (at the device's end). */
void mockrt_tgt_image_unload_all(mockrt_tgt_device_t *dev);
/* The kernel for a target region's host id, or NULL (said on stderr). */
void *mockrt_tgt_image_kernel(mockrt_tgt_device_t *dev, const void *region_id);

/* ---- mapping (map.c), under the device's lock ---- */
/*
 * One map-clause list, as a construct hands it over (the __tgt_* arrays).
 * Mapping at the construct's begin, unmapping at its end, an update; each
 * dispatches target_data_op and runs the device operations.  On success
 * begin fills kernel_args with the arguments of a kernel (TARGET_PARAM
 * entries, in order) when it is not NULL.
 */
typedef struct mockrt_tgt_maps {
  int32_t n;
  void **bases;
  void **begins;
  int64_t *sizes;
  int64_t *types;
  void **mappers;
} mockrt_tgt_maps_t;
typedef struct mockrt_tgt_construct {
  mockrt_tgt_device_t *dev;
  ompt_target_t kind;
  ompt_id_t target_id;
  const void *codeptr;
  int wait_state; /* the host thread's state while it waits */
  /* Firstprivate copies made for a kernel, freed at its end. */
  void *privates[MOCKRT_TGT_MAX_ARGS * 2];
  size_t private_bytes[MOCKRT_TGT_MAX_ARGS * 2];
  int nprivates;
  int32_t mapped; /* entries of the list its begin has done */
  /* The tool's word for the construct in the _emi callbacks (target_data),
   * as the tool left it at the construct's begin; and the one handed out
   * instead under MOCKRT_FAULT=emi_target_data_lost. */
  ompt_data_t target_data;
  ompt_data_t lost_data;
} mockrt_tgt_construct_t;
int mockrt_tgt_map_begin(mockrt_tgt_construct_t *c, const mockrt_tgt_maps_t *maps,
                         void **kernel_args, int *nkernel_args);
int mockrt_tgt_map_end(mockrt_tgt_construct_t *c, const mockrt_tgt_maps_t *maps);
int mockrt_tgt_map_update(mockrt_tgt_construct_t *c, const mockrt_tgt_maps_t *maps);
/* Releases a kernel's firstprivate copies. */
void mockrt_tgt_map_free_privates(mockrt_tgt_construct_t *c);
/* A begin that failed is taken back: what it mapped is released, nothing
 * copied back (the host then runs the region on its own data). */
void mockrt_tgt_map_undo(mockrt_tgt_construct_t *c, const mockrt_tgt_maps_t *maps);
/* After a transfer (on the device thread): attached pointers in the range
 * copied get their side's value back. */
void mockrt_tgt_shadow_after_copy(mockrt_tgt_device_t *dev, const mockrt_tgt_op_t *op);
/* The device address of a host address, or NULL if not present. */
void *mockrt_tgt_map_lookup(mockrt_tgt_device_t *dev, const void *host, size_t size);
/* Adds a global of the image: mapped for ever. */
void mockrt_tgt_map_global(mockrt_tgt_device_t *dev, void *host, void *dev_addr, size_t size);
/* Device memory, accounted: NULL past MOCKRT_TARGET_MEMORY. */
void *mockrt_tgt_mem_alloc(mockrt_tgt_device_t *dev, size_t bytes);
void mockrt_tgt_mem_free(mockrt_tgt_device_t *dev, void *p);

/* ---- constructs (construct.c) ---- */
/* A data construct (enter/exit data, update): kind says which. */
int mockrt_tgt_data_construct(int64_t device_id, ompt_target_t kind, const mockrt_tgt_maps_t *maps,
                              const void *codeptr);
/* A target region; num_teams 0 when the construct requests none. */
int mockrt_tgt_target_construct(int64_t device_id, const void *region_id,
                                const mockrt_tgt_maps_t *maps, int32_t num_teams,
                                const void *codeptr);
/* The target_data of c's _emi callbacks after its begin. */
ompt_data_t *mockrt_tgt_target_data(mockrt_tgt_construct_t *c);
/* The host_op_id of an operation once the tool's _emi begin callback has
 * seen it (tool_id, which the tool may have set). */
ompt_id_t mockrt_tgt_host_op_id(ompt_id_t own, ompt_id_t tool_id);
/* The trip count of the calling thread's next kernel (0: unknown). */
void mockrt_tgt_push_tripcount(uint64_t tripcount);

/* ---- kernels (kernel.c) ---- */
/* Calls fn(args[0], ..., args[argc - 1]); argc <= MOCKRT_TGT_MAX_ARGS. */
void mockrt_tgt_kernel_call(void *fn, int argc, void **args);

/* ---- tracing (trace.c) ---- */
void mockrt_tgt_trace_init(mockrt_tgt_trace_t *t);
/* The lookup function device_initialize hands the tool. */
ompt_interface_fn_t mockrt_tgt_trace_lookup(const char *name);
/* Queues a record if its type is traced; returns false if it is not. */
bool mockrt_tgt_trace_add(mockrt_tgt_device_t *dev, const ompt_record_ompt_t *rec);
/* Moves queued records into the tool's buffers; complete_all hands back
 * the current buffer too.  On the device thread. */
void mockrt_tgt_trace_deliver(mockrt_tgt_device_t *dev, bool complete_all);
/* The device of an ompt_device_t handle, or NULL. */
mockrt_tgt_device_t *mockrt_tgt_trace_device(ompt_device_t *handle);

#endif
