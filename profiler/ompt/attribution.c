/* Frame elision and stitching for one sample: see attribution.h. */
#include "ompt/attribution.h"

#include <sched.h>
#include <sys/auxv.h>

#include "core/thread.h"
#include "measure/format.h"
#include "gomp/gomp_interpose.h"
#include "ompt/offload_frames.h"
#include "ompt/ompt_state.h"
#include "ompt/region_paths.h"
#include "unwind/loadmap.h"

const void *knit_task_prefix_word(int flags, ompt_data_t *task_data, ompt_data_t *parallel_data,
                                  const ompt_frame_t *tf)
{
  if ((flags & ompt_task_implicit) && parallel_data)
    return parallel_data->ptr;
  /* An initial task of a host teams construct's league: its region's path
   * (on_parallel_begin captures a league's at once), when the runtime
   * gives the task an exit frame to cut its frames at. The program's own
   * initial task has neither such a region nor an exit frame, and runs to
   * the bottom of its stack, under no prefix. */
  if ((flags & ompt_task_initial) && parallel_data && tf && tf->exit_frame.ptr)
    return parallel_data->ptr;
  /* An explicit task: the path where it was created (task_create), so that
   * its samples sit there whichever thread runs it, and when. */
  if ((flags & ompt_task_explicit) && task_data)
    return task_data->ptr;
  return NULL;
}

const knit_call_path *knit_task_prefix(int flags, ompt_data_t *task_data,
                                       ompt_data_t *parallel_data, const ompt_frame_t *tf)
{
  return knit_region_path_wait(knit_task_prefix_word(flags, task_data, parallel_data, tf));
}

static uint32_t module_of(const void *addr);

/* The runtime's load map id: known since initialization, or looked up. */
static uint32_t runtime_module_id(void)
{
  uint32_t id = knit_ompt_runtime.runtime_module;
  return id != KNIT_MODULE_UNKNOWN ? id : module_of((const void *)knit_ompt_runtime.get_task_info);
}

static bool is_knit_frame(const knit_frame *f)
{
  return knit_loadmap_is_self(f->module);
}

static uint64_t placeholder_for_state(int state)
{
  if (state >= ompt_state_wait_barrier && state <= ompt_state_wait_barrier_teams)
    return KNIT_PH_OMP_BARRIER;
  if (state >= ompt_state_wait_mutex && state <= ompt_state_wait_atomic)
    return KNIT_PH_OMP_LOCK_WAIT;
  if (state == ompt_state_idle)
    return KNIT_PH_OMP_IDLE;
  if (state >= ompt_state_wait_target && state <= ompt_state_wait_target_update)
    return KNIT_PH_OMP_TARGET_WAIT;
  return KNIT_PH_OMP_OVERHEAD;
}

static int append_placeholder(knit_path_frame *out, int len, int max, uint64_t which);

/* Appends frames [first, last] innermost-last, i.e. outermost first. knit's
 * own frames are never the program's: a GOMP wrapper that passes a call
 * through keeps its frame on ISAs where the call cannot be a tail call
 * (ppc64le restores its TOC pointer after an indirect call). */
static int append_frames(knit_path_frame *out, int len, int max, const knit_frame *frames,
                         int first, int last, int sample_index, uint32_t skip_module,
                         bool runtime_inward)
{
  /* A kernel on the host: the offloading library's frames become its
   * construct (ompt/offload_frames.h). */
  knit_offload_run run = knit_offload_run_find(frames, first, last, runtime_inward);
  for (int i = last; i >= first && len < max; i--) {
    if (i == run.outer) {
      len = append_placeholder(out, len, max, KNIT_PH_OMP_TARGET);
      i = run.inner;
      continue;
    }
    if (is_knit_frame(&frames[i]) ||
        (skip_module != KNIT_MODULE_UNKNOWN && frames[i].module == skip_module))
      continue;
    /* A signal trampoline is the kernel's (or QEMU's, or the C library's)
     * plumbing, not a call of the program's: it becomes <signal>, so that
     * the handler's frames sit under the code the signal interrupted, as a
     * debugger shows them. */
    if (frames[i].flags & KNIT_FRAME_SIGNAL) {
      out[len].module = KNIT_MODULE_PLACEHOLDER;
      out[len].offset = KNIT_PH_SIGNAL;
      out[len].kind = KNIT_NODE_PLACEHOLDER;
      len++;
      continue;
    }
    out[len].module = frames[i].module;
    out[len].offset = frames[i].offset;
    /* The interrupted frame's pc is exact, like a sample's: it must not be
     * looked up one byte back as a return address is. */
    bool exact = i == sample_index || (frames[i].flags & KNIT_FRAME_INTERRUPTED);
    out[len].kind = exact ? KNIT_NODE_SAMPLE : KNIT_NODE_CALL;
    len++;
  }
  return len;
}

