/*
 * What the mock device (mockrt/target, libomptarget.so) needs from the host
 * mock runtime: the tool's target and device callbacks, the id source the
 * tool sees, and the calling host thread's OMPT state.  The two libraries
 * are separate drop-ins, so the device finds this table at run time with
 * dlsym(RTLD_DEFAULT, "mockrt_ompt_target_hooks"); on a real libomp the
 * symbol is absent and the mock device then reports no OMPT at all.
 *
 * Only this header is shared between the two; everything in it is plain
 * data and function pointers, so that a device library built from another
 * revision fails the version test instead of calling through a stale layout.
 */
#ifndef MOCKRT_CORE_TARGET_HOOKS_H
#define MOCKRT_CORE_TARGET_HOOKS_H

#include <omp-tools.h>
#include <stdbool.h>
#include <stdint.h>

#define MOCKRT_TARGET_HOOKS_VERSION 2

/* OpenMP 5.1's numbers of the _emi target callbacks (after reduction, 31,
 * and dispatch, 32): a tool and the runtime must agree on them, and an
 * omp-tools.h older than 5.1 has none (KNIT_OMPT_HEADER_SRC names it). */
_Static_assert(ompt_callback_target_emi == 33 && ompt_callback_target_data_op_emi == 34 &&
                   ompt_callback_target_submit_emi == 35 && ompt_callback_target_map_emi == 36,
               "omp-tools.h numbers the _emi target callbacks as OpenMP 5.1 does");

/*
 * The tool's callbacks for target constructs and devices, as registered
 * with ompt_set_callback; NULL when not registered, and all NULL again once
 * the tool is finalized.  Read each pointer once per event: the table lives
 * in the host runtime.  Where a tool registered both the OpenMP 5.0 form
 * and OpenMP 5.1's _emi form of an event, the _emi one is dispatched, as
 * LLVM's runtimes since 15 do.
 */
typedef struct mockrt_target_cbs {
  ompt_callback_target_t target;
  ompt_callback_target_data_op_t target_data_op;
  ompt_callback_target_submit_t target_submit;
  ompt_callback_target_map_t target_map;
  ompt_callback_target_emi_t target_emi;
  ompt_callback_target_data_op_emi_t target_data_op_emi;
  ompt_callback_target_submit_emi_t target_submit_emi;
  ompt_callback_target_map_emi_t target_map_emi;
  ompt_callback_device_initialize_t device_initialize;
  ompt_callback_device_finalize_t device_finalize;
  ompt_callback_device_load_t device_load;
  ompt_callback_device_unload_t device_unload;
} mockrt_target_cbs_t;

/*
 * What the device library tells the host runtime about itself once it is
 * loaded: how many devices it offers (omp_get_num_devices and
 * ompt_get_num_devices answer it) and how to finalize them, which the host
 * runtime does at its shutdown, before the tool's finalize, so that the
 * tool sees device_finalize and the last trace buffers while it still works.
 */
typedef struct mockrt_target_device_ops {
  int (*num_devices)(void);
  void (*shutdown)(void);
} mockrt_target_device_ops_t;

typedef struct mockrt_target_hooks {
  int version; /* MOCKRT_TARGET_HOOKS_VERSION */
  const mockrt_target_cbs_t *cbs;
  /* The id source of ompt_get_unique_id: target ids and host_op_ids. */
  uint64_t (*unique_id)(void);
  /* The MOCKRT_FAULT in force (an enum mockrt_fault_id of core/fault.h);
   * a function, because the host runtime reads the setting in a
   * constructor that may run after the device library's. */
  int (*fault)(void);
  /* MOCKRT_DETERMINISTIC=1, as the host runtime read it. */
  bool (*deterministic)(void);
  /* Attaches the calling thread to the host runtime, which initializes the
   * tool first if no thread has entered the runtime yet. */
  void (*attach)(void);
  /* True while a tool is initialized and not finalized. */
  bool (*tool_active)(void);
  /* Sets the calling thread's state (an ompt_state_t) and returns the one it
   * replaces, which the caller passes back to restore it. */
  int (*set_state)(int state);
  /* The calling thread's current task's data, for the target callback. */
  ompt_data_t *(*task_data)(void);
  /* What ompt_get_target_info answers on the calling thread: a target
   * construct's device, target id and current host_op_id; target_id 0
   * says the thread is in none. */
  void (*set_target_info)(int device_num, ompt_id_t target_id, ompt_id_t host_op_id);
  /* The device library announces itself (ops stays valid until exit). */
  void (*attach_devices)(const mockrt_target_device_ops_t *ops);
  /* A device thread that ran kernels ends: its initial task and thread get
   * their end events now (at exit, the host runtime gives none itself). */
  void (*thread_end)(void);
} mockrt_target_hooks;

/* Exported by the host mock runtime (core/target_hooks.c). */
const mockrt_target_hooks *mockrt_ompt_target_hooks(void);

#endif
