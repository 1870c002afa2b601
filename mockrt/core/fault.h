/*
 * Fault injection: MOCKRT_FAULT=name makes the mock break exactly one OMPT
 * promise, so that a checker (the conformance suite, harness/conform) can be shown to catch each one.  The name is read once,
 * when the library is loaded; an unknown name is reported on stderr with the
 * list of valid names and the run goes on without a fault.
 * docs/mockrt-faults.md says which check catches which fault.
 */
#ifndef MOCKRT_CORE_FAULT_H
#define MOCKRT_CORE_FAULT_H

#include "mockrt.h"

/* X(id, name, what the mock does wrong): one line of documentation each. */
#define MOCKRT_FOREACH_FAULT(X)                                                                    \
  X(EXIT_FRAME_WRONG, "exit_frame_wrong",                                                          \
    "the master's implicit task names an exit frame 64 KiB below the runtime frame that calls "    \
    "the body")                                                                                    \
  X(ENTER_FRAME_MISSING, "enter_frame_missing",                                                    \
    "no enter frame is set while a task waits in an explicit barrier")                             \
  X(ENTER_FRAME_FLAGS_WRONG, "enter_frame_flags_wrong",                                            \
    "the encountering task's enter frame flags say neither cfa nor framepointer at "               \
    "parallel_begin")                                                                              \
  X(PARALLEL_END_DROPPED, "parallel_end_dropped", "parallel_end is never dispatched")              \
  X(IMPLICIT_TASK_END_DROPPED, "implicit_task_end_dropped",                                        \
    "workers' implicit tasks never get their scope_end event")                                     \
  X(THREAD_BEGIN_DROPPED, "thread_begin_dropped", "worker threads get no thread_begin event")      \
  X(BARRIER_STATE_WRONG, "barrier_state_wrong",                                                    \
    "a thread waiting in a barrier reports ompt_state_work_parallel")                              \
  X(LOCK_WAIT_ID_WRONG, "lock_wait_id_wrong",                                                      \
    "mutex_acquire/acquired give a wait id 8 bytes past the lock")                                 \
  X(UNIQUE_ID_REUSED, "unique_id_reused", "ompt_get_unique_id returns the same id every time")     \
  X(THREAD_NUM_WRONG, "thread_num_wrong", "implicit_task begin gives index 0 to every thread")     \
  X(TEAM_SIZE_WRONG, "team_size_wrong",                                                            \
    "implicit_task begin reports one thread more than the team has")                               \
  X(SET_CALLBACK_LIES, "set_callback_lies",                                                        \
    "ompt_set_callback answers always for ompt_callback_work but never dispatches it")             \
  X(PARALLEL_DATA_MISMATCH, "parallel_data_mismatch",                                              \
    "parallel_end passes another parallel_data than parallel_begin did")                           \
  X(TASK_INFO_LEVEL_WRONG, "get_task_info_level_wrong",                                            \
    "ompt_get_task_info and ompt_get_parallel_info answer for the level one further out")          \
  X(FINALIZE_DROPPED, "finalize_dropped", "the tool's finalize is never called")                   \
  X(INITIALIZE_TWICE, "initialize_twice", "the tool's initialize is called twice")                 \
  X(WORK_END_DROPPED, "work_end_dropped", "a loop's work end event is never dispatched")           \
  X(DISPATCH_OUTSIDE_WORK, "dispatch_outside_work",                                                \
    "a dispatch event follows the work end of every loop and sections construct")                  \
  X(ORDERED_WAIT_ID_WRONG, "ordered_wait_id_wrong",                                                \
    "a thread waiting for its ordered turn reports a wait id 8 bytes past the one mutex_acquire "  \
    "names")                                                                                       \
  X(MASKED_END_DROPPED, "masked_end_dropped",                                                      \
    "the end of a master or masked region is never dispatched")                                    \
  X(CANCEL_FLAGS_WRONG, "cancel_flags_wrong",                                                      \
    "cancel events name no construct (only activated or detected)")                                \
  X(TASK_SCHEDULE_PRIOR_WRONG, "task_schedule_prior_wrong",                                        \
    "a task_schedule with the wrong prior task: the task being started names itself as prior")     \
  X(EXIT_FRAME_NOT_CALLERS, "exit_frame_not_callers",                                              \
    "the master's exit frame names a frame above the runtime function that calls the body")        \
  X(CRITICAL_STATE_WRONG, "critical_state_wrong",                                                  \
    "a thread waiting to enter a critical region reports wait_lock")                               \
  X(LOCK_STATE_MISSING, "lock_state_missing",                                                      \
    "a thread blocked on a lock keeps reporting the state it worked in")                           \
  X(STATE_WAIT_ID_WRONG, "state_wait_id_wrong",                                                    \
    "a thread waiting for a mutex reports a wait id 8 bytes past the one its events name")         \
  X(ATOMIC_STATE_WRONG, "atomic_state_wrong",                                                      \
    "a thread waiting for an atomic reports wait_critical")                                        \
  X(BARRIER_KIND_WRONG, "barrier_kind_wrong",                                                      \
    "a thread waiting in an explicit barrier reports wait_barrier_implicit")                       \
  X(TASK_WAIT_STATES_SWAPPED, "task_wait_states_swapped",                                          \
    "a taskwait reports wait_taskgroup and the end of a taskgroup wait_taskwait")                  \
  X(IDLE_STATE_WRONG, "idle_state_wrong",                                                          \
    "a pool thread between regions reports wait_barrier_implicit")                                 \
  X(OVERHEAD_STATE_MISSING, "overhead_state_missing",                                              \
    "fork and join keep the encountering thread's work state instead of overhead")                 \
  X(SYNC_REGION_END_DROPPED, "sync_region_end_dropped",                                            \
    "the sync_region end of an explicit barrier is never dispatched")                              \
  X(SYNC_WAIT_BEFORE_REGION, "sync_wait_before_region",                                            \
    "a barrier's sync_region_wait begins before its sync_region")                                  \
  X(ANCESTOR_LEVEL_WRONG, "ancestor_level_wrong",                                                  \
    "ompt_get_task_info and ompt_get_parallel_info skip a level beyond level 1")                   \
  X(ORDERED_STATE_WRONG, "ordered_state_wrong",                                                    \
    "a thread waiting for its ordered turn reports wait_lock")                                     \
  X(TASK_MEMORY_WRONG, "task_memory_wrong",                                                        \
    "ompt_get_task_memory answers an explicit task's data block one byte short")                   \
  X(LEAGUE_FLAGS_WRONG, "league_flags_wrong",                                                      \
    "a teams construct's parallel_begin says ompt_parallel_team, not ompt_parallel_league")        \
  X(TEAM_NUM_WRONG, "team_num_wrong", "omp_get_team_num counts the teams from 1, not from 0")      \
  X(FINALIZE_BEFORE_ENDS, "finalize_before_ends",                                                  \
    "at shutdown the tool is finalized before the runtime's end events (thread_end, the initial "  \
    "task's implicit_task end), which then reach no tool")                                         \
  X(TARGET_ID_MISMATCH, "target_id_mismatch",                                                      \
    "the mock device's trace records of data operations and kernels name a target id no target "   \
    "callback announced")                                                                          \
  X(HOST_OP_ID_MISMATCH, "host_op_id_mismatch",                                                    \
    "the mock device's trace records name a host_op_id one past the one their target_data_op or "  \
    "target_submit callback gave")                                                                 \
  X(BUFFER_COMPLETE_NEVER, "buffer_complete_never",                                                \
    "the mock device never hands a trace buffer back: flush_trace and stop_trace return without "  \
    "buffer_complete")                                                                             \
  X(RECORD_TIME_REVERSED, "record_time_reversed",                                                  \
    "the mock device's data operation and kernel records end before they begin")                   \
  X(TRANSLATE_TIME_WRONG, "translate_time_wrong",                                                  \
    "ompt_translate_time forgets the device clock's origin: device times translate to seconds "    \
    "near 0, outside the host's run")                                                              \
  X(DATA_OP_BYTES_WRONG, "data_op_bytes_wrong",                                                    \
    "transfers to the mock device report 8 bytes more than the map clause moves, in the "          \
    "target_data_op callback and in the record")                                                   \
  X(DEVICE_INITIALIZE_MISSING, "device_initialize_missing",                                        \
    "the mock device never dispatches device_initialize (its constructs and device_load still "    \
    "name it)")                                                                                    \
  X(TARGET_WAIT_STATE_WRONG, "target_wait_state_wrong",                                            \
    "a host thread waiting for the mock device keeps the state it had, not wait_target, "          \
    "wait_target_map or wait_target_update")                                                       \
  X(EMI_TARGET_DATA_LOST, "emi_target_data_lost",                                                  \
    "the mock device's _emi callbacks after a construct's begin get a target_data of their own, "  \
    "not the one the tool filled at the begin")                                                    \
  X(EMI_HOST_OP_ID_IGNORED, "emi_host_op_id_ignored",                                              \
    "the mock device's records keep its own host_op_id where the tool set another in a "           \
    "target_data_op_emi or target_submit_emi begin")

