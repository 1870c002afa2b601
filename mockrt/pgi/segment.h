/*
 * Stack segments of the PGI layout (a cactus stack): every implicit task's
 * outlined body runs on a segment the runtime maps itself, not on the stack
 * of the thread that runs it.  A segment is an anonymous mapping with an
 * inaccessible guard page at its low end, so a body that overruns it faults
 * at once instead of writing over whatever lies below.
 */
#ifndef MOCKRT_PGI_SEGMENT_H
#define MOCKRT_PGI_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

/* Usable bytes of a segment, the guard page not counted. */
#define MOCKRT_PGI_SEGMENT_SIZE (256u * 1024u)

typedef struct mockrt_pgi_segment {
  void *base; /* the mapping, guard page included */
  size_t len; /* the mapping's length */
  void *top;  /* one past the highest usable byte: where the stack starts */
} mockrt_pgi_segment_t;

/*
 * Take a segment for the calling thread's next implicit task; segments
 * nest (a region opened inside a body takes one more).  False if none could
 * be mapped.  Async-signal-safety is not needed: only the runtime's own
 * entry points call these, never a signal handler.
 */
int mockrt_pgi_segment_take(mockrt_pgi_segment_t *seg);
/* Give back the segment the last take returned (strictly last in, first out). */
void mockrt_pgi_segment_give(const mockrt_pgi_segment_t *seg);

/*
 * What the switch routine passes to the trampoline once it runs on the
 * segment: the arguments of mockrt_invoke_fn, in memory because the
 * routine takes the segment's top as well and seven arguments do not all
 * fit in x86-64's argument registers.  The offsets are the assembly's.
 */
typedef struct mockrt_pgi_call {
  void (*fn)(void);  /* offset 0 */
  int32_t *gtid;     /* 8 */
  int32_t *btid;     /* 16 */
  int64_t argc;      /* 24: a full doubleword, so every ISA loads it alike */
  void **argv;       /* 32 */
  void **exit_frame; /* 40 */
} mockrt_pgi_call_t;

_Static_assert(sizeof(void *) == 8, "the switch routines assume 64-bit pointers");
_Static_assert(offsetof(mockrt_pgi_call_t, exit_frame) == 40, "switch.S reads these offsets");

/*
 * The per-ISA switch routine (<isa>/switch.S): saves the stack pointer,
 * moves to top (rounded down to the ABI's alignment), calls the Intel
 * trampoline there with call's arguments and returns on the original stack.
 */
void mockrt_pgi_switch(void *top, const mockrt_pgi_call_t *call);

/*
 * mockrt/intel's trampoline, assembled once more for this library under
 * this name (mockrt/CMakeLists.txt renames it), because this library's
 * mockrt_invoke_microtask is the switch.
 */
void mockrt_pgi_invoke_body(void (*fn)(void), int32_t *gtid, int32_t *btid, int argc, void **argv,
                            void **exit_frame);

#endif
