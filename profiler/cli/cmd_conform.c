/* knit conform: a conformance report of a runtime's OMPT and of the
 * platform's sampling support, or the summary across reports. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/paths.h"
#include "cli/runtimes.h"
#include "conform/conform.h"
#include "unwind/isa.h"

static void usage(FILE *to)
{
  char isas[96];
  knit_isa_names(isas, sizeof isas);
  fprintf(to,
          "usage: knit conform --runtime=NAME|PATH [--isa=ISA] [--abi=gomp|kmpc] [--mutations]\n"
          "                    [--format=md|json|junit|html|all] [-o FILE]\n"
          "       knit conform --summary=DIR [--format=md|json|junit|html|all] [-o FILE]\n"
          "\n"
          "Checks an OpenMP runtime's tools interface (OMPT) against what OpenMP 5.0\n"
          "promises and a sampling profiler needs, and the platform's support for\n"
          "sampling, by running knit's conformance programs on it; every check gets a\n"
          "verdict (pass, fail, not supported, not observable) and its evidence.\n"
          "docs/conform.md describes every check.\n"
          "\n"
          "  --runtime=NAME   mock-gomp, mock-intel, mock-pgi, libomp or libgomp\n"
          "  --runtime=PATH   a folder holding libgomp.so.1 and/or libomp.so.5, or one of them\n"
          "  --isa=ISA        %s (default: this machine's); another\n"
          "                   ISA runs under QEMU with the programs of build/<ISA>\n"
          "  --abi=ABI        gomp (gcc-built programs) or kmpc (clang-built): for a runtime\n"
          "                   that speaks both, as libomp does, the one to check (default:\n"
          "                   kmpc, its own compiler's); its reports are named RUNTIME/ABI\n"
          "  --mutations      also run the suite against every fault the mock runtime can\n"
          "                   inject (MOCKRT_FAULT) and report how many it caught\n"
          "  --format=F       md (default), json, junit (JUnit XML), html, or all: with -o\n"
          "                   BASE, writes BASE.md, BASE.json, BASE.xml, BASE.html and\n"
          "                   BASE.tsv (the form --summary reads)\n"
          "  -o FILE          write there instead of standard output\n"
          "  --summary=DIR    one table across the reports (BASE.tsv) in DIR\n"
          "  --keep           keep the programs' logs and verdict files (prints where)\n"
          "  -h, --help       this text\n"
          "\n"
          "exit status: 0 no check failed (and with --mutations every injectable fault\n"
          "was caught), 1 a check failed or a fault was missed, 2 bad usage: an unknown\n"
          "runtime or ISA, a runtime or tree that is not there, a bad format, an output\n"
          "that cannot be written.\n",
          isas);
}

static const char *const all_formats[][2] = {
    {"md", "md"}, {"json", "json"}, {"junit", "xml"}, {"html", "html"}, {"tsv", "tsv"},
};

/* The output files, opened before anything runs so that a bad -o fails fast. */
typedef struct outputs {
  FILE *file[5];
  const char *format[5];
  int n;
} outputs;

static bool open_outputs(const char *format, const char *out, outputs *o)
{
  o->n = 0;
  if (strcmp(format, "all") != 0) {
    o->format[0] = format;
    o->file[0] = out ? fopen(out, "w") : stdout;
    if (!o->file[0]) {
      fprintf(stderr, "knit conform: cannot write %s: %m\n", out);
      return false;
    }
    o->n = 1;
    return true;
  }
  if (!out) {
    fprintf(stderr, "knit conform: --format=all needs -o BASE\n");
    return false;
  }
  for (size_t i = 0; i < sizeof all_formats / sizeof all_formats[0]; i++) {
    char path[4096];
    if (!knit_path_printf(path, sizeof path, "%s.%s", out, all_formats[i][1]) ||
        !(o->file[o->n] = fopen(path, "w"))) {
      fprintf(stderr, "knit conform: cannot write %s.%s: %m\n", out, all_formats[i][1]);
      return false;
    }
    o->format[o->n++] = all_formats[i][0];
  }
  return true;
}

static bool close_outputs(outputs *o)
{
  bool ok = true;
  for (int i = 0; i < o->n; i++)
    ok = (o->file[i] == stdout ? fflush(stdout) : fclose(o->file[i])) == 0 && ok;
  return ok;
}

static bool known_format(const char *f)
{
  return !strcmp(f, "md") || !strcmp(f, "json") || !strcmp(f, "junit") || !strcmp(f, "html") ||
         !strcmp(f, "all");
}

static int summary(const char *dir, const char *format, const char *out)
{
  outputs o;
  if (!open_outputs(format, out, &o))
    return 2;
  char err[512];
  for (int i = 0; i < o.n; i++) {
    if (strcmp(o.format[i], "tsv") == 0)
      continue; /* a summary is not a report: no .tsv of its own */
    if (!knit_conform_summary(dir, o.format[i], o.file[i], err, sizeof err)) {
      fprintf(stderr, "knit conform: %s\n", err);
      close_outputs(&o);
      return 2;
    }
  }
  if (!close_outputs(&o))
    return 2;
  if (strcmp(format, "all") == 0) {
    char path[4096];
    if (knit_path_printf(path, sizeof path, "%s.tsv", out))
      remove(path);
  }
  return 0;
}

