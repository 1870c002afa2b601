/*
 * Sampling acceptance tests about threads and processes: per-thread timers
 * on many threads, each signal on the thread its timer names, and sampling
 * in a forked child and in an exec'ed program.  Handlers count in
 * sig_atomic_t and thread-local (initial-exec) variables only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sampling.h"

#define SAMPLES_WANTED 10
#define SPIN_MAX_MS    10000
/* The exec'ed child's exit status when execve itself failed with ENOEXEC. */
#define EXIT_NOEXEC    120

static pid_t my_tid(void)
{
  return (pid_t)syscall(SYS_gettid);
}

bool sampling_thread_timer(int clock, long first_us, long period_us, int signo, void **timer)
{
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = signo;
  sev._sigev_un._tid = my_tid(); /* sigev_notify_thread_id, which glibc 2.36 lacks */
  sev.sigev_value.sival_int = my_tid();
  timer_t t;
  if (timer_create((clockid_t)clock, &sev, &t) != 0)
    return false;
  struct itimerspec its = {{period_us / 1000000, period_us % 1000000 * 1000},
                           {first_us / 1000000, first_us % 1000000 * 1000}};
  if (timer_settime(t, 0, &its, NULL) != 0) {
    timer_delete(t);
    return false;
  }
  *timer = (void *)t;
  return true;
}

void sampling_timer_delete(void *timer)
{
  timer_delete((timer_t)timer);
}

static __thread volatile int my_samples;
static volatile sig_atomic_t wrong_thread;

static void sample_handler(int sig, siginfo_t *si, void *uc)
{
  (void)sig, (void)uc;
  int saved = errno;
  if (si->si_code == SI_TIMER && si->si_value.sival_int != my_tid())
    wrong_thread++;
  my_samples++;
  errno = saved;
}

static void install_sampler(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = sample_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, NULL);
}

/* Arms a timer on the calling thread and spins until it has its samples. */
static int sample_self(int clock, long period_us)
{
  void *timer;
  if (!sampling_thread_timer(clock, period_us, period_us, SIGPROF, &timer))
    return -errno;
  my_samples = 0;
  volatile int done = 0;
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (!done) {
    volatile unsigned long sink = 0;
    for (int i = 0; i < 20000; i++)
      sink += (unsigned long)i;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    done = my_samples >= SAMPLES_WANTED || ms > SPIN_MAX_MS;
  }
  sampling_timer_delete(timer);
  return my_samples;
}

typedef struct {
  int clock;
  long period_us;
  int samples;
} thread_job;

static void *sampled_thread(void *arg)
{
  thread_job *job = arg;
  job->samples = sample_self(job->clock, job->period_us);
  return NULL;
}

/* n threads, each with its own timer; returns the fewest samples a thread got. */
static int run_threads(int n, int clock, long period_us, int *created)
{
  thread_job jobs[64];
  pthread_t th[64];
  install_sampler();
  wrong_thread = 0;
  *created = 0;
  for (int i = 0; i < n && i < 64; i++) {
    jobs[i] = (thread_job){clock, period_us, 0};
    if (pthread_create(&th[i], NULL, sampled_thread, &jobs[i]) == 0)
      (*created)++;
    else
      break;
  }
  int fewest = *created ? 1 << 30 : 0;
  for (int i = 0; i < *created; i++) {
    pthread_join(th[i], NULL);
    if (jobs[i].samples < fewest)
      fewest = jobs[i].samples;
  }
  signal(SIGPROF, SIG_IGN);
  return fewest;
}

sampling_verdict sampling_many_threads(char *ev, size_t len)
{
  int created;
  int fewest = run_threads(32, CLOCK_MONOTONIC, 1000, &created);
  snprintf(ev, len,
           "32 threads with 1 ms CLOCK_MONOTONIC timers: %d started, the least "
           "sampled got %d samples (want %d)",
           created, fewest, SAMPLES_WANTED);
  return created == 32 && fewest >= SAMPLES_WANTED ? SAMPLING_PASS : SAMPLING_FAIL;
}

sampling_verdict sampling_thread_timer_target(char *ev, size_t len)
{
  int created;
  int fewest = run_threads(4, CLOCK_THREAD_CPUTIME_ID, 2000, &created);
  snprintf(ev, len,
           "4 threads with CPU-time timers (SIGEV_THREAD_ID): %d signals on another "
           "thread than their timer's; the least sampled thread got %d",
           (int)wrong_thread, fewest);
  return created == 4 && fewest >= SAMPLES_WANTED && wrong_thread == 0 ? SAMPLING_PASS
                                                                       : SAMPLING_FAIL;
}

sampling_verdict sampling_fork(char *ev, size_t len)
{
  install_sampler();
  void *timer;
  if (!sampling_thread_timer(CLOCK_MONOTONIC, 1000, 1000, SIGPROF, &timer)) {
    snprintf(ev, len, "timer_create: %s", strerror(errno));
    return SAMPLING_FAIL;
  }
  pid_t pid = fork();
  if (pid == 0) {
    /* Timers are not inherited: the child arms its own. */
    _exit(sample_self(CLOCK_THREAD_CPUTIME_ID, 2000) >= SAMPLES_WANTED ? 0 : 1);
  }
  int parent = sample_self(CLOCK_THREAD_CPUTIME_ID, 2000);
  sampling_timer_delete(timer);
  int status = 0;
  if (pid > 0)
    waitpid(pid, &status, 0);
  signal(SIGPROF, SIG_IGN);
  bool child_ok = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  snprintf(ev, len, "fork while sampling: the child %s %d samples; the parent got %d",
           child_ok ? "got" : "did NOT get", SAMPLES_WANTED, parent);
  return child_ok && parent >= SAMPLES_WANTED ? SAMPLING_PASS : SAMPLING_FAIL;
}

int sampling_exec_child(void)
{
  install_sampler();
  int got = sample_self(CLOCK_THREAD_CPUTIME_ID, 2000);
  return got >= SAMPLES_WANTED ? 0 : 1;
}

sampling_verdict sampling_exec(char *ev, size_t len)
{
  pid_t pid = fork();
  if (pid == 0) {
    char *args[] = {"conform_sampling", "--exec-child", NULL};
    execv("/proc/self/exe", args);
    _exit(errno == ENOEXEC ? EXIT_NOEXEC : 127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) {
    snprintf(ev, len, "fork: %s", strerror(errno));
    return SAMPLING_FAIL;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code == EXIT_NOEXEC) {
    snprintf(ev, len,
             "execve of this program failed with ENOEXEC: the platform cannot exec a "
             "program of this ISA (QEMU user mode without binfmt_misc)");
    return SAMPLING_UNSUPPORTED;
  }
  snprintf(ev, len, "the exec'ed program %s %d samples from its own timer (exit status %d)",
           code == 0 ? "got" : "did NOT get", SAMPLES_WANTED, code);
  return code == 0 ? SAMPLING_PASS : SAMPLING_FAIL;
}
