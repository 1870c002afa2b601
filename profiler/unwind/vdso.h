/* The vdso: code the kernel maps into every process that no file holds. */
#ifndef KNIT_UNWIND_VDSO_H
#define KNIT_UNWIND_VDSO_H

#include <stddef.h>

/* The vdso's ELF image as mapped (headers and section table included) and
 * its size, or NULL when the process has none (QEMU user mode, say). */
const void *knit_vdso_image(size_t *size);

#endif /* KNIT_UNWIND_VDSO_H */
