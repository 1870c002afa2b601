/*
 * Dependences between sibling tasks.  Each task keeps a list of its
 * children that have dependences and are not complete; a new child waits
 * for every one of them whose dependences conflict with its own on some
 * address (one of the two writes: out, inout or mutexinoutset, which is
 * treated as inout, a legal stronger order).  Waiting for every conflicting
 * sibling rather than only the last writer adds edges the order implies
 * anyway, and keeps the rule obviously right.  An order between two
 * mutexinoutset tasks is not reported as a task_dependence: libomp 14
 * makes them mutually exclusive without an edge, and the order here is
 * only the stronger way to the same exclusion.  Everything here runs under
 * the team's task lock.
 */
#include "task.h"

#include <stdlib.h>

static bool mockrt_dep_writes(int type)
{
  return type != ompt_dependence_type_in;
}

static bool mockrt_deps_conflict(const mockrt_xtask_t *a, const mockrt_dep_t *deps, int ndeps)
{
  for (int i = 0; i < a->ndeps; i++) {
    for (int j = 0; j < ndeps; j++) {
      if (a->deps[i].addr == deps[j].addr &&
          (mockrt_dep_writes(a->deps[i].type) || mockrt_dep_writes(deps[j].type)))
        return true;
    }
  }
  return false;
}

/* A conflict other than between two mutexinoutset dependences: an edge a tool is told of. */
static bool mockrt_deps_conflict_reported(const mockrt_xtask_t *a, const mockrt_dep_t *deps,
                                          int ndeps)
{
  for (int i = 0; i < a->ndeps; i++) {
    for (int j = 0; j < ndeps; j++) {
      if (a->deps[i].addr == deps[j].addr &&
          (mockrt_dep_writes(a->deps[i].type) || mockrt_dep_writes(deps[j].type)) &&
          !(a->deps[i].type == ompt_dependence_type_mutexinoutset &&
            deps[j].type == ompt_dependence_type_mutexinoutset))
        return true;
    }
  }
  return false;
}

static void mockrt_dep_add_succ(mockrt_xtask_t *pred, mockrt_xtask_t *x)
{
  if (pred->nsucc == pred->capsucc) {
    int cap = pred->capsucc ? 2 * pred->capsucc : 4;
    mockrt_xtask_t **s = realloc(pred->succ, sizeof *s * (size_t)cap);
    if (!s)
      abort();
    pred->succ = s;
    pred->capsucc = cap;
  }
  pred->succ[pred->nsucc++] = x;
}

int mockrt_dep_link_locked(mockrt_xtask_t *x, mockrt_task_t *parent, mockrt_xtask_t ***preds)
{
  int n = 0, cap = 0;
  *preds = NULL;
  for (mockrt_xtask_t *s = parent->dep_children; s; s = s->dep_next) {
    if (s->complete || !mockrt_deps_conflict(s, x->deps, x->ndeps))
      continue;
    mockrt_dep_add_succ(s, x);
    x->npred++;
    if (!mockrt_deps_conflict_reported(s, x->deps, x->ndeps))
      continue;
    /* The caller reports the edge after the lock; the reference keeps s alive. */
    if (n == cap) {
      cap = cap ? 2 * cap : 8;
      mockrt_xtask_t **p = realloc(*preds, sizeof *p * (size_t)cap);
      if (!p)
        abort();
      *preds = p;
    }
    atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    (*preds)[n++] = s;
  }
  x->dep_next = parent->dep_children;
  parent->dep_children = x;
  return n;
}

bool mockrt_dep_blocked_locked(mockrt_task_t *parent, const mockrt_dep_t *deps, int ndeps)
{
  for (mockrt_xtask_t *s = parent->dep_children; s; s = s->dep_next) {
    if (!s->complete && mockrt_deps_conflict(s, deps, ndeps))
      return true;
  }
  return false;
}

void mockrt_dep_finish_locked(mockrt_xtask_t *x)
{
  mockrt_task_t *parent = x->task.parent;
  for (mockrt_xtask_t **p = &parent->dep_children; *p; p = &(*p)->dep_next) {
    if (*p == x) {
      *p = x->dep_next;
      break;
    }
  }
  for (int i = 0; i < x->nsucc; i++) {
    mockrt_xtask_t *s = x->succ[i];
    if (__atomic_sub_fetch(&s->npred, 1, __ATOMIC_RELEASE) == 0)
      mockrt_task_ready_locked(s);
  }
  free(x->succ);
  x->succ = NULL;
  x->nsucc = 0;
}
