/* knit view: writes a measurement (or a JSON tree from `knit report
 * --format=json`) as one self-contained HTML page: flame graph, top-down
 * and bottom-up trees, and a per-thread timeline when there is a trace. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/newest_measurement.h"
#include "console/progress.h"
#include "report/chrome_trace.h"
#include "report/html_page.h"
#include "report/json_tree.h"
#include "report/path_filter.h"
#include "report/profile.h"
#include "report/thread_select.h"


#define DEFAULT_PAGE  "knit-view.html"
/* A JSON file larger than this is no profile knit wrote (100,000 nodes
 * take about 10 MB). */
#define JSON_FILE_MAX (1024L * 1024 * 1024)

static void usage(FILE *out)
{
  fprintf(out, "usage: knit view [-o FILE.html] [--trace=FILE.json] [--all-frames] [--fold]\n"
               "                 [--raw-names] [--no-inline] [--no-loops] [--no-cache]\n"
               "                 [--thread=LIST] [--focus=REGEX] [--ignore=REGEX]\n"
               "                 [DIR | PROFILE.json]\n"
               "\n"
               "Writes the measurement in DIR (default: the newest ./knit-* directory), or\n"
               "a tree `knit report --format=json` wrote, as one HTML page that needs\n"
               "nothing else (no network, no other file), and prints its path. The page\n"
               "has a flame graph (click a frame to zoom in, the root to zoom out; hover\n"
               "for every metric), the top-down and bottom-up trees with a column pair\n"
               "per metric (click a heading to sort, a row to expand or collapse), a\n"
               "search that highlights functions in the flame graph and filters the\n"
               "trees, and, when the measurement has traces (knit record -t), a timeline\n"
               "per thread coloured by function, <omp-idle>, <omp-barrier> and\n"
               "<omp-lock-wait> included.\n"
               "\n"
               "  -o, --output=FILE  write the page to FILE (default: DIR/" DEFAULT_PAGE ", or\n"
               "                   PROFILE.html beside PROFILE.json)\n"
               "  --trace=FILE     show this Chrome trace (`knit report --format=chrome`)\n"
               "                   in the timeline instead of the measurement's own\n"
               "  --all-frames, --fold, --raw-names, --no-inline, --no-loops, --no-cache,\n"
               "  --thread=LIST, --focus=REGEX, --ignore=REGEX\n"
               "                   shape the tree as `knit report` does (see its --help);\n"
               "                   a PROFILE.json is shaped already\n"
               "  -h, --help       print this help\n"
               "\n"
               "Exit status: 0 written, 1 no usable measurement or the page could not be\n"
               "written, 2 bad usage.\n");
}

static int bad_usage(const char *fmt, const char *what)
{
  fprintf(stderr, "knit view: ");
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\n");
  usage(stderr);
  return 2;
}

/* A whole file into memory; NULL with the reason on stderr. */
static char *read_whole(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "knit view: error: %s: %s\n", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > JSON_FILE_MAX) {
    fprintf(stderr, "knit view: error: %s: not a regular file of at most 1 GB\n", path);
    fclose(f);
    return NULL;
  }
  char *buf = malloc((size_t)st.st_size + 1);
  size_t got = buf != NULL ? fread(buf, 1, (size_t)st.st_size, f) : 0;
  int failed = buf == NULL || ferror(f);
  fclose(f);
  if (failed) {
    fprintf(stderr, "knit view: error: %s: cannot read it\n", path);
    free(buf);
    return NULL;
  }
  buf[got] = '\0';
  *len = got;
  return buf;
}

/* Where a JSON document's telling member must appear: knit's writers put
 * it in the first line, and a reader should not scan megabytes for it. */
#define HEAD_BYTES 4096

/* Whether text is a JSON document of the kind the page shows: an object
 * that holds marker near its start (a profile's "knit-profile", a trace's
 * "traceEvents"), or, for a trace, an array of events (Chrome reads
 * both). Anything else (a text report, a binary file) is refused here
 * rather than shown as a broken page. */
static int looks_like(const char *text, size_t len, const char *path, const char *marker,
                      int array_too, const char *what)
{
  size_t i = 0;
  while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
    i++;
  int ok = i < len && memchr(text, '\0', len) == NULL;
  if (ok && text[i] == '{') {
    size_t head = len - i < HEAD_BYTES ? len - i : HEAD_BYTES;
    ok = memmem(text + i, head, marker, strlen(marker)) != NULL;
  } else {
    ok = ok && array_too && text[i] == '[';
  }
  if (!ok)
    fprintf(stderr, "knit view: error: %s: not %s\n", path, what);
  return ok;
}

