/*
 * Sampling another thread's OMPT state, as a sampling profiler does: a
 * signal sent to the thread runs a handler there that asks ompt_get_state
 * (async-signal-safe by OpenMP 5.0) and answers through the thread's slot.
 * A callback only shows a state at the moment the runtime calls the tool;
 * a thread blocked in a critical region, a lock, a barrier, a taskwait or
 * between regions can only be seen this way.
 *
 * The handler touches nothing but its own thread's slot (atomics reached
 * through an initial-exec thread-local, no allocation, no lock) and
 * restores errno.  SIGURG is ignored by default, so a sample that reaches
 * a thread before the handler is installed costs nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "checker_state.h"

#define SAMPLE_SIGNAL SIGURG
/* How long a sampled thread may take to answer: QEMU delivers a signal to
 * a blocked thread only once it next runs translated code. */
#define ANSWER_MS     2000.0

static __thread __attribute__((tls_model("initial-exec"))) sample_slot_t *my_slot;
static pthread_mutex_t sampler_mu = PTHREAD_MUTEX_INITIALIZER;

static void on_sample(int sig, siginfo_t *info, void *uc)
{
  (void)sig, (void)info, (void)uc;
  int saved = errno;
  sample_slot_t *s = my_slot;
  if (s && checker_get_state) {
    unsigned req = atomic_load(&s->req);
    ompt_wait_id_t id = 0;
    int state = checker_get_state(&id);
    atomic_store(&s->state, state);
    atomic_store(&s->wait_id, (unsigned long long)id);
    atomic_store(&s->ack, req);
  }
  errno = saved;
}

void checker_sample_install(void)
{
  /* SA_RESTART: the runtime's own waits and system calls go on after a sample. */
  struct sigaction sa = {.sa_sigaction = on_sample, .sa_flags = SA_SIGINFO | SA_RESTART};
  sigemptyset(&sa.sa_mask);
  sigaction(SAMPLE_SIGNAL, &sa, NULL);
}

void checker_sample_attach(thread_rec_t *t)
{
  my_slot = &t->slot;
}

bool checker_sample(int i, int *state, ompt_wait_id_t *wait_id)
{
  pthread_mutex_lock(&checker_mu);
  thread_rec_t *t = checker_thread_at(i);
  bool alive = t && t->begun && !t->ended;
  pthread_t target = alive ? t->pthread : pthread_self();
  pthread_mutex_unlock(&checker_mu);
  if (!alive)
    return false;
  /* One sampler at a time: a slot holds one request. */
  pthread_mutex_lock(&sampler_mu);
  unsigned req = atomic_fetch_add(&t->slot.req, 1) + 1;
  bool answered = pthread_kill(target, SAMPLE_SIGNAL) == 0;
  double give_up = checker_now_ms() + ANSWER_MS;
  while (answered && atomic_load(&t->slot.ack) != req) {
    if (checker_now_ms() > give_up)
      answered = false;
    struct timespec pause = {0, 20000};
    nanosleep(&pause, NULL);
  }
  if (answered) {
    *state = atomic_load(&t->slot.state);
    *wait_id = (ompt_wait_id_t)atomic_load(&t->slot.wait_id);
  }
  pthread_mutex_unlock(&sampler_mu);
  return answered;
}
