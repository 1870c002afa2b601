/* The OMPT checker's shared state: what the callbacks record and what the
 * final checks and the results read.  Every record is guarded by
 * checker_mu. */
#ifndef KNIT_CONFORM_CHECKER_STATE_H
#define KNIT_CONFORM_CHECKER_STATE_H

#include <omp-tools.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conform/checks.h"

#define MAX_THREADS  512
#define MAX_OPEN     16
#define MAX_REGIONS  4096
#define MAX_IDS      65536
#define MAX_LOCKS    16
#define MAX_CALLBACK 64
#define EVIDENCE_LEN 240

/* How binding a check is: see conform/checks.def. */
enum { SPEC, KNIT };

typedef enum check_id {
#define CHECK(id, name, category, level, callback, doc) CHK_##id,
#include "conform/checks.def"
  CHK_COUNT
} check_id;

typedef struct check_info {
  const char *name;
  knit_check_category category;
  int level;
  int callback; /* ompt_callbacks_t it needs, or 0 */
} check_info;

extern const check_info checker_catalog[CHK_COUNT];

/* How often a check held and was broken, the first evidence of a break,
 * and what a pass can say beyond a count (checker_note). */
typedef struct check_rec {
  unsigned long held, violated;
  char evidence[EVIDENCE_LEN];
  char note[EVIDENCE_LEN];
} check_rec_t;

/* What a signal handler read on a thread (checker_sample.c): a request
 * number, answered by the same number once state and wait id are in. */
typedef struct sample_slot {
  atomic_uint req, ack;
  atomic_int state;
  atomic_ullong wait_id;
} sample_slot_t;

/* What one thread has seen: its begin/end and its open regions and tasks. */
typedef struct thread_rec {
  int index;
  bool begun, ended;
  int type;
  bool ran_task; /* an implicit task began on it */
  struct {
    ompt_data_t *pd;
    uint64_t key;
  } par[MAX_OPEN];
  int npar;
  struct {
    ompt_data_t *td;
    uint64_t value;  /* what we stored in *td at begin */
    uint64_t key;    /* the region's key; 0 for an initial task */
    uint64_t league; /* an initial task of a league: the league's key, else 0 */
    unsigned index, size;
  } imp[MAX_OPEN];
  int nimp;
  int work[MAX_OPEN]; /* ompt_work_t of the open worksharing constructs */
  int nwork;
  int nmasked; /* open masked (master) regions */
  struct {
    int kind;       /* ompt_sync_region_t */
    bool wait;      /* a sync_region_wait inside the region */
  } sync[MAX_OPEN]; /* open sync regions and waits, innermost last */
  int nsync;
  /* A mutex_acquire whose acquired has not come: the thread waits for it. */
  bool acq_pending;
  int acq_kind; /* ompt_mutex_t */
  ompt_wait_id_t acq_id;
  pthread_t pthread; /* the thread itself, for sampling signals */
  sample_slot_t slot;
} thread_rec_t;

/* A parallel region, keyed by the number stored in its parallel_data at begin. */
typedef struct region_rec {
  uint64_t enc_value;  /* what the encountering task's task_data held */
  uint64_t outer_key;  /* the region of that task, 0 for the initial task's */
  unsigned actual;     /* actual_parallelism its first implicit task said */
  unsigned begins;     /* implicit tasks that began in it */
  uint64_t indices[4]; /* thread_num bits seen (up to 256) */
  int flags;           /* parallel_begin's flags (ompt_parallel_flag_t) */
} region_rec_t;

extern pthread_mutex_t checker_mu;
/* The runtime claims knit's contract (its version says "mockrt"): KNIT
 * checks are binding. */
extern bool checker_strict;
extern char checker_runtime_version[160];
extern unsigned checker_omp_version;
extern bool checker_started; /* ompt_start_tool was called */
extern char checker_abi[8];  /* "gomp" or "kmpc", from the program */
extern unsigned long long checker_exercised;

extern ompt_set_callback_t checker_set_callback;
extern ompt_get_state_t checker_get_state;
extern ompt_get_task_info_t checker_get_task_info;
extern ompt_get_parallel_info_t checker_get_parallel_info;
extern ompt_get_unique_id_t checker_get_unique_id;
extern ompt_get_task_memory_t checker_get_task_memory; /* NULL if lookup has none */
extern ompt_get_target_info_t checker_get_target_info; /* NULL if lookup has none */

extern check_rec_t checker_checks[CHK_COUNT];
extern thread_rec_t checker_threads[MAX_THREADS];
extern int checker_n_threads;
extern region_rec_t checker_regions[MAX_REGIONS];
extern uint64_t checker_n_regions;
extern uint64_t checker_ids[MAX_IDS];
extern size_t checker_n_ids;
extern int checker_n_initialize, checker_n_finalize;
extern unsigned long checker_events[MAX_CALLBACK];
extern int checker_set_answer[MAX_CALLBACK];

/* Records that a check held, or was broken with evidence; called with
 * checker_mu held. */
