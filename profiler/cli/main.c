/* The knit command: dispatches to its subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

static void usage(FILE *to)
{
  fprintf(to, "usage: knit <command> [options]\n"
              "\n"
              "knit is a sampling call-path profiler for OpenMP programs.\n"
              "\n"
              "commands:\n"
              "  record   run a program under the profiler and write a measurement\n"
              "  run      run a program on a chosen OpenMP runtime, unprofiled\n"
              "  report   show where a measurement's time went (top-down or folded)\n"
              "  diff     compare two measurements per call path, or their scaling\n"
              "  view     write a measurement as an HTML page (flame graph, trees)\n"
              "  check    compare a measurement with a golden calling-context tree\n"
              "  audit    compare the unwind recipes of ELF files with their CFI\n"
              "  conform  check a runtime's OMPT and the platform's sampling support\n"
              "\n"
              "`knit <command> --help` describes each command's options.\n"
              "\n"
              "example:\n"
              "  knit record -e CPUTIME@1000 -o prof -- ./app arg\n"
              "  knit report prof\n");
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("knit 0.1\n");
    return 0;
  }
  if (!strcmp(cmd, "record"))
    return knit_cmd_record(argc - 1, argv + 1);
  if (!strcmp(cmd, "run"))
    return knit_cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "report"))
    return knit_cmd_report(argc - 1, argv + 1);
  if (!strcmp(cmd, "diff"))
    return knit_cmd_diff(argc - 1, argv + 1);
  if (!strcmp(cmd, "view"))
    return knit_cmd_view(argc - 1, argv + 1);
  if (!strcmp(cmd, "check"))
    return knit_cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "audit"))
    return knit_cmd_audit(argc - 1, argv + 1);
  if (!strcmp(cmd, "conform"))
    return knit_cmd_conform(argc - 1, argv + 1);
  fprintf(stderr, "knit: unknown command '%s'\n\n", cmd);
  usage(stderr);
  return 2;
}
