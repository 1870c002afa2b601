/* The pieces of JSON the report's machine-readable forms are made of.
 *
 * Strings come from outside knit (symbol names, paths, a damaged file's
 * bytes), so the writer never trusts them: control characters are written
 * as \uXXXX escapes, and bytes that are not well-formed UTF-8 (cut-off
 * sequences, overlong forms, surrogates, code points past U+10FFFF) each
 * become U+FFFD, so that the output is valid JSON whatever the input holds.
 * '<', '>' and '&' are escaped too (\u003c ...), so the text can sit inside
 * an HTML <script> element as it is. */
#ifndef KNIT_REPORT_JSON_WRITE_H
#define KNIT_REPORT_JSON_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* s as a JSON string, quotes included; NULL is written as null. */
void knit_json_string(FILE *out, const char *s);

/* The length of the longest prefix of s[0..len) that is one well-formed
 * UTF-8 sequence: 1 to 4, or 0 when s does not start with one. */
size_t knit_utf8_sequence(const unsigned char *s, size_t len);

/* A number as JSON has it: up to 12 significant digits, no exponent for
 * ordinary magnitudes, and 0 for what JSON cannot hold (NaN, infinities). */
void knit_json_number(FILE *out, double v);

#endif /* KNIT_REPORT_JSON_WRITE_H */
