/* A copy of the vdso in the measurement directory: see vdso_copy.h. */
#define _GNU_SOURCE
#include "core/vdso_copy.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "base/safe_format.h"
#include "core/file_limit.h"
#include "unwind/vdso.h"

typedef struct vdso_name {
  uintptr_t phdr; /* where the vdso's program headers are */
  const char *name;
} vdso_name;

static int find_name(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  vdso_name *v = arg;
  if ((uintptr_t)info->dlpi_phdr != v->phdr)
    return 0;
  v->name = info->dlpi_name;
  return 1;
}

void knit_vdso_copy(const char *dir)
{
  size_t size = 0;
  const void *image = knit_vdso_image(&size);
  if (!image)
    return;
  vdso_name v = {(uintptr_t)image + ((const ElfW(Ehdr) *)image)->e_phoff, NULL};
  dl_iterate_phdr(find_name, &v);
  /* A name of its own, as the load map has it: nothing to copy under a
   * path (a directory would be the program's). */
  if (!v.name || !*v.name || strchr(v.name, '/'))
    return;
  char path[PATH_MAX + 64];
  if (knit_safe_snprintf(path, sizeof path, "%s/%s", dir, v.name) >= (int)sizeof path)
    return;
  /* A program under a file-size limit must not be killed by knit's file. */
  knit_file_limit_hold hold;
  knit_file_limit_enter(&hold);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) { /* else there already, from an earlier image, or no room */
    const char *p = image;
    bool whole = true;
    while (size > 0) {
      ssize_t n = write(fd, p, size);
      if (n <= 0) {
        whole = false;
        break;
      }
      p += n;
      size -= (size_t)n;
    }
    close(fd);
    /* A part of an ELF image is no use to the report: none rather. */
    if (!whole)
      unlink(path);
  }
  knit_file_limit_leave(&hold);
}
