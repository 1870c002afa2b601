/*
 * What a test program tells the OMPT checker (ompt_checker.c), which it is
 * linked with (or which is preloaded).  The checker can only compare the
 * runtime's answers with facts the program knows: where an outlined body's
 * locals are, which thread and team size OpenMP gave it, which locks exist.
 */
#ifndef KNIT_OMPT_CHECKER_H
#define KNIT_OMPT_CHECKER_H

/*
 * Called from an outlined body: local is the address of one of the body's
 * own locals, thread_num and team_size what omp_get_thread_num() and
 * omp_get_num_threads() said.  The checker asks the runtime's inquiry
 * functions and compares.
 */
void knit_ompt_checker_probe(const void *local, int thread_num, int team_size);

/*
 * Called from an explicit task's body: local is the address of one of its
 * locals.  The checker asks get_task_info(0) and (1) and compares with the
 * task_create and task_schedule events it has seen on this thread.
 */
void knit_ompt_checker_task_probe(const void *local);

/* Called before omp_init_lock(lock): the lock's address is its wait id. */
void knit_ompt_checker_lock(const void *lock);

#endif
