/* Text from a measurement made safe to print.
 *
 * Module paths, symbol and file names, the event name, the log's SUMMARY
 * line and the names of files in a measurement directory all come from
 * outside knit: a program may load a library from a path holding an escape
 * sequence, and a damaged or hostile file may hold anything. Printed raw,
 * such bytes would drive the terminal (move the cursor, retitle the window,
 * hide lines). Every such string the report prints goes through here first.
 *
 * The printable form keeps printable ASCII and well-formed UTF-8 as they
 * are. Every other byte is written as \xNN: control characters (C0, DEL),
 * the C1 controls U+0080..U+009F in their UTF-8 form (some terminals obey
 * them too), and bytes of malformed UTF-8. A backslash is written as \\, so
 * the printable form reads back unambiguously.
 */
#ifndef KNIT_MEASURE_READ_PRINTABLE_H
#define KNIT_MEASURE_READ_PRINTABLE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether s is its own printable form. */
bool knit_is_printable(const char *s);

/* The length of s's printable form, without the NUL. */
size_t knit_printable_length(const char *s);

/* s's printable form, newly allocated; NULL when out of memory. */
char *knit_printable_dup(const char *s);

/* s's printable form in buf (cut short, at a whole escape, when it does not
 * fit; always NUL-terminated when len > 0); returns buf. */
const char *knit_printable(const char *s, char *buf, size_t len);

#endif /* KNIT_MEASURE_READ_PRINTABLE_H */