void checker_held(check_id id);
void checker_violate(check_id id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What a passing check's verdict adds to its count; the first note stays. */
void checker_note(check_id id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define EXPECT(id, ok, ...)                                                                        \
  do {                                                                                             \
    if (ok)                                                                                        \
      checker_held(id);                                                                            \
    else                                                                                           \
      checker_violate(id, __VA_ARGS__);                                                            \
  } while (0)

/* A violation that fails the run: any on a strict runtime, SPEC ones elsewhere. */
bool checker_is_failure(check_id id);

/* The calling thread's record, made on its first event. */
thread_rec_t *checker_me_locked(void);
/* The same, counting an event and checking it comes between thread_begin and thread_end. */
thread_rec_t *checker_event_locked(ompt_callbacks_t which, const char *what);
/* Remembers an id for the unique_ids check. */
void checker_note_id_locked(uint64_t id);
/* A frame address's flags say how to read it: a CFA or a frame pointer. */
bool checker_frame_flags_valid(int flags);
/* The record of thread index i, or NULL. */
thread_rec_t *checker_thread_at(int i);
/* The name of a state, for evidence. */
const char *checker_state_name(int state);
/* Milliseconds on a monotonic clock. */
double checker_now_ms(void);
/* The address of a lock the program registered. */
bool checker_is_lock(ompt_wait_id_t id);
/* A sync region kind that is a barrier (checker_sync.c). */
bool checker_is_barrier_kind(int kind);

/* Registration, per concern; each remembers its answers in checker_set_answer. */
void checker_register_thread_callbacks(void); /* checker_threads.c */
void checker_register_sync_callbacks(void);   /* checker_sync.c */
void checker_register_work_callbacks(void);   /* checker_work.c */
void checker_register_task_callbacks(void);   /* checker_tasks.c */
void checker_register_other_callbacks(void);  /* checker_callbacks.c */
void checker_register_target_callbacks(void); /* checker_target.c */

/* Final checks that need the whole run, per concern. */
void checker_thread_final_checks_locked(void);
/* At finalize: the runtime's end events came first (checker_threads.c). */
void checker_ends_before_finalize_locked(void);
void checker_task_final_checks_locked(void);
void checker_sync_final_checks_locked(void);
/* Devices, targets and trace buffers at finalize (checker_target.c). */
void checker_target_final_checks_locked(void);

/* The region key of an implicit task by the value the checker stored in
 * its task_data (checker_threads.c); false if no implicit task had it.
 * The initial task's key is 0. */
bool checker_implicit_key_locked(uint64_t value, uint64_t *key);
/* The creator's value of an explicit task by its value (checker_tasks.c). */
bool checker_task_creator_locked(uint64_t value, uint64_t *creator);
/* The thread that created the explicit task the calling thread runs, or -1. */
int checker_current_task_creator_locked(const thread_rec_t *t);

/* The inquiry answers for levels 0.. of a thread at one moment (checker_ancestors.c). */
#define ANCESTOR_LEVELS 6
typedef struct ancestry {
  int have_task[ANCESTOR_LEVELS];
  uint64_t task[ANCESTOR_LEVELS]; /* task_data's value, 0 without task_data */
  int have_par[ANCESTOR_LEVELS];
  uint64_t par[ANCESTOR_LEVELS]; /* parallel_data's value */
  int size[ANCESTOR_LEVELS];
} ancestry_t;
/* Asks get_task_info and get_parallel_info for every level; no lock held. */
void checker_ask_ancestry(ancestry_t *a);
/* Compares levels above 0 with the records: from an outlined body
 * (from_task false) every level; from a task's body levels above 1, and
 * only if level 1 was its creator.  value is level 0's. */
void checker_check_ancestry_locked(const thread_rec_t *t, const ancestry_t *a, uint64_t value,
                                   bool from_task, bool level1_right);

/* The runtime function that called an outlined body (checker_caller.c):
 * found by unwinding from the probe to the frame the body returns into (ra).
 * Called without checker_mu. */
typedef struct body_caller {
  bool found;           /* the unwinder reached the body's caller */
  const void *cfa, *fp; /* its CFA and frame pointer */
  bool in_runtime;      /* the body's return address is in the runtime's module */
  char name[96];        /* what dladdr says of the return address */
  char why[96];         /* when not found: how far the unwinder came */
} body_caller_t;
void checker_find_body_caller(const void *ra, body_caller_t *c);
/* Remembers which module is the runtime: the one that holds fn. */
void checker_note_runtime_module(const void *fn);

/* Sampling another thread's state by a signal (checker_sample.c). */
void checker_sample_install(void);
/* Makes the calling thread answer samples into t's slot; called on t's thread. */
void checker_sample_attach(thread_rec_t *t);
/* Asks thread index i for its state and wait id; false if it did not answer. */
bool checker_sample(int i, int *state, ompt_wait_id_t *wait_id);

/* Verdicts, as the reports spell them. */
#define VERDICT_PASS         "pass"
#define VERDICT_FAIL         "fail"
#define VERDICT_UNSUPPORTED  "not supported"
#define VERDICT_UNOBSERVABLE "not observable"

/* Receives one verdict: a check's or a callback's. */
typedef void (*checker_emit_fn)(const char *name, const char *category, const char *verdict,
                                const char *evidence);

/* Computes every verdict, prints failures on stderr and writes one line
 * per verdict to $KNIT_CONFORM_OUT if set (checker_results.c); returns the
 * number of failures.  Called with checker_mu held. */
int checker_write_results_locked(void);
/* The verdicts of set_callback's answers against what was observed
 * (checker_callbacks.c); returns the failures. */
int checker_callback_verdicts_locked(checker_emit_fn emit);
/* Under this program's ABI the construct behind callback cb is open-coded by
 * the compiler, so no runtime can see it (checker_callbacks.c). */
bool checker_open_coded(int cb);
/* The program runs target constructs (it says it causes target events). */
bool checker_offloads(void);

/* checker_set_answer of a 5.0 target callback the checker did not ask
 * for, its _emi form standing in (checker_target.c). */
#define CHECKER_NOT_ASKED (-1)

#define REGISTER(which, cb)                                                                        \
  (checker_set_answer[which] = checker_set_callback(which, (ompt_callback_t)(cb)))

#endif /* KNIT_CONFORM_CHECKER_STATE_H */
