/*
 * Fork and join of parallel regions, minus the call of the outlined
 * function, which the personality's entry point (master) and the pool's
 * worker loop (workers) make themselves so the stack layout is theirs.
 *
 * A team lives on the master's stack, in the entry point's frame.  That is
 * safe for signal handlers because the master does not return (and so does
 * not free the team) before every worker has unpublished its implicit task.
 */
#include "mockrt.h"
#include "fault.h"

#include <string.h>

/* Inlined: called from both copies of fork, it would otherwise be a call. */
static inline __attribute__((always_inline)) void
mockrt_team_setup(mockrt_team_t *team, mockrt_task_t *enc, void (*fn)(void *), void *data,
                  unsigned nthreads, const void *codeptr)
{
  mockrt_team_t *outer = enc->team;
  team->fn = fn;
  team->data = data;
  team->micro = NULL;
  team->nthreads = nthreads;
  /* A league and a team's own region are no nesting level (host teams). */
  bool counts = team->kind == MOCKRT_TEAM_PARALLEL;
  team->level = outer->level + counts;
  team->active_level = outer->active_level + (counts && nthreads > 1);
  team->cg_limit = outer->cg_limit;
  team->cg_thread_limit_var = outer->cg_thread_limit_var;
  team->team_num = team->kind == MOCKRT_TEAM_TEAMS_BODY ? (unsigned)enc->thread_num : 0;
  team->num_teams = nthreads;
  team->encountering = enc;
  /* OMP_NUM_THREADS=4,2: the implicit tasks of level 1 ask for 2 threads. */
  team->tasks_nthreads_var = team->level < mockrt_icv.nthreads_levels
                                 ? mockrt_icv.nthreads_list[team->level]
                                 : enc->nthreads_var;
  team->codeptr = codeptr;
  mockrt_barrier_init(&team->barrier, nthreads);
  mockrt_barrier_init(&team->cancel_barrier, nthreads);
  atomic_init(&team->cancelled, 0);
  atomic_init(&team->task_gen, 0);
  atomic_init(&team->ws_cancelled, 0);
  atomic_init(&team->left, 0);
  team->preset_ws = false;
  mockrt_task_team_init(team);
  for (unsigned i = 0; i < MOCKRT_WS_SLOTS; i++) {
    atomic_init(&team->ws[i].ticket, i);
    atomic_init(&team->ws[i].phase, 0);
  }
}

/*
 * A region libomp 14 serializes: a team of one, except a parallel region
 * inside a teams construct, which it forms as a team even when
 * thread_limit leaves it one thread.
 */
static bool mockrt_team_serialized(const mockrt_team_t *team)
{
  return team->nthreads == 1 && !(team->kind == MOCKRT_TEAM_PARALLEL && team->encountering &&
                                  team->encountering->team->kind == MOCKRT_TEAM_TEAMS_BODY);
}

/* A region's flags and its implicit tasks' as a tool sees them. */
static int mockrt_team_flags(const mockrt_team_t *team)
{
  return team->kind == MOCKRT_TEAM_LEAGUE ? ompt_parallel_league : ompt_parallel_team;
}
static int mockrt_team_task_flags(const mockrt_team_t *team)
{
  return team->kind == MOCKRT_TEAM_LEAGUE ? ompt_task_initial : ompt_task_implicit;
}

/*
 * What a tool sees of fork and join, kept out of line (cold): inline, the
 * code a run without a tool never executes still cost it registers saved
 * and restored in every function (bench/ompt_overhead).
 */
__attribute__((noinline, cold)) static void mockrt_parallel_begin_seen(mockrt_team_t *team,
                                                                       mockrt_task_t *enc,
                                                                       unsigned want,
                                                                       const void *codeptr)
{
  if (mockrt_fault(MOCKRT_FAULT_ENTER_FRAME_FLAGS_WRONG))
    enc->frame.enter_frame_flags = ompt_frame_runtime;
  if (mockrt_ompt.parallel_begin)
    mockrt_ompt.parallel_begin(&enc->task_data, &enc->frame, &team->parallel_data, want,
                               team->invoker | (mockrt_fault(MOCKRT_FAULT_LEAGUE_FLAGS_WRONG)
                                                    ? (int)ompt_parallel_team
                                                    : mockrt_team_flags(team)),
                               codeptr);
}

