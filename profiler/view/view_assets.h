/* The viewer's page, style and script (profiler/view/viewer.*), built into
 * knit by embed.cmake: each NUL-terminated, its size without the NUL. */
#ifndef KNIT_VIEW_VIEW_ASSETS_H
#define KNIT_VIEW_VIEW_ASSETS_H

#include <stddef.h>

extern const char knit_view_html[];
extern const size_t knit_view_html_size;
extern const char knit_view_css[];
extern const size_t knit_view_css_size;
extern const char knit_view_js[];
extern const size_t knit_view_js_size;

#endif /* KNIT_VIEW_VIEW_ASSETS_H */
