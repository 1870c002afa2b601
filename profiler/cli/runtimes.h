/* The OpenMP runtimes a program can be run on, and which ABI each speaks. */
#ifndef KNIT_CLI_RUNTIMES_H
#define KNIT_CLI_RUNTIMES_H

#include <stdbool.h>
#include <stddef.h>

/* The two OpenMP ABIs: what gcc emits (GOMP_*, libgomp.so.1) and what
 * clang emits (__kmpc_*, libomp.so.5). */
#define KNIT_ABI_GOMP 0x1u
#define KNIT_ABI_KMPC 0x2u

typedef struct knit_runtime {
  const char *name;
  const char *dir;    /* folder under knit's lib/ put first on the library
                           path, or NULL: the system's own libraries */
  const char *soname; /* a library the folder must hold */
  unsigned abis;      /* KNIT_ABI_* spoken; 0 for "system": not checked */
  const char *what;   /* for --help and errors */
} knit_runtime;

/* The runtime called name, or NULL. */
const knit_runtime *knit_runtime_find(const char *name);

/* Lists the runtimes' names, ", "-separated, into buf. */
void knit_runtime_names(char *buf, size_t len);

/* The ABIs a program asks for, from the OpenMP libraries it links
 * (DT_NEEDED): KNIT_ABI_* bits, 0 for a program without OpenMP (or not an
 * ELF file). */
unsigned knit_program_abis(const char *path);

#endif /* KNIT_CLI_RUNTIMES_H */
