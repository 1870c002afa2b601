/* Directed blame: what a mutex's release takes (see blame.h). */
#ifndef KNIT_OMPT_BLAME_RELEASE_H
#define KNIT_OMPT_BLAME_RELEASE_H

#include <stdint.h>

/* The calling thread released the mutex wait_id, called from the program
 * at codeptr_ra (the callback's return address, or NULL): the waits
 * accumulated against it are charged, as OMP_MUTEX_BLAME, to the calling
 * thread's path at that call. Costs one table lookup when nobody waited.
 * From the mutex_released callback or a GOMP wrapper of a release; not for
 * signal handlers. */
void knit_blame_release(uint64_t wait_id, const void *codeptr_ra);

#endif /* KNIT_OMPT_BLAME_RELEASE_H */
