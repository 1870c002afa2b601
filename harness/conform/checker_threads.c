/*
 * The OMPT checker's threads, parallel regions and implicit tasks: pairing,
 * the data the tool stored, team sizes and thread numbers, and which threads
 * run tasks.
 *
 * Regions are told apart by the checker's own key (stored in
 * parallel_data), so that a faulty unique id cannot merge them.  libomp 14
 * passes copies of parallel_data and of a worker's late task_data: the
 * value the checker stored is matched (parallel_data_same,
 * implicit_task_paired), and the address is a check of its own
 * (parallel_data_address, implicit_task_data_address).  Each region keeps
 * what its encountering task held and which region that task is in, and
 * each implicit task's value maps to its region, so that the ancestors a
 * thread is told of can be followed out to the initial task
 * (checker_ancestors.c).  The end of a team's implicit task, after its join
 * barrier, is where the runtime reports state overhead, if it does (a
 * region's begin comes in the encountering task's state on libomp 14, and
 * a team of one keeps its body's state to its end).
 *
 * An initial task whose implicit_task names a region that began belongs
 * to a league (host teams): the region must be flagged a league, and a
 * teams body's omp_get_team_num() and omp_get_num_teams() must be that
 * task's index and actual_parallelism.  At finalize every thread that
 * began must have ended, and no thread's initial task be open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker.h"
#include "checker_state.h"

#define EXPORT __attribute__((visibility("default")))

#define MAX_IMPLICIT 8192

/* Every implicit task's value and the key of its region (0: an initial task). */
static struct {
  uint64_t value, key;
} implicit_keys[MAX_IMPLICIT];
static size_t n_implicit_keys;

bool checker_implicit_key_locked(uint64_t value, uint64_t *key)
{
  for (size_t i = n_implicit_keys; i-- > 0;) {
    if (implicit_keys[i].value == value) {
      *key = implicit_keys[i].key;
      return true;
    }
  }
  return false;
}

/* The runtime's own work is overhead (OpenMP 5.0 ompt_state_t), where it says so. */
static void check_overhead_locked(const thread_rec_t *t, const char *what, int state)
{
  EXPECT(CHK_OVERHEAD_IN_RUNTIME, state == ompt_state_overhead,
         "%s on thread #%d: state %s "
         "(0x%x), not overhead",
         what, t->index, checker_state_name(state), state);
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_thread_begin, "thread_begin");
  EXPECT(CHK_THREAD_BEGIN_ONCE, !t->begun, "thread #%d began twice", t->index);
  t->begun = true;
  t->type = (int)type;
  thread_data->value = checker_get_unique_id();
  checker_note_id_locked(thread_data->value);
  pthread_mutex_unlock(&checker_mu);
}

static void on_thread_end(ompt_data_t *thread_data)
{
  (void)thread_data;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_thread_end, "thread_end");
  t->ended = true;
  pthread_mutex_unlock(&checker_mu);
}

