/*
 * The PGI-layout mock's cactus stack, checked through OMPT: an in-program
 * tool and a clang-built program in one executable, run on mock-pgi.
 *
 * On every thread of a team (master and workers) the outlined body's own
 * stack address must lie in a runtime-allocated segment: an anonymous,
 * writable mapping with an inaccessible guard right below it, whose usable
 * part (MOCKRT_PGI_SEGMENT_SIZE) holds the address, and which is not the
 * mapping that holds the thread's original stack (an address the
 * implicit_task begin callback, still on that stack, records).  The
 * implicit task's exit frame must be set, CFA-flagged, and on the same
 * segment above the body: it is the CFA of the trampoline that calls the
 * body there, so a tool that stops at the exit frame never crosses the
 * switch.  There is no shepherd: no ompt_thread_other thread ever begins.
 *
 * Exit status 0 means pass.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <omp-tools.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define NT           4
#define ROUNDS       3
/* mockrt/pgi/segment.h's MOCKRT_PGI_SEGMENT_SIZE: the test must not include the runtime. */
#define SEGMENT_SIZE (256u * 1024u)

static ompt_set_callback_t set_callback;
static ompt_get_task_info_t get_task_info;
static int initialized, is_pgi, n_other_threads;

/* What each thread saw in each round; written by that thread only. */
typedef struct seen {
  uintptr_t body;     /* a local of the outlined body */
  uintptr_t original; /* a local of the implicit_task callback, on the thread's own stack */
  uintptr_t exit_frame;
  int exit_flags;
  int task_flags;
  int ok;
} seen_t;
static seen_t seen[ROUNDS][NT];
static __thread uintptr_t original_sp;

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
  (void)data;
  if (type == ompt_thread_other)
    __atomic_add_fetch(&n_other_threads, 1, __ATOMIC_RELAXED);
}

/*
 * The begin event runs in the runtime before the switch (mockrt_fork_ex on
 * the master, the pool's loop on a worker), so its locals are on the
 * thread's original stack.
 */
static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
                             unsigned team_size, unsigned index, int flags)
{
  volatile char here = 0;
  (void)par;
  (void)task;
  (void)team_size;
  (void)index;
  if (ep == ompt_scope_begin && (flags & ompt_task_implicit))
    original_sp = (uintptr_t)&here;
}

static int tool_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool_data)
{
  (void)device;
  (void)tool_data;
  initialized = 1;
  set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  CHECK(set_callback && get_task_info);
  if (!set_callback || !get_task_info)
    return 0;
  CHECK(set_callback(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin) ==
        ompt_set_always);
  CHECK(set_callback(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task) ==
        ompt_set_always);
  return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
  (void)tool_data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version, const char *runtime_version)
{
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  (void)omp_version;
  is_pgi = runtime_version && strstr(runtime_version, "pgi personality") != NULL;
  return &result;
}

/*
 * Called by the body with the address of one of the body's own locals, so
 * that local has to live in the body's frame.  noinline keeps it a call.
 */
__attribute__((noinline)) static void record(int round, volatile char *local)
{
  int flags = 0, thread_num = -1;
  ompt_frame_t *frame = NULL;
  int n = omp_get_thread_num();
  if (n < 0 || n >= NT)
    return;
  seen_t *s = &seen[round][n];
  s->body = (uintptr_t)local;
  s->original = original_sp;
  if (get_task_info && get_task_info(0, &flags, NULL, &frame, NULL, &thread_num) == 2 && frame) {
    s->exit_frame = (uintptr_t)frame->exit_frame.ptr;
    s->exit_flags = frame->exit_frame_flags;
    s->task_flags = flags;
    s->ok = thread_num == n;
  }
}

/* One line of /proc/self/maps. */
typedef struct mapping {
  uintptr_t lo, hi;
  char perms[5];
  unsigned long inode;
  char name[64];
} mapping_t;

static int read_maps(mapping_t *m, int max)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  int n = 0;
  if (!f)
    return -1;
  while (n < max && fgets(line, sizeof line, f)) {
    unsigned long long lo, hi, off;
    char perms[5], dev[16], name[64] = "";
    unsigned long inode;
    if (sscanf(line, "%llx-%llx %4s %llx %15s %lu %63s", &lo, &hi, perms, &off, dev, &inode, name) <
        6)
      continue;
    m[n].lo = (uintptr_t)lo;
    m[n].hi = (uintptr_t)hi;
    memcpy(m[n].perms, perms, sizeof perms);
    m[n].inode = inode;
    snprintf(m[n].name, sizeof m[n].name, "%s", name);
    n++;
  }
  fclose(f);
  return n;
}

static int find(const mapping_t *m, int n, uintptr_t addr)
{
  for (int i = 0; i < n; i++)
    if (addr >= m[i].lo && addr < m[i].hi)
      return i;
  return -1;
}

static mapping_t maps[8192];

static void check_round(int round, int nthreads)
{
  int n = read_maps(maps, (int)(sizeof maps / sizeof *maps));
  CHECK(n > 0);
  if (n <= 0)
    return;
  for (int t = 0; t < nthreads; t++) {
    const seen_t *s = &seen[round][t];
    CHECK(s->ok);
    CHECK(s->task_flags & ompt_task_implicit);
    CHECK(s->exit_frame != 0);
    CHECK(s->exit_flags == (ompt_frame_runtime | ompt_frame_framepointer));
    CHECK(s->original != 0);
    int b = find(maps, n, s->body);
    CHECK(b >= 0);
    if (b < 0)
      continue;
    const mapping_t *seg = &maps[b];
    /* Anonymous, writable, not the initial thread's [stack]. */
    CHECK(seg->inode == 0 && seg->perms[0] == 'r' && seg->perms[1] == 'w');
    CHECK(strcmp(seg->name, "[stack]") != 0);
    /* The guard right below, and the body within the segment's usable size. */
    CHECK(b > 0 && maps[b - 1].hi == seg->lo && strncmp(maps[b - 1].perms, "---", 3) == 0);
    CHECK(s->body - seg->lo < SEGMENT_SIZE);
    /* The exit frame: on the same segment, above the body (the stack grows down). */
    CHECK(s->exit_frame > s->body && s->exit_frame <= seg->lo + SEGMENT_SIZE);
    /* Not where the thread's original stack is. */
    CHECK(find(maps, n, s->original) != b);
    if (failures)
      fprintf(stderr,
              "round %d thread %d: body %#" PRIxPTR " exit %#" PRIxPTR " original %#" PRIxPTR
              " mapping %#" PRIxPTR "-%#" PRIxPTR " %s\n",
              round, t, s->body, s->exit_frame, s->original, seg->lo, seg->hi, seg->perms);
  }
  /* Every thread has its own segment. */
  for (int t = 0; t < nthreads; t++)
    for (int u = t + 1; u < nthreads; u++)
      CHECK(find(maps, n, seen[round][t].body) != find(maps, n, seen[round][u].body));
}

int main(void)
{
  for (int round = 0; round < ROUNDS; round++) {
    int nthreads = 0;
#pragma omp parallel num_threads(NT)
    {
      volatile char local = (char)round;
      record(round, &local);
#pragma omp barrier
#pragma omp single
      nthreads = omp_get_num_threads();
    }
    CHECK(nthreads == NT);
    check_round(round, nthreads);
  }
  CHECK(initialized);
  CHECK(is_pgi);
  CHECK(n_other_threads == 0);
  if (failures) {
    fprintf(stderr, "pgi_segments: %d check(s) failed\n", failures);
    return 1;
  }
  printf("pgi_segments: ok\n");
  return 0;
}
