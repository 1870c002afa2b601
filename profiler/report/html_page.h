/* The page `knit view` writes: one self-contained HTML file made of the
 * viewer's page, style and script (profiler/view, built into knit) and the
 * data it shows, the JSON tree (json_tree.h) and, when there is one, a
 * Chrome trace of the measurement's call paths over time. Nothing is
 * fetched when the page is opened. */
#ifndef KNIT_REPORT_HTML_PAGE_H
#define KNIT_REPORT_HTML_PAGE_H

#include <stddef.h>
#include <stdio.h>

/* Writes the page with profile (JSON text, profile_len bytes) and trace
 * (Chrome Trace Event JSON, or NULL for none) in it. The JSON goes in as it
 * is but for '<', written as \u003c (the same character to a JSON reader),
 * so that no text in it can end its script element. Returns 0, or -1 when
 * out cannot be written. */
int knit_html_page_write(FILE *out, const char *profile, size_t profile_len, const char *trace,
                         size_t trace_len);

#endif /* KNIT_REPORT_HTML_PAGE_H */
