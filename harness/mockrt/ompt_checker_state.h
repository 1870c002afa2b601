/* The OMPT checker's shared state: what the callbacks record
 * (ompt_checker.c) and what the final checks read (ompt_checker_report.c).
 * Every record is guarded by checker_mu. */
#ifndef KNIT_OMPT_CHECKER_STATE_H
#define KNIT_OMPT_CHECKER_STATE_H

#include <omp-tools.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_THREADS 512
#define MAX_OPEN 16
#define MAX_REGIONS 4096
#define MAX_IDS 65536
#define MAX_LOCKS 16
#define MAX_VIOLATIONS 64
#define MAX_CALLBACK 64

/* What one thread has seen: its begin/end and its open regions and tasks. */
typedef struct thread_rec {
  int index;
  bool begun, ended;
  int type;
  struct {
    ompt_data_t *pd;
    uint64_t key;
  } par[MAX_OPEN];
  int npar;
  struct {
    ompt_data_t *td;
    uint64_t value;               /* what we stored in *td at begin */
    uint64_t key;                 /* the region's key; 0 for an initial task */
    unsigned index, size;
  } imp[MAX_OPEN];
  int nimp;
  int work[MAX_OPEN];             /* ompt_work_t of the open worksharing constructs */
  int nwork;
  int nmasked;                    /* open masked (master) regions */
} thread_rec_t;

/* A parallel region, keyed by the number stored in its parallel_data at begin. */
typedef struct region_rec {
  unsigned actual;                /* actual_parallelism its first implicit task said */
  unsigned begins;                /* implicit tasks that began in it */
  uint64_t indices[4];            /* thread_num bits seen (up to 256) */
} region_rec_t;

/* One entry per promise: how often it was broken and the first evidence. */
typedef struct violation_rec {
  const char *promise;
  int count;
  char evidence[200];
} violation_rec_t;

extern pthread_mutex_t checker_mu;
/* The runtime is the mock: its stricter promises are checked as well. */
extern bool checker_strict;
extern char checker_runtime_version[160];

extern ompt_set_callback_t checker_set_callback;
extern ompt_get_state_t checker_get_state;
extern ompt_get_task_info_t checker_get_task_info;
extern ompt_get_parallel_info_t checker_get_parallel_info;
extern ompt_get_unique_id_t checker_get_unique_id;

extern violation_rec_t checker_violations[MAX_VIOLATIONS];
extern int checker_n_violations;
extern thread_rec_t checker_threads[MAX_THREADS];
extern int checker_n_threads;
extern region_rec_t checker_regions[MAX_REGIONS];
extern uint64_t checker_n_regions;
extern uint64_t checker_ids[MAX_IDS];
extern size_t checker_n_ids;
extern int checker_n_initialize, checker_n_finalize;
extern unsigned long checker_events[MAX_CALLBACK];
extern int checker_set_answer[MAX_CALLBACK];

/* Records a broken promise; called with checker_mu held. */
void checker_violate(const char *promise, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The calling thread's record, made on its first event. */
thread_rec_t *checker_me_locked(void);
/* The same, counting an event and checking it comes between thread_begin and thread_end. */
thread_rec_t *checker_event_locked(ompt_callbacks_t which, const char *what);
/* Remembers an id for the unique_ids check. */
void checker_note_id_locked(uint64_t id);
/* A frame address's flags say how to read it: a CFA or a frame pointer. */
bool checker_frame_flags_valid(int flags);

/* Explicit tasks (ompt_checker_tasks.c): their callbacks and final checks. */
void checker_register_task_callbacks(void);
void checker_task_final_checks_locked(void);

/* Registers every callback the checker has with checker_set_callback and
 * remembers each answer in checker_set_answer. */
void checker_register_callbacks(void);

#endif /* KNIT_OMPT_CHECKER_STATE_H */
