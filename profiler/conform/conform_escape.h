/* Text from a runtime (its version string, its path, a check's evidence)
 * escaped for each format of knit conform's reports and summaries, so that
 * it cannot end a field early or inject markup. */
#ifndef KNIT_CONFORM_ESCAPE_H
#define KNIT_CONFORM_ESCAPE_H

#include <stdio.h>

/* A JSON string, quotes included. */
void knit_put_json_string(FILE *out, const char *s);
/* XML (and HTML) text or attribute value. */
void knit_put_xml_text(FILE *out, const char *s);
/* For a Markdown table cell or heading: '|', '\\', HTML's '<', '>' and
 * '&' escaped, control characters (line breaks included) as spaces. */
void knit_put_md_text(FILE *out, const char *s);

#endif /* KNIT_CONFORM_ESCAPE_H */
