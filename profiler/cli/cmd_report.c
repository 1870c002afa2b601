/* knit report: prints a measurement as a top-down tree (of functions, or of
 * call sites and sampled instructions with --lines), its bottom-up or flat
 * view, with a column pair per metric, or as folded stacks of one metric;
 * of chosen threads, and of the call paths a filter keeps. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/newest_measurement.h"
#include "cli/usage_error.h"
#include "console/progress.h"
#include "report/chrome_trace.h"
#include "report/folded.h"
#include "report/json_tree.h"
#include "report/metric_select.h"
#include "report/metrics.h"
#include "report/path_filter.h"
#include "report/pprof_output.h"
#include "report/profile.h"
#include "report/thread_select.h"
#include "report/view_bottom_up.h"
#include "report/view_flat.h"
#include "report/view_metrics.h"
#include "report/view_steps.h"
#include "report/view_source.h"
#include "report/view_tree.h"

#define DEFAULT_MIN_PERCENT 0.5

static void usage(FILE *out)
{
  fprintf(out,
          "usage: knit report [--format=tree|folded|chrome|pprof|json] [-o FILE]\n"
          "                   [--view=VIEW] [--by=KEY] [--lines] [--all-frames] [--fold]\n"
          "                   [--metrics=LIST] [--sort=KEY] [--min=PCT] [--threads]\n"
          "                   [--thread=LIST] [--focus=REGEX] [--ignore=REGEX]\n"
          "                   [--steps] [--metric=NAME] [--raw-names] [--no-inline] [--no-loops]\n"
          "                   [--no-cache] [--source=FUNCTION]\n"
          "                   [DIR]\n"
          "\n"
          "Prints the measurement in DIR (default: the newest ./knit-* directory).\n"
          "\n"
          "Metrics: the time metric, named after the event (CPUTIME, REALTIME or\n"
          "PROBE: the periods where each sample was taken), and the blame metrics\n"
          "OMP_IDLE (idle threads' periods, shared out among the working threads'\n"
          "samples), OMP_MUTEX_WAIT (waiting for a lock, critical, ordered or atomic,\n"
          "where the waiter waited) and OMP_MUTEX_BLAME (that waiting, charged where\n"
          "the holder released the mutex). All are shown in one unit: milliseconds\n"
          "for timer events (periods x period), probe counts for PROBE. A program that\n"
          "offloads to a target device has device metrics too, on the host code that\n"
          "launched each operation, in units of their own: DEVICE_KERNEL (kernel time\n"
          "on the device), DEVICE_H2D_BYTES and DEVICE_H2D_TIME (copies to the\n"
          "device), DEVICE_D2H_BYTES and DEVICE_D2H_TIME (copies back),\n"
          "DEVICE_ALLOC_BYTES; times in ms from OMPT device tracing (a runtime\n"
          "without it gives bytes alone: the header's devices: line says which), and\n"
          "<omp-target-wait> where the host waited for the device. Names may be\n"
          "written in any case.\n"
          "\n"
          "  --format=tree    top-down tree of functions (default): per metric, the\n"
          "                   inclusive and exclusive value, the inclusive share of\n"
          "                   the sort metric, then the function and the file:line\n"
          "                   of its call site or sampled instruction (\"+N\": N more\n"
          "                   lines merged in; the one shown weighs most in the sort\n"
          "                   metric). With more columns than the time metric's,\n"
          "                   their names head them, and the header gives each\n"
          "                   metric's total and unit on a line of its own\n"
          "  --format=folded  one line per call path, \"frame;frame;... count\",\n"
          "                   from main down, frames named as in the tree (spaces\n"
          "                   and ';' made '_', inlined calls marked _[i]): what\n"
          "                   flamegraph.pl and speedscope read\n"
          "  --format=pprof   the profile as pprof reads it (gzip-compressed\n"
          "                   profile.proto): every metric a sample type in\n"
          "                   nanoseconds (counts for PROBE), every frame with its\n"
          "                   inlined calls; to standard output, never a terminal:\n"
          "                   knit report --format=pprof DIR >cpu.pb.gz, then\n"
          "                   pprof -top cpu.pb.gz\n"
          "  -o FILE          pprof: write the profile to FILE instead\n"
          "  --format=chrome  the traces of a measurement recorded with -t, as Chrome\n"
          "                   Trace Event JSON (Perfetto, chrome://tracing): a track\n"
          "                   per thread, each sample's call path as nested slices,\n"
          "                   the OpenMP states (idle, barrier, lock wait, parallel\n"
          "                   region) around them; a track per traced target device\n"
          "                   after them, its kernels, transfers and allocations\n"
          "  --format=json    the top-down tree (as --lines, --all-frames, --fold,\n"
          "                   --sort, --no-inline, the filters shape it) with every\n"
          "                   metric, as one JSON object (docs/json.md); every node\n"
          "                   unless --min is given\n"
          "  --view=VIEW      tree: how it is shown: top-down (the default: callers\n"
          "                   above their callees); bottom-up: each function at the\n"
          "                   top with its values, below it the callers that led to\n"
          "                   them, then theirs, each row's values the function's\n"
          "                   samples that came through that path of callers; flat:\n"
          "                   one row per function (or --by), each metric's\n"
          "                   exclusive and inclusive value and the sort metric's\n"
          "                   shares. A path through a function more than once\n"
          "                   (recursion) counts once in every row. Both are sorted\n"
          "                   by exclusive value, and --min cuts by it, unless --sort\n"
          "                   says otherwise; --lines is the top-down tree's\n"
          "  --by=KEY         --view=flat: a row per function (the default), per\n"
          "                   source line (line: where samples were taken, and for\n"
          "                   inclusive values, the calls that led there) or per\n"
          "                   module (module: the ELF file)\n"
          "  --lines          tree: one node per call site and per sampled\n"
          "                   instruction, as recorded, instead of per function\n"
          "  --all-frames     tree: also show the frames before the application (the\n"
          "                   C library's start-up above main, threads' start_thread\n"
          "                   and clone3), hidden by default as in the folded form;\n"
          "                   with --lines this is the raw calling-context tree\n"
          "  --fold           tree: fold recursion: a function called again below\n"
          "                   itself, directly or through tasks (fib -> task -> fib),\n"
          "                   is one node, marked [xN] with the deepest N levels\n"
          "  --metrics=LIST   tree: the metric columns, in order: names separated by\n"
          "                   commas, or all (default: the time metric and every\n"
          "                   metric that is non-zero somewhere in the measurement)\n"
          "  --sort=KEY       tree: order children by the time metric's inclusive\n"
          "                   value (incl, the default), exclusive value (excl) or\n"
          "                   function name (name); or by any metric, METRIC[:incl]\n"
          "                   or METRIC:excl (its column is shown)\n"
          "  --min=PCT        tree: hide nodes below PCT%% of the sort metric's total\n"
          "                   (default %.1f; 0 shows every node)\n"
          "  --threads        also print a table of per-thread samples, periods, each\n"
          "                   shown metric's total, unwind statistics, and mutex\n"
          "                   wait whose blame was lost\n"
          "                   (no room in the blame table) or unclaimed (no release\n"
          "                   before the process ended)\n"
          "  --thread=LIST    only these threads, by the indexes of the --threads\n"
          "                   table: numbers and ranges separated by commas, 0,2-5;\n"
          "                   in every view and format, totals included\n"
          "  --focus=REGEX    keep only the call paths through a frame whose shown\n"
          "                   name matches REGEX (POSIX extended, anywhere in the\n"
          "                   name; inlined calls and loops are frames too)\n"
          "  --ignore=REGEX   drop the call paths through such a frame. Either filter\n"
          "                   applies to the measurement, so every view and format\n"
          "                   and the totals agree; the header says what it kept\n"
          "  --steps          also print a table of unwind steps per module: confirmed\n"
          "                   (a call to the function precedes the return address),\n"
          "                   probable (an indirect call, or a tail call in between)\n"
          "                   and wrong (no call precedes it)\n"
          "  --metric=NAME    folded: count this metric (default: the time metric, in\n"
          "                   periods); blame metrics count milli-periods, 1000 to a\n"
          "                   period\n"
          "  --raw-names      name functions by their symbols as the files have them\n"
          "                   (_ZN7physics10Simulation4stepEi, MAIN__,\n"
          "                   compute._omp_fn.0), in the tree and the folded form\n"
          "  --no-inline      show only the functions the symbols name: code the\n"
          "                   compiler inlined is its caller's, on the inlined\n"
          "                   line. By default each inlined call is a level of its\n"
          "                   own below its caller, marked [inlined] in the tree\n"
          "                   and _[i] in the folded form, and the caller's line is\n"
          "                   its call site (with --lines, below each call site or\n"
          "                   sampled instruction)\n"
          "  --source=FUNCTION  the function's source lines beside what each line\n"
          "                   accounts for (inclusive: there or in what it calls;\n"
          "                   exclusive: sampled on the line), with the text when the\n"
          "                   source file is readable. The lines of its parallel\n"
          "                   regions and tasks are its own; a loop's line holds\n"
          "                   the loop; FUNCTION may be one the compiler inlined\n"
          "  --no-loops       no loop levels. By default the loops around each\n"
          "                   frame's address (found in the machine code) are levels\n"
          "                   of their own, `loop at FILE:LINE`, inside the function\n"
          "                   or inlined call that holds them\n"
          "  --no-cache       find the loops in the machine code again, neither\n"
          "                   reading nor writing the loop cache. By default each\n"
          "                   module's loops are kept in a file named by its\n"
          "                   build-id, in $KNIT_CACHE_DIR, else $XDG_CACHE_HOME/knit,\n"
          "                   else ~/.cache/knit (KNIT_CACHE_DIR= turns it off)\n"
          "  -h, --help       print this help\n"
          "\n"
          "Functions are named in their readable form: C++ names demangled\n"
          "(physics::Simulation::step(int)); Fortran's module procedures as\n"
          "MODULE::NAME, the main program (MAIN__) by the program's own name and\n"
          "a contained procedure without gfortran's number; an outlined OpenMP\n"
          "body as the function it came from, then the body's kind and number in\n"
          "brackets: compute [omp_fn.0] (gcc), work() [omp_outlined] (clang 17\n"
          "and later; earlier clang's .omp_outlined. stays as it is).\n"
          "\n"
          "Blame that reached no node (lost or unclaimed mutex wait) is stated in a\n"
          "header line whenever there is any.\n"
          "Thread files that cannot be read are named in a warning and left out.\n"
          "Exit status: 0 printed, 1 no usable measurement, 2 bad usage (an unknown\n"
          "metric name or thread included: the message lists the measurement's; a\n"
          "regular expression that does not compile).\n",
          DEFAULT_MIN_PERCENT);
}

static int bad_usage(const char *fmt, const char *what)
{
  return knit_usage_error("knit report", usage, fmt, what);
}

/* A metric name the measurement does not have: the message names those it
 * has, and the usage, which cannot, is left out. */
