/* knit diff: compares two measurements context by context, or shows the
 * scaling loss between two runs of a program at different thread
 * counts. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/usage_error.h"
#include "console/progress.h"
#include "report/diff.h"
#include "report/metric_select.h"
#include "report/metrics.h"
#include "report/profile.h"
#include "report/view_diff.h"

#define DEFAULT_MIN_PERCENT 0.5

static void usage(FILE *out)
{
  fprintf(out,
          "usage: knit diff [--metrics=LIST] [--sort=KEY] [--min=PCT] [--all-frames]\n"
          "                 [--raw-names] [--no-inline] [--no-loops] A B\n"
          "       knit diff --scaling [--threads=PA,PB] [--sort=excl|incl] [--min=PCT] A B\n"
          "\n"
          "Compares the measurements in directories A and B per context: a call path of\n"
          "the function-level tree (`knit report`), matched between A and B by the names\n"
          "of its functions (inlined calls and loops included, as the tree shows them).\n"
          "For each metric column: the context's value in A, in B, and B-A; contexts\n"
          "are sorted by |B-A| of the sort metric, largest change first.\n"
          "\n"
          "Values are in the shown unit (milliseconds for timer events): measurements\n"
          "with different periods or timer events (CPUTIME and REALTIME) compare in\n"
          "ms, and a note says so; PROBE counts and times do not compare, and a diff of\n"
          "the two is refused.\n"
          "\n"
          "  --metrics=LIST   the metric columns, as `knit report --metrics` (default:\n"
          "                   the time metric and every metric non-zero in A or B)\n"
          "  --sort=KEY       incl (the default) or excl: the values compared are the\n"
          "                   contexts' inclusive or exclusive ones; METRIC[:incl|excl]\n"
          "                   sorts by that metric's change\n"
          "  --min=PCT        hide contexts whose change is below PCT%% of the larger\n"
          "                   total of the sort metric (default %.1f; 0 shows all)\n"
          "  --scaling        A and B are runs of the same program with PA < PB threads:\n"
          "                   per context, the scaling loss C_B - C_A, where C is the\n"
          "                   context's time metric plus OMP_IDLE summed over threads\n"
          "                   (OMP_IDLE puts idle threads' time on the code that kept\n"
          "                   them idle): the work B did beyond A's, zero where B\n"
          "                   scales perfectly (HPCToolkit's strong-scaling loss,\n"
          "                   p*T_p - T_1 summed over threads), in the shown unit and as a\n"
          "                   share of B's total C; in the context itself (own) and with\n"
          "                   what it calls (incl). Sorted by the own loss (--sort=excl,\n"
          "                   the default), so the code that stops scaling comes first,\n"
          "                   or by the inclusive one (--sort=incl)\n"
          "  --threads=PA,PB  the thread counts of A and B (default: the number of\n"
          "                   OpenMP threads in each measurement)\n"
          "  --all-frames, --raw-names, --no-inline, --no-loops\n"
          "                   as for `knit report`\n"
          "  -h, --help       print this help\n"
          "\n"
          "Exit status: 0 printed, 1 a measurement that cannot be used or two that do\n"
          "not compare, 2 bad usage.\n",
          DEFAULT_MIN_PERCENT);
}

static int bad_usage(const char *fmt, const char *what)
{
  return knit_usage_error("knit diff", usage, fmt, what);
}

/* "PA,PB", two thread counts of at least 1. */
static int parse_thread_counts(const char *text, unsigned *pa, unsigned *pb)
{
  char *end;
  errno = 0;
  unsigned long a = strtoul(text, &end, 10);
  if (end == text || *end != ',' || errno != 0 || a == 0 || a > 1000000)
    return -1;
  const char *second = end + 1;
  unsigned long b = strtoul(second, &end, 10);
  if (end == second || *end != '\0' || errno != 0 || b == 0 || b > 1000000 || text[0] == '-' ||
      second[0] == '-')
    return -1;
  *pa = (unsigned)a;
  *pb = (unsigned)b;
  return 0;
}

/* A metric name resolved in A, else in B (their time metrics may be named
 * after different events). */
static int resolve_sort(const knit_sort_key *key, const knit_profile *a, const knit_profile *b,
                        char *err, size_t errlen)
{
  int metric = knit_sort_key_metric(key, &a->measurement, err, errlen);
  if (metric < 0)
    metric = knit_sort_key_metric(key, &b->measurement, err, errlen);
  return metric;
}

static int choose_columns(const char *list, const knit_profile *a, const knit_profile *b,
                          knit_metric_columns *out, char *err, size_t errlen)
{
  if (list == NULL) {
    knit_metric_columns other;
    knit_metric_columns_default(a, out);
    knit_metric_columns_default(b, &other);
    for (size_t i = 0; i < other.count; i++)
      knit_metric_columns_add(out, other.metric[i]);
    return 0;
  }
  if (knit_metric_columns_parse(a, list, out, err, errlen) == 0)
    return 0;
  return knit_metric_columns_parse(b, list, out, err, errlen);
}