__attribute__((noinline, cold)) static void
mockrt_parallel_end_seen(mockrt_thread_t *self, mockrt_team_t *team, mockrt_task_t *enc)
{
  if (mockrt_ompt.parallel_end && !mockrt_fault(MOCKRT_FAULT_PARALLEL_END_DROPPED))
    mockrt_ompt.parallel_end(mockrt_fault(MOCKRT_FAULT_PARALLEL_DATA_MISMATCH)
                                 ? &mockrt_fault_stray_data
                                 : &team->parallel_data,
                             &enc->task_data, team->invoker | mockrt_team_flags(team),
                             team->inline_serial ? NULL : team->codeptr);
  /* A serialized region's implicit task was current until here (mockrt_implicit_end). */
  if (mockrt_team_serialized(team)) {
    atomic_signal_fence(memory_order_seq_cst);
    self->task = enc;
    atomic_signal_fence(memory_order_seq_cst);
  }
  /* A league's and a team's tasks are at level 0, inside a team still. */
  mockrt_set_state(self, enc->team->level > 0 || enc->team->kind != MOCKRT_TEAM_PARALLEL
                             ? ompt_state_work_parallel
                             : ompt_state_work_serial);
}

__attribute__((noinline, cold)) static void mockrt_implicit_begin_seen(mockrt_thread_t *self,
                                                                       mockrt_team_t *team,
                                                                       mockrt_task_t *task,
                                                                       int thread_num)
{
  if (mockrt_ompt.implicit_task)
    mockrt_ompt.implicit_task(ompt_scope_begin, &team->parallel_data, &task->task_data,
                              team->nthreads + mockrt_fault(MOCKRT_FAULT_TEAM_SIZE_WRONG),
                              mockrt_fault(MOCKRT_FAULT_THREAD_NUM_WRONG) ? 0
                                                                          : (unsigned)thread_num,
                              mockrt_team_task_flags(team));
  mockrt_set_state(self, ompt_state_work_parallel);
}

__attribute__((noinline, cold)) static void mockrt_implicit_end_seen(mockrt_team_t *team,
                                                                     mockrt_task_t *task)
{
  if (mockrt_ompt.implicit_task &&
      !(mockrt_fault(MOCKRT_FAULT_IMPLICIT_TASK_END_DROPPED) && task->thread_num != 0))
    /* As libomp 14: no team (it may be gone by the time a worker ends its
     * task), and the team's size for the primary thread alone (not even
     * that for a league's initial tasks). */
    mockrt_ompt.implicit_task(
        ompt_scope_end, NULL, &task->task_data,
        task->thread_num == 0 && team->kind != MOCKRT_TEAM_LEAGUE ? team->nthreads : 0,
        (unsigned)task->thread_num, mockrt_team_task_flags(team));
}

/*
 * The entry points below come in two copies, chosen by one test of the
 * tool flag: tool is a constant in each, so the copy a run without a tool
 * takes has no OMPT code at all, and the other is out of line (cold).
 */
static inline __attribute__((always_inline)) void mockrt_implicit_begin_body(mockrt_team_t *team,
                                                                             mockrt_task_t *task,
                                                                             int thread_num,
                                                                             const bool tool)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  mockrt_task_t *enc = team->encountering;

  memset(task, 0, sizeof *task);
  task->parent = enc;
  task->team = team;
  task->thread_num = thread_num;
  task->flags = MOCKRT_IMPLICIT_TASK_FLAGS;
  task->nthreads_var = team->tasks_nthreads_var;
  /* A team that starts inside a loop (combined parallel loop) is in slot 0. */
  if (team->preset_ws) {
    task->ws = &team->ws[0];
    task->ws_next = 1;
  }
  /* The task is complete before it becomes visible to a signal handler. */
  atomic_signal_fence(memory_order_seq_cst);
  self->task = task;
  atomic_signal_fence(memory_order_seq_cst);
  /* As libomp 14: a team's implicit tasks begin in work_parallel; a team
   * of one begins in the state its fork left (overhead, or the
   * encountering task's when the program serialized the region).  Set
   * once the task is current, so that the state always names its task. */
  if (tool && team->nthreads > 1)
    mockrt_set_state(self, ompt_state_work_parallel);
  if (tool)
    mockrt_implicit_begin_seen(self, team, task, thread_num);
  if (team->preset_ws)
    mockrt_ws_preset_begin(task, team->codeptr);
}

__attribute__((noinline, cold)) static void
mockrt_implicit_begin_observed(mockrt_team_t *team, mockrt_task_t *task, int thread_num)
{
  mockrt_implicit_begin_body(team, task, thread_num, true);
}

void mockrt_implicit_begin_plain(mockrt_team_t *team, mockrt_task_t *task, int thread_num)
{
  mockrt_implicit_begin_body(team, task, thread_num, false);
}