static int bad_metric(knit_profile *profile, knit_path_filter *filter, const char *err)
{
  fprintf(stderr, "knit report: %s\n", err);
  knit_profile_free(profile);
  knit_path_filter_free(filter);
  return 2;
}

int knit_cmd_report(int argc, char **argv)
{
  enum {
    FORMAT_TREE,
    FORMAT_FOLDED,
    FORMAT_CHROME,
    FORMAT_PPROF,
    FORMAT_JSON
  } format = FORMAT_TREE;
  enum { VIEW_TOP_DOWN, VIEW_BOTTOM_UP, VIEW_FLAT } view_kind = VIEW_TOP_DOWN;
  knit_flat_key flat_key = KNIT_FLAT_FUNCTION;
  const char *by = NULL, *focus = NULL, *ignore = NULL;
  int sort_given = 0;
  knit_view_options view = {.tree = {.sort = KNIT_SORT_INCLUSIVE},
                            .min_percent = DEFAULT_MIN_PERCENT};
  knit_sort_key sort_key = {.sort = KNIT_SORT_INCLUSIVE};
  const char *metrics_list = NULL, *folded_metric = NULL, *source_function = NULL;
  const char *output = NULL;
  int threads = 0, steps = 0, min_given = 0;
  knit_profile_options load_options = {0};
  char err[400];
  static const struct option options[] = {
      {"format", required_argument, NULL, 'f'},  {"lines", no_argument, NULL, 'l'},
      {"all-frames", no_argument, NULL, 'a'},    {"fold", no_argument, NULL, 'F'},
      {"metrics", required_argument, NULL, 'M'}, {"metric", required_argument, NULL, 'n'},
      {"sort", required_argument, NULL, 's'},    {"min", required_argument, NULL, 'm'},
      {"threads", no_argument, NULL, 't'},       {"steps", no_argument, NULL, 'S'},
      {"raw-names", no_argument, NULL, 'r'},     {"no-inline", no_argument, NULL, 'I'},
      {"no-loops", no_argument, NULL, 'L'},      {"source", required_argument, NULL, 'O'},
      {"no-cache", no_argument, NULL, 'C'},      {"view", required_argument, NULL, 'V'},
      {"by", required_argument, NULL, 'B'},      {"thread", required_argument, NULL, 'T'},
      {"focus", required_argument, NULL, 'X'},   {"ignore", required_argument, NULL, 'Y'},
      {"output", required_argument, NULL, 'o'}, /* pprof's file */
      {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
  };
  optind = 0; /* glibc: a full re-initialization, as other commands may have parsed */
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "+ho:", options, NULL)) != -1) {
    switch (c) {
    case 'f':
      if (strcmp(optarg, "tree") == 0)
        format = FORMAT_TREE;
      else if (strcmp(optarg, "folded") == 0)
        format = FORMAT_FOLDED;
      else if (strcmp(optarg, "chrome") == 0)
        format = FORMAT_CHROME;
      else if (strcmp(optarg, "pprof") == 0)
        format = FORMAT_PPROF;
      else if (strcmp(optarg, "json") == 0)
        format = FORMAT_JSON;
      else
        return bad_usage("unknown format '%s' (tree, folded, chrome, pprof or json)", optarg);
      break;
    case 'l': view.tree.lines = 1; break;
    case 'a': view.tree.all_frames = 1; break;
    case 'F': view.tree.fold_recursion = 1; break;
    case 'M': metrics_list = optarg; break;
    case 'n': folded_metric = optarg; break;
    case 's':
      if (knit_sort_key_parse(optarg, &sort_key, err, sizeof err) != 0)
        return bad_usage("%s", err);
      sort_given = 1;
      break;
    case 'V':
      if (strcmp(optarg, "top-down") == 0)
        view_kind = VIEW_TOP_DOWN;
      else if (strcmp(optarg, "bottom-up") == 0)
        view_kind = VIEW_BOTTOM_UP;
      else if (strcmp(optarg, "flat") == 0)
        view_kind = VIEW_FLAT;
      else
        return bad_usage("unknown view '%s' (top-down, bottom-up or flat)", optarg);
      break;
    case 'B':
      by = optarg;
      if (strcmp(optarg, "function") == 0)
        flat_key = KNIT_FLAT_FUNCTION;
      else if (strcmp(optarg, "line") == 0)
        flat_key = KNIT_FLAT_LINE;
      else if (strcmp(optarg, "module") == 0)
        flat_key = KNIT_FLAT_MODULE;
      else
        return bad_usage("unknown --by key '%s' (function, line or module)", optarg);
      break;
    case 'T':
      if (knit_thread_list_check(optarg, err, sizeof err) != 0)
        return bad_usage("%s", err);
      load_options.threads = optarg;
      break;
    case 'X': focus = optarg; break;
    case 'Y': ignore = optarg; break;
    case 'm': {
      char *end;
      errno = 0;
      view.min_percent = strtod(optarg, &end);
      if (end == optarg || *end != '\0' || errno != 0 || !(view.min_percent >= 0.0) ||
          view.min_percent > 100.0)
        return bad_usage("--min wants a percentage from 0 to 100, not '%s'", optarg);
      min_given = 1;
      break;
    }
    case 't': threads = 1; break;
    case 'S': steps = 1; break;
    case 'r': load_options.raw_names = 1; break;
    case 'I':
      load_options.no_inline = 1;
      view.tree.no_inline = 1;
      break;
    case 'L': load_options.no_loops = 1; break;
    /* The structure cache's own switch (structure_cache.h): this process
     * reads the environment only through it. */
    case 'C': setenv("KNIT_CACHE_DIR", "", 1); break;
    case 'O': source_function = optarg; break;
    case 'o': output = optarg; break;
    case 'h': usage(stdout); return 0;
    default: return bad_usage("unknown or incomplete option '%s'", argv[optind - 1]);
    }
  }
  if (argc - optind > 1)
    return bad_usage("one measurement directory at most, got '%s' too", argv[optind + 1]);
  /* --metric and --metrics differ by a letter: the wrong one for the
   * format is a slip worth stopping on, not an option to ignore. */
  if (folded_metric != NULL && format != FORMAT_FOLDED)
    return bad_usage("--metric=%s chooses what --format=folded counts; the tree's "
                     "columns are chosen with --metrics=LIST",
                     folded_metric);
  if (metrics_list != NULL && format == FORMAT_FOLDED)
    return bad_usage("--metrics=%s chooses the tree's columns; --format=folded counts "
                     "one metric, chosen with --metric=NAME",
                     metrics_list);
  if (format == FORMAT_JSON &&
      (metrics_list != NULL || source_function != NULL || threads || steps || by != NULL))
    return bad_usage("--format=json writes the tree with every metric; %s is the text "
                     "report's",
                     metrics_list != NULL      ? "--metrics"
                     : source_function != NULL ? "--source"
                     : threads                 ? "--threads"
                     : steps                   ? "--steps"
                                               : "--by");
  if (format == FORMAT_JSON && view_kind != VIEW_TOP_DOWN)
    return bad_usage("%s", "--format=json writes the top-down tree, from which its readers "
                           "(knit view) make the bottom-up and flat views");
  if (view.tree.fold_recursion && (format == FORMAT_FOLDED || view.tree.lines))
    return bad_usage("--fold folds the function tree's recursion; %s",
                     view.tree.lines ? "--lines shows every call site as recorded"
                                     : "--format=folded keeps every path as recorded");

  if (by != NULL && view_kind != VIEW_FLAT)
    return bad_usage("--by=%s chooses the rows of --view=flat", by);
  if (view_kind != VIEW_TOP_DOWN && (format == FORMAT_FOLDED || view.tree.lines))
    return bad_usage("%s", format == FORMAT_FOLDED
                               ? "--view chooses how the tree is shown; --format=folded has "
                                 "one line per call path"
                               : "--lines shows the top-down tree's call sites; --view=flat "
                                 "--by=line shows lines");
  /* Callers and flat rows are read by where the samples were taken. */
  if (view_kind != VIEW_TOP_DOWN && !sort_given)
    sort_key.sort = KNIT_SORT_EXCLUSIVE;
  knit_path_filter filter;
  if (knit_path_filter_compile(&filter, focus, ignore, err, sizeof err) != 0) {
    fprintf(stderr, "knit report: %s\n", err);
    return 2;
  }
  filter.all_frames = view.tree.all_frames;
  if (output != NULL && format != FORMAT_PPROF)
    return bad_usage("-o %s names the file --format=pprof writes; the other formats "
                     "print on standard output",
                     output);
  if (format == FORMAT_PPROF) {
    const char *tree_option = view_kind != VIEW_TOP_DOWN ? "--view"
                              : metrics_list != NULL     ? "--metrics"
                              : view.tree.lines          ? "--lines"
                              : view.tree.fold_recursion ? "--fold"
                              : source_function != NULL  ? "--source"
                              : threads                  ? "--threads"
                              : steps                    ? "--steps"
                                                         : NULL;
    if (tree_option != NULL)
      return bad_usage("%s shapes the printed report; --format=pprof writes every metric "
                       "of every call path",
                       tree_option);
    if (knit_pprof_check_output(output, "knit report", stderr) != 0)
      return 2;
    /* Loops are no functions: pprof's frames are calls. */
    load_options.no_loops = 1;
  }

  char found[PATH_MAX];
  const char *dir = optind < argc ? argv[optind] : NULL;
  if (dir == NULL) {
    if (knit_newest_measurement(found, sizeof found) != 0) {
      fprintf(stderr, "knit report: error: no ./knit-* measurement directory here; "
                      "name one: knit report DIR\n");
      return 1;
    }
    dir = found;
  }

  knit_progress progress;
  knit_progress_init(&progress, "knit report", stderr);
  load_options.progress = &progress;
  knit_profile profile;
  int loaded = knit_profile_load_with(&profile, dir, "knit report", stderr, &load_options);
  if (loaded != 0 || knit_path_filter_apply(&filter, &profile) != 0) {
    if (loaded == 0) {
      fprintf(stderr, "knit report: error: out of memory\n");
      knit_profile_free(&profile);
    }
    knit_path_filter_free(&filter);
    return loaded == -2 ? 2 : 1;
  }
  int rc = 0;
  if (format == FORMAT_PPROF) {
    rc = knit_pprof_write(&profile, !load_options.no_inline, output, "knit report", stderr);
    knit_profile_free(&profile);
    knit_path_filter_free(&filter);
    return rc;
  }
  if (format == FORMAT_CHROME) {
    rc = knit_chrome_trace_write(&profile, stdout, stderr) == 0 ? 0 : 1;
  } else if (format == FORMAT_FOLDED) {
    int metric = KNIT_METRIC_SAMPLES;
    if (folded_metric != NULL &&
        (metric = knit_metric_resolve(&profile.measurement, folded_metric, err, sizeof err)) < 0)
      return bad_metric(&profile, &filter, err);
    knit_folded folded;
    /* The levels the symbolizer was asked for: inlined calls, loops. */
    int levels = !load_options.no_inline || !load_options.no_loops;
    if (knit_folded_as_named(&profile.tree, metric, levels, &folded) != 0) {
      fprintf(stderr, "knit report: error: out of memory\n");
      rc = 1;
    } else {
      knit_folded_write(&folded, stdout);
      knit_folded_free(&folded);
    }
  } else if (format == FORMAT_JSON) {
    view.tree.sort = sort_key.sort;
    view.tree.metric = knit_sort_key_metric(&sort_key, &profile.measurement, err, sizeof err);
    if (view.tree.metric < 0)
      return bad_metric(&profile, &filter, err);
    if (knit_json_tree_write(&profile, &view.tree, min_given ? view.min_percent : 0.0, stdout,
                             stderr) != 0)
      rc = 1;
  } else {
    view.tree.sort = sort_key.sort;
    view.tree.metric = knit_sort_key_metric(&sort_key, &profile.measurement, err, sizeof err);
    if (view.tree.metric < 0)
      return bad_metric(&profile, &filter, err);
    if (metrics_list == NULL)
      knit_metric_columns_default(&profile, &view.columns);
    else if (knit_metric_columns_parse(&profile, metrics_list, &view.columns, err, sizeof err) != 0)
      return bad_metric(&profile, &filter, err);
    /* The sort metric is shown, in the header as in the tree. */
    knit_metric_columns_add(&view.columns, view.tree.metric);
    knit_view_header(&profile, stdout);
    knit_path_filter_describe(&filter, &profile, stdout);
    knit_view_metric_totals(&profile, &view.columns, stdout);
    fputc('\n', stdout);
    if (source_function != NULL) {
      if (knit_view_source(&profile, source_function, view.tree.metric, stdout, err, sizeof err) !=
          0) {
        fprintf(stderr, "knit report: error: --source: %s\n", err);
        rc = 1;
      }
      knit_profile_free(&profile);
      knit_path_filter_free(&filter);
      return rc;
    }
    if (threads)
      knit_view_threads(&profile, &view.columns, stdout);
    if (steps)
      knit_view_steps(&profile, stdout);
    if (view_kind == VIEW_BOTTOM_UP)
      knit_view_bottom_up(&profile, &view, stdout);
    else if (view_kind == VIEW_FLAT)
      knit_view_flat(&profile, &view, flat_key, stdout);
    else
      knit_view_top_down(&profile, &view, stdout);
  }
  knit_profile_free(&profile);
  knit_path_filter_free(&filter);
  if (fflush(stdout) != 0)
    rc = 1;
  return rc;
}
