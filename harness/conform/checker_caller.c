/*
 * The runtime function that called an outlined body, found by unwinding
 * (libgcc's DWARF unwinder, from the probe) up to the frame the body
 * returns into: the program passes its return address, not its CFA, as
 * clang's __builtin_dwarf_cfa() is 16 bytes off the DWARF CFA on aarch64.  OpenMP 5.0 defines an
 * implicit task's exit frame as that caller's frame, read as its canonical
 * frame address or as its frame pointer as the flags say; a range around
 * the body cannot tell that frame from the next one out, so the checker
 * finds the caller itself and compares exactly.  dladdr names it for the
 * evidence, and its module must be the runtime's: the one that holds the
 * inquiry functions the tool was given.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unwind.h>

#include "checker_state.h"

/* The DWARF number of the frame pointer register. */
#if defined(__x86_64__)
#define FP_REGISTER 6 /* rbp */
#elif defined(__aarch64__)
#define FP_REGISTER 29 /* x29 */
#elif !defined(__powerpc64__)
#error "the frame pointer register of this ISA is not known"
#endif

#define MAX_FRAMES 64

static const void *runtime_base;

void checker_note_runtime_module(const void *fn)
{
  Dl_info info;
  if (fn && dladdr(fn, &info))
    runtime_base = info.dli_fbase;
}

typedef struct walk {
  const void *ra;
  bool past_body;
  int frames;
  body_caller_t *caller;
} walk_t;

/*
 * A frame's address as __builtin_frame_address(0) gives it there.  On
 * PowerPC that is the stack pointer r1, which points to the frame's back
 * chain (gcc copies it to r31 when it keeps a frame pointer; libomp stores
 * r1 itself); at a call it is the callee's CFA, which libgcc keeps as the
 * context's CFA (it has no slot for r1 to read).
 */
static const void *frame_address(struct _Unwind_Context *ctx)
{
#if defined(__powerpc64__)
  return (const void *)_Unwind_GetCFA(ctx);
#else
  return (const void *)_Unwind_GetGR(ctx, FP_REGISTER);
#endif
}

/*
 * libgcc hands the trace a context whose registers and pc are a frame's at
 * its call, and whose CFA is that of the frame it called (the one just
 * unwound): the context whose pc is the body's return address is its
 * caller's, and the caller's own CFA comes with the next context.
 */
static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
  walk_t *w = arg;
  if (w->past_body) {
    w->caller->found = true;
    w->caller->cfa = (const void *)_Unwind_GetCFA(ctx);
    return _URC_END_OF_STACK;
  }
  if ((const void *)_Unwind_GetIP(ctx) == w->ra) {
    w->past_body = true;
    w->caller->fp = frame_address(ctx);
  }
  return ++w->frames < MAX_FRAMES ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/* "symbol+offset in module" for an address, from dladdr. */
static void describe(const void *addr, char *buf, size_t len)
{
  Dl_info info;
  if (!dladdr(addr, &info) || !info.dli_fname) {
    snprintf(buf, len, "%p in no loaded module", addr);
    return;
  }
  const char *file = strrchr(info.dli_fname, '/');
  file = file ? file + 1 : info.dli_fname;
  if (info.dli_sname)
    snprintf(buf, len, "%s+0x%lx in %s", info.dli_sname,
             (unsigned long)((const char *)addr - (const char *)info.dli_saddr), file);
  else
    snprintf(buf, len, "%s+0x%lx (no exported symbol)", file,
             (unsigned long)((const char *)addr - (const char *)info.dli_fbase));
}

void checker_find_body_caller(const void *ra, body_caller_t *c)
{
  memset(c, 0, sizeof *c);
  /* One byte back: the call, not what follows it (which may be another function). */
  const void *call = (const char *)ra - 1;
  describe(call, c->name, sizeof c->name);
  Dl_info info;
  c->in_runtime = runtime_base && dladdr(call, &info) && info.dli_fbase == runtime_base;
  walk_t w = {ra, false, 0, c};
  _Unwind_Backtrace(step, &w);
  if (!c->found)
    snprintf(c->why, sizeof c->why,
             w.past_body ? "the unwinder stopped in the body's caller "
                           "(it has no unwind information)"
                         : "the unwinder found no frame the body returns "
                           "into in %d frames",
             w.frames);
}
