/*
 * ompt_log: an OMPT tool that logs every host event and the answers of the
 * inquiry entry points in a normalized form, so that two runtimes running
 * the same program can be compared line by line (harness/ompt_diff/README.md).
 *
 * Every line is "SEGMENT<TAB>SEQ<TAB>TEXT", written whole with one write(2)
 * to the file named by OMPT_LOG_FILE (O_APPEND), so a crash keeps what came
 * before it.  A segment is a task (initial, implicit or explicit), named by
 * where it was created rather than by the thread that ran it; SEQ is the
 * event's rank inside the segment, or 0 in segments whose order the
 * specification leaves free (those are compared as sets).  No address, id or
 * thread number of the run itself reaches the log: ids become segment names,
 * code addresses become offsets in the program's file (the runner turns them
 * into function and line), data addresses become program symbols or
 * first-seen numbers, frame addresses become relations.
 */
#define _GNU_SOURCE
#include <omp-tools.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SEGS  65536
#define MAX_DEPTH 64
#define MAX_WAITS 16

/* A segment: one task's events, or a set of events whose order is free. */
typedef struct {
  char key[160];
  unsigned seq;               /* events logged so far (ordered segments) */
  unsigned nparallel;         /* regions this task encountered */
  unsigned ntask;             /* explicit tasks it created */
  unsigned nsingle;           /* single constructs it encountered */
  int region;                 /* the segment of its region (implicit tasks), or -1 */
  int started;                /* an explicit task has been scheduled once */
  int explicit_task;          /* created by task_create */
  int free_thread;            /* run by whichever thread the scheduler chose */
  int owner;                  /* a single's body: the implicit task running it */
  uintptr_t waits[MAX_WAITS]; /* wait ids in first-seen order */
  unsigned nwaits;
} seg_t;

static seg_t *segs;
static unsigned nsegs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;
static uintptr_t prog_bias, prog_lo, prog_hi;

/* Per thread: the stack of segments it is running (top = current task). */
static __thread int stack[MAX_DEPTH];
static __thread int depth;
static __thread uintptr_t stack_lo, stack_hi;

/* Entry points, each NULL when the runtime's lookup does not know it. */
static ompt_set_callback_t set_callback;
static ompt_get_task_info_t get_task_info;
static ompt_get_parallel_info_t get_parallel_info;
static ompt_get_state_t get_state;
static ompt_get_thread_data_t get_thread_data;
static ompt_enumerate_states_t enumerate_states;
static ompt_enumerate_mutex_impls_t enumerate_mutex_impls;
static ompt_get_num_places_t get_num_places;
static ompt_get_place_proc_ids_t get_place_proc_ids;
static ompt_get_place_num_t get_place_num;
static ompt_get_partition_place_nums_t get_partition_place_nums;
static ompt_get_proc_id_t get_proc_id;
static ompt_get_num_procs_t get_num_procs;
static ompt_get_task_memory_t get_task_memory;
static ompt_get_target_info_t get_target_info;
static ompt_get_num_devices_t get_num_devices;
static ompt_get_unique_id_t get_unique_id;
static ompt_finalize_tool_t finalize_tool;
static ompt_get_callback_t get_callback;

/* ---- segments ---------------------------------------------------------- */

/* Called with the lock held. */
static int seg_new(const char *fmt, ...)
{
  if (nsegs >= MAX_SEGS)
    return 0; /* segment 0 ("?") collects the overflow */
  seg_t *s = &segs[nsegs];
  memset(s, 0, sizeof *s);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->key, sizeof s->key, fmt, ap);
  va_end(ap);
  s->region = -1;
  return (int)nsegs++;
}

static int seg_of(ompt_data_t *d)
{
  if (!d || d->value == 0 || d->value > nsegs)
    return -1;
  return (int)d->value - 1;
}

/* The segment of a task the runtime names: inside a single's body, events
 * of the implicit task running it belong to the body. */
static int task_seg(ompt_data_t *d)
{
  int s = seg_of(d);
  if (s >= 0 && depth > 0 && depth <= MAX_DEPTH) {
    int top = stack[depth - 1];
    if (segs[top].owner == s + 1)
      return top;
  }
  return s;
}

static int current_seg(void)
{
  return depth > 0 ? stack[depth - 1] : 1; /* 1: "T", the threads' set */
}

static void push(int s)
{
  if (depth < MAX_DEPTH)
    stack[depth] = s;
  depth++;
}

static void pop(int s)
{
  if (depth <= 0)
    return;
  /* Normally the top; a runtime that ends tasks out of order still pops one. */
  depth--;
  (void)s;
}

static void set_top(int s)
{
  if (depth == 0)
    push(s);
  else if (depth <= MAX_DEPTH)
    stack[depth - 1] = s;
}

/* ---- text helpers ------------------------------------------------------ */

typedef struct {
  char b[2048];
  size_t n;
} buf_t;

static void put(buf_t *b, const char *fmt, ...)
{
  if (b->n >= sizeof b->b)
    return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b->b + b->n, sizeof b->b - b->n, fmt, ap);
  va_end(ap);
  if (k > 0)
    b->n += (size_t)k;
  if (b->n >= sizeof b->b)
    b->n = sizeof b->b - 1;
}