void mockrt_implicit_begin(mockrt_team_t *team, mockrt_task_t *task, int thread_num)
{
  if (MOCKRT_OMPT_ON)
    mockrt_implicit_begin_observed(team, task, thread_num);
  else
    mockrt_implicit_begin_body(team, task, thread_num, false);
}

/* The part of the end of an implicit task that master and workers share. */
static inline __attribute__((always_inline)) void
mockrt_implicit_end(mockrt_team_t *team, mockrt_task_t *task, int after_state,
                    mockrt_task_t *after_task, const bool tool)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  /* The join barrier sets no enter frame, as libomp 14's: the body has
   * returned and no frame of the task's own is left on the stack.  The
   * join is overhead from its barrier on; a team of one has no barrier and
   * ends in the state its body left, as on libomp 14. */
  if (tool && team->nthreads > 1 && !mockrt_fault(MOCKRT_FAULT_OVERHEAD_STATE_MISSING))
    mockrt_set_state(self, ompt_state_overhead);
  /* A team of one (a serialized region) has no barrier a tool sees, as on
   * libomp 14; its pending tasks still run here. */
  /* Only the primary thread's join barrier names the region's code, as
   * on libomp 14. */
  if (tool && team->nthreads > 1)
    mockrt_barrier_wait_observed_ex(task, ompt_sync_region_barrier_implicit,
                                    task->thread_num == 0 ? team->codeptr : NULL, true);
  else
    mockrt_barrier_wait_plain(task, ompt_sync_region_barrier_implicit, team->codeptr);
  if (tool)
    mockrt_implicit_end_seen(team, task);
  /* A serialized region's implicit task stays current until its
   * parallel_end (mockrt_parallel_end_seen), where libomp 14 still
   * answers from inside it. */
  if (!(tool && mockrt_team_serialized(team) && after_task)) {
    atomic_signal_fence(memory_order_seq_cst);
    self->task = after_task;
    atomic_signal_fence(memory_order_seq_cst);
  }
  /* A team of one leaves the primary thread in its body's state until
   * parallel_end (libomp 14). */
  if (tool && (team->nthreads > 1 || !after_task))
    mockrt_set_state(self, after_state);
}

__attribute__((noinline, cold)) static void mockrt_implicit_end_worker_observed(mockrt_team_t *team,
                                                                                mockrt_task_t *task)
{
  mockrt_implicit_end(team, task,
                      mockrt_fault(MOCKRT_FAULT_IDLE_STATE_WRONG) ? ompt_state_wait_barrier_implicit
                                                                  : ompt_state_idle,
                      NULL, true);
}

void mockrt_implicit_end_worker_plain(mockrt_team_t *team, mockrt_task_t *task)
{
  mockrt_implicit_end(team, task, ompt_state_idle, NULL, false);
}

void mockrt_implicit_end_worker(mockrt_team_t *team, mockrt_task_t *task)
{
  if (MOCKRT_OMPT_ON)
    mockrt_implicit_end_worker_observed(team, task);
  else
    mockrt_implicit_end(team, task, ompt_state_idle, NULL, false);
}

static void mockrt_no_init(mockrt_team_t *team, void *arg)
{
  (void)team;
  (void)arg;
}