static void on_parallel_begin(ompt_data_t *enc_task_data, const ompt_frame_t *enc_frame,
                              ompt_data_t *parallel_data, unsigned int requested, int flags,
                              const void *codeptr)
{
  (void)requested, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_parallel_begin, "parallel_begin");
  bool have = enc_frame && enc_frame->enter_frame.ptr;
  /* The region of a teams body is forked by the runtime itself, from an
   * initial task of the league that never ran code of the program: no
   * frame of the program's is there to mark. */
  int open = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1;
  bool by_runtime = open >= 0 && t->imp[open].league && enc_task_data &&
                    enc_task_data->value == t->imp[open].value;
  if (!by_runtime)
    EXPECT(CHK_ENTER_FRAME_AT_FORK, have,
           "parallel_begin on thread #%d: encountering task's "
           "enter frame is NULL",
           t->index);
  if (have && !by_runtime)
    EXPECT(CHK_ENTER_FRAME_FLAGS, checker_frame_flags_valid(enc_frame->enter_frame_flags),
           "parallel_begin on thread #%d: enter frame %p has flags 0x%x (neither cfa nor "
           "framepointer)",
           t->index, enc_frame->enter_frame.ptr, enc_frame->enter_frame_flags);
  uint64_t key = ++checker_n_regions;
  parallel_data->value = key;
  if (key <= MAX_REGIONS) {
    int top = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1;
    region_rec_t *r = &checker_regions[key - 1];
    r->flags = flags;
    r->enc_value = enc_task_data ? enc_task_data->value : 0;
    /* The encountering task is the thread's innermost implicit task, or an explicit one. */
    if (!checker_implicit_key_locked(r->enc_value, &r->outer_key))
      r->outer_key = top >= 0 ? t->imp[top].key : 0;
  }
  checker_note_id_locked(checker_get_unique_id());
  if (t->npar < MAX_OPEN) {
    t->par[t->npar].pd = parallel_data;
    t->par[t->npar].key = key;
  }
  t->npar++;
  pthread_mutex_unlock(&checker_mu);
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *enc_task_data, int flags,
                            const void *codeptr)
{
  (void)enc_task_data, (void)flags, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_parallel_end, "parallel_end");
  EXPECT(CHK_PARALLEL_PAIRED, t->npar > 0,
         "parallel_end(%p) on thread #%d, which has no "
         "open region",
         (void *)parallel_data, t->index);
  if (t->npar > 0) {
    t->npar--;
    if (t->npar < MAX_OPEN) {
      uint64_t key = t->par[t->npar].key;
      EXPECT(CHK_PARALLEL_DATA_SAME, parallel_data->value == key,
             "region %llu on thread #%d: "
             "parallel_end's parallel_data %p holds %llu, not the region's value",
             (unsigned long long)key, t->index, (void *)parallel_data,
             (unsigned long long)parallel_data->value);
      EXPECT(CHK_PARALLEL_DATA_ADDRESS, t->par[t->npar].pd == parallel_data,
             "region %llu on "
             "thread #%d: parallel_begin gave parallel_data %p, parallel_end %p",
             (unsigned long long)key, t->index, (void *)t->par[t->npar].pd, (void *)parallel_data);
    }
  }
  pthread_mutex_unlock(&checker_mu);
}

static void region_begin_locked(thread_rec_t *t, region_rec_t *r, uint64_t key, unsigned actual,
                                unsigned index)
{
  if (r->begins > 0)
    EXPECT(CHK_TEAM_SIZE_CONSISTENT, r->actual == actual,
           "region %llu: implicit tasks say "
           "team sizes %u and %u",
           (unsigned long long)key, r->actual, actual);
  else
    r->actual = actual;
  r->begins++;
  (void)t;
  EXPECT(CHK_THREAD_NUM_IN_TEAM, index < actual, "region %llu: thread_num %u in a team of %u",
         (unsigned long long)key, index, actual);
  if (index < actual && index < 256) {
    bool seen = r->indices[index / 64] >> (index % 64) & 1;
    EXPECT(CHK_THREAD_NUM_DISTINCT, !seen, "region %llu: two implicit tasks with thread_num %u",
           (unsigned long long)key, index);
    r->indices[index / 64] |= 1ull << (index % 64);
  }
}

/*
 * An initial task that names a region that began is one of a league's (a
 * teams construct's): that region must be flagged a league, and the task's
 * index is its team number, below the number of teams.  Returns the
 * league's key, or 0 for the initial task of a thread.
 */
static uint64_t league_of_locked(const thread_rec_t *t, const ompt_data_t *parallel_data,
                                 unsigned actual, unsigned index)
{
  uint64_t key = parallel_data ? parallel_data->value : 0;
  if (key == 0 || key > checker_n_regions || key > MAX_REGIONS)
    return 0;
  int flags = checker_regions[key - 1].flags;
  EXPECT(CHK_LEAGUE_FLAGS,
         (flags & ompt_parallel_league) && !(flags & ompt_parallel_team) && index < actual,
         "thread #%d: an initial task (team %u of %u) names region %llu, whose parallel_begin "
         "has flags 0x%x (%s)",
         t->index, index, actual, (unsigned long long)key, flags,
         flags & ompt_parallel_league ? "league" : "not ompt_parallel_league");
  return key;
}