static int append_placeholder(knit_path_frame *out, int len, int max, uint64_t which)
{
  if (len < max) {
    out[len].module = KNIT_MODULE_PLACEHOLDER;
    out[len].offset = which;
    out[len].kind = KNIT_NODE_PLACEHOLDER;
    len++;
  }
  return len;
}

/* The first frame after the runtime's innermost frames in [first, last]
 * (with what they called: the C library's sched_yield or futex wait), or
 * first when the innermost frames are not the runtime's. A runtime that
 * sets no enter frame while a task waits in it (libomp in a lock) leaves
 * its frames to be cut this way, so that the wait's placeholder stands for
 * them as on every other runtime. */
static int skip_runtime_frames(const knit_frame *frames, int first, int last)
{
  uint32_t runtime = runtime_module_id();
  if (runtime == KNIT_MODULE_UNKNOWN)
    return first;
  int i = first;
  while (i <= last && frames[i].module != runtime)
    i++;
  if (i > last)
    return first;
  while (i <= last && frames[i].module == runtime)
    i++;
  return i;
}

static bool is_system_frame(const knit_frame *f);

/* The first frame past the innermost frames of the offloading library, the
 * runtime and what they called, or first when the innermost frame is the
 * program's (as when no offloading library is known). */
static int skip_target_frames(const knit_frame *frames, int first, int last)
{
  uint32_t target = knit_ompt_runtime.target_module, runtime = runtime_module_id();
  if (target == KNIT_MODULE_UNKNOWN)
    return first;
  int i = first;
  while (i <= last &&
         (frames[i].module == target || frames[i].module == runtime || is_system_frame(&frames[i])))
    i++;
  return i;
}

/* The load map ids of the C library and of the dynamic linker, which the
 * runtime calls (to wait, allocate, format, reach its thread-local data):
 * found at the first sample that asks, once the map holds them (both are
 * loaded before the program starts). KNIT_MODULE_UNKNOWN until then. */
static uint32_t libc_module_id(void)
{
  static uint32_t id = KNIT_MODULE_UNKNOWN;
  uint32_t v = __atomic_load_n(&id, __ATOMIC_RELAXED);
  if (v == KNIT_MODULE_UNKNOWN) {
    v = module_of((const void *)sched_yield);
    __atomic_store_n(&id, v, __ATOMIC_RELAXED);
  }
  return v;
}

static uint32_t linker_module_id(void)
{
  static uint32_t id = KNIT_MODULE_UNKNOWN;
  uint32_t v = __atomic_load_n(&id, __ATOMIC_RELAXED);
  if (v == KNIT_MODULE_UNKNOWN) {
    /* The dynamic linker's load bias is where the kernel mapped it. */
    uint64_t base = getauxval(AT_BASE);
    uint32_t count = knit_loadmap_module_count();
    for (uint32_t i = 0; base != 0 && i < count; i++) {
      const knit_module *m = knit_loadmap_module(i);
      if (m && m->base == base) {
        v = m->id;
        break;
      }
    }
    __atomic_store_n(&id, v, __ATOMIC_RELAXED);
  }
  return v;
}

/* Whether a frame inward of the runtime's is still the runtime's doing:
 * knit's own (a callback), the C library's or the dynamic linker's. Any
 * other is the program's: a callback of its own the runtime calls (a
 * reduction's combiner), whose time is the program's work. */
static bool is_system_frame(const knit_frame *f)
{
  if (f->module == KNIT_MODULE_UNKNOWN)
    return false;
  return is_knit_frame(f) || f->module == libc_module_id() || f->module == linker_module_id();
}

/* When the sample is inside a call into the runtime (module runtime) that
 * set no enter frame (libomp's __kmpc_for_static_init or
 * __kmpc_end_critical, a mock's __kmpc_global_thread_num, the runtime's
 * own work as the master forks or joins a team): the first frame in
 * [first, last] past the runtime's innermost frames and what they called
 * (the C library, the dynamic linker). Otherwise first: the innermost
 * frames are the program's. The runtime's frames are then cut as an enter
 * frame would cut them, and a placeholder stands for them, as on a runtime
 * that sets one for every entry point. */
