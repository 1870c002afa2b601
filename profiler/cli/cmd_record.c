/* knit record: runs a program with libknit.so preloaded. */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/paths.h"
#include "base/config.h"

static void usage(FILE *to)
{
  fprintf(to,
          "usage: knit record [-e EVENT] [-o DIR] [--runtime=NAME] [--qemu] -- PROGRAM [ARGS...]\n"
          "\n"
          "Runs PROGRAM with the profiler loaded and writes a measurement directory.\n"
          "\n"
          "  -e, --event=EVENT   what triggers a sample (default CPUTIME@5000):\n"
          "                        CPUTIME@US    every US microseconds of thread CPU time\n"
          "                        CPUTIME@fN    N times per second of thread CPU time\n"
          "                        REALTIME@US   every US microseconds of wall-clock time\n"
          "                        REALTIME@fN   N times per second of wall-clock time\n"
          "                        PROBE         where the program calls knit_probe()\n"
          "                                      (include/knit/probe.h)\n"
          "  -o, --output=DIR    measurement directory (default ./knit-PROGRAM-PID);\n"
          "                      it must not hold a measurement already\n"
          "  -t, --trace         also record each thread's events in time order (its\n"
          "                      samples and OpenMP transitions) in trace-*.knit files,\n"
          "                      for `knit report --format=chrome`\n"
          "      --runtime=NAME  OpenMP runtime to run on (`knit run --help` lists them;\n"
          "                      default: system, what the program links)\n"
          "      --qemu          run under QEMU user mode for the program's ISA\n"
          "  -h, --help          this text\n"
          "\n"
          "The exit status is the program's. The measurement's SUMMARY line is\n"
          "printed when the program ends.\n");
}

static int fail(const char *fmt, const char *arg)
{
  fprintf(stderr, "knit record: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  return 2;
}

/* True when dir exists and already holds a measurement (a log or a thread
 * file): recording over it would mix two runs. */
static bool holds_measurement(const char *dir)
{
  char path[PATH_MAX + 32];
  return knit_path_printf(path, sizeof path, "%s/knit.log", dir) && access(path, F_OK) == 0;
}

/* Makes dir if missing and checks that knit can write files in it, before
 * the program runs: afterwards, the program's run would be wasted. Puts the
 * directory's absolute path in abs (the program, and anything it starts,
 * may change its working directory). */
static bool writable_directory(const char *dir, char *abs, size_t abslen)
{
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "knit record: cannot create the measurement directory %s: %s\n", dir,
            strerror(errno));
    return false;
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "knit record: %s is not a directory (-o names the measurement directory)\n",
            dir);
    return false;
  }
  char real[PATH_MAX];
  if (!realpath(dir, real) || !knit_path_printf(abs, abslen, "%s", real)) {
    fprintf(stderr, "knit record: cannot resolve %s: %s\n", dir, strerror(errno));
    return false;
  }
  char probe[PATH_MAX + 32];
  int fd = -1;
  if (knit_path_printf(probe, sizeof probe, "%s/.knit-probe-XXXXXX", abs))
    fd = mkstemp(probe);
  if (fd < 0) {
    fprintf(stderr, "knit record: cannot write in %s: %s\n", abs,
            errno == ENAMETOOLONG || !probe[0] ? "its path is too long" : strerror(errno));
    return false;
  }
  close(fd);
  unlink(probe);
  return true;
}

/* Prints the measurement's SUMMARY line; false when it has none. */
static bool print_summary(const char *dir)
{
  char path[PATH_MAX + 32];
  FILE *f = knit_path_printf(path, sizeof path, "%s/knit.log", dir) ? fopen(path, "r") : NULL;
  char line[8192], last[8192] = "", unwritten[8192] = "", note[8192] = "";
  while (f && fgets(line, sizeof line, f)) {
    if (!strncmp(line, "SUMMARY ", 8))
      snprintf(last, sizeof last, "%s", line);
    else if (!strncmp(line, "note: ", 6))
      snprintf(note, sizeof note, "%s", line);
    else if (!strncmp(line, "unwritten: ", 11))
      snprintf(unwritten, sizeof unwritten, "%s", line);
  }
  if (f)
    fclose(f);
  struct statvfs fs;
  bool full = statvfs(dir, &fs) == 0 && fs.f_bavail == 0;
  if (*note)
    fprintf(stderr, "knit: %s", note);
  if (*last) {
    fprintf(stderr, "knit: %s", last);
    if (*unwritten && strstr(last, " unwritten=0 ") == NULL)
      fprintf(stderr, "knit: the measurement is incomplete: %s", unwritten + 11);
  } else if (full) {
    fprintf(stderr, "knit: %s has no SUMMARY line: the file system that holds it is full\n", dir);
  } else {
    fprintf(stderr,
            "knit: %s has no SUMMARY line: the program ended before knit could "
            "write its data (killed, or knit was not loaded)\n",
            dir);
  }
  return *last != '\0';
}

