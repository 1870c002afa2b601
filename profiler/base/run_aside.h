/* Running work whose memory must not come from the program's malloc heap.
 *
 * Some of knit's work calls libraries that allocate with malloc: libelf
 * reading a library's symbols, qsort's scratch, Capstone sorting its
 * tables at its first decode. On the program's thread those blocks come
 * from the program's heap, and even freed they move the program's later
 * blocks to other addresses than they have without knit (base/arena.h
 * says what that costs). Run aside, the work is done by a short-lived
 * helper thread: glibc gives a new thread a malloc arena of its own.
 */
#ifndef KNIT_CORE_RUN_ASIDE_H
#define KNIT_CORE_RUN_ASIDE_H

/* Runs fn(arg) on a helper thread and waits for it. The helper is no
 * thread of knit's (the real pthread_create, not knit's wrapper: no timer,
 * no samples) and runs with every signal blocked, so that none of the
 * program's lands on it. When no thread can be started, the calling
 * thread runs fn itself. Not for signal handlers. */
void knit_run_aside(void (*fn)(void *), void *arg);

#endif /* KNIT_CORE_RUN_ASIDE_H */