static int runtime_call_end(const knit_frame *frames, int first, int last, uint32_t runtime)
{
  if (runtime == KNIT_MODULE_UNKNOWN)
    return first;
  int i = first;
  while (i <= last && frames[i].module != runtime && is_system_frame(&frames[i]))
    i++;
  if (i > last || frames[i].module != runtime)
    return first;
  while (i <= last && frames[i].module == runtime)
    i++;
  return i;
}

/* The first of frames[first..last] in module, or -1. */
static int first_frame_of(const knit_frame *frames, int first, int last, uint32_t module)
{
  for (int i = first; i <= last; i++)
    if (frames[i].module == module)
      return i;
  return -1;
}

/* The task a sample is placed by: the running one (level 0). But an
 * undeferred task (if(0)) without an exit frame or a creation path runs
 * called from its creator's frames (libomp gives it no frames: the runtime
 * call that began it has returned before its body is called): its creator,
 * one level up, stands for it then, and *through_creator says so. So does
 * one whose exit frame names no live frame: libomp 14 takes an if(0)
 * task's exit frame from __builtin_frame_address(1) in
 * __kmpc_omp_task_begin_if0, which in code built without frame pointers
 * is whatever the caller keeps in that register (clang keeps the thread's
 * gtid there), and a walk limited by it would keep none of the task's
 * frames. */
static bool sample_task(int *flags, ompt_data_t **task_data, ompt_frame_t **tf,
                        ompt_data_t **parallel_data, bool *through_creator)
{
  int thread_num = 0;
  *through_creator = false;
  if (knit_ompt_runtime.get_task_info(0, flags, task_data, tf, parallel_data, &thread_num) != 2)
    return false;
  bool own_path = *task_data && (*task_data)->ptr && *tf &&
                  knit_ompt_frame_is_live((*tf)->exit_frame.ptr, __builtin_frame_address(0));
  if ((*flags & ompt_task_explicit) && (*flags & ompt_task_undeferred) && !own_path) {
    int up_flags = 0;
    ompt_data_t *up_task = NULL, *up_region = NULL;
    ompt_frame_t *up_frame = NULL;
    if (knit_ompt_runtime.get_task_info(1, &up_flags, &up_task, &up_frame, &up_region,
                                        &thread_num) == 2) {
      *flags = up_flags;
      *task_data = up_task;
      *tf = up_frame;
      *parallel_data = up_region;
      *through_creator = true;
    }
  }
  return true;
}

/* Whether a task's enter frame, which says the task is inside the
 * runtime, is left over from a call that has returned: the sample is in
 * the program's own code, and none of the frames the enter frame would cut
 * is the runtime's. libomp 14 leaves the initial task's enter frame set
 * after a teams construct on the host (every construct a kernel of LLVM's
 * host plugin opens is one), and cutting at it would take the program's
 * frames after it for the runtime's: a probe in a function called after
 * the construct came out as main;<omp-overhead>. A program callback the
 * runtime calls (a reduction's combiner) has the runtime's frames inward
 * of the enter frame, and keeps it. */
static bool enter_frame_is_stale(const knit_frame *frames, int n, const ompt_frame_t *tf,
                                 uint32_t runtime)
{
  if (!tf || !tf->enter_frame.ptr || n == 0 || runtime == KNIT_MODULE_UNKNOWN ||
      frames[0].module == runtime || frames[0].module == KNIT_MODULE_UNKNOWN ||
      is_system_frame(&frames[0]))
    return false;
  int first, last;
  if (!knit_task_frame_range(frames, n, tf, &first, &last))
    first = n;
  for (int i = 0; i < first; i++)
    if (frames[i].module == runtime)
      return false;
  return first > 0;
}

/* The path of a sample taken while a task runs: the task's own frames
 * (between its enter and exit frames) under its prefix, with a placeholder
 * leaf when the task is inside the runtime. */
