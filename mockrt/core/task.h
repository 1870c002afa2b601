/*
 * Explicit tasks: what the personalities' task entry points (gomp/task.c,
 * kmpc/task.c) share with the core's task pool (core/task.c).
 *
 * A task is a mockrt_xtask_t: the mockrt_task_t that OMPT sees, first, then
 * the pool's bookkeeping, then (at MOCKRT_XTASK_HDR) the personality's data:
 * the copy of a GOMP task's arguments, or clang's kmp_task_t with its
 * privates and shareds.  The personality says how the body is called
 * (invoke), because the runtime frame that calls the body is the task's
 * exit frame and each layout has its own.
 *
 * Lifetime: a task is freed when it is complete and every child it had is
 * freed, so the parent pointers a signal handler follows from a running
 * task always lead to live memory.
 */
#ifndef MOCKRT_CORE_TASK_H
#define MOCKRT_CORE_TASK_H

#include "mockrt.h"

/* A taskgroup: the tasks created in it, and their descendants, not yet complete. */
typedef struct mockrt_taskgroup {
  atomic_int pending;
  atomic_int cancelled;           /* cancel taskgroup: its tasks not yet started are discarded */
  struct mockrt_taskgroup *outer; /* the group open around it in the same task */
} mockrt_taskgroup_t;

/* One dependence: an address and an ompt_dependence_type_t. */
typedef struct mockrt_dep {
  void *addr;
  int type;
} mockrt_dep_t;

typedef struct mockrt_xtask mockrt_xtask_t;
/*
 * Calls the body: stores its own CFA as the task's exit frame (it is the
 * runtime function that calls the body), calls it, clears the exit frame.
 */
typedef void (*mockrt_task_invoke_t)(mockrt_xtask_t *x);
/*
 * An invoke calls this once the task's exit frame is stored, before the
 * body: with a tool, the task becomes current there and its task_schedule
 * is sent, so that a tool finds the exit frame in place, as on libomp 14.
 */
void mockrt_task_invoked(mockrt_xtask_t *x);

struct mockrt_xtask {
  mockrt_task_t task; /* first: a mockrt_task_t * converts back */
  mockrt_task_invoke_t invoke;
  void *fn;                           /* the body, as the personality calls it */
  void *arg;                          /* its argument */
  void (*release)(mockrt_xtask_t *x); /* optional: free what arg owns */
  mockrt_xtask_t *next;               /* in the team's ready queue */
  mockrt_xtask_t *dep_next;           /* in the parent's dep_children list */
  mockrt_taskgroup_t *group;          /* the group it counts in, or NULL */
  mockrt_thread_t *owner;             /* the creating thread (deterministic mode) */
  atomic_int refs;                    /* 1 until complete, plus one per child not freed */
  int npred;                          /* predecessors not complete (team lock) */
  int ndeps;
  mockrt_dep_t *deps;
  mockrt_xtask_t **succ; /* tasks that wait for this one (team lock) */
  int nsucc, capsucc;
  bool complete;    /* team lock */
  bool undeferred;  /* runs on its creator, never queued */
  bool again;       /* the body asked to be called once more (untied parts) */
  size_t data_size; /* bytes of personality data at MOCKRT_XTASK_HDR */
  int priority;     /* scheduling hint, 0 .. max-task-priority */
  /* A switch to this task that waits for its invoke to store the exit
   * frame (mockrt_task_invoked): the task it leaves, and the status. */
  mockrt_task_t *switch_prior;
  int switch_status;
  /* detach(event): the task completes once its body has ended and the event is fulfilled. */
  bool detachable;
  int event; /* mockrt_event_state, under event_lock */
  atomic_int event_lock;
};

/* Where a detachable task's allow-completion event stands. */
enum mockrt_event_state {
  MOCKRT_EVENT_PENDING = 0, /* neither fulfilled nor waited for */
  MOCKRT_EVENT_FULFILLED,   /* fulfilled (before or after the body ended) */
  MOCKRT_EVENT_DETACHED,    /* the body ended first: completion waits for the event */
};

/* Where the personality's data starts: aligned for anything up to 64 bytes. */
#define MOCKRT_XTASK_HDR ((sizeof(mockrt_xtask_t) + 63) & ~(size_t)63)