enum mockrt_fault_id {
  MOCKRT_FAULT_NONE = 0,
#define MOCKRT_FAULT_ENUM(id, name, doc) MOCKRT_FAULT_##id,
  MOCKRT_FOREACH_FAULT(MOCKRT_FAULT_ENUM)
#undef MOCKRT_FAULT_ENUM
};

/* The fault chosen by MOCKRT_FAULT, or MOCKRT_FAULT_NONE; set before any thread runs. */
extern MOCKRT_HIDDEN int mockrt_fault_active;

/* True if this run breaks the promise named by id: one load and a compare. */
static inline bool mockrt_fault(enum mockrt_fault_id id)
{
  return MOCKRT_UNLIKELY(mockrt_fault_active == (int)id);
}

/*
 * Probe points: MOCKRT_PROBE=fork,join (either or both) makes the runtime
 * take a knit probe (include/knit/probe.h) itself, with a tool attached,
 * at moments when no code of the program runs, so that a PROBE run
 * samples them every time, where timer samples land only by chance:
 *   fork: the master, its implicit task just made current, before the
 *         body is called (no exit frame yet);
 *   join: the master after its implicit task has ended: the encountering
 *         task current again, with its enter frame, state overhead, the
 *         workers not yet gone.
 * A walk from either crosses the entry point that opened the region,
 * laid out as the compiler made it: gcc splits the tool's side of the
 * mock's GOMP_parallel into GOMP_parallel.cold, entered at two places,
 * and knit once read the join's return address 32 bytes off there.
 * Read by the same constructor as MOCKRT_FAULT; an unknown name is
 * reported on stderr.
 */
enum { MOCKRT_PROBE_FORK = 1, MOCKRT_PROBE_JOIN = 2 };
extern MOCKRT_HIDDEN int mockrt_probe_points;
/* Takes the probe (nothing when knit is not loaded). */
void mockrt_probe_take(void);
static inline bool mockrt_probe_at(int point)
{
  return MOCKRT_UNLIKELY(mockrt_probe_points & point);
}

/* An ompt_data_t that belongs to no region (for parallel_data_mismatch). */
extern ompt_data_t mockrt_fault_stray_data;

/*
 * exit_frame_wrong and exit_frame_not_callers: gives t the exit frame addr
 * (64 KiB below the caller's CFA, where the body's callees would live, so
 * it cuts the body away; or a frame above the caller) and returns a
 * scratch slot for a trampoline that would otherwise store the right
 * address over it.
 */
void **mockrt_fault_exit_frame(mockrt_task_t *t, void *addr);

#endif