/* Writes one line of segment s; ordered segments number their lines. */
static void emit(int s, int ordered, const char *text)
{
  if (log_fd < 0)
    return;
  if (s < 0)
    s = 0;
  if (s == 1)
    ordered = 0; /* "T", the threads' events: a set */
  unsigned seq = ordered ? ++segs[s].seq : 0;
  char line[2400];
  int k = snprintf(line, sizeof line, "%s\t%06u\t%s\n", segs[s].key, seq, text);
  if (k > (int)sizeof line)
    k = (int)sizeof line;
  if (k > 0 && write(log_fd, line, (size_t)k) < 0)
    return;
}

static int in_program(uintptr_t a)
{
  return a >= prog_lo && a < prog_hi;
}

/* A code address: NULL, an offset in the program's file (the runner names
 * its function and line), or the library holding it. */
static void put_ra(buf_t *b, const void *ra)
{
  Dl_info info;
  if (!ra) {
    put(b, " ra=NULL");
    return;
  }
  if (in_program((uintptr_t)ra)) {
    put(b, " ra=prog:0x%lx", (unsigned long)((uintptr_t)ra - prog_bias));
    return;
  }
  if (dladdr(ra, &info) && info.dli_fname) {
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    /* Whichever runtime runs, it is "the runtime". */
    if (strstr(base, "libomp") || strstr(base, "libgomp"))
      put(b, " ra=runtime");
    else
      put(b, " ra=lib:%s", base);
    return;
  }
  put(b, " ra=unknown");
}

/* A data address the program names (a global, with -rdynamic), else the
 * wait id's first-seen rank within segment s. */
static void put_addr(buf_t *b, const char *name, int s, uint64_t w)
{
  Dl_info info;
  if (w == 0) {
    put(b, " %s=0", name);
    return;
  }
  if (in_program(w) && dladdr((void *)(uintptr_t)w, &info) && info.dli_sname) {
    put(b, " %s=%s+%lu", name, info.dli_sname, (unsigned long)(w - (uintptr_t)info.dli_saddr));
    return;
  }
  if (s < 0)
    s = 0;
  seg_t *g = &segs[s];
  for (unsigned i = 0; i < g->nwaits; i++) {
    if (g->waits[i] == w) {
      put(b, " %s=w%u", name, i);
      return;
    }
  }
  if (g->nwaits < MAX_WAITS)
    g->waits[g->nwaits++] = w;
  put(b, " %s=w%u", name, g->nwaits - 1);
}

static void put_wait(buf_t *b, int s, uint64_t w)
{
  put_addr(b, "wait", s, w);
}

static void stack_bounds(void)
{
  if (stack_hi)
    return;
  pthread_attr_t a;
  void *addr;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &a) == 0) {
    if (pthread_attr_getstack(&a, &addr, &size) == 0) {
      stack_lo = (uintptr_t)addr;
      stack_hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&a);
  }
}

/* A frame address as a relation: NULL, on this thread's own stack above
 * the callback (a caller's frame), or elsewhere (another stack, a
 * runtime-allocated segment). */
static const char *where(const void *p, int relate)
{
  uintptr_t a = (uintptr_t)p;
  char here;
  if (!p)
    return "NULL";
  if (!relate)
    return "set";
  stack_bounds();
  if (a < stack_lo || a >= stack_hi)
    return "off-stack"; /* another thread's stack, a runtime's segment */
  return a > (uintptr_t)&here ? "stack" : "stack-below";
}

static void put_frame(buf_t *b, const char *name, const ompt_frame_t *f, int relate)
{
  if (!f) {
    put(b, " %s=NULL", name);
    return;
  }
  /* Flags mean something only beside an address (a NULL frame's flags
   * may be stale memory on some runtimes). */
  put(b, " %s.exit=%s", name, where(f->exit_frame.ptr, relate));
  if (f->exit_frame.ptr)
    put(b, "/0x%x", f->exit_frame_flags);
  put(b, " %s.enter=%s", name, where(f->enter_frame.ptr, relate));
  if (f->enter_frame.ptr)
    put(b, "/0x%x", f->enter_frame_flags);
}

/* A parallel or task data pointer as a segment name. */
static void put_data(buf_t *b, const char *name, ompt_data_t *d)
{
  if (!d) {
    put(b, " %s=NULL", name);
    return;
  }
  int s = seg_of(d);
  put(b, " %s=%s", name, s < 0 ? "unknown" : segs[s].key);
}

/* Segments run by a thread the scheduler chooses: explicit tasks and the
 * bodies of singles (and what they contain). */
static int free_thread(int s)
{
  return s >= 0 && segs[s].free_thread;
}

static const char *task_status_name(int st)
{
  static const char *n[] = {
      "?",      "complete",         "yield", "cancel", "detach", "early_fulfill", "late_fulfill",
      "switch", "taskwait_complete"};
  return st >= 0 && st <= 8 ? n[st] : "?";
}

static const char *endpoint_name(int ep)
{
  return ep == ompt_scope_begin ? "begin" : ep == ompt_scope_end ? "end" : "beginend";
}

/* What the inquiry entry points answer now, from inside a callback. */
static void put_inquiry_at(buf_t *b, int s, int levels, int relate);

static void put_inquiry(buf_t *b, int s)
{
  put_inquiry_at(b, s, 2, 1);
}