int knit_cmd_conform(int argc, char **argv)
{
  static const struct option opts[] = {{"runtime", required_argument, NULL, 'r'},
                                       {"isa", required_argument, NULL, 'i'},
                                       {"format", required_argument, NULL, 'f'},
                                       {"summary", required_argument, NULL, 's'},
                                       {"mutations", no_argument, NULL, 'm'},
                                       {"keep", no_argument, NULL, 'k'},
                                       {"abi", required_argument, NULL, 'a'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *runtime = NULL, *isa = NULL, *format = "md", *out = NULL, *summary_dir = NULL;
  const char *abi = NULL;
  bool mutations = false, keep = false;
  optind = 1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "+ho:", opts, NULL)) != -1) {
    switch (c) {
    case 'r': runtime = optarg; break;
    case 'i': isa = optarg; break;
    case 'a': abi = optarg; break;
    case 'f': format = optarg; break;
    case 's': summary_dir = optarg; break;
    case 'm': mutations = true; break;
    case 'k': keep = true; break;
    case 'o': out = optarg; break;
    case 'h': usage(stdout); return 0;
    default:
      fprintf(stderr, "knit conform: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
      usage(stderr);
      return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "knit conform: unexpected argument '%s'\n", argv[optind]);
    return 2;
  }
  if (!known_format(format)) {
    fprintf(stderr, "knit conform: unknown format '%s' (md, json, junit, html, all)\n", format);
    return 2;
  }
  if (summary_dir)
    return summary(summary_dir, format, out);
  if (!runtime || !*runtime) {
    fprintf(stderr, "knit conform: no runtime given (--runtime=NAME or PATH)\n\n");
    usage(stderr);
    return 2;
  }

  knit_conform_target t;
  memset(&t, 0, sizeof t);
  if (abi && strcmp(abi, "gomp") != 0 && strcmp(abi, "kmpc") != 0) {
    fprintf(stderr, "knit conform: unknown ABI '%s' (gomp, kmpc)\n", abi);
    return 2;
  }
  if (abi)
    t.abi_wanted = strcmp(abi, "gomp") == 0 ? KNIT_ABI_GOMP : KNIT_ABI_KMPC;
  if (strchr(runtime, '/'))
    snprintf(t.runtime_path, sizeof t.runtime_path, "%s", runtime);
  else
    t.runtime = runtime;
  t.isa = isa;
  t.keep_logs = keep;
  char err[1024];
  if (!knit_conform_prepare(&t, err, sizeof err)) {
    fprintf(stderr, "knit conform: %s\n", err);
    return 2;
  }
  outputs o;
  if (!open_outputs(format, out, &o)) {
    knit_conform_cleanup(&t);
    return 2;
  }
  knit_conform_report *r = calloc(1, sizeof *r);
  if (!r) {
    fprintf(stderr, "knit conform: out of memory\n");
    return 2;
  }
  snprintf(r->runtime, sizeof r->runtime, "%s", runtime);
  snprintf(r->label, sizeof r->label, "%s%s%s", runtime, t.two_abis ? "/" : "",
           t.two_abis ? (t.abis == KNIT_ABI_GOMP ? "gomp" : "kmpc") : "");
  snprintf(r->isa, sizeof r->isa, "%s", t.isa);
  knit_progress progress;
  knit_progress_init(&progress, "knit conform", stderr);
  t.progress = &progress;
  bool ran = knit_conform_run(&t, NULL, r, err, sizeof err) &&
             (!mutations || knit_conform_mutations(&t, r, err, sizeof err));
  knit_progress_clear(&progress);
  if (keep)
    fprintf(stderr, "knit conform: logs and verdict files in %s\n", t.work);
  knit_conform_cleanup(&t);
  if (!ran) {
    fprintf(stderr, "knit conform: %s\n", err);
    close_outputs(&o);
    free(r);
    return 2;
  }
  knit_conform_explain(r);
  for (int i = 0; i < o.n; i++)
    knit_conform_write(r, o.format[i], o.file[i]);
  if (!close_outputs(&o)) {
    fprintf(stderr, "knit conform: writing the report failed\n");
    free(r);
    return 2;
  }
  int caught, applicable;
  knit_conform_mutation_score(r, &caught, &applicable);
  int fails = knit_conform_count(r, KNIT_V_FAIL);
  fprintf(stderr, "knit conform: %s on %s: %d pass, %d fail, %d not supported, %d not observable%s",
          r->label, t.isa, knit_conform_count(r, KNIT_V_PASS), fails,
          knit_conform_count(r, KNIT_V_UNSUPPORTED), knit_conform_count(r, KNIT_V_UNOBSERVABLE),
          r->ompt ? "" : " (no OMPT)");
  if (r->mutated)
    fprintf(stderr, "; mutation score %d/%d", caught, applicable);
  fputc('\n', stderr);
  free(r);
  return fails > 0 || caught < applicable ? 1 : 0;
}
