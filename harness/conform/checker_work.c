/*
 * The OMPT checker's worksharing and related constructs: work begin and
 * end pair up per thread, innermost first, with the same type (a single's
 * executor and other are two types); every dispatch comes inside an open
 * loop (iteration) or sections (section); masked regions pair up; cancel
 * events name one construct and what happened.  flush and reduction
 * events are only counted, for the set_callback verdicts.
 */
#include "checker_state.h"

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *pd,
                    ompt_data_t *td, uint64_t count, const void *codeptr)
{
  (void)pd, (void)td, (void)count, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_work, "work");
  if (endpoint == ompt_scope_begin) {
    if (t->nwork < MAX_OPEN)
      t->work[t->nwork] = (int)wstype;
    t->nwork++;
  } else {
    EXPECT(CHK_WORK_PAIRED, t->nwork > 0,
           "work end (type %d) on thread #%d, which has no "
           "open worksharing construct",
           (int)wstype, t->index);
    if (t->nwork > 0) {
      t->nwork--;
      if (t->nwork < MAX_OPEN)
        EXPECT(CHK_WORK_PAIRED, t->work[t->nwork] == (int)wstype,
               "work end of type %d on "
               "thread #%d closes a construct of type %d",
               (int)wstype, t->index, t->work[t->nwork]);
    }
  }
  pthread_mutex_unlock(&checker_mu);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *pd, ompt_data_t *td,
                      const void *codeptr)
{
  (void)pd, (void)td, (void)codeptr;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_masked, "masked");
  if (endpoint == ompt_scope_begin) {
    t->nmasked++;
  } else {
    EXPECT(CHK_MASKED_PAIRED, t->nmasked > 0,
           "masked end on thread #%d, which has no open "
           "masked region",
           t->index);
    if (t->nmasked > 0)
      t->nmasked--;
  }
  pthread_mutex_unlock(&checker_mu);
}

static void on_dispatch(ompt_data_t *pd, ompt_data_t *td, ompt_dispatch_t kind,
                        ompt_data_t instance)
{
  (void)pd, (void)td, (void)instance;
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_dispatch, "dispatch");
  int want = kind == ompt_dispatch_section ? ompt_work_sections : ompt_work_loop;
  int top = t->nwork > 0 && t->nwork <= MAX_OPEN ? t->work[t->nwork - 1] : -1;
  EXPECT(CHK_DISPATCH_INSIDE_WORK, top == want,
         "dispatch (kind %d) on thread #%d outside an "
         "open %s construct (innermost open: %d)",
         (int)kind, t->index, want == ompt_work_sections ? "sections" : "loop", top);
  pthread_mutex_unlock(&checker_mu);
}

static void on_cancel(ompt_data_t *td, int flags, const void *codeptr)
{
  (void)td, (void)codeptr;
  int construct = flags & (ompt_cancel_parallel | ompt_cancel_sections | ompt_cancel_loop |
                           ompt_cancel_taskgroup);
  int what = flags & (ompt_cancel_activated | ompt_cancel_detected | ompt_cancel_discarded_task);
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_event_locked(ompt_callback_cancel, "cancel");
  EXPECT(CHK_CANCEL_FLAGS,
         construct && !(construct & (construct - 1)) && what && !(what & (what - 1)),
         "cancel on thread #%d with flags 0x%x: not one construct and "
         "one of activated, detected, discarded_task",
         t->index, flags);
  pthread_mutex_unlock(&checker_mu);
}

static void count_event(ompt_callbacks_t which, const char *what)
{
  pthread_mutex_lock(&checker_mu);
  checker_event_locked(which, what);
  pthread_mutex_unlock(&checker_mu);
}

static void on_flush(ompt_data_t *thread_data, const void *codeptr)
{
  (void)thread_data, (void)codeptr;
  count_event(ompt_callback_flush, "flush");
}

static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *pd,
                         ompt_data_t *td, const void *codeptr)
{
  (void)kind, (void)endpoint, (void)pd, (void)td, (void)codeptr;
  count_event(ompt_callback_reduction, "reduction");
}

void checker_register_work_callbacks(void)
{
  REGISTER(ompt_callback_work, on_work);
  REGISTER(ompt_callback_masked, on_masked);
  REGISTER(ompt_callback_dispatch, on_dispatch);
  REGISTER(ompt_callback_cancel, on_cancel);
  REGISTER(ompt_callback_flush, on_flush);
  REGISTER(ompt_callback_reduction, on_reduction);
}
