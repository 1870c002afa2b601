/* Starting a program under knit: which libknit.so and which runtime to load,
 * natively or under QEMU user mode. */
#ifndef KNIT_CLI_LAUNCH_H
#define KNIT_CLI_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct knit_launch {
  const char *event;        /* KNIT_EVENT for the tool */
  const char *runtime;      /* a name of cli/runtimes.c */
  bool profile;             /* load libknit.so (record) or not (run) */
  bool qemu;                /* run under qemu-<isa> */
  const char *program;      /* resolved path */
  char **argv;              /* argv[0] as the user wrote it */
  const char *output;       /* measurement directory */
  const char *runtime_path; /* a folder holding a runtime under its soname: used
                               instead of runtime's folder, with no ABI check */
  const char *log;          /* file that takes the program's stdout and stderr, or NULL */
  unsigned timeout;         /* seconds before the program is killed; 0: none */

  /* Filled in by knit_launch_prepare. */
  const char *isa;        /* the program's ISA */
  char tool[4096];        /* libknit.so for that ISA */
  char runtime_dir[4096]; /* prepended to LD_LIBRARY_PATH, or "" */
  char qemu_binary[64];
  char qemu_sysroot[256]; /* -L argument, or "" */
} knit_launch;

/* Resolves name as the shell would (a path, or a search of PATH) to an
 * executable regular file. */
bool knit_find_program(const char *name, char *out, size_t outlen);

/* The folder that holds knit's own build products (bin/ and lib/ side by
 * side, as "<bin>/.."), in the build tree as under an install prefix: the
 * command finds libknit.so, the mock runtimes and knit conform's helpers
 * (conform/conform_helpers.h) from itself. */
bool knit_tree_root(char *out, size_t outlen);

/* Works out what to load; false with a message when something is missing
 * (an ISA with no libknit.so built, an unknown runtime, no qemu). */
bool knit_launch_prepare(knit_launch *l, char *err, size_t errlen);

/* Runs the program and waits for it. Returns its wait status (a program
 * killed for its timeout ends by SIGKILL), or -1 with a message when it
 * could not be started. The environment it gets is this process's, plus
 * what the launch adds; this process's own is left as it was. */
int knit_launch_run(const knit_launch *l, char *err, size_t errlen);

#endif /* KNIT_CLI_LAUNCH_H */
