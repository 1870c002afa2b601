/*
 * Doacross loops (ordered(n) with depend(sink:) and depend(source)): what
 * the personalities' entry points (gomp/doacross.c, kmpc/doacross.c) share
 * with the core (core/doacross.c).
 *
 * A dimension is described by its first value, its step and its trip
 * count; vectors name iterations by their values (gcc passes logical
 * numbers: first value 0, step 1).  A sink that names an iteration outside
 * the iteration space is ignored, as the specification says.
 */
#ifndef MOCKRT_CORE_DOACROSS_H
#define MOCKRT_CORE_DOACROSS_H

#include "mockrt.h"

/* Dimensions a doacross loop may have (ordered(n)); more abort with a message. */
#define MOCKRT_DOACROSS_MAX_DIMS 16

/* One dimension of the iteration space. */
typedef struct mockrt_doacross_dim {
  long lo;             /* the first value */
  long st;             /* the step, not 0 */
  unsigned long count; /* the trip count */
} mockrt_doacross_dim_t;

/*
 * The calling task enters its next doacross loop, of ndims dimensions.  Every thread of the team calls it once per loop, before it
 * enters the loop's worksharing construct (the doacross state has a slot
 * of its own, so it outlives the loop's dispatch).
 */
void mockrt_doacross_begin(mockrt_task_t *t, int ndims, const mockrt_doacross_dim_t *dims);
/* depend(source): the iteration vec[0..ndims) is done. */
void mockrt_doacross_post(mockrt_task_t *t, const long *vec);
/*
 * depend(sink: vec): wait until iteration vec has posted; at once if it is
 * outside the iteration space.  The caller has set the enter frame.
 */
void mockrt_doacross_wait(mockrt_task_t *t, const long *vec);
/* The task leaves the loop (the last thread to leave frees its state). */
void mockrt_doacross_end(mockrt_task_t *t);
/* The loop's dimension count, 0 outside a doacross loop. */
int mockrt_doacross_dims(const mockrt_task_t *t);

#endif