static int place_task(const knit_frame *frames, int n, knit_unwind_end end, const ompt_frame_t *tf,
                      int flags, const knit_call_path *prefix, int state, int sample_index,
                      bool runtime_leaf, bool through_creator, uint32_t runtime,
                      knit_path_frame *out, int max, bool *partial)
{
  int len = 0;
  int first, last;
  ompt_frame_t checked;
  tf = knit_ompt_frame_checked(tf, &checked);
  /* A call's walk starts at the program's call into the runtime: the
   * runtime's frames, which the enter frame would cut, are gone already.
   * An undeferred task placed through its creator runs above the creator's
   * enter frame, which must not cut it either; the runtime's frames between
   * the two (gcc's GOMP_task) are left out instead. */
  uint32_t skip_module = KNIT_MODULE_UNKNOWN;
  if (through_creator)
    skip_module = runtime_module_id();
  ompt_frame_t own;
  if ((!runtime_leaf || through_creator || enter_frame_is_stale(frames, n, tf, runtime)) && tf) {
    own = *tf;
    own.enter_frame.ptr = NULL;
    tf = &own;
  }
  bool any = knit_task_frame_range(frames, n, tf, &first, &last);
  bool waiting = state >= ompt_state_wait_barrier && state <= ompt_state_wait_atomic;
  if (any && runtime_leaf && waiting && !(tf && tf->enter_frame.ptr)) {
    first = skip_runtime_frames(frames, first, last);
    any = first <= last;
  }
  /* Waiting for a target device: the offloading library's frames, with
   * the runtime's and the system's they called, are the wait, which the
   * placeholder stands for; the program's call into the library is the
   * construct. */
  bool target_wait = state >= ompt_state_wait_target && state <= ompt_state_wait_target_update;
  if (any && runtime_leaf && target_wait) {
    first = skip_target_frames(frames, first, last);
    any = first <= last;
    waiting = true;
  }
  /* An implicit or explicit task without an exit frame is not running its
   * own code (it is in a barrier after its body, say): none of the frames
   * below the runtime are its own. Only the initial task runs to the
   * bottom of its stack. */
  bool cut_at_runtime = false;
  if (!(flags & ompt_task_initial) && !(tf && tf->exit_frame.ptr)) {
    /* But libomp 14 gives the implicit task of a team of one inside a host
     * teams construct no exit frame while its body runs: a sample in the
     * program's code there has its own frames up to the runtime frame
     * that called the body (the path's capture cuts there too,
     * call_paths.c). */
    int call = any && (flags & ompt_task_implicit) && prefix && runtime != KNIT_MODULE_UNKNOWN &&
                       frames[first].module != runtime
                   ? first_frame_of(frames, first, last, runtime)
                   : -1;
    cut_at_runtime = call > first;
    if (cut_at_runtime)
      last = call - 1;
    else
      any = false;
  }
  /* A sample inside a runtime call that set no enter frame: the runtime's
   * frames go, as above. */
  bool in_call = false;
  if (any && runtime_leaf && !waiting && !(tf && tf->enter_frame.ptr)) {
    int past = runtime_call_end(frames, first, last, runtime);
    if (past > first) {
      in_call = true;
      first = past;
      any = first <= last;
    }
  }
  /* A partial unwind matters only when it stopped inside the task's own
   * frames, before the runtime frame that called the task: past that point
   * the prefix stands for the rest of the path. */
  bool found_exit = ((tf && tf->exit_frame.ptr) || cut_at_runtime) && last < n - 1;
  /* A task with an exit frame has frames of its own: a walk that stopped
   * before them (inside the runtime, say) lost them all. */
  *partial = end == KNIT_UNWIND_PARTIAL && !found_exit && (any || (tf && tf->exit_frame.ptr));
  if (*partial) {
    len = append_placeholder(out, len, max, KNIT_PH_PARTIAL);
  } else if (prefix) {
    len = (int)knit_path_copy(prefix, out, (uint32_t)max);
  }
  if (any)
    len = append_frames(out, len, max, frames, first, last, sample_index, skip_module,
                        runtime_leaf && first > 0 && frames[first - 1].module == runtime);
  /* Inside the runtime: named by what the thread is doing there. Runtimes
   * do not all set an enter frame while a task waits (libomp in a join
   * barrier or a lock), so a wait state says it too; nor in every call
   * (in_call). A task with no frames of its own is not running its code
   * either: its region's master forking or joining the team, a worker
   * past the body, an explicit task the runtime is about to call (on
   * its own stack segment, say). Its prefix alone would charge the
   * runtime's time to the function that opened the region or created the
   * task, as if it were that function's own work. */
  bool runtime_only = !any && !*partial;
  /* The host's wait goes under the construct it waits for, whose node
   * holds what the device did (ompt/device.c). */
  if (runtime_leaf && target_wait && any)
    len = append_placeholder(out, len, max, KNIT_PH_OMP_TARGET);
  if (runtime_leaf && ((tf && tf->enter_frame.ptr) || waiting || in_call || runtime_only))
    len = append_placeholder(out, len, max, placeholder_for_state(state));
  return len;
}

