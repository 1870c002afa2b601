/* Where knit conform finds its helpers: see conform_helpers.h. */
#define _GNU_SOURCE
#include "conform/conform_helpers.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/launch.h"
#include "cli/paths.h"

bool knit_conform_helper_dir(const char *isa, bool foreign, char *tree, size_t treelen, char *dir,
                             size_t dirlen, char *err, size_t errlen)
{
  char root[PATH_MAX], where[PATH_MAX], real[PATH_MAX];
  if (!knit_tree_root(root, sizeof root)) {
    snprintf(err, errlen, "cannot tell where knit is installed (/proc/self/exe)");
    return false;
  }
  bool fits = foreign ? knit_path_printf(where, sizeof where, "%s/../%s", root, isa)
                      : knit_path_printf(where, sizeof where, "%s", root);
  /* Messages name the folder itself, not bin/..; a tree that is not there
   * keeps the path it was looked for at. */
  if (!fits || !knit_path_printf(tree, treelen, "%s", realpath(where, real) ? real : where) ||
      !knit_path_printf(dir, dirlen, "%s/%s", tree, KNIT_CONFORM_HELPER_DIR)) {
    snprintf(err, errlen, "the path of knit's helpers is too long");
    return false;
  }
  return true;
}

bool knit_conform_helper(const char *dir, const char *name, char *out, size_t outlen, char *err,
                         size_t errlen)
{
  if (!knit_path_printf(out, outlen, "%s/%s", dir, name)) {
    snprintf(err, errlen, "the path of helper %s is too long", name);
    return false;
  }
  if (access(out, F_OK) != 0) {
    snprintf(err, errlen,
             "helper %s is missing: no %s (knit conform runs its helpers from "
             "<dir of knit>/../%s)",
             name, out, KNIT_CONFORM_HELPER_DIR);
    return false;
  }
  return true;
}