/* The answers for ancestor levels 0 to levels-1; relate: say where the
 * current task's frames are (else only NULL or set). */
static void put_inquiry_at(buf_t *b, int s, int levels, int relate)
{
  if (get_state) {
    ompt_wait_id_t w = 0;
    int st = get_state(&w);
    put(b, " state=0x%x", st);
    put_wait(b, s, w);
  } else {
    put(b, " state=missing");
  }
  if (!get_task_info) {
    put(b, " task_info=missing");
  } else {
    for (int level = 0; level < levels; level++) {
      int flags = 0, thread_num = -1;
      ompt_data_t *task = NULL, *par = NULL;
      ompt_frame_t *frame = NULL;
      char name[16];
      int r = get_task_info(level, &flags, &task, &frame, &par, &thread_num);
      put(b, " task%d=%d", level, r);
      if (r) {
        put(b, " task%d.flags=0x%x", level, flags);
        snprintf(name, sizeof name, "task%d.t", level);
        /* libomp names as a task's parent the task its thread left for it
         * (a scheduling parent), which varies with the thread: in
         * segments run by any thread, ancestors are only checked known. */
        if (level > 0 && free_thread(s))
          put(b, " %s=%s", name, !task ? "NULL" : seg_of(task) < 0 ? "unknown" : "known");
        else if (s >= 0 && segs[s].owner && seg_of(task) == segs[s].owner - 1)
          put(b, " %s=executor", name); /* a single's body: whichever thread's */
        else
          put_data(b, name, task);
        snprintf(name, sizeof name, "task%d.p", level);
        put_data(b, name, par);
        /* Which thread runs an explicit task or a single's body is the
         * scheduler's choice: there only validity is compared. */
        if (free_thread(s) || (flags & ompt_task_explicit))
          put(b, " task%d.num=%s", level, thread_num >= 0 ? "valid" : "-1");
        else
          put(b, " task%d.num=%d", level, thread_num);
        snprintf(name, sizeof name, "task%d.f", level);
        /* An ancestor's frames are on this thread's stack or another's as
         * the scheduler placed the tasks: beyond level 0, set or NULL. */
        put_frame(b, name, frame, relate && level == 0);
      }
    }
  }
  if (!get_parallel_info) {
    put(b, " parallel_info=missing");
  } else {
    for (int level = 0; level < levels; level++) {
      ompt_data_t *par = NULL;
      int size = -1;
      char name[16];
      int r = get_parallel_info(level, &par, &size);
      put(b, " par%d=%d", level, r);
      if (r) {
        snprintf(name, sizeof name, "par%d.p", level);
        put_data(b, name, par);
        put(b, " par%d.size=%d", level, size);
      }
    }
  }
}

/* Places differ by machine; what is compared is their shape. */
static void put_places(buf_t *b)
{
  if (get_place_num)
    put(b, " place_num=%d", get_place_num());
  else
    put(b, " place_num=missing");
  if (get_partition_place_nums) {
    int nums[64];
    put(b, " partition=%d", get_partition_place_nums(64, nums));
  } else {
    put(b, " partition=missing");
  }
  if (get_proc_id)
    put(b, " proc_id=%s", get_proc_id() >= 0 ? "valid" : "-1");
  else
    put(b, " proc_id=missing");
}

/* ---- callbacks --------------------------------------------------------- */

#define LOCKED(body)                                                                               \
  do {                                                                                             \
    pthread_mutex_lock(&lock);                                                                     \
    body;                                                                                          \
    pthread_mutex_unlock(&lock);                                                                   \
  } while (0)

static const char *thread_type_name(ompt_thread_t t)
{
  switch (t) {
  case ompt_thread_initial: return "initial";
  case ompt_thread_worker: return "worker";
  case ompt_thread_other: return "other";
  default: return "unknown";
  }
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
  buf_t b = {.n = 0};
  LOCKED({
    put(&b, "thread_begin %s", thread_type_name(type));
    if (get_thread_data)
      put(&b, " thread_data=%s", get_thread_data() == thread_data ? "same" : "other");
    thread_data->value = (uint64_t)type;
    emit(1, 0, b.b);
  });
}

static void on_thread_end(ompt_data_t *thread_data)
{
  buf_t b = {.n = 0};
  LOCKED({
    put(&b, "thread_end %s", thread_type_name((ompt_thread_t)thread_data->value));
    emit(1, 0, b.b);
  });
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *par,
                              unsigned int requested, int flags, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = task_seg(task);
    int r = seg_new("%s/p%u", s < 0 ? "?" : segs[s].key, s < 0 ? 0 : segs[s].nparallel++);
    par->value = (uint64_t)r + 1;
    put(&b, "parallel_begin region=%s requested=%u flags=0x%x", segs[r].key, requested, flags);
    put_frame(&b, "frame", frame, 1);
    put_ra(&b, ra);
    put_inquiry(&b, s);
    emit(s, 1, b.b);
  });
}