/* The measurement's traces as a Chrome trace (report/chrome_trace.h), for
 * the page's timeline; NULL when it has none. A measurement recorded
 * without -t is no error here: the writer's note saying so is dropped, and
 * only its warnings and errors reach stderr. */
static char *measurement_trace(const knit_profile *p, size_t *len)
{
  char *buf = NULL, *said = NULL;
  size_t said_len = 0;
  FILE *mem = open_memstream(&buf, len);
  FILE *diag = open_memstream(&said, &said_len);
  int rc = mem != NULL && diag != NULL ? knit_chrome_trace_write(p, mem, diag) : -1;
  if (mem != NULL && fclose(mem) != 0)
    rc = -1;
  if (diag != NULL && fclose(diag) == 0 && rc != 1 && said_len > 0)
    fputs(said, stderr);
  free(said);
  if (rc != 0) {
    if (mem == NULL || diag == NULL)
      fprintf(stderr, "knit view: warning: out of memory: the page has no timeline\n");
    free(buf);
    return NULL;
  }
  return buf;
}

/* The JSON tree of the measurement in dir, filtered, and its trace when it
 * has one; NULL with *status the exit status when it cannot be made. */
static char *measurement_json(const char *dir, const knit_calltree_options *tree,
                              const knit_profile_options *load, knit_path_filter *filter,
                              char **trace, size_t *trace_len, size_t *len, int *status)
{
  knit_progress progress;
  knit_progress_init(&progress, "knit view", stderr);
  knit_profile_options with_progress = *load;
  with_progress.progress = &progress;
  knit_profile profile;
  int loaded = knit_profile_load_with(&profile, dir, "knit view", stderr, &with_progress);
  *status = loaded == -2 ? 2 : 1;
  if (loaded != 0)
    return NULL;
  if (knit_path_filter_apply(filter, &profile) != 0) {
    fprintf(stderr, "knit view: error: out of memory\n");
    knit_profile_free(&profile);
    return NULL;
  }
  char *buf = NULL;
  FILE *mem = open_memstream(&buf, len);
  int rc = mem != NULL ? knit_json_tree_write(&profile, tree, 0.0, mem, stderr) : -1;
  if (mem != NULL && fclose(mem) != 0)
    rc = -1;
  if (rc != 0) {
    if (mem == NULL)
      fprintf(stderr, "knit view: error: out of memory\n");
    free(buf);
    buf = NULL;
  } else if (*trace == NULL) {
    *trace = measurement_trace(&profile, trace_len);
  }
  knit_profile_free(&profile);
  return buf;
}

/* PROFILE.html beside PROFILE.json (PROFILE.json.html for other names). */
static void page_beside(const char *json_path, char *buf, size_t len)
{
  size_t n = strlen(json_path);
  if (n > 5 && strcmp(json_path + n - 5, ".json") == 0)
    snprintf(buf, len, "%.*s.html", (int)(n - 5), json_path);
  else
    snprintf(buf, len, "%s.html", json_path);
}

/* What the command line asks for. */
typedef struct request {
  const char *input; /* NULL: the newest ./knit-* */
  const char *output;
  const char *trace_path;
  const char *shaping; /* an option that shapes a measurement's tree, or NULL */
  knit_calltree_options tree;
  knit_profile_options load;
  knit_path_filter *filter;
} request;

