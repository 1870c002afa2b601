/*
 * The PGI layout's way of calling an outlined body: on a stack segment of
 * its own (a cactus stack), reached by a hand-made stack switch.  The
 * __kmpc_* entry points (mockrt/kmpc) and the worker pool (core/pool.c,
 * through team->micro) call mockrt_invoke_microtask on the thread's own
 * stack; this takes a segment, switches to it (<isa>/switch.S) and there
 * calls the Intel trampoline, which forwards the captured variables and
 * stores its own CFA, now an address on the segment, as the implicit
 * task's exit frame.  So the task's frames, the body and everything it
 * calls, lie wholly on the segment, and a tool that stops its walk at the
 * exit frame never has to step across the switch.
 *
 * This personality has no extra threads (no shepherd, unlike intel), so it
 * defines neither of core's weak hooks mockrt_personality_start/stop.
 */
#include "../kmpc/kmpc.h"
#include "segment.h"

/* What ompt_start_tool is told about the runtime. */
const char *mockrt_runtime_version = "knit mockrt 0.1 (pgi personality, libomp.so.5 ABI)";

void mockrt_invoke_microtask(void (*fn)(void), int32_t *gtid, int32_t *btid, int argc, void **argv,
                             void **exit_frame)
{
  mockrt_pgi_segment_t seg;
  mockrt_pgi_call_t call = {fn, gtid, btid, argc, argv, exit_frame};

  /*
   * Out of address space, the region still runs correctly on the thread's
   * own stack; only the layout a profiler sees is then the Intel one.
   */
  if (MOCKRT_UNLIKELY(!mockrt_pgi_segment_take(&seg))) {
    mockrt_pgi_invoke_body(fn, gtid, btid, argc, argv, exit_frame);
    return;
  }
  mockrt_pgi_switch(seg.top, &call);
  mockrt_pgi_segment_give(&seg);
}