/* Whether a sample of a thread inside a wrapped GOMP wait is in the wait
 * itself: every frame inward of the wrapper is the runtime's, the C
 * library's or knit's (the runtime starting a thread). Any other frame
 * there is the program's: an explicit task that libgomp runs while the
 * thread waits at a barrier. The thread works then, and the path is the
 * task's own, as before the wait. */
static bool in_gomp_wait(const knit_frame *frames, int n, const knit_gomp_view *v)
{
  for (int i = 0; i < n && frames[i].cfa < (uint64_t)v->wait.enter_cfa; i++) {
    if (frames[i].module != v->runtime_module && frames[i].module != v->libc_module &&
        !is_knit_frame(&frames[i]))
      return false;
  }
  return true;
}

/* The path a prefix word stands for. A region whose path is still being
 * captured: a call waits for it; a sample cannot, and goes without it, its
 * caller told (st->pending_slot) to keep it until the path is known
 * (ompt/region_paths.h). */
static const knit_call_path *prefix_of(const void *word, bool may_wait, knit_sample_state *st)
{
  if (may_wait)
    return knit_region_path_wait(word);
  const knit_call_path *prefix = NULL;
  if (!knit_region_path_peek(word, &prefix, &st->pending_slot, &st->pending_number))
    return NULL;
  return prefix;
}

/* The path of frames[top..n): the first is the innermost frame kept, an
 * exact pc when top is 0 (a sample), else a return address. runtime_leaf:
 * a sample inside the runtime ends in a placeholder that says what the
 * thread does there. */
static int attribute_from(const knit_frame *frames, int n, knit_unwind_end end, int top,
                          bool runtime_leaf, bool may_wait, knit_path_frame *out, int max,
                          bool *partial, knit_sample_state *st)
{
  *partial = false;
  st->pending_slot = NULL;
  st->pending_number = 0;
  st->openmp = false;
  st->state = ompt_state_undefined;
  st->wait_id = 0;
  if (top >= n)
    top = 0; /* nothing but knit: keep the stack as it is */
  frames += top;
  n -= top;
  int sample_index = top > 0 ? -1 : 0;

  knit_thread *t = knit_thread_self();
  uint32_t thread_flags = t ? atomic_load(&t->flags) : 0;
  bool openmp = (thread_flags & KNIT_THREAD_OPENMP) && knit_ompt_runtime.active;
  int len = 0;
  if (!openmp) {
    /* No OMPT: the GOMP wrappers may know the region and the wait (GNU
     * libgomp). */
    knit_gomp_view v;
    knit_gomp_view_self(t, &v);
    st->openmp = v.openmp;
    st->state = v.state;
    ompt_frame_t tf = v.frame;
    /* A sample in knit's own code (top > 0: a wrapper about to wait, or
     * back from it) is not in the wait yet, nor is the walk of a call. But
     * a wrapper's overhead (forking a team, creating a task) is knit's work
     * too, its capture of the creator's path: the runtime's overhead, as
     * under OMPT, where the capture runs in the runtime's callback. */
    bool in_wrapper = top == 0 || v.wait.state == ompt_state_overhead;
    if (v.wait.enter_cfa && runtime_leaf && in_wrapper && in_gomp_wait(frames, n, &v)) {
      st->state = v.wait.state;
      st->wait_id = v.wait.wait_id;
      tf.enter_frame.ptr = (void *)v.wait.enter_cfa;
      tf.enter_frame_flags = ompt_frame_runtime | ompt_frame_cfa;
    }
    if (!v.task_flags && !tf.enter_frame.ptr)
      return append_placeholder(out, len, max, KNIT_PH_OMP_IDLE);
    len =
        place_task(frames, n, end, &tf, v.task_flags ? v.task_flags : ompt_task_initial,
                   prefix_of(v.prefix, may_wait, st), st->state, sample_index, runtime_leaf, false,
                   v.runtime_module != KNIT_MODULE_UNKNOWN ? v.runtime_module : runtime_module_id(),
                   out, max, partial);
    if (*partial)
      st->pending_slot = NULL;
    return len;
  }

  ompt_wait_id_t wait_id = 0;
  int state = knit_ompt_runtime.get_state(&wait_id);
  st->openmp = true;
  st->state = state;
  st->wait_id = wait_id;
  int flags = 0;
  ompt_data_t *task_data = NULL, *parallel_data = NULL;
  ompt_frame_t *tf = NULL;
  bool through_creator;
  if (!sample_task(&flags, &task_data, &tf, &parallel_data, &through_creator)) {
    /* No task: a pool thread waiting for work, or runtime bookkeeping. */
    return append_placeholder(out, len, max, placeholder_for_state(state));
  }

  const void *word = knit_task_prefix_word(flags, task_data, parallel_data, tf);
  if (flags & ompt_task_implicit)
    word = knit_region_unlent(t, parallel_data, tf, word);
  len = place_task(frames, n, end, tf, flags, prefix_of(word, may_wait, st), state, sample_index,
                   runtime_leaf, through_creator, runtime_module_id(), out, max, partial);
  /* A partial path has no prefix to wait for. */
  if (*partial)
    st->pending_slot = NULL;
  return len;
}

