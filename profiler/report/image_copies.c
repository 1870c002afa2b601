/* The measurement's module copies: see image_copies.h. */
#include "report/image_copies.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/read_whole_file.h"

typedef struct image_copy {
  char *path; /* the module's path in the run */
  char *file; /* DIR/images/NAME */
} image_copy;

struct knit_image_copies {
  image_copy *copies;
  size_t count;
};

/* A copy's name as the recording makes them: a file right in images/,
 * none of the index's own or its temporary files. */
static bool is_copy_name(const char *name, size_t len)
{
  return len > 0 && name[0] != '.' && memchr(name, '/', len) == NULL;
}

static bool add_copy(knit_image_copies *c, const char *dir, const char *name, size_t name_len,
                     const char *path, size_t path_len)
{
  image_copy *grown = realloc(c->copies, (c->count + 1) * sizeof *grown);
  if (grown == NULL)
    return false;
  c->copies = grown;
  size_t file_len = strlen(dir) + sizeof "/images/" + name_len;
  image_copy *e = &c->copies[c->count];
  e->path = strndup(path, path_len);
  e->file = malloc(file_len);
  if (e->path == NULL || e->file == NULL) {
    free(e->path);
    free(e->file);
    return false;
  }
  snprintf(e->file, file_len, "%s/images/%.*s", dir, (int)name_len, name);
  c->count++;
  return true;
}

knit_image_copies *knit_image_copies_read(const char *dir)
{
  size_t n = strlen(dir) + sizeof "/images/index";
  char *index = malloc(n);
  if (index == NULL)
    return NULL;
  snprintf(index, n, "%s/images/index", dir);
  uint8_t *data = NULL;
  size_t len = 0;
  char err[256];
  int rc = knit_read_whole_file(index, &data, &len, err, sizeof err);
  free(index);
  if (rc != 0)
    return NULL;
  knit_image_copies *c = calloc(1, sizeof *c);
  const char *p = (const char *)data, *end = p + len;
  while (c != NULL && p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (eol == NULL)
      break; /* a line the recording did not finish */
    const char *tab = memchr(p, '\t', (size_t)(eol - p));
    if (tab != NULL && tab + 1 < eol && tab[1] == '/' && is_copy_name(p, (size_t)(tab - p)) &&
        !add_copy(c, dir, p, (size_t)(tab - p), tab + 1, (size_t)(eol - tab - 1))) {
      knit_image_copies_free(c);
      c = NULL;
    }
    p = eol + 1;
  }
  free(data);
  return c;
}

void knit_image_copies_free(knit_image_copies *c)
{
  if (c == NULL)
    return;
  for (size_t i = 0; i < c->count; i++) {
    free(c->copies[i].path);
    free(c->copies[i].file);
  }
  free(c->copies);
  free(c);
}

/* The GNU build ID of the ELF file at path into id (at most cap bytes);
 * its length, or 0 when the file has none or cannot be read. */
static size_t build_id_of(const char *path, unsigned char *id, size_t cap)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  const void *bits = NULL;
  ssize_t n = elf != NULL ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
  size_t len = n > 0 && (size_t)n <= cap ? (size_t)n : 0;
  if (len > 0)
    memcpy(id, bits, len);
  if (elf != NULL)
    elf_end(elf);
  close(fd);
  return len;
}

const char *knit_image_copies_file(const knit_image_copies *c, const char *path)
{
  const image_copy *copy = NULL;
  for (size_t i = 0; c != NULL && i < c->count; i++)
    if (strcmp(c->copies[i].path, path) == 0)
      copy = &c->copies[i];
  if (copy == NULL)
    return path;
  /* Without build IDs there is no telling that the file at the path is
   * still the one that ran: the copy is. */
  unsigned char original_id[64], copy_id[64];
  size_t original_len = build_id_of(path, original_id, sizeof original_id);
  size_t copy_len = build_id_of(copy->file, copy_id, sizeof copy_id);
  if (original_len > 0 && original_len == copy_len &&
      memcmp(original_id, copy_id, original_len) == 0)
    return path;
  return copy->file;
}
