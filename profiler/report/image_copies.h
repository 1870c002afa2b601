/* The module copies a measurement holds (DIR/images/, written by the
 * recording: core/image_copy.h) and which file the report reads for a
 * module path.
 *
 * A copy was made because the file at the module's path would be gone or
 * be another file by the report's time. The file at the path is still
 * read when it is there and has the same GNU build ID as the copy (its
 * separate debug file, if any, is found beside it); else the copy is. */
#ifndef KNIT_REPORT_IMAGE_COPIES_H
#define KNIT_REPORT_IMAGE_COPIES_H

typedef struct knit_image_copies knit_image_copies;

/* Reads DIR/images/index. A measurement without copies, or whose index
 * cannot be read, has none: NULL (never an error; the report then names
 * such code by module and offset). */
knit_image_copies *knit_image_copies_read(const char *dir);
void knit_image_copies_free(knit_image_copies *c);

/* The file to read for the module recorded at path: path itself, or the
 * copy's (DIR/images/NAME), which lives as long as c. c may be NULL. When
 * one path was several files in the run, the copy listed last is used. */
const char *knit_image_copies_file(const knit_image_copies *c, const char *path);

#endif /* KNIT_REPORT_IMAGE_COPIES_H */