static void on_parallel_end(ompt_data_t *par, ompt_data_t *task, int flags, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = task_seg(task);
    put(&b, "parallel_end");
    /* Whether a region is named, not which: libomp 14, ending serialized
     * nested regions on two threads at once, sometimes passes one thread
     * the other's region (about one run in fifteen of progs/parallel.c):
     * its answer is not deterministic, so it cannot be compared. */
    put(&b, " par=%s", par ? "set" : "NULL");
    put(&b, " flags=0x%x", flags);
    put_ra(&b, ra);
    put_inquiry(&b, s);
    emit(s < 0 ? current_seg() : s, 1, b.b);
  });
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
                             unsigned int actual, unsigned int index, int flags)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s;
    if (ep == ompt_scope_begin) {
      int r = seg_of(par);
      int league = r >= 0;
      if ((flags & ompt_task_initial) && par && r < 0) {
        /* The initial task's region has no parallel_begin: name it here. */
        r = seg_new("R%u", index);
        par->value = (uint64_t)r + 1;
      }
      if ((flags & ompt_task_initial) && league)
        /* The initial task of a team of a league (host teams): named
         * within its league's region, as implicit tasks are. */
        s = seg_new("%s/I%u", segs[r].key, index);
      else if (flags & ompt_task_initial)
        s = seg_new("I%u", index);
      else
        s = seg_new("%s/i%u", r < 0 ? "?" : segs[r].key, index);
      segs[s].region = r;
      task->value = (uint64_t)s + 1;
      push(s);
      put(&b, "implicit_task begin");
      put_data(&b, "par", par);
    } else {
      s = seg_of(task);
      put(&b, "implicit_task end");
      /* The end may name its region, or not (NULL); say which. */
      int r = seg_of(par);
      put(&b, " par=%s", !par ? "NULL" : (s >= 0 && r == segs[s].region) ? "own" : "other");
    }
    /* A worker's index at the end varies from run to run on libomp 14 (it
     * reads a team that may already serve the next region): not logged. */
    if (ep == ompt_scope_begin)
      put(&b, " actual=%u index=%u flags=0x%x", actual, index, flags);
    else if (s >= 0 && strstr(segs[s].key, "/I"))
      /* A league's initial task: libomp 14 reads its flags at the end from
       * a team that may already serve the next construct, 0x1 or 0x2. */
      put(&b, " actual=%u flags=league", actual);
    else
      put(&b, " actual=%u flags=0x%x", actual, flags);
    /* At an end the thread may already belong to the next region (a
     * worker's join barrier ends when the runtime gets to it): ask only at
     * beginnings, here and below. */
    if (ep == ompt_scope_begin) {
      put_inquiry(&b, s);
      put_places(&b);
    } else if (get_state) {
      /* The thread's own state is its own at any time: the end's state says
       * whether the join is the runtime's overhead yet. */
      put(&b, " state=0x%x", get_state(NULL));
    }
    emit(s, 1, b.b);
    if (ep != ompt_scope_begin)
      pop(s);
  });
}

static void on_task_create(ompt_data_t *enc, const ompt_frame_t *frame, ompt_data_t *task,
                           int flags, int has_deps, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    int c = task_seg(enc);
    if (c < 0)
      c = current_seg();
    int s = seg_new("%s/t%u", segs[c].key, segs[c].ntask++);
    task->value = (uint64_t)s + 1;
    segs[s].explicit_task = 1;
    segs[s].free_thread = 1;
    segs[s].region = segs[c].region;
    put(&b, "task_create task=%s flags=0x%x deps=%d", segs[s].key, flags, has_deps);
    put_frame(&b, "frame", frame, 1);
    put_ra(&b, ra);
    put_inquiry(&b, c);
    emit(c, 1, b.b);
  });
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
  buf_t b = {.n = 0};
  LOCKED({
    int p = seg_of(prior);
    /* Suspensions (yield, switch) happen where the scheduler chooses: only
     * the end of a task is compared. */
    if (status != ompt_task_yield && status != ompt_task_switch) {
      put(&b, "task_end status=%s", task_status_name(status));
      put(&b, " next=%s", next ? "task" : "NULL");
      emit(p, 1, b.b);
    }
    if (status != ompt_task_yield && status != ompt_task_switch && depth > 0 &&
        depth <= MAX_DEPTH && stack[depth - 1] == p)
      pop(p);
    int n = seg_of(next);
    if (n >= 0) {
      /* Tied tasks nest on their thread's stack: a task begun is pushed,
       * a task completed popped, so a single's body is found again below
       * the tasks its thread ran. */
      int top = depth > 0 && depth <= MAX_DEPTH ? stack[depth - 1] : -1;
      int already = top == n || (top >= 0 && segs[top].owner == n + 1);
      if (!already && segs[n].explicit_task && !segs[n].started)
        push(n);
      else if (!already)
        set_top(n);
      if (!segs[n].started && segs[n].explicit_task) {
        segs[n].started = 1;
        buf_t c = {.n = 0};
        put(&c, "task_begin");
        /* Inside task_schedule the thread is between two tasks: which task
         * a runtime calls the parent there, and which frames it has set
         * yet, is its own affair; only the task itself is asked about. */
        put_inquiry_at(&c, n, 1, 0);
        if (get_task_memory) {
          void *addr = NULL;
          size_t size = 0;
          int r = get_task_memory(&addr, &size, 0);
          put(&c, " task_memory=%d,%s", r, size ? "size>0" : "size=0");
        } else {
          put(&c, " task_memory=missing");
        }
        emit(n, 1, c.b);
      }
    } else if (next) {
      set_top(0);
    }
  });
}

