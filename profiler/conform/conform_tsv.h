/* knit conform's reports as tab-separated lines: what --format=all writes
 * beside the others and what --summary reads back, every field whole. */
#ifndef KNIT_CONFORM_TSV_H
#define KNIT_CONFORM_TSV_H

#include <stdbool.h>
#include <stdio.h>

#include "conform/conform_report.h"

void knit_conform_write_tsv(const knit_conform_report *r, FILE *out);
/* Reads a report written by knit_conform_write_tsv; false when path is not
 * a regular file or names no runtime. */
bool knit_conform_read_tsv(const char *path, knit_conform_report *r);

#endif /* KNIT_CONFORM_TSV_H */