int knit_cmd_diff(int argc, char **argv)
{
  knit_sort_key sort_key = {.sort = KNIT_SORT_INCLUSIVE};
  int sort_given = 0, scaling = 0;
  const char *metrics_list = NULL, *thread_counts = NULL;
  unsigned pa = 0, pb = 0;
  double min_percent = DEFAULT_MIN_PERCENT;
  knit_calltree_options tree = {.sort = KNIT_SORT_INCLUSIVE};
  knit_profile_options load_options = {0};
  char err[400];
  static const struct option options[] = {
      {"metrics", required_argument, NULL, 'M'},
      {"sort", required_argument, NULL, 's'},
      {"min", required_argument, NULL, 'm'},
      {"scaling", no_argument, NULL, 'S'},
      {"threads", required_argument, NULL, 'T'},
      {"all-frames", no_argument, NULL, 'a'},
      {"raw-names", no_argument, NULL, 'r'},
      {"no-inline", no_argument, NULL, 'I'},
      {"no-loops", no_argument, NULL, 'L'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  optind = 0; /* glibc: a full re-initialization, as other commands may have parsed */
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
    switch (c) {
    case 'M': metrics_list = optarg; break;
    case 's':
      if (knit_sort_key_parse(optarg, &sort_key, err, sizeof err) != 0)
        return bad_usage("%s", err);
      if (sort_key.sort == KNIT_SORT_NAME)
        return bad_usage("--sort=%s: a diff is sorted by the change (incl or excl)", optarg);
      sort_given = 1;
      break;
    case 'm': {
      char *end;
      errno = 0;
      min_percent = strtod(optarg, &end);
      if (end == optarg || *end != '\0' || errno != 0 || !(min_percent >= 0.0) ||
          min_percent > 100.0)
        return bad_usage("--min wants a percentage from 0 to 100, not '%s'", optarg);
      break;
    }
    case 'S': scaling = 1; break;
    case 'T':
      if (parse_thread_counts(optarg, &pa, &pb) != 0)
        return bad_usage("--threads wants the two runs' thread counts, PA,PB (1,4), not '%s'",
                         optarg);
      thread_counts = optarg;
      break;
    case 'a': tree.all_frames = 1; break;
    case 'r': load_options.raw_names = 1; break;
    case 'I':
      load_options.no_inline = 1;
      tree.no_inline = 1;
      break;
    case 'L': load_options.no_loops = 1; break;
    case 'h': usage(stdout); return 0;
    default: return bad_usage("unknown or incomplete option '%s'", argv[optind - 1]);
    }
  }
  if (argc - optind != 2)
    return bad_usage("%s", argc - optind < 2 ? "two measurement directories, A and B, are needed"
                                             : "two measurement directories, A and B, at most");
  if (thread_counts != NULL && !scaling)
    return bad_usage("--threads=%s gives the thread counts of --scaling", thread_counts);
  if (scaling && (metrics_list != NULL || sort_key.metric[0] != '\0'))
    return bad_usage("%s", "--scaling shows the loss of the time metric plus OMP_IDLE; "
                           "--metrics and a metric to sort by are the plain diff's");
  /* The scaling loss is read by where the excess work was done. */
  if (scaling && !sort_given)
    sort_key.sort = KNIT_SORT_EXCLUSIVE;

  knit_progress progress;
  knit_progress_init(&progress, "knit diff", stderr);
  load_options.progress = &progress;
  knit_profile a, b;
  if (knit_profile_load_with(&a, argv[optind], "knit diff", stderr, &load_options) != 0)
    return 1;
  if (knit_profile_load_with(&b, argv[optind + 1], "knit diff", stderr, &load_options) != 0) {
    knit_profile_free(&a);
    return 1;
  }
  int rc = 0;
  char note[400];
  knit_diff d = {0};
  knit_diff_view_options view = {.exclusive = sort_key.sort == KNIT_SORT_EXCLUSIVE,
                                 .min_percent = min_percent};
  if (knit_diff_comparable(&a, &b, note, sizeof note, err, sizeof err) != 0) {
    fprintf(stderr, "knit diff: error: %s\n", err);
    rc = 1;
    goto out;
  }
  if (scaling) {
    if (thread_counts == NULL) {
      pa = knit_diff_openmp_threads(&a);
      pb = knit_diff_openmp_threads(&b);
    }
    if (pa >= pb) {
      fprintf(stderr,
              "knit diff: --scaling: A has %u thread%s and B %u: A is the run with fewer "
              "threads (swap them, or say --threads=PA,PB)\n",
              pa, pa == 1 ? "" : "s", pb);
      rc = 2;
      goto out;
    }
  } else {
    if ((view.metric = resolve_sort(&sort_key, &a, &b, err, sizeof err)) < 0 ||
        choose_columns(metrics_list, &a, &b, &view.columns, err, sizeof err) != 0) {
      fprintf(stderr, "knit diff: %s\n", err);
      rc = 2;
      goto out;
    }
    knit_metric_columns_add(&view.columns, view.metric);
  }
  if (knit_diff_build(&d, &a, &b, &tree) != 0) {
    fprintf(stderr, "knit diff: error: out of memory\n");
    rc = 1;
    goto out;
  }
  if (scaling)
    knit_view_scaling(&d, &a, &b, pa, pb, &view, stdout);
  else
    knit_view_diff(&d, &a, &b, &view, note, stdout);
  if (fflush(stdout) != 0)
    rc = 1;
out:
  knit_diff_free(&d);
  knit_profile_free(&a);
  knit_profile_free(&b);
  return rc;
}
