/* knit check: compares a measurement with its golden CCT and checks the
 * golden's metric shares (the rules are in report/golden.h,
 * report/metric_share.h and the help text below), or with --update rewrites
 * the golden from the measurement. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/usage_error.h"
#include "report/folded.h"
#include "report/golden.h"
#include "report/profile.h"

static void usage(FILE *out)
{
  fprintf(out,
          "usage: knit check [--update] DIR GOLDEN\n"
          "\n"
          "Compares the normalized folded call paths of the measurement in DIR\n"
          "(as `knit report --format=folded --no-inline DIR` prints them: the\n"
          "functions of the symbols, without the calls the compiler inlined) with\n"
          "GOLDEN, and checks GOLDEN's metric shares.\n"
          "\n"
          "GOLDEN holds lines \"frame;frame;... count\". Lines starting with '#'\n"
          "are comments; these are directives:\n"
          "  # tolerance: 0.05   allowed difference of each path's share (default)\n"
          "  # min-share: 0.02   see rules 2 and 3 (default)\n"
          "  # runtime-share: 0.15  see rule 4 (default)\n"
          "  # mode: exact       or \"shares\": overrides the choice by event\n"
          "  # paths: ignore     compare no paths, only metric shares (the golden\n"
          "                      then lists none); \"compare\" is the default\n"
          "  # levels: loops inline  the paths hold the report's loop levels\n"
          "                      (loop_at_FILE:LINE), its inlined calls (NAME_[i]),\n"
          "                      or both; \"none\" is the default\n"
          "  # metric-share: METRIC PREFIX >= SHARE    (or <= SHARE)\n"
          "                      of METRIC's total over the whole measurement, the\n"
          "                      share under the paths that begin with PREFIX must\n"
          "                      be at least (at most) SHARE, from 0 to 1; any number\n"
          "                      of them, e.g.\n"
          "                      # metric-share: OMP_MUTEX_BLAME main;run_locks;hold >= 0.9\n"
          "  # metric-value: METRIC PREFIX = VALUE\n"
          "                      the amount of METRIC under PREFIX is exactly VALUE,\n"
          "                      a whole number in the unit the measurement stores\n"
          "                      (probes; a device's nanoseconds; bytes), e.g.\n"
          "                      # metric-value: DEVICE_H2D_BYTES main;upload = 65536\n"
          "\n"
          "Frames are named as `knit report --format=folded` names them, in their\n"
          "readable form (physics::Simulation::step(int)); a frame of GOLDEN that\n"
          "is the symbol of a function of the measurement as compiled (MAIN__,\n"
          "_ZN7physics10Simulation4stepEi: as --raw-names shows them) stands for\n"
          "that function too.\n"
          "\n"
          "PROBE measurements must match exactly: the same paths, the same counts.\n"
          "Timer measurements (CPUTIME, REALTIME) are compared by shares:\n"
          "  1. each golden path's share of the samples on golden paths is within\n"
          "     +-tolerance of its share of the golden's total;\n"
          "  2. each golden path with a golden share of at least min-share is\n"
          "     present;\n"
          "  3. paths not in the golden hold at most min-share of all samples,\n"
          "     not counting those of rule 4;\n"
          "  4. paths that end in one of the runtime's placeholders (<omp-idle>,\n"
          "     <omp-barrier>, <omp-lock-wait>, <omp-overhead>: the runtime's own\n"
          "     waiting and work, which timers see) hold at most runtime-share.\n"
          "\n"
          "Metric shares are checked in either mode. METRIC is the event's name\n"
          "(CPUTIME, REALTIME, PROBE), OMP_IDLE, OMP_MUTEX_WAIT, OMP_MUTEX_BLAME\n"
          "or a device metric (DEVICE_KERNEL, DEVICE_H2D_BYTES, ...; see `knit\n"
          "report --help`); metric values likewise. PREFIX is frames separated by ';', named as\n"
          "in the folded form (an outlined body as omp.outlined; its compiled name\n"
          "is normalized too), matched by whole frames. A failing share prints the\n"
          "share found, the metric's total and its heaviest paths; a metric with a\n"
          "total of zero (\"no OMP_MUTEX_BLAME in the measurement\") fails whatever\n"
          "the limit.\n"
          "\n"
          "  --update     write the measurement's folded paths to GOLDEN instead,\n"
          "               keeping GOLDEN's comment lines (UPDATE_GOLDEN=1 runs this);\n"
          "               a golden that ignores paths keeps its comment lines alone\n"
          "  -h, --help   print this help\n"
          "\n"
          "A mismatch prints one line per difference: '-' a golden path that is\n"
          "missing (or a metric-share's metric), '+' a path the golden does not\n"
          "have, '~' a count or share that differs.\n"
          "Exit status: 0 match (or golden written), 1 mismatch or unreadable\n"
          "input, 2 bad usage.\n");
}

static int bad_usage(const char *fmt, const char *what)
{
  return knit_usage_error("knit check", usage, fmt, what);
}

static int update_golden(const char *golden_path, const knit_folded *measured)
{
  char err[600];
  knit_golden old;
  int have_old = 0;
  if (access(golden_path, F_OK) == 0) {
    if (knit_golden_read(golden_path, &old, err, sizeof err) != 0) {
      fprintf(stderr, "knit check: error: %s (fix or remove it to update)\n", err);
      return 1;
    }
    have_old = 1;
  }
  int rc = knit_golden_write(golden_path, have_old ? &old : NULL, measured, err, sizeof err);
  int paths_ignored = have_old && old.paths_ignored;
  if (have_old)
    knit_golden_free(&old);
  if (rc != 0) {
    fprintf(stderr, "knit check: error: %s\n", err);
    return 1;
  }
  if (paths_ignored)
    printf("knit check: wrote %s (its directives only: it ignores paths)\n", golden_path);
  else
    printf("knit check: wrote %s (%zu paths, %llu samples)\n", golden_path, measured->count,
           (unsigned long long)measured->total);
  return 0;
}

static int compare(const char *dir, const char *golden_path, const knit_profile *profile,
                   const knit_folded *measured)
{
  char err[600];
  knit_golden golden;
  if (knit_golden_read(golden_path, &golden, err, sizeof err) != 0) {
    fprintf(stderr, "knit check: error: %s\n", err);
    return 1;
  }
  /* A golden may name functions by their symbols (MAIN__, _ZN...), as
   * goldens written before names were readable do. */
  if (knit_golden_use_names(&golden, &profile->tree) != 0) {
    fprintf(stderr, "knit check: error: out of memory\n");
    knit_golden_free(&golden);
    return 1;
  }
  knit_check_mode mode = golden.mode;
  if (mode == KNIT_CHECK_BY_EVENT)
    mode = strcmp(profile->measurement.event, "PROBE") == 0 ? KNIT_CHECK_EXACT : KNIT_CHECK_SHARES;
  char how[128];
  int n = 0;
  if (golden.paths_ignored)
    n = snprintf(how, sizeof how, "paths ignored");
  else if (mode == KNIT_CHECK_EXACT)
    n = snprintf(how, sizeof how, "exact");
  else
    n = snprintf(how, sizeof how, "shares, tolerance %.3g, min-share %.3g", golden.tolerance,
                 golden.min_share);
  if (golden.share_count > 0 && n > 0 && (size_t)n < sizeof how)
    snprintf(how + n, sizeof how - (size_t)n, ", %zu metric share%s", golden.share_count,
             golden.share_count == 1 ? "" : "s");

  /* The diff goes to a buffer first so the verdict line can come first;
   * so do the metric shares that hold, which follow it. */
  char *diff = NULL, *held = NULL;
  size_t diff_len = 0, held_len = 0;
  FILE *diff_out = open_memstream(&diff, &diff_len);
  FILE *held_out = open_memstream(&held, &held_len);
  size_t differences = 0;
  if (!golden.paths_ignored)
    differences += knit_golden_compare(&golden, measured, mode, diff_out);
  differences +=
      knit_metric_shares_check(golden.shares, golden.share_count, profile, diff_out, held_out);
  if (diff_out != NULL)
    fclose(diff_out);
  if (held_out != NULL)
    fclose(held_out);
  if (differences == 0 && golden.paths_ignored) {
    printf("knit check: %s matches %s (%s)\n", dir, golden_path, how);
  } else if (differences == 0) {
    printf("knit check: %s matches %s (%s; %zu paths, %llu samples)\n", dir, golden_path, how,
           measured->count, (unsigned long long)measured->total);
  } else {
    printf("knit check: %s does not match %s (%s): %zu difference%s\n", dir, golden_path, how,
           differences, differences == 1 ? "" : "s");
  }
  if (held != NULL)
    fputs(held, stdout);
  if (differences > 0 && diff != NULL)
    fputs(diff, stdout);
  free(diff);
  free(held);
  knit_golden_free(&golden);
  return differences == 0 ? 0 : 1;
}

