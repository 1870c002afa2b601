/*
 * What a test program tells the OMPT checker (libknit_ompt_checker.so),
 * which it is linked with (or which is preloaded).  The checker can only
 * compare the runtime's answers with facts the program knows: where an
 * outlined body's frame and locals are, which thread and team size OpenMP
 * gave it, which locks exist, which constructs it runs.
 */
#ifndef KNIT_CONFORM_CHECKER_H
#define KNIT_CONFORM_CHECKER_H

/* The ABI the program was compiled for: what its compiler emits decides
 * which constructs a runtime can see at all (gcc open-codes master). */
#if defined(__clang__)
#define KNIT_CHECKER_ABI "kmpc"
#else
#define KNIT_CHECKER_ABI "gomp"
#endif

/*
 * Called once, first thing in main: abi is KNIT_CHECKER_ABI, exercised the
 * set of ompt_callbacks_t values (bit 1 << value) whose events the program
 * is certain to cause.  A callback answered `always` and exercised must
 * bring events; one answered `never` must bring none.
 */
void knit_ompt_checker_program(const char *abi, unsigned long long exercised);

/* The bit of callback cb in that set, and the events of any program with a
 * parallel region and a lock (omp-tools.h must come first). */
#define KNIT_CHECKER_EVENT(cb) (1ull << (cb))
#define KNIT_CHECKER_REGION_EVENTS                                                                 \
  (KNIT_CHECKER_EVENT(ompt_callback_thread_begin) |                                                \
   KNIT_CHECKER_EVENT(ompt_callback_parallel_begin) |                                              \
   KNIT_CHECKER_EVENT(ompt_callback_parallel_end) |                                                \
   KNIT_CHECKER_EVENT(ompt_callback_implicit_task) |                                               \
   KNIT_CHECKER_EVENT(ompt_callback_mutex_acquire) |                                               \
   KNIT_CHECKER_EVENT(ompt_callback_mutex_acquired) |                                              \
   KNIT_CHECKER_EVENT(ompt_callback_mutex_released) | KNIT_CHECKER_EVENT(ompt_callback_masked))

/*
 * Called from an outlined body: local is the address of one of the body's
 * own locals, ra its return address (__builtin_return_address(0), into the
 * runtime function that called it), thread_num and team_size what
 * omp_get_thread_num() and omp_get_num_threads() said.  The checker asks
 * the runtime's inquiry functions and compares.
 */
void knit_ompt_checker_probe(const void *local, const void *ra, int thread_num, int team_size);

/*
 * Called from an explicit task's body: local is the address of one of its
 * locals.  The checker asks get_task_info(0) and (1) and compares with the
 * task_create and task_schedule events it has seen on this thread.
 */
void knit_ompt_checker_task_probe(const void *local);

/*
 * Called from an explicit task's body: firstprivate is the address of the
 * task's firstprivate variable, of size bytes.  The checker asks
 * ompt_get_task_memory for block 0, which must hold all of it.
 */
void knit_ompt_checker_task_memory(const void *firstprivate, unsigned long size);

/*
 * Called from a teams construct's body (host teams, __kmpc_* ABI only):
 * team_num and num_teams are what omp_get_team_num() and
 * omp_get_num_teams() said.  The checker compares them with the initial
 * task of the league that began on this thread.
 */
void knit_ompt_checker_teams_probe(int team_num, int num_teams);

/*
 * Called by an offloading program before its first target construct:
 * kernels is how many kernels it launches, to_device and from_device the
 * bytes of every transfer its map clauses, target update and enter/exit
 * data cause in each direction (one entry per transfer).  The checker
 * compares them with target_data_op and target_submit (checker_target.c).
 */
void knit_ompt_checker_target_expect(unsigned kernels, const unsigned long *to_device, int n_to,
                                     const unsigned long *from_device, int n_from);

/* Called from a kernel's body (an offloaded function calls back into the
 * host process: the devices knit checks run on the host's ISA): the checker
 * samples the host thread that launched the kernel, which must report a
 * wait_target state unless the kernel runs on that thread itself. */
void knit_ompt_checker_target_await(void);

/* Called by an offloading program after its last target construct: the
 * checker flushes and stops tracing on every device, so that every trace
 * buffer must be back and every callback have its record. */
void knit_ompt_checker_target_stop(void);

/* Called before omp_init_lock(lock): the lock's address is its wait id. */
void knit_ompt_checker_lock(const void *lock);

/*
 * What a thread that makes others wait expects them to report while they
 * wait (checker_await.c).  The caller holds what they wait for, or stays
 * away from the barrier they wait in, until the checker has sampled each
 * of them in the expected state, or given up.
 */
enum knit_checker_wait {
  KNIT_CHECKER_WAIT_CRITICAL,         /* teammates blocked entering a critical region */
  KNIT_CHECKER_WAIT_LOCK,             /* teammates blocked in omp_set_lock */
  KNIT_CHECKER_WAIT_BARRIER_EXPLICIT, /* teammates in an explicit barrier */
  KNIT_CHECKER_WAIT_BARRIER_IMPLICIT, /* teammates in a worksharing loop's implicit barrier */
  KNIT_CHECKER_WAIT_TASKWAIT,         /* from a task's body: its creator in a taskwait */
  KNIT_CHECKER_WAIT_TASKGROUP,        /* from a task's body: its creator ending a taskgroup */
  KNIT_CHECKER_WAIT_ORDERED,          /* teammates waiting for their turn in an ordered region */
};
/* object: the critical's lock (the address of its name) or the lock, else NULL. */
void knit_ompt_checker_await(int what, const void *object);
/* From serial code after a region: the pool's threads are idle. */
void knit_ompt_checker_await_idle(void);

#endif