/* The innermost frame of knit's own after which the program's begin. */
static int first_after_knit(const knit_frame *frames, int n, bool probe)
{
  /* A probe's sample starts inside knit_probe_fire: cut every frame up to
   * and including the innermost run of knit's own frames; the next is the
   * program's call to the probe. (Only that run: knit frames further out,
   * such as a thread start wrapper, are not the probe's.) */
  int top = 0;
  if (probe) {
    while (top < n && !is_knit_frame(&frames[top]))
      top++;
  }
  /* A timer sample that lands in knit's own code (a probe call in a timer
   * run) is charged to the program's call into knit, the same way. */
  while (top < n && is_knit_frame(&frames[top]))
    top++;
  return top;
}

int knit_attribute_sample(const knit_frame *frames, int n, knit_unwind_end end, bool probe,
                          knit_path_frame *out, int max, bool *partial, knit_sample_state *st)
{
  return attribute_from(frames, n, end, first_after_knit(frames, n, probe), true, false, out, max,
                        partial, st);
}

int knit_attribute_call(const knit_frame *frames, int n, knit_unwind_end end, uint64_t call_ra,
                        uint32_t runtime_module, knit_path_frame *out, int max, bool *partial,
                        knit_sample_state *st)
{
  /* The runtime's call to the tool starts in knit's callback; the program's
   * call into the runtime returns to call_ra. */
  int top = -1;
  for (int i = 1; i < n && call_ra; i++) {
    if (frames[i].pc == call_ra) {
      top = i;
      break;
    }
  }
  if (top < 0) {
    /* No such frame (the runtime gave no return address): cut knit's frames
     * and the runtime's innermost ones. */
    top = first_after_knit(frames, n, false);
    while (top < n - 1 && frames[top].module == runtime_module)
      top++;
  }
  /* The call's own path: no placeholder for the runtime it is in. */
  return attribute_from(frames, n, end, top, false, true, out, max, partial, st);
}

/* The load map id of the module holding code at addr, or
 * KNIT_MODULE_UNKNOWN. */
static uint32_t module_of(const void *addr)
{
  const knit_module *m = knit_loadmap_find(knit_loadmap_current(), (uint64_t)(uintptr_t)addr);
  return m ? m->id : KNIT_MODULE_UNKNOWN;
}

void knit_unwind_limit(uint64_t *stop_at, bool *stop_is_cfa, uint32_t *runtime_module)
{
  *stop_at = 0;
  *stop_is_cfa = false;
  *runtime_module = KNIT_MODULE_UNKNOWN;
  knit_thread *t = knit_thread_self();
  uint32_t thread_flags = t ? atomic_load(&t->flags) : 0;
  const ompt_frame_t *tf = NULL;
  ompt_frame_t synth;
  const void *prefix;
  if ((thread_flags & KNIT_THREAD_OPENMP) && knit_ompt_runtime.active) {
    int flags = 0;
    ompt_data_t *task_data = NULL, *parallel_data = NULL;
    ompt_frame_t *frame = NULL;
    bool through_creator;
    /* The initial task has no exit frame: its walk goes to the bottom.
     * A league's initial task with one stops there, as other tasks do. */
    if (sample_task(&flags, &task_data, &frame, &parallel_data, &through_creator) &&
        (!(flags & ompt_task_initial) ||
         knit_task_prefix_word(flags, task_data, parallel_data, frame) != NULL))
      tf = frame;
    *runtime_module = runtime_module_id();
  } else if (knit_gomp_current_task(&synth, &prefix)) {
    tf = &synth;
  }
  if (tf && tf->exit_frame.ptr) {
    *stop_at = (uint64_t)(uintptr_t)tf->exit_frame.ptr;
    *stop_is_cfa = (knit_ompt_frame_flags(tf->exit_frame_flags) & ompt_frame_cfa) != 0;
  }
}
