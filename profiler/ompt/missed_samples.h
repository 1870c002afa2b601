/* Samples whose signal came while the thread's own code held its unwinder
 * and tree (t->in_handler), as a capture in an OMPT callback does.
 *
 * The handler cannot take such a sample: it would interleave with the
 * capture's use of the unwinder. Dropping it would lose time in
 * proportion to the time spent in callbacks, which in a task-heavy
 * program is most of its time (a task created every microsecond, a
 * capture at each). So the handler only counts the signal and its
 * periods, and the thread, once it lets go, takes one sample of its own
 * call path there: the program's call into the runtime that led to the
 * callback (a task's creation, a region's start), which is where the
 * program was when the signal came, with the runtime's <omp-overhead>
 * under it, as a sample inside the runtime's call has. */
#ifndef KNIT_OMPT_MISSED_SAMPLES_H
#define KNIT_OMPT_MISSED_SAMPLES_H

struct knit_thread;

/* Takes the signals counted while t's state was held as one sample of the
 * caller's path, with their periods and blame; nothing when there are
 * none. For the thread itself, from a callback or wrapper, after it gave
 * its state back. Not for signal handlers. */
void knit_take_missed(struct knit_thread *t);

#endif /* KNIT_OMPT_MISSED_SAMPLES_H */