static void implicit_begin_locked(thread_rec_t *t, ompt_data_t *parallel_data,
                                  ompt_data_t *task_data, unsigned actual, unsigned index,
                                  int flags)
{
  uint64_t key = 0, league = 0;
  if (flags & ompt_task_initial)
    league = league_of_locked(t, parallel_data, actual, index);
  task_data->value = checker_get_unique_id();
  checker_note_id_locked(task_data->value);
  t->ran_task = true;
  if (!(flags & ompt_task_initial)) {
    key = parallel_data ? parallel_data->value : 0;
    bool known = key != 0 && key <= checker_n_regions && key <= MAX_REGIONS;
    EXPECT(CHK_IMPLICIT_TASK_IN_REGION, known,
           "implicit task on thread #%d names no region "
           "that began (parallel_data %p)",
           t->index, (void *)parallel_data);
    if (known)
      region_begin_locked(t, &checker_regions[key - 1], key, actual, index);
    else
      key = 0;
  }
  if (n_implicit_keys < MAX_IMPLICIT) {
    implicit_keys[n_implicit_keys].value = task_data->value;
    implicit_keys[n_implicit_keys++].key = key;
  }
  if (t->nimp < MAX_OPEN) {
    t->imp[t->nimp].td = task_data;
    t->imp[t->nimp].value = task_data->value;
    t->imp[t->nimp].key = key;
    t->imp[t->nimp].league = league;
    t->imp[t->nimp].index = index;
    t->imp[t->nimp].size = actual;
  }
  t->nimp++;
}

/* The size of the team of the open implicit task task_data holds (0: none). */
static unsigned implicit_team_size_locked(const thread_rec_t *t, const ompt_data_t *task_data)
{
  for (int i = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1; i >= 0; i--)
    if (t->imp[i].value == task_data->value)
      return t->imp[i].size;
  return 0;
}

static void implicit_end_locked(thread_rec_t *t, ompt_data_t *task_data)
{
  int top = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1;
  int found = -1;
  for (int i = top; i >= 0; i--) {
    if (t->imp[i].value == task_data->value) {
      found = i;
      break;
    }
  }
  EXPECT(CHK_IMPLICIT_TASK_PAIRED, found >= 0,
         "implicit_task end (task_data %p holding %llu) "
         "on thread #%d matches no open implicit task",
         (void *)task_data, (unsigned long long)task_data->value, t->index);
  if (found < 0)
    return;
  EXPECT(CHK_IMPLICIT_TASK_DATA_ADDRESS, t->imp[found].td == task_data,
         "thread #%d: implicit "
         "task began with task_data %p and ends with %p",
         t->index, (void *)t->imp[found].td, (void *)task_data);
  EXPECT(CHK_IMPLICIT_TASK_NESTED, found == top,
         "thread #%d ends implicit task %d while %d "
         "later ones are open",
         t->index, found, top - found);
  memmove(&t->imp[found], &t->imp[found + 1], sizeof t->imp[0] * (size_t)(top - found));
  t->nimp--;
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual, unsigned int index,
                             int flags)
{
  int state = checker_get_state(NULL);
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_implicit_task, "implicit_task");
  if (endpoint == ompt_scope_end && !(flags & ompt_task_initial) &&
      implicit_team_size_locked(t, task_data) > 1)
    check_overhead_locked(t, "implicit_task end", state);
  if (endpoint == ompt_scope_begin)
    implicit_begin_locked(t, parallel_data, task_data, actual, index, flags);
  else
    implicit_end_locked(t, task_data);
  pthread_mutex_unlock(&checker_mu);
}