static inline __attribute__((always_inline)) void
mockrt_fork_body(mockrt_team_t *team, mockrt_task_t *master_task, void (*fn)(void *), void *data,
                 unsigned requested, const void *codeptr, mockrt_team_init_fn init, void *arg,
                 const bool tool)
{
  mockrt_thread_t *self = mockrt_self();
  mockrt_task_t *enc = self->task;
  unsigned want = requested ? requested : (unsigned)enc->nthreads_var;
  unsigned nthreads;
  /* parallel_begin names the size asked for, before the thread limit cuts
   * it, as libomp 14 does. */
  unsigned asked = want < 1 ? 1 : want;

  if (want > (unsigned)mockrt_icv.thread_limit)
    want = (unsigned)mockrt_icv.thread_limit;
  if (want < 1)
    want = 1;
  team->parallel_data.value = 0;
  /* As libomp 14: a region forked through the runtime's trampoline is the
   * runtime's to invoke, any other (GNU ABI, serialized) the program's. */
  team->invoker =
      self->fork_by_runtime ? ompt_parallel_invoker_runtime : ompt_parallel_invoker_program;
  team->inline_serial = self->fork_inline;
  self->fork_by_runtime = self->fork_inline = false;
  team->kind = self->fork_kind;
  self->fork_kind = MOCKRT_TEAM_PARALLEL;
  /* As libomp 14: parallel_begin comes in the encountering task's state,
   * then the fork is the runtime's overhead (not a region the program
   * serializes itself). */
  if (tool)
    mockrt_parallel_begin_seen(team, enc, asked, codeptr);
  if (tool && !team->inline_serial && !mockrt_fault(MOCKRT_FAULT_OVERHEAD_STATE_MISSING))
    mockrt_set_state(self, ompt_state_overhead);
  /*
   * parallel_begin may already have stored into parallel_data, so team
   * setup leaves it alone.  A region nested deeper than max-active-levels
   * active regions runs on a team of one; otherwise the pool gives it as
   * many workers as it has idle or can start (it grows for inner teams).
   */
  nthreads = 1;
  team->nthreads = 0;
  /* Inside a teams construct its thread_limit bounds every team. */
  if (enc->team->cg_limit && want > enc->team->cg_limit)
    want = enc->team->cg_limit;
  /* A team's own region (host teams) is its initial thread alone. */
  if (enc->team->active_level < mockrt_icv.max_active_levels && want > 1 &&
      team->kind != MOCKRT_TEAM_TEAMS_BODY)
    nthreads = 1 + mockrt_pool_reserve(team, want - 1);
  mockrt_team_setup(team, enc, fn, data, nthreads, codeptr);
  (init ? init : mockrt_no_init)(team, arg);
  if (nthreads > 1)
    mockrt_pool_start(team);
  if (tool)
    mockrt_implicit_begin_observed(team, master_task, 0);
  else
    mockrt_implicit_begin_plain(team, master_task, 0);
  if (tool && mockrt_probe_at(MOCKRT_PROBE_FORK))
    mockrt_probe_take();
}

__attribute__((noinline, cold)) static void
mockrt_fork_observed(mockrt_team_t *team, mockrt_task_t *master_task, void (*fn)(void *),
                     void *data, unsigned requested, const void *codeptr, mockrt_team_init_fn init,
                     void *arg)
{
  mockrt_fork_body(team, master_task, fn, data, requested, codeptr, init, arg, true);
}

void mockrt_fork_ex_plain(mockrt_team_t *team, mockrt_task_t *master_task, void (*fn)(void *),
                          void *data, unsigned requested, const void *codeptr,
                          mockrt_team_init_fn init, void *arg)
{
  mockrt_fork_body(team, master_task, fn, data, requested, codeptr, init, arg, false);
}

void mockrt_fork_ex(mockrt_team_t *team, mockrt_task_t *master_task, void (*fn)(void *), void *data,
                    unsigned requested, const void *codeptr, mockrt_team_init_fn init, void *arg)
{
  /* The calling thread is attached (and any tool found) before the test. */
  (void)mockrt_self();
  mockrt_ompt_places_bound();
  if (MOCKRT_OMPT_ON)
    mockrt_fork_observed(team, master_task, fn, data, requested, codeptr, init, arg);
  else
    mockrt_fork_body(team, master_task, fn, data, requested, codeptr, init, arg, false);
}

void mockrt_fork(mockrt_team_t *team, mockrt_task_t *master_task, void (*fn)(void *), void *data,
                 unsigned requested, const void *codeptr)
{
  mockrt_fork_ex(team, master_task, fn, data, requested, codeptr, NULL, NULL);
}

static inline __attribute__((always_inline)) void
mockrt_join_body(mockrt_team_t *team, mockrt_task_t *master_task, const bool tool)
{
  mockrt_thread_t *self = &mockrt_self_tls;
  mockrt_task_t *enc = team->encountering;

  mockrt_implicit_end(team, master_task, ompt_state_overhead, enc, tool);
  if (tool && mockrt_probe_at(MOCKRT_PROBE_JOIN))
    mockrt_probe_take();
  /* Workers still read the team until they have left it. */
  unsigned want = team->nthreads - 1, left;
  int spins = 0;
  while ((left = atomic_load_explicit(&team->left, memory_order_acquire)) != want) {
    if (!mockrt_spin(&spins, MOCKRT_SPIN_WAIT))
      mockrt_futex_wait(&team->left, left);
  }
  if (tool)
    mockrt_parallel_end_seen(self, team, enc);
}

__attribute__((noinline, cold)) static void mockrt_join_observed(mockrt_team_t *team,
                                                                 mockrt_task_t *master_task)
{
  mockrt_join_body(team, master_task, true);
}

void mockrt_join_plain(mockrt_team_t *team, mockrt_task_t *master_task)
{
  mockrt_join_body(team, master_task, false);
}

void mockrt_join(mockrt_team_t *team, mockrt_task_t *master_task)
{
  if (MOCKRT_OMPT_ON)
    mockrt_join_observed(team, master_task);
  else
    mockrt_join_body(team, master_task, false);
}
