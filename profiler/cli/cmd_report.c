/* knit report: prints a measurement as a top-down tree (of functions, or of
 * call sites and sampled instructions with --lines) or as folded stacks. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "report/folded.h"
#include "report/profile.h"
#include "report/view_steps.h"
#include "report/view_tree.h"

#define DEFAULT_MIN_PERCENT 0.5

static void usage(FILE *out)
{
  fprintf(out,
          "usage: knit report [--format=tree|folded] [--lines] [--all-frames]\n"
          "                   [--sort=incl|excl|name] [--min=PCT] [--threads] [--steps]\n"
          "                   [DIR]\n"
          "\n"
          "Prints the measurement in DIR (default: the newest ./knit-* directory).\n"
          "\n"
          "  --format=tree    top-down tree of functions (default): inclusive value\n"
          "                   and share, exclusive value, the function, and the\n"
          "                   file:line of its call site or sampled instruction\n"
          "                   (\"+N\": N more lines merged in; the one shown weighs\n"
          "                   most). Timer events show milliseconds (periods x\n"
          "                   period), PROBE shows probe counts\n"
          "  --format=folded  one line per call path, \"frame;frame;... count\",\n"
          "                   normalized as golden files are (see `knit check --help`)\n"
          "  --lines          tree: one node per call site and per sampled\n"
          "                   instruction, as recorded, instead of per function\n"
          "  --all-frames     tree: also show the frames before the application (the\n"
          "                   C library's start-up above main, threads' start_thread\n"
          "                   and clone3), hidden by default as in the folded form;\n"
          "                   with --lines this is the raw calling-context tree\n"
          "  --sort=KEY       tree: order children by inclusive value (incl, the\n"
          "                   default), exclusive value (excl) or function name (name)\n"
          "  --min=PCT        tree: hide nodes below PCT%% of the total\n"
          "                   (default %.1f; 0 shows every node)\n"
          "  --threads        also print a table of per-thread samples, periods and\n"
          "                   unwind statistics\n"
          "  --steps          also print a table of unwind steps per module: confirmed\n"
          "                   (a call to the function precedes the return address),\n"
          "                   probable (an indirect call, or a tail call in between)\n"
          "                   and wrong (no call precedes it)\n"
          "  -h, --help       print this help\n"
          "\n"
          "Thread files that cannot be read are named in a warning and left out.\n"
          "Exit status: 0 printed, 1 no usable measurement, 2 bad usage.\n",
          DEFAULT_MIN_PERCENT);
}

static int bad_usage(const char *fmt, const char *what)
{
  fprintf(stderr, "knit report: ");
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\n");
  usage(stderr);
  return 2;
}

/* The newest ./knit-* directory by modification time, into buf; -1 if none. */
static int newest_measurement(char *buf, size_t len)
{
  DIR *d = opendir(".");
  if (d == NULL)
    return -1;
  struct timespec best = {0, 0};
  int found = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    struct stat st;
    if (strncmp(e->d_name, "knit-", 5) != 0 || stat(e->d_name, &st) != 0 ||
        !S_ISDIR(st.st_mode))
      continue;
    int newer = !found || st.st_mtim.tv_sec > best.tv_sec ||
                (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec > best.tv_nsec) ||
                (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec == best.tv_nsec &&
                 strcmp(e->d_name, buf + 2) > 0);
    if (newer && strlen(e->d_name) + 3 <= len) {
      snprintf(buf, len, "./%s", e->d_name);
      best = st.st_mtim;
      found = 1;
    }
  }
  closedir(d);
  return found ? 0 : -1;
}

int knit_cmd_report(int argc, char **argv)
{
  enum { FORMAT_TREE, FORMAT_FOLDED } format = FORMAT_TREE;
  knit_view_options view = {.tree = {.sort = KNIT_SORT_INCLUSIVE},
                            .min_percent = DEFAULT_MIN_PERCENT};
  int threads = 0, steps = 0;
  static const struct option options[] = {
      {"format", required_argument, NULL, 'f'},
      {"lines", no_argument, NULL, 'l'},
      {"all-frames", no_argument, NULL, 'a'},
      {"sort", required_argument, NULL, 's'},
      {"min", required_argument, NULL, 'm'},
      {"threads", no_argument, NULL, 't'},
      {"steps", no_argument, NULL, 'S'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  optind = 0; /* glibc: a full re-initialization, as other commands may have parsed */
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
    switch (c) {
    case 'f':
      if (strcmp(optarg, "tree") == 0)
        format = FORMAT_TREE;
      else if (strcmp(optarg, "folded") == 0)
        format = FORMAT_FOLDED;
      else
        return bad_usage("unknown format '%s' (tree or folded)", optarg);
      break;
    case 'l':
      view.tree.lines = 1;
      break;
    case 'a':
      view.tree.all_frames = 1;
      break;
    case 's':
      if (strcmp(optarg, "incl") == 0)
        view.tree.sort = KNIT_SORT_INCLUSIVE;
      else if (strcmp(optarg, "excl") == 0)
        view.tree.sort = KNIT_SORT_EXCLUSIVE;
      else if (strcmp(optarg, "name") == 0)
        view.tree.sort = KNIT_SORT_NAME;
      else
        return bad_usage("unknown sort key '%s' (incl, excl or name)", optarg);
      break;
    case 'm': {
      char *end;
      errno = 0;
      view.min_percent = strtod(optarg, &end);
      if (end == optarg || *end != '\0' || errno != 0 || !(view.min_percent >= 0.0) ||
          view.min_percent > 100.0)
        return bad_usage("--min wants a percentage from 0 to 100, not '%s'", optarg);
      break;
    }
    case 't':
      threads = 1;
      break;
    case 'S':
      steps = 1;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      return bad_usage("unknown or incomplete option '%s'", argv[optind - 1]);
    }
  }
  if (argc - optind > 1)
    return bad_usage("one measurement directory at most, got '%s' too", argv[optind + 1]);

  char found[PATH_MAX];
  const char *dir = optind < argc ? argv[optind] : NULL;
  if (dir == NULL) {
    if (newest_measurement(found, sizeof found) != 0) {
      fprintf(stderr, "knit report: error: no ./knit-* measurement directory here; "
                      "name one: knit report DIR\n");
      return 1;
    }
    dir = found;
  }

  knit_profile profile;
  if (knit_profile_load(&profile, dir, "knit report", stderr) != 0)
    return 1;
  int rc = 0;
  if (format == FORMAT_FOLDED) {
    knit_folded folded;
    if (knit_folded_from_tree(&profile.tree, &folded) != 0) {
      fprintf(stderr, "knit report: error: out of memory\n");
      rc = 1;
    } else {
      knit_folded_write(&folded, stdout);
      knit_folded_free(&folded);
    }
  } else {
    knit_view_header(&profile, stdout);
    fputc('\n', stdout);
    if (threads)
      knit_view_threads(&profile, stdout);
    if (steps)
      knit_view_steps(&profile, stdout);
    knit_view_top_down(&profile, &view, stdout);
  }
  knit_profile_free(&profile);
  if (fflush(stdout) != 0)
    rc = 1;
  return rc;
}
