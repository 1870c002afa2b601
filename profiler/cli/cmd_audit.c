/* knit audit: compares the unwind recipes with the compiler's CFI in ELF
 * files of any ISA knit knows, and prints a table of agreement per file. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "cli/commands.h"
#include "cli/usage_error.h"

static void usage(FILE *out)
{
  fprintf(out, "usage: knit audit [--verbose] [--limit=N] FILE...\n"
               "\n"
               "For every function of each ELF file (x86-64, aarch64, ppc64le or ppc64, on\n"
               "any host), at every instruction, compares the recipe that knit's\n"
               "binary analysis builds (where the CFA and the return address are)\n"
               "with the DWARF CFI the compiler wrote (.eh_frame, else .debug_frame).\n"
               "\n"
               "Per file it prints the ISA, the functions audited, the instructions\n"
               "compared, the share that agree, the disagreements and the instructions\n"
               "that could not be compared (no CFI, padding, a rule one side cannot\n"
               "express, functions entered by a jump such as foo.cold), then the\n"
               "disagreements by kind; a last line totals the files.\n"
               "\n"
               "  -v, --verbose  list each disagreement: address, function, the\n"
               "                 recipe's rule, the CFI's rule and its kind\n"
               "  --limit=N      list at most N disagreements per file (0: all)\n"
               "  -h, --help     print this help\n"
               "\n"
               "Exit status: 0 every file was read (whatever the agreement), 1 a file\n"
               "could not be read, 2 bad usage.\n");
}

static int bad_usage(const char *fmt, const char *what)
{
  return knit_usage_error("knit audit", usage, fmt, what);
}

static void print_header(void)
{
  printf("%-44s %-8s %9s %10s %8s %9s %10s\n", "file", "isa", "functions", "compared", "agree",
         "disagree", "not-comp");
}

static void print_row(const char *name, const char *isa, const knit_audit_result *r)
{
  printf("%-44s %-8s %9zu %10zu %7.3f%% %9zu %10zu\n", name, isa, r->functions, r->instructions,
         knit_audit_agreement(r), r->disagree, r->not_comparable);
}

/* The disagreements by kind and the skipped instructions by reason, on two
 * indented lines, so that a table in a CI log says what the numbers are. */
static void print_breakdown(const knit_audit_result *r)
{
  if (r->disagree) {
    printf("    disagreements:");
    const char *sep = " ";
    for (int c = 0; c < KNIT_AUDIT_CAT_COUNT; c++) {
      if (!r->category[c])
        continue;
      printf("%s%zu %s", sep, r->category[c], knit_audit_category_name(c));
      sep = ", ";
    }
    printf("\n");
  }
  if (r->not_comparable) {
    printf("    not compared:");
    const char *sep = " ";
    for (int s = 0; s < KNIT_AUDIT_SKIP_COUNT; s++) {
      if (!r->skipped[s])
        continue;
      printf("%s%zu %s", sep, r->skipped[s], knit_audit_skip_name(s));
      sep = ", ";
    }
    printf("\n");
  }
  if (r->ra_copied || r->ra_restored || r->ra_saved)
    printf("    equivalent: %zu return address copied by mflr while LR is intact,"
           " %zu LR restored by mtlr before the CFI says so,"
           " %zu saved while LR is intact\n",
           r->ra_copied, r->ra_restored, r->ra_saved);
  if (r->cfa_other_register)
    printf("    equivalent: %zu CFA from the other register, equal while"
           " fp == sp + the analyzer's delta\n",
           r->cfa_other_register);
  if (r->fp_disagree || r->fp_stale || r->functions_undecodable)
    printf("    frame pointer: %zu differ, %zu restored before the CFI says so;"
           " %zu functions undecodable\n",
           r->fp_disagree, r->fp_stale, r->functions_undecodable);
}

static void add_to_total(knit_audit_result *total, const knit_audit_result *r)
{
  total->functions += r->functions;
  total->instructions += r->instructions;
  total->agree += r->agree;
  total->disagree += r->disagree;
  total->not_comparable += r->not_comparable;
}

int knit_cmd_audit(int argc, char **argv)
{
  knit_audit_options opt = {.verbose = false, .limit = 0};
  static const struct option options[] = {
      {"verbose", no_argument, NULL, 'v'},
      {"limit", required_argument, NULL, 'l'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  optind = 0; /* glibc: a full re-initialization, as other commands may have parsed */
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "+vh", options, NULL)) != -1) {
    switch (c) {
    case 'v': opt.verbose = true; break;
    case 'l': {
      char *end;
      errno = 0;
      unsigned long long n = strtoull(optarg, &end, 10);
      if (end == optarg || *end != '\0' || errno != 0 || optarg[0] == '-')
        return bad_usage("--limit wants a count, not '%s'", optarg);
      opt.limit = (size_t)n;
      break;
    }
    case 'h': usage(stdout); return 0;
    default: return bad_usage("unknown or incomplete option '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc)
    return bad_usage("%s", "no FILE given");

  int rc = 0;
  knit_audit_result total = {0};
  size_t audited = 0;
  print_header();
  for (int i = optind; i < argc; i++) {
    knit_audit_result *r = malloc(sizeof *r);
    if (!r) {
      fprintf(stderr, "knit audit: error: out of memory\n");
      return 1;
    }
    if (opt.verbose)
      printf("%s:\n", argv[i]);
    fflush(stdout);
    if (knit_audit_file(argv[i], &opt, r, stdout) != 0) {
      fflush(stdout);
      fprintf(stderr, "knit audit: error: %s\n", r->error);
      rc = 1;
    } else if (!r->has_analyzer) {
      printf("%-44s %-8s %9zu   no analyzer for ISA %s: nothing compared\n", argv[i], r->isa->name,
             r->functions, r->isa->name);
    } else {
      if (!r->has_cfi)
        printf("%-44s %-8s   no CFI (.eh_frame or .debug_frame): nothing to compare\n", argv[i],
               r->isa->name);
      else
        print_row(argv[i], r->isa->name, r);
      print_breakdown(r);
      add_to_total(&total, r);
      audited++;
    }
    free(r);
  }
  if (audited > 0)
    print_row("total", "", &total);
  return rc;
}
