/*
 * Ancestor levels of get_task_info and get_parallel_info, compared with
 * what the events said.  OpenMP 5.0 numbers ancestors outward: task level
 * n + 1 is the task that encountered (for an implicit task: the region's
 * encountering task) or created (for an explicit task) level n, out to the
 * initial task, past which there is no task (the answer is 0); parallel
 * level n + 1 is the region around level n's.  The records that say so:
 * parallel_begin's encountering task and the region that task is in
 * (checker_threads.c), each implicit task's region, and each explicit
 * task's creator (checker_tasks.c).
 */
#include "checker_state.h"

/* A thread's answers for every level, asked at one moment. */
void checker_ask_ancestry(ancestry_t *a)
{
  for (int l = 0; l < ANCESTOR_LEVELS; l++) {
    ompt_data_t *td = NULL, *pd = NULL;
    int size = -1;
    a->have_task[l] = checker_get_task_info(l, NULL, &td, NULL, NULL, NULL);
    a->task[l] = td ? td->value : 0;
    a->have_par[l] = checker_get_parallel_info(l, &pd, &size);
    a->par[l] = pd ? pd->value : 0;
    a->size[l] = size;
  }
}

/* The values of levels 0.. by the records; *ends when the last is the
 * initial task (nothing beyond), false when the records run out first. */
static int task_chain_locked(uint64_t value, uint64_t *chain, int max, bool *ends)
{
  int n = 0;
  *ends = false;
  chain[n++] = value;
  while (n < max) {
    uint64_t v = chain[n - 1], next, key;
    if (checker_task_creator_locked(v, &next)) {
      chain[n++] = next;
      continue;
    }
    if (!checker_implicit_key_locked(v, &key) || key > MAX_REGIONS)
      return n;
    if (key == 0) {
      *ends = true;
      return n;
    }
    chain[n++] = checker_regions[key - 1].enc_value;
  }
  return n;
}

/* The region keys of parallel levels 0..: the region of the innermost
 * implicit task on the chain, then each one's enclosing region. */
static int region_chain_locked(const uint64_t *tasks, int ntasks, uint64_t *keys, int max)
{
  uint64_t key = 0;
  for (int i = 0; i < ntasks; i++)
    if (checker_implicit_key_locked(tasks[i], &key))
      break;
  int n = 0;
  while (key != 0 && key <= MAX_REGIONS && n < max) {
    keys[n++] = key;
    key = checker_regions[key - 1].outer_key;
  }
  return n;
}

void checker_check_ancestry_locked(const thread_rec_t *t, const ancestry_t *a, uint64_t value,
                                   bool from_task, bool level1_right)
{
  const char *where = from_task ? "a task's body" : "an outlined body";
  uint64_t chain[ANCESTOR_LEVELS], keys[ANCESTOR_LEVELS];
  bool ends;
  int n = task_chain_locked(value, chain, ANCESTOR_LEVELS, &ends);
  /* From a task's body level 1 is task_info_parent's, and a deeper level
   * is judged only on a right level 1: one wrong link fails one check. */
  int first = from_task ? 2 : 1;
  if (!from_task || level1_right) {
    for (int l = first; l < n; l++)
      EXPECT(CHK_TASK_INFO_ANCESTORS, a->have_task[l] == 2 && a->task[l] == chain[l],
             "from %s on thread #%d: get_task_info(%d) answered %d with task_data holding "
             "0x%llx; the events say 0x%llx",
             where, t->index, l, a->have_task[l], (unsigned long long)a->task[l],
             (unsigned long long)chain[l]);
    if (ends && n < ANCESTOR_LEVELS && n >= first)
      EXPECT(CHK_TASK_INFO_ANCESTORS, a->have_task[n] == 0,
             "from %s on thread #%d: "
             "get_task_info(%d) answered %d past the initial task (level %d)",
             where, t->index, n, a->have_task[n], n - 1);
  }
  int m = region_chain_locked(chain, n, keys, ANCESTOR_LEVELS);
  for (int l = 1; l < m; l++) {
    unsigned size = checker_regions[keys[l] - 1].actual;
    EXPECT(CHK_PARALLEL_INFO_ANCESTORS,
           a->have_par[l] == 2 && a->par[l] == keys[l] && a->size[l] == (int)size,
           "from %s on thread #%d: get_parallel_info(%d) answered %d "
           "with region %llu of %d threads; the events say region %llu of %u",
           where, t->index, l, a->have_par[l], (unsigned long long)a->par[l], a->size[l],
           (unsigned long long)keys[l], size);
  }
}