/* The thread files in dir: what a kill left (threads that had ended, and
 * the last snapshot of the others). */
static unsigned count_thread_files(const char *dir)
{
  unsigned n = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL)
    n += strncmp(e->d_name, "thread-", 7) == 0;
  if (d)
    closedir(d);
  return n;
}

/* Processes the program started and exec'ed are measured in process-PID
 * directories of their own (one tree per program), and images of the
 * program that an exec replaced in process-PID-image-N: name them. */
static void print_processes(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, "process-", 8) != 0)
      continue;
    char sub[PATH_MAX + 300];
    if (!knit_path_printf(sub, sizeof sub, "%s/%s", dir, e->d_name))
      continue;
    if (strstr(e->d_name, "-image-"))
      fprintf(stderr,
              "knit: another image of the program, replaced by exec, measured on its own: "
              "%s\n",
              sub);
    else
      fprintf(stderr, "knit: a process the program started, measured on its own: %s\n", sub);
    print_summary(sub);
  }
  if (d)
    closedir(d);
}

int knit_cmd_record(int argc, char **argv)
{
  static const struct option opts[] = {{"event", required_argument, NULL, 'e'},
                                       {"output", required_argument, NULL, 'o'},
                                       {"runtime", required_argument, NULL, 'r'},
                                       {"qemu", no_argument, NULL, 'q'},
                                       {"trace", no_argument, NULL, 't'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  knit_launch launch;
  memset(&launch, 0, sizeof launch);
  launch.event = "CPUTIME";
  bool event_given = false;
  launch.runtime = "system";
  launch.profile = true;
  const char *output = NULL;
  bool trace = false;
  optind = 1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "+e:o:th", opts, NULL)) != -1) {
    switch (c) {
    case 'e':
      /* One event a run: a second -e would otherwise win silently. */
      if (event_given && strcmp(launch.event, optarg) != 0) {
        fprintf(stderr,
                "knit record: one event a run: -e %s and -e %s (record twice, or choose one)\n",
                launch.event, optarg);
        return 2;
      }
      launch.event = optarg;
      event_given = true;
      break;
    case 'o': output = optarg; break;
    case 'r': launch.runtime = optarg; break;
    case 'q': launch.qemu = true; break;
    case 't': trace = true; break;
    case 'h': usage(stdout); return 0;
    default:
      fprintf(stderr, "knit record: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
      usage(stderr);
      return 2;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "knit record: no program given\n\n");
    usage(stderr);
    return 2;
  }
  knit_event ev;
  char err[256];
  if (!knit_event_parse(launch.event, &ev, err, sizeof err))
    return fail("%s", err);

  char program[PATH_MAX];
  if (!knit_find_program(argv[optind], program, sizeof program))
    return fail("cannot find an executable program '%s'", argv[optind]);
  launch.program = program;
  launch.argv = argv + optind;

  char outbuf[PATH_MAX + 32];
  if (!output) {
    const char *base = strrchr(program, '/');
    if (!knit_path_printf(outbuf, sizeof outbuf, "knit-%s-%d", base ? base + 1 : program,
                          (int)getpid()))
      return fail("the program's name is too long for a default output name: %s", "use -o");
    output = outbuf;
  }
  if (holds_measurement(output))
    return fail("%s already holds a measurement; choose another with -o or remove it", output);
  char absolute[PATH_MAX];
  if (!writable_directory(output, absolute, sizeof absolute))
    return 2;
  output = absolute;
  launch.output = output;

  /* The tool reads it (core/session.c); one left in the environment by
   * someone else must not turn tracing on. */
  if (trace)
    setenv("KNIT_TRACE", "1", 1);
  else
    unsetenv("KNIT_TRACE");
  if (!knit_launch_prepare(&launch, err, sizeof err))
    return fail("%s", err);
  int status = knit_launch_run(&launch, err, sizeof err);
  if (status < 0)
    return fail("%s", err);
  bool whole = print_summary(output);
  print_processes(output);
  if (WIFSIGNALED(status)) {
    if (whole)
      fprintf(stderr,
              "knit: the program was killed by signal %d (%s); what was measured is in %s\n",
              WTERMSIG(status), strsignal(WTERMSIG(status)), output);
    else
      fprintf(stderr,
              "knit: the program was killed by signal %d (%s) before knit could write "
              "its data; %u thread files (threads that had ended, and the others' last "
              "snapshots, KNIT_FLUSH_MS) are in %s\n",
              WTERMSIG(status), strsignal(WTERMSIG(status)), count_thread_files(output), output);
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}