static const char *work_name(int w)
{
  static const char *n[] = {
      "?",          "loop",     "sections", "single_executor", "single_other", "workshare",
      "distribute", "taskloop", "scope"};
  return w >= 0 && w <= 8 ? n[w] : "?";
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t ep, ompt_data_t *par,
                    ompt_data_t *task, uint64_t count, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    int single = wstype == ompt_work_single_executor || wstype == ompt_work_single_other;
    /* A single's own events belong to the implicit task, not its body. */
    int s = single ? seg_of(task) : task_seg(task);
    if (s < 0)
      s = current_seg();
    if (single) {
      /* Which thread executes a single is the runtime's choice: the task
       * logs only that it met its j-th single; the team's set holds one
       * executor and the others; the body's events go to a segment of the
       * single itself. */
      if (ep == ompt_scope_begin)
        segs[s].nsingle++;
      unsigned j = segs[s].nsingle - 1;
      put(&b, "single %s nth=%u", endpoint_name(ep), j);
      put_data(&b, "par", par);
      /* The executor's end comes from the end of the single, the others'
       * from its start: the end's address goes with the role, below. */
      if (ep == ompt_scope_begin) {
        put_ra(&b, ra);
        put_inquiry(&b, s);
      }
      emit(s, 1, b.b);
      int r = segs[s].region;
      if (r >= 0) {
        buf_t c = {.n = 0};
        put(&c, "single %s nth=%u role=%s count=%lu", endpoint_name(ep), j, work_name(wstype),
            (unsigned long)count);
        put_ra(&c, ra);
        emit(r, 0, c.b);
      }
      if (wstype == ompt_work_single_executor) {
        if (ep == ompt_scope_begin) {
          char key[200];
          snprintf(key, sizeof key, "%s/single%u", r >= 0 ? segs[r].key : "?", j);
          int k = seg_new("%s", key);
          segs[k].region = r;
          segs[k].free_thread = 1;
          segs[k].owner = s + 1;
          push(k);
        } else {
          pop(-1);
        }
      }
    } else {
      put(&b, "work %s %s", work_name(wstype), endpoint_name(ep));
      put_data(&b, "par", par);
      put_ra(&b, ra);
      if (ep == ompt_scope_begin)
        put_inquiry(&b, s);
      emit(s, 1, b.b);
      /* How many iterations a thread gets is the schedule's affair: the
       * counts are compared as the team's set. */
      int r = segs[s].region;
      buf_t c = {.n = 0};
      put(&c, "work %s %s count=%lu", work_name(wstype), endpoint_name(ep), (unsigned long)count);
      emit(r >= 0 ? r : s, r >= 0 ? 0 : 1, c.b);
    }
  });
}

static void on_dispatch(ompt_data_t *par, ompt_data_t *task, ompt_dispatch_t kind,
                        ompt_data_t instance)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = task_seg(task);
    int r = s >= 0 ? segs[s].region : -1;
    put(&b, "dispatch %s", kind == ompt_dispatch_iteration ? "iteration" : "section");
    put_data(&b, "par", par);
    if (kind == ompt_dispatch_iteration)
      put(&b, " value=%lu", (unsigned long)instance.value);
    else
      put(&b, " section=%s", instance.ptr ? "non-NULL" : "NULL");
    /* Chunks go to whichever thread asks first: a set per team. */
    emit(r >= 0 ? r : 1, 0, b.b);
  });
}

static const char *sync_name(int k)
{
  static const char *n[] = {"?",
                            "barrier",
                            "barrier_implicit",
                            "barrier_explicit",
                            "barrier_implementation",
                            "taskwait",
                            "taskgroup",
                            "reduction",
                            "barrier_implicit_workshare",
                            "barrier_implicit_parallel",
                            "barrier_teams"};
  return k >= 0 && k <= 10 ? n[k] : "?";
}

static void sync_common(const char *what, ompt_sync_region_t kind, ompt_scope_endpoint_t ep,
                        ompt_data_t *par, ompt_data_t *task, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = task_seg(task);
    put(&b, "%s %s %s", what, sync_name(kind), endpoint_name(ep));
    if (!par) {
      put(&b, " par=NULL");
    } else {
      int r = seg_of(par);
      put(&b, " par=%s", s >= 0 && r == segs[s].region ? "own" : r < 0 ? "unknown" : segs[r].key);
    }
    if (!task)
      put(&b, " task=NULL");
    put_ra(&b, ra);
    if (ep == ompt_scope_begin)
      put_inquiry(&b, s < 0 ? current_seg() : s);
    emit(s < 0 ? current_seg() : s, 1, b.b);
  });
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *par,
                           ompt_data_t *task, const void *ra)
{
  sync_common("sync_region", kind, ep, par, task, ra);
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *par,
                                ompt_data_t *task, const void *ra)
{
  sync_common("sync_wait", kind, ep, par, task, ra);
}

static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *par,
                         ompt_data_t *task, const void *ra)
{
  sync_common("reduction", kind, ep, par, task, ra);
}

static const char *mutex_name(int k)
{
  static const char *n[] = {"?",        "lock",   "test_lock", "nest_lock", "test_nest_lock",
                            "critical", "atomic", "ordered"};
  return k >= 0 && k <= 7 ? n[k] : "?";
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = current_seg();
    put(&b, "mutex_acquire %s hint=%u impl=%u", mutex_name(kind), hint, impl);
    put_wait(&b, s, wait);
    put_ra(&b, ra);
    emit(s, 1, b.b);
  });
}