static int compare_ids(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

void checker_thread_final_checks_locked(void)
{
  for (int i = 0; i < checker_n_threads; i++) {
    thread_rec_t *t = &checker_threads[i];
    EXPECT(CHK_PARALLEL_PAIRED, t->npar == 0,
           "thread #%d: %d parallel regions never ended "
           "(region %llu first)",
           t->index, t->npar, (unsigned long long)t->par[0].key);
    EXPECT(CHK_WORK_CLOSED, t->nwork == 0,
           "thread #%d: %d worksharing constructs never ended "
           "(type %d first)",
           t->index, t->nwork, t->work[0]);
    EXPECT(CHK_MASKED_PAIRED, t->nmasked == 0, "thread #%d: %d masked regions never ended",
           t->index, t->nmasked);
    /* The initial thread's implicit task may still be open at finalize
     * (ends_before_finalize asks for its end where knit's contract holds). */
    int open = t->nimp - (t->nimp > 0 && t->imp[0].key == 0);
    EXPECT(CHK_IMPLICIT_TASK_CLOSED, open <= 0,
           "thread #%d: %d implicit tasks never ended "
           "(task_data %p first)",
           t->index, open, (void *)t->imp[t->nimp > 1].td);
    if (t->begun && t->ran_task)
      EXPECT(CHK_THREAD_TYPES, t->type == ompt_thread_initial || t->type == ompt_thread_worker,
             "thread #%d began as type %d (not initial or worker) and ran an implicit task",
             t->index, t->type);
  }
  for (uint64_t k = 0; k < checker_n_regions && k < MAX_REGIONS; k++) {
    region_rec_t *r = &checker_regions[k];
    EXPECT(CHK_IMPLICIT_TASK_COUNT, r->begins == r->actual,
           "region %llu: %u implicit tasks "
           "began in a team of %u",
           (unsigned long long)k + 1, r->begins, r->actual);
  }
  qsort(checker_ids, checker_n_ids, sizeof checker_ids[0], compare_ids);
  size_t dup = 0;
  for (size_t i = 1; i < checker_n_ids && !dup; i++)
    if (checker_ids[i] == checker_ids[i - 1])
      dup = i;
  EXPECT(CHK_UNIQUE_IDS, checker_n_ids > 1 && !dup,
         "ompt_get_unique_id returned %llu more "
         "than once (of %zu ids)",
         (unsigned long long)checker_ids[dup], checker_n_ids);
}

/*
 * At finalize: every thread that began has ended and no initial task is
 * open, so the tool has seen the runtime's shutdown.  Threads that had no
 * thread_end while the callback was answered never are left alone.
 */
void checker_ends_before_finalize_locked(void)
{
  bool ends = checker_set_answer[ompt_callback_thread_end] != ompt_set_never;
  for (int i = 0; i < checker_n_threads; i++) {
    const thread_rec_t *t = &checker_threads[i];
    if (!t->begun)
      continue;
    int top = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1;
    bool initial_open = top >= 0 && t->imp[0].key == 0 && t->imp[0].league == 0;
    EXPECT(CHK_ENDS_BEFORE_FINALIZE, (t->ended || !ends) && !initial_open,
           "thread #%d (type %d) at finalize: %s%s", t->index, t->type,
           t->ended || !ends ? "" : "no thread_end yet",
           initial_open ? (t->ended || !ends ? "its initial task has not ended"
                                             : ", its initial task has not ended")
                        : "");
  }
}

/* From a teams body: the team queries against the league's initial task on this thread. */
EXPORT void knit_ompt_checker_teams_probe(int team_num, int num_teams)
{
  if (!checker_get_task_info)
    return; /* no tool session: nothing to compare */
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_me_locked();
  int found = -1;
  for (int i = (t->nimp < MAX_OPEN ? t->nimp : MAX_OPEN) - 1; i >= 0 && found < 0; i--)
    if (t->imp[i].league)
      found = i;
  EXPECT(CHK_LEAGUE_FLAGS, found >= 0,
         "thread #%d in a teams region (team %d of %d): no initial task of a league began on it",
         t->index, team_num, num_teams);
  if (found >= 0)
    EXPECT(CHK_TEAM_NUM,
           t->imp[found].index == (unsigned)team_num && t->imp[found].size == (unsigned)num_teams,
           "thread #%d in a teams region: omp_get_team_num() %d, omp_get_num_teams() %d; its "
           "initial task began as team %u of %u",
           t->index, team_num, num_teams, t->imp[found].index, t->imp[found].size);
  pthread_mutex_unlock(&checker_mu);
}

void checker_register_thread_callbacks(void)
{
  REGISTER(ompt_callback_thread_begin, on_thread_begin);
  REGISTER(ompt_callback_thread_end, on_thread_end);
  REGISTER(ompt_callback_parallel_begin, on_parallel_begin);
  REGISTER(ompt_callback_parallel_end, on_parallel_end);
  REGISTER(ompt_callback_implicit_task, on_implicit_task);
}