/* Writes the page; returns the exit status. */
static int write_view(const request *r)
{
  char found[PATH_MAX];
  const char *input = r->input;
  if (input == NULL) {
    if (knit_newest_measurement(found, sizeof found) != 0) {
      fprintf(stderr, "knit view: error: no ./knit-* measurement directory here; "
                      "name one: knit view DIR\n");
      return 1;
    }
    input = found;
  }

  char *trace = NULL;
  size_t trace_len = 0;
  if (r->trace_path != NULL) {
    if ((trace = read_whole(r->trace_path, &trace_len)) == NULL)
      return 1;
    if (!looks_like(trace, trace_len, r->trace_path, "\"traceEvents\"", 1,
                    "a Chrome trace (a JSON object with traceEvents, or an array of events)")) {
      free(trace);
      return 1;
    }
  }

  struct stat st;
  int from_file = stat(input, &st) == 0 && S_ISREG(st.st_mode);
  if (from_file && r->shaping != NULL) {
    free(trace);
    return bad_usage("--%s shapes a measurement's tree; a JSON tree is shaped already "
                     "(knit report --format=json takes it)",
                     r->shaping);
  }
  size_t json_len = 0;
  char *json = NULL;
  int status = 1;
  if (from_file) {
    json = read_whole(input, &json_len);
    if (json != NULL && !looks_like(json, json_len, input, "\"knit-profile\"", 0,
                                    "a knit profile (`knit report --format=json` writes one)")) {
      free(json);
      json = NULL;
    }
  } else {
    json = measurement_json(input, &r->tree, &r->load, r->filter, &trace, &trace_len, &json_len,
                            &status);
  }
  if (json == NULL) {
    free(trace);
    return status;
  }

  char page_path[PATH_MAX + 32];
  if (r->output != NULL)
    snprintf(page_path, sizeof page_path, "%s", r->output);
  else if (from_file)
    page_beside(input, page_path, sizeof page_path);
  else
    snprintf(page_path, sizeof page_path, "%s/%s", input, DEFAULT_PAGE);
  int rc = 0;
  FILE *out = fopen(page_path, "w");
  if (out == NULL) {
    fprintf(stderr, "knit view: error: %s: %s\n", page_path, strerror(errno));
    rc = 1;
  } else {
    int failed = knit_html_page_write(out, json, json_len, trace, trace_len) != 0;
    if (fclose(out) != 0 || failed) {
      fprintf(stderr, "knit view: error: %s: could not be written whole\n", page_path);
      rc = 1;
    } else {
      printf("%s\n", page_path);
    }
  }
  free(json);
  free(trace);
  return rc;
}

int knit_cmd_view(int argc, char **argv)
{
  knit_calltree_options tree = {.sort = KNIT_SORT_INCLUSIVE};
  knit_profile_options load = {0};
  const char *output = NULL, *trace_path = NULL, *shaping = NULL, *focus = NULL, *ignore = NULL;
  char err[400];
  static const struct option options[] = {
      {"output", required_argument, NULL, 'o'},
      {"trace", required_argument, NULL, 'T'},
      {"all-frames", no_argument, NULL, 'a'},
      {"fold", no_argument, NULL, 'F'},
      {"raw-names", no_argument, NULL, 'r'},
      {"no-inline", no_argument, NULL, 'I'},
      {"no-loops", no_argument, NULL, 'L'},
      {"no-cache", no_argument, NULL, 'C'},
      {"thread", required_argument, NULL, 'H'},
      {"focus", required_argument, NULL, 'X'},
      {"ignore", required_argument, NULL, 'Y'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  optind = 0; /* glibc: a full re-initialization, as other commands may have parsed */
  opterr = 0;
  int c, which = -1;
  while ((c = getopt_long(argc, argv, "+ho:", options, &which)) != -1) {
    switch (c) {
    case 'o': output = optarg; break;
    case 'T': trace_path = optarg; break;
    case 'a': tree.all_frames = 1; break;
    case 'F': tree.fold_recursion = 1; break;
    case 'r': load.raw_names = 1; break;
    case 'I':
      load.no_inline = 1;
      tree.no_inline = 1;
      break;
    case 'L': load.no_loops = 1; break;
    case 'C': setenv("KNIT_CACHE_DIR", "", 1); break;
    case 'H':
      if (knit_thread_list_check(optarg, err, sizeof err) != 0)
        return bad_usage("%s", err);
      load.threads = optarg;
      break;
    case 'X': focus = optarg; break;
    case 'Y': ignore = optarg; break;
    case 'h': usage(stdout); return 0;
    default: return bad_usage("unknown or incomplete option '%s'", argv[optind - 1]);
    }
    /* The rest shape the tree of a measurement: a JSON tree has its shape. */
    if (c != 'o' && c != 'T')
      shaping = options[which].name;
  }
  if (argc - optind > 1)
    return bad_usage("one measurement directory or JSON file at most, got '%s' too",
                     argv[optind + 1]);
  if (output != NULL && output[0] == '\0')
    return bad_usage("-o wants a file name%s", "");

  knit_path_filter filter;
  if (knit_path_filter_compile(&filter, focus, ignore, err, sizeof err) != 0) {
    fprintf(stderr, "knit view: %s\n", err);
    return 2;
  }
  filter.all_frames = tree.all_frames;
  request r = {.input = optind < argc ? argv[optind] : NULL,
               .output = output,
               .trace_path = trace_path,
               .shaping = shaping,
               .tree = tree,
               .load = load,
               .filter = &filter};
  int rc = write_view(&r);
  knit_path_filter_free(&filter);
  return rc;
}