static void mutex_common(const char *what, ompt_mutex_t kind, ompt_wait_id_t wait, const void *ra,
                         int inquire)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = current_seg();
    put(&b, "%s %s", what, mutex_name(kind));
    put_wait(&b, s, wait);
    put_ra(&b, ra);
    if (inquire)
      put_inquiry(&b, s);
    emit(s, 1, b.b);
  });
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait, const void *ra)
{
  mutex_common("mutex_acquired", kind, wait, ra, 1);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait, const void *ra)
{
  mutex_common("mutex_released", kind, wait, ra, 0);
}

static void on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t wait, const void *ra)
{
  mutex_common("lock_destroy", kind, wait, ra, 0);
}

static void on_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                         ompt_wait_id_t wait, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = current_seg();
    put(&b, "lock_init %s hint=%u impl=%u", mutex_name(kind), hint, impl);
    put_wait(&b, s, wait);
    put_ra(&b, ra);
    emit(s, 1, b.b);
  });
}

static void on_nest_lock(ompt_scope_endpoint_t ep, ompt_wait_id_t wait, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = current_seg();
    put(&b, "nest_lock %s", endpoint_name(ep));
    put_wait(&b, s, wait);
    put_ra(&b, ra);
    emit(s, 1, b.b);
  });
}

static void on_masked(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = task_seg(task);
    put(&b, "masked %s", endpoint_name(ep));
    put_data(&b, "par", par);
    put_ra(&b, ra);
    if (ep == ompt_scope_begin)
      put_inquiry(&b, s);
    emit(s < 0 ? current_seg() : s, 1, b.b);
  });
}

static void on_flush(ompt_data_t *thread_data, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    put(&b, "flush thread_data=%s", thread_data ? "non-NULL" : "NULL");
    put_ra(&b, ra);
    emit(current_seg(), 1, b.b);
  });
}

static void on_cancel(ompt_data_t *task, int flags, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = task_seg(task);
    put(&b, "cancel flags=0x%x", flags);
    put_ra(&b, ra);
    emit(s < 0 ? current_seg() : s, 1, b.b);
  });
}

static void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = task_seg(task);
    put(&b, "dependences n=%d", ndeps);
    for (int i = 0; i < ndeps && i < 16; i++) {
      char name[16];
      put(&b, " dep%d.type=%d", i, (int)deps[i].dependence_type);
      snprintf(name, sizeof name, "dep%d.var", i);
      if (deps[i].dependence_type == ompt_dependence_type_source ||
          deps[i].dependence_type == ompt_dependence_type_sink)
        put(&b, " %s=%lu", name, (unsigned long)deps[i].variable.value);
      else
        put_addr(&b, name, s, (uintptr_t)deps[i].variable.ptr);
    }
    emit(s < 0 ? current_seg() : s, 1, b.b);
  });
}

static void on_task_dependence(ompt_data_t *src, ompt_data_t *sink)
{
  buf_t b = {.n = 0};
  LOCKED({
    int s = seg_of(sink);
    put(&b, "task_dependence");
    put_data(&b, "src", src);
    /* A task's predecessors come in no particular order: a set. */
    emit(s < 0 ? current_seg() : s, 0, b.b);
  });
}

static int on_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *ra)
{
  buf_t b = {.n = 0};
  LOCKED({
    put(&b, "control_tool command=%lu modifier=%lu arg=%s", (unsigned long)command,
        (unsigned long)modifier, arg ? "non-NULL" : "NULL");
    put_ra(&b, ra);
    emit(current_seg(), 1, b.b);
  });
  return 42; /* what omp_control_tool must return to the program */
}

/* Device callbacks: never expected on the host; logged if they come. */
static void on_device_event(void)
{
  LOCKED(emit(current_seg(), 1, "device_event"));
}

/* ---- start-up and shutdown --------------------------------------------- */


/*
 * The program asks the tool to finalize itself (progs/inquiry.c finds this
 * by dlsym): ompt_finalize_tool is called from the program's own code, as
 * libomp 14 tears the runtime down inside it and cannot return into a
 * runtime call (from a control_tool callback it crashes).
 */
void ompt_log_finalize_tool(void)
{
  LOCKED(emit(2, 1, finalize_tool ? "finalize_tool call" : "finalize_tool missing"));
  /* Outside the lock: the runtime calls the tool's finalize from inside. */
  if (finalize_tool)
    finalize_tool();
  LOCKED(emit(2, 1, "finalize_tool returned"));
}

static int find_program(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  (void)data;
  /* The first object is the program itself: its loaded extent. */
  prog_bias = info->dlpi_addr;
  prog_lo = UINTPTR_MAX;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (lo < prog_lo)
      prog_lo = lo;
    if (lo + ph->p_memsz > prog_hi)
      prog_hi = lo + ph->p_memsz;
  }
  return 1;
}

static int find_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  const char *base = strrchr(info->dlpi_name, '/');
  base = base ? base + 1 : info->dlpi_name;
  if (strncmp(base, "libomp.so", 9) == 0 || strncmp(base, "libgomp.so", 10) == 0) {
    snprintf((char *)data, 512, "%s", info->dlpi_name);
    return 1;
  }
  return 0;
}

