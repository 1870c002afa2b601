/* `knit report --format=json`: the tree of calltree.h with every metric, as
 * one JSON object that programs (and `knit view`'s page) read. The schema
 * is docs/json.md's: a header (event, unit, counts, the metrics with their
 * totals), a table of the distinct strings, and the nodes as a flat array
 * in pre-order, each an array of fields that refers to its parent and its
 * names by number, so that a profile of 100,000 nodes stays a few MB. */
#ifndef KNIT_REPORT_JSON_TREE_H
#define KNIT_REPORT_JSON_TREE_H

#include <stdio.h>

#include "report/calltree.h"
#include "report/profile.h"

/* The version written in the header; it changes when a field changes
 * meaning or place. */
#define KNIT_JSON_TREE_VERSION 1

/* Writes p's tree, built with o, to out. Nodes whose inclusive share of
 * o's metric is below min_percent (0-100) are left out with their
 * subtrees. Returns 0, or -1 when out of memory (with the reason on diag). */
int knit_json_tree_write(const knit_profile *p, const knit_calltree_options *o, double min_percent,
                         FILE *out, FILE *diag);

#endif /* KNIT_REPORT_JSON_TREE_H */
