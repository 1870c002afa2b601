/* A copy of the vdso in the measurement directory, for the report. */
#ifndef KNIT_CORE_VDSO_COPY_H
#define KNIT_CORE_VDSO_COPY_H

/* The report reads function names from the files that hold a program's
 * code, and no file holds the vdso (clock_gettime, gettimeofday): its image
 * is written to DIR/ under the name the loader gives it (linux-vdso.so.1),
 * once, where the report looks for a module whose name has no directory. */
void knit_vdso_copy(const char *dir);

#endif /* KNIT_CORE_VDSO_COPY_H */