static inline void *mockrt_task_data(mockrt_xtask_t *x)
{
  return (char *)x + MOCKRT_XTASK_HDR;
}
static inline mockrt_xtask_t *mockrt_task_of_data(void *data)
{
  return (mockrt_xtask_t *)((char *)data - MOCKRT_XTASK_HDR);
}

/*
 * A new task with extra zeroed bytes of personality data, created by the
 * calling thread's current task; flags are the ompt_task_* flags the
 * construct asks for (explicit is added; a task created in a final task is
 * final and undeferred: included).  Aborts when out of memory.
 */
mockrt_xtask_t *mockrt_task_new(size_t extra, int flags);

/*
 * task_create, dependences, and then: an undeferred task waits for its
 * dependences (running other tasks) and runs at once, on this thread; a
 * deferred one is queued for any thread of the team.  The caller has set
 * the encountering task's enter frame; codeptr is the return address into
 * the program.
 */
void mockrt_task_submit(mockrt_xtask_t *x, const mockrt_dep_t *deps, int ndeps,
                        const void *codeptr);
/* The same for a caller that has found mockrt_ompt_attached clear (no OMPT at all). */
void mockrt_task_submit_plain(mockrt_xtask_t *x, const mockrt_dep_t *deps, int ndeps,
                              const void *codeptr);
/*
 * The task's priority clause: a hint, clamped to 0 .. max-task-priority
 * (OMP_MAX_TASK_PRIORITY, 0 by default, as in libgomp and libomp, so that
 * without it every task has the same priority).  Among the ready tasks a
 * thread may run, it takes the one of highest priority, the first ready
 * among equals.
 */
void mockrt_task_set_priority(mockrt_xtask_t *x, int priority);
int mockrt_task_max_priority(void);

/*
 * detach(event): x completes when its body has ended and the event, whose
 * handle is x itself, is fulfilled (mockrt_task_fulfill, from any thread).
 * OMPT (5.0): a body that ends first is switched out with ompt_task_detach;
 * the fulfilment then dispatches task_schedule(x, ompt_task_complete, NULL).
 * An event fulfilled before the body ends has no event of its own: the
 * body's end is the task's completion.
 */
void mockrt_task_make_detachable(mockrt_xtask_t *x);
void mockrt_task_fulfill(mockrt_xtask_t *x);

/*
 * A taskloop's work event (ompt_work_taskloop), as libomp dispatches it:
 * inside the taskloop's taskgroup, around the creation of its tasks, with
 * the loop's iteration count at both ends.
 */
void mockrt_task_taskloop_event(mockrt_task_t *enc, int endpoint, unsigned long long count,
                                const void *codeptr);
/* Free a task that was never submitted (a taskloop's pattern). */
void mockrt_task_discard(mockrt_xtask_t *x);

/*
 * An undeferred task whose body the program calls itself (__kmpc's if0):
 * begin dispatches task_create and the switch and makes x current; end
 * makes the encountering task current again and completes x.
 */
void mockrt_task_begin_inline(mockrt_xtask_t *x, const void *codeptr);
void mockrt_task_end_inline(mockrt_xtask_t *x);

/* Scheduling points; the caller has set the current task's enter frame. */
void mockrt_task_taskwait(const void *codeptr);
/* Wait for the current task's children that conflict with deps. */
void mockrt_task_wait_deps(const mockrt_dep_t *deps, int ndeps, const void *codeptr);
void mockrt_task_group_begin(const void *codeptr);
void mockrt_task_group_end(const void *codeptr);
void mockrt_task_yield(void);

/* True if the current task is final (omp_in_final). */
bool mockrt_task_in_final(void);

/* ---- inside the core only: the dependence graph (task_dep.c), under the team lock ---- */
/*
 * Make x wait for its parent's conflicting children and add it to them;
 * returns how many of them a tool is told of (task_dependence: not two
 * mutexinoutset tasks), with *preds a malloc'd array of those, each
 * holding a reference the caller drops (after reporting the edges).
 */
int mockrt_dep_link_locked(mockrt_xtask_t *x, mockrt_task_t *parent, mockrt_xtask_t ***preds);
/* True while a child of parent conflicts with deps. */
bool mockrt_dep_blocked_locked(mockrt_task_t *parent, const mockrt_dep_t *deps, int ndeps);
/* x is complete: leave the parent's list and release the successors. */
void mockrt_dep_finish_locked(mockrt_xtask_t *x);
/* A task whose last predecessor completed (task.c). */
void mockrt_task_ready_locked(mockrt_xtask_t *x);

#endif
