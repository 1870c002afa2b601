/* Copies, in the measurement directory, of the modules whose files the
 * report would not find.
 *
 * The report names code by reading the files that held it, after the run.
 * A module loaded from a file that is gone by then (deleted, replaced by
 * another file of the same name, or in a temporary directory the program
 * may empty at any time: LLVM's offloading plugin for the host writes each
 * target image to /tmp/tmpfile_XXXXXX, dlopens it and deletes it when the
 * plugin is unloaded, at the program's end) has its bytes copied while
 * they are still at hand, when knit first sees the module:
 *
 *   DIR/images/BASENAME-HASH   the module file's bytes (HASH: 16 hex digits
 *                              of its path, device, inode, size and time)
 *   DIR/images/index           one line per copy: "BASENAME-HASH<TAB>PATH"
 *
 * A file in a temporary directory is copied only when the program loads
 * it while running (dlopen): the libraries the program starts with are its
 * build's, wherever that is (a checkout under /tmp, say), and stay there,
 * unless deleted or replaced, which is copied whenever it is seen.
 *
 * Each module is copied once, whatever the number of threads; a file
 * larger than KNIT_IMAGE_COPY_MAX_BYTES is not. A copy that cannot be made
 * is said in knit.log and the run goes on. */
#ifndef KNIT_CORE_IMAGE_COPY_H
#define KNIT_CORE_IMAGE_COPY_H

#include "unwind/loadmap.h"

#define KNIT_IMAGE_COPY_MAX_BYTES (256ull << 20)

/* Reads the temporary directories from the environment ($TMPDIR): call
 * once, at start-up, before the first knit_image_copy. */
void knit_image_copy_setup(void);

/* The modules seen so far are the program's start-up set: from now on a
 * module in a temporary directory is one loaded while the program runs. */
void knit_image_copy_startup_done(void);

/* Copies m's file into the session's measurement directory when the report
 * could not read it later (above). Not for signal handlers; calls must not
 * overlap (the load map's refresh makes them one at a time). */
void knit_image_copy(const knit_module *m);

#endif /* KNIT_CORE_IMAGE_COPY_H */