/*
 * Whether the runtime itself defines ompt_start_tool, and how: libomp 14
 * has a weak definition (a tool's own wins, and the runtime's chains to
 * the next with dlsym), which some tools look for.
 */
static void log_runtime_start_tool(void)
{
  char path[512] = "";
  buf_t b = {.n = 0};
  dl_iterate_phdr(find_runtime, path);
  void *h = path[0] ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
  void *sym = h ? dlsym(h, "ompt_start_tool") : NULL;
  const ElfW(Sym) *es = NULL;
  Dl_info info;
  if (!h)
    put(&b, "runtime_start_tool runtime=unknown");
  else if (!sym || !dladdr1(sym, &info, (void **)&es, RTLD_DL_SYMENT) || !info.dli_fname ||
           strcmp(info.dli_fname, path) != 0)
    put(&b, "runtime_start_tool defined=no"); /* not found, or found elsewhere */
  else if (es)
    put(&b, "runtime_start_tool defined=%s",
        ELF64_ST_BIND(es->st_info) == STB_WEAK ? "weak" : "global");
  else
    put(&b, "runtime_start_tool defined=yes");
  if (h)
    dlclose(h);
  emit(2, 1, b.b);
}

static void log_inquiry_at_start(void)
{
  buf_t b = {.n = 0};
  if (enumerate_states) {
    int st = ompt_state_undefined;
    const char *name = NULL;
    put(&b, "states");
    int n = 0;
    while (n++ < 200 && enumerate_states(st, &st, &name))
      put(&b, " %s=0x%x", name, st);
  } else {
    put(&b, "states missing");
  }
  emit(2, 1, b.b);
  b.n = 0;
  b.b[0] = 0;
  if (enumerate_mutex_impls) {
    int impl = ompt_mutex_impl_none;
    const char *name = NULL;
    put(&b, "mutex_impls");
    int n = 0;
    while (n++ < 50 && enumerate_mutex_impls(impl, &impl, &name))
      put(&b, " %s=%d", name, impl);
  } else {
    put(&b, "mutex_impls missing");
  }
  emit(2, 1, b.b);
  b.n = 0;
  b.b[0] = 0;
  put(&b, "places");
  if (get_num_places) {
    int n = get_num_places();
    put(&b, " num_places=%s", n > 0 ? ">0" : n == 0 ? "0" : "<0");
    if (get_place_proc_ids && n > 0) {
      int ids[256];
      put(&b, " place0_procs=%s", get_place_proc_ids(0, 256, ids) > 0 ? ">0" : "0");
    }
  } else {
    put(&b, " num_places=missing");
  }
  if (!get_place_proc_ids)
    put(&b, " place_proc_ids=missing");
  put_places(&b);
  emit(2, 1, b.b);
  b.n = 0;
  b.b[0] = 0;
  put(&b, "devices");
  if (get_num_devices)
    put(&b, " num_devices=%d", get_num_devices());
  else
    put(&b, " num_devices=missing");
  if (get_target_info) {
    uint64_t dev = 0;
    ompt_id_t tid = 0, op = 0;
    put(&b, " target_info=%d", get_target_info(&dev, &tid, &op));
  } else {
    put(&b, " target_info=missing");
  }
  if (get_num_procs)
    put(&b, " num_procs=%s", get_num_procs() > 0 ? ">0" : "<=0");
  else
    put(&b, " num_procs=missing");
  if (get_unique_id) {
    uint64_t a = get_unique_id(), c = get_unique_id();
    put(&b, " unique_id=%s", a != 0 && c != 0 && a != c ? "distinct" : "REPEATED");
  } else {
    put(&b, " unique_id=missing");
  }
  put(&b, " finalize_tool=%s", finalize_tool ? "present" : "missing");
  put(&b, " get_task_memory=%s", get_task_memory ? "present" : "missing");
  put(&b, " get_callback=%s", get_callback ? "present" : "missing");
  emit(2, 1, b.b);
}

