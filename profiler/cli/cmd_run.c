/* knit run: runs a program on a chosen OpenMP runtime, without profiling. */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/runtimes.h"

static void usage(FILE *to)
{
  fprintf(to, "usage: knit run --runtime=NAME [--qemu] -- PROGRAM [ARGS...]\n"
              "\n"
              "Runs PROGRAM, unmodified and unprofiled, on the chosen OpenMP runtime\n"
              "(`knit record` takes the same --runtime):\n");
  static const char *const names[] = {"system",   "mock-gomp", "mock-intel",
                                      "mock-pgi", "libomp",    "libgomp"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    fprintf(to, "  %-11s %s\n", names[i], knit_runtime_find(names[i])->what);
  fprintf(to, "\n"
              "A program whose ABI the runtime does not speak (a clang-built program on\n"
              "mock-gomp, say) is refused with an error.\n"
              "\n"
              "  --qemu      run under QEMU user mode for the program's ISA\n"
              "  -h, --help  this text\n"
              "\n"
              "The exit status is the program's.\n");
}

int knit_cmd_run(int argc, char **argv)
{
  static const struct option opts[] = {{"runtime", required_argument, NULL, 'r'},
                                       {"qemu", no_argument, NULL, 'q'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  knit_launch launch;
  memset(&launch, 0, sizeof launch);
  launch.runtime = "system";
  launch.event = "";
  launch.output = "";
  optind = 1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
    switch (c) {
    case 'r': launch.runtime = optarg; break;
    case 'q': launch.qemu = true; break;
    case 'h': usage(stdout); return 0;
    default:
      fprintf(stderr, "knit run: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
      usage(stderr);
      return 2;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "knit run: no program given\n\n");
    usage(stderr);
    return 2;
  }
  char program[PATH_MAX], err[512];
  if (!knit_find_program(argv[optind], program, sizeof program)) {
    fprintf(stderr, "knit run: cannot find an executable program '%s'\n", argv[optind]);
    return 2;
  }
  launch.program = program;
  launch.argv = argv + optind;
  if (!knit_launch_prepare(&launch, err, sizeof err)) {
    fprintf(stderr, "knit run: %s\n", err);
    return 2;
  }
  int status = knit_launch_run(&launch, err, sizeof err);
  if (status < 0) {
    fprintf(stderr, "knit run: %s\n", err);
    return 2;
  }
  if (WIFSIGNALED(status)) {
    fprintf(stderr, "knit run: the program was killed by signal %d (%s)\n", WTERMSIG(status),
            strsignal(WTERMSIG(status)));
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}
