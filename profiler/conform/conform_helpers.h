/* Where knit conform finds its helpers: the conformance programs, the OMPT
 * checker they link and the discovery tools they load (harness/conform).
 * They are found from the knit binary that runs (/proc/self/exe), never
 * from a path compiled in, so that a build tree and an installed knit each
 * run their own:
 *   <dir of knit>/../KNIT_CONFORM_HELPER_DIR           this machine's ISA
 *   <dir of knit>/../../<isa>/KNIT_CONFORM_HELPER_DIR  another ISA's tree,
 *                         built beside this one (build/native, build/aarch64)
 * KNIT_CONFORM_HELPER_DIR is libexec/knit/conform (CMakeLists.txt), where the
 * build tree puts them and where they are installed. */
#ifndef KNIT_CONFORM_HELPERS_H
#define KNIT_CONFORM_HELPERS_H

#include <stdbool.h>
#include <stddef.h>

/* The tree knit runs ISA isa from (foreign: not this machine's ISA) and
 * its helper folder. False with a message when knit cannot tell where it
 * is. */
bool knit_conform_helper_dir(const char *isa, bool foreign, char *tree, size_t treelen, char *dir,
                             size_t dirlen, char *err, size_t errlen);

/* The path of helper name in dir. False, with a message that names the
 * helper and where knit looked for it, when it is not there. */
bool knit_conform_helper(const char *dir, const char *name, char *out, size_t outlen, char *err,
                         size_t errlen);

#endif /* KNIT_CONFORM_HELPERS_H */