#define LOOKUP(var, name)                                                                          \
  do {                                                                                             \
    var = (__typeof__(var))lookup(name);                                                           \
    buf_t lb = {.n = 0};                                                                           \
    put(&lb, "lookup %s %s", name, var ? "present" : "missing");                                   \
    emit(2, 1, lb.b);                                                                              \
  } while (0)

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data)
{
  (void)tool_data;
  pthread_mutex_lock(&lock);
  buf_t b = {.n = 0};
  put(&b, "initialize initial_device_num=%d", initial_device_num);
  emit(2, 1, b.b);
  LOOKUP(set_callback, "ompt_set_callback");
  LOOKUP(get_callback, "ompt_get_callback");
  LOOKUP(get_task_info, "ompt_get_task_info");
  LOOKUP(get_parallel_info, "ompt_get_parallel_info");
  LOOKUP(get_state, "ompt_get_state");
  LOOKUP(get_thread_data, "ompt_get_thread_data");
  LOOKUP(enumerate_states, "ompt_enumerate_states");
  LOOKUP(enumerate_mutex_impls, "ompt_enumerate_mutex_impls");
  LOOKUP(get_num_places, "ompt_get_num_places");
  LOOKUP(get_place_proc_ids, "ompt_get_place_proc_ids");
  LOOKUP(get_place_num, "ompt_get_place_num");
  LOOKUP(get_partition_place_nums, "ompt_get_partition_place_nums");
  LOOKUP(get_proc_id, "ompt_get_proc_id");
  LOOKUP(get_num_procs, "ompt_get_num_procs");
  LOOKUP(get_task_memory, "ompt_get_task_memory");
  LOOKUP(get_target_info, "ompt_get_target_info");
  LOOKUP(get_num_devices, "ompt_get_num_devices");
  LOOKUP(get_unique_id, "ompt_get_unique_id");
  LOOKUP(finalize_tool, "ompt_finalize_tool");
  if (!set_callback) {
    pthread_mutex_unlock(&lock);
    return 1;
  }
  static const struct {
    int id;
    const char *name;
    ompt_callback_t cb;
  } cbs[] = {
      {ompt_callback_thread_begin, "thread_begin", (ompt_callback_t)on_thread_begin},
      {ompt_callback_thread_end, "thread_end", (ompt_callback_t)on_thread_end},
      {ompt_callback_parallel_begin, "parallel_begin", (ompt_callback_t)on_parallel_begin},
      {ompt_callback_parallel_end, "parallel_end", (ompt_callback_t)on_parallel_end},
      {ompt_callback_task_create, "task_create", (ompt_callback_t)on_task_create},
      {ompt_callback_task_schedule, "task_schedule", (ompt_callback_t)on_task_schedule},
      {ompt_callback_implicit_task, "implicit_task", (ompt_callback_t)on_implicit_task},
      {ompt_callback_target, "target", (ompt_callback_t)on_device_event},
      {ompt_callback_target_data_op, "target_data_op", (ompt_callback_t)on_device_event},
      {ompt_callback_target_submit, "target_submit", (ompt_callback_t)on_device_event},
      {ompt_callback_control_tool, "control_tool", (ompt_callback_t)on_control_tool},
      {ompt_callback_device_initialize, "device_initialize", (ompt_callback_t)on_device_event},
      {ompt_callback_device_finalize, "device_finalize", (ompt_callback_t)on_device_event},
      {ompt_callback_device_load, "device_load", (ompt_callback_t)on_device_event},
      {ompt_callback_device_unload, "device_unload", (ompt_callback_t)on_device_event},
      {ompt_callback_sync_region_wait, "sync_region_wait", (ompt_callback_t)on_sync_region_wait},
      {ompt_callback_mutex_released, "mutex_released", (ompt_callback_t)on_mutex_released},
      {ompt_callback_dependences, "dependences", (ompt_callback_t)on_dependences},
      {ompt_callback_task_dependence, "task_dependence", (ompt_callback_t)on_task_dependence},
      {ompt_callback_work, "work", (ompt_callback_t)on_work},
      {ompt_callback_masked, "masked", (ompt_callback_t)on_masked},
      {ompt_callback_target_map, "target_map", (ompt_callback_t)on_device_event},
      {ompt_callback_sync_region, "sync_region", (ompt_callback_t)on_sync_region},
      {ompt_callback_lock_init, "lock_init", (ompt_callback_t)on_lock_init},
      {ompt_callback_lock_destroy, "lock_destroy", (ompt_callback_t)on_lock_destroy},
      {ompt_callback_mutex_acquire, "mutex_acquire", (ompt_callback_t)on_mutex_acquire},
      {ompt_callback_mutex_acquired, "mutex_acquired", (ompt_callback_t)on_mutex_acquired},
      {ompt_callback_nest_lock, "nest_lock", (ompt_callback_t)on_nest_lock},
      {ompt_callback_flush, "flush", (ompt_callback_t)on_flush},
      {ompt_callback_cancel, "cancel", (ompt_callback_t)on_cancel},
      {ompt_callback_reduction, "reduction", (ompt_callback_t)on_reduction},
      {ompt_callback_dispatch, "dispatch", (ompt_callback_t)on_dispatch},
  };
  for (size_t i = 0; i < sizeof cbs / sizeof cbs[0]; i++) {
    int r = set_callback((ompt_callbacks_t)cbs[i].id, cbs[i].cb);
    buf_t c = {.n = 0};
    put(&c, "set_callback %s=%d", cbs[i].name, r);
    emit(2, 1, c.b);
  }
  log_inquiry_at_start();
  log_runtime_start_tool();
  pthread_mutex_unlock(&lock);
  return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
  (void)tool_data;
  LOCKED(emit(2, 1, "finalize"));
}

/*
 * The runtime's discovery: a definition here wins over the runtime's own
 * (weak) one when the library is preloaded, and OMP_TOOL_LIBRARIES finds it
 * by dlsym.
 */
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {.value = 0}};
  (void)runtime_version;
  const char *path = getenv("OMPT_LOG_FILE");
  if (!path || !*path)
    return NULL;
  segs = calloc(MAX_SEGS, sizeof *segs);
  if (!segs)
    return NULL;
  log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0)
    return NULL;
  dl_iterate_phdr(find_program, NULL);
  /* Fixed segments: "?" (events whose task is unknown), "T" (thread
   * events, a set), "A" (start-up and shutdown, in order). */
  seg_new("?");
  seg_new("T");
  seg_new("A");
  buf_t b = {.n = 0};
  put(&b, "start_tool omp_version=%u", omp_version);
  emit(2, 1, b.b);
  return &result;
}