int knit_cmd_check(int argc, char **argv)
{
  int update = 0;
  static const struct option options[] = {
      {"update", no_argument, NULL, 'u'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  optind = 0;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
    switch (c) {
    case 'u': update = 1; break;
    case 'h': usage(stdout); return 0;
    default: return bad_usage("unknown or incomplete option '%s'", argv[optind - 1]);
    }
  }
  if (argc - optind != 2)
    return bad_usage("%s", "wants a measurement directory and a golden file");
  const char *dir = argv[optind];
  const char *golden_path = argv[optind + 1];

  /* Goldens record the physical frames (the folded form of the tree's
   * frames), so neither the calls inlined nor the loops are read, but for
   * a golden that says it holds them (its "# levels: loops inline"). */
  knit_profile profile;
  knit_profile_options load_options = {.no_inline = 1, .no_loops = 1};
  knit_golden peek;
  char peek_err[600];
  if (access(golden_path, R_OK) == 0 &&
      knit_golden_read(golden_path, &peek, peek_err, sizeof peek_err) == 0) {
    load_options.no_loops = !peek.loops;
    load_options.no_inline = !peek.inlined;
    knit_golden_free(&peek);
  }
  if (knit_profile_load_with(&profile, dir, "knit check", stderr, &load_options) != 0)
    return 1;
  int rc;
  knit_folded measured;
  if (profile.measurement.failed_count > 0) {
    /* Counts without those threads would be wrong in either direction. */
    fprintf(stderr, "knit check: error: %s is incomplete; not comparing it\n", dir);
    rc = 1;
  } else if (knit_folded_of_metric_levels(&profile.tree, KNIT_METRIC_SAMPLES,
                                          !load_options.no_loops || !load_options.no_inline,
                                          &measured) != 0) {
    fprintf(stderr, "knit check: error: out of memory\n");
    rc = 1;
  } else {
    rc = update ? update_golden(golden_path, &measured)
                : compare(dir, golden_path, &profile, &measured);
    knit_folded_free(&measured);
  }
  knit_profile_free(&profile);
  fflush(stdout);
  return rc;
}
