/* The measurement file writer; see write_file.h for its promises.
 *
 * Bytes collect in the writer's own buffer and go out with write(2) when it
 * fills up. A section header is written with length 0 at begin_section and
 * patched at end_section: in the buffer when it is still there, with
 * pwrite(2) when it has already been flushed. */
#include "measure/write_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* rename(2) only: no stream is used */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/write_all.h"
#include "measure/write_text.h"

_Static_assert(sizeof(knit_file_header) == 72, "file header layout");
_Static_assert(sizeof(knit_section_header) == 16, "section header layout");

/* Plain byte copy: memcpy is async-signal-safe in practice, but a loop makes
 * the promise obvious and the writer's buffers are small. */
static void copy_bytes(void *dst, const void *src, size_t n)
{
  uint8_t *d = dst;
  const uint8_t *s = src;
  for (size_t i = 0; i < n; i++)
    d[i] = s[i];
}

static int pwrite_all(int fd, const uint8_t *data, size_t len, uint64_t off)
{
  while (len > 0) {
    ssize_t n = pwrite(fd, data, len, (off_t)off);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    if (n == 0)
      return -EIO;
    data += n;
    len -= (size_t)n;
    off += (uint64_t)n;
  }
  return 0;
}

static void flush(knit_writer *w)
{
  if (w->error != 0 || w->used == 0)
    return;
  int rc = knit_write_all(w->fd, w->buf, w->used);
  if (rc != 0) {
    w->error = rc;
    return;
  }
  w->written += w->used;
  w->used = 0;
}

/* Builds dir "/" prefix name suffix into out; 0 or -ENAMETOOLONG. */
static int build_path(char *out, size_t cap, const char *dir, const char *prefix, const char *name,
                      const char *suffix)
{
  knit_text t;
  knit_text_init(&t, out, cap);
  knit_text_str(&t, dir);
  knit_text_char(&t, '/');
  knit_text_str(&t, prefix);
  knit_text_str(&t, name);
  knit_text_str(&t, suffix);
  return t.overflow ? -ENAMETOOLONG : 0;
}

uint64_t knit_writer_offset(const knit_writer *w)
{
  return w->written + w->used;
}

int knit_writer_open(knit_writer *w, const char *dir, const char *name, const knit_file_header *h)
{
  w->fd = -1;
  w->error = 0;
  w->in_section = 0;
  w->section_start = 0;
  w->used = 0;
  w->written = 0;
  int rc = build_path(w->tmp_path, sizeof w->tmp_path, dir, ".", name, ".tmp");
  if (rc == 0)
    rc = build_path(w->final_path, sizeof w->final_path, dir, "", name, "");
  if (rc != 0) {
    w->error = rc;
    return rc;
  }
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    w->error = -errno;
    return w->error;
  }
  w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (w->fd < 0) {
    w->error = -errno;
    return w->error;
  }

  knit_file_header header;
  copy_bytes(&header, h, sizeof header);
  copy_bytes(header.magic, KNIT_FILE_MAGIC, sizeof header.magic);
  header.version = KNIT_FILE_VERSION;
  header.byte_order = KNIT_BYTE_ORDER_MARK;
  knit_writer_put(w, &header, sizeof header);
  return w->error;
}

void knit_writer_put(knit_writer *w, const void *data, size_t len)
{
  const uint8_t *p = data;
  while (w->error == 0 && len > 0) {
    if (w->used == sizeof w->buf)
      flush(w);
    if (w->error != 0)
      return;
    size_t room = sizeof w->buf - w->used;
    size_t n = len < room ? len : room;
    copy_bytes(w->buf + w->used, p, n);
    w->used += n;
    p += n;
    len -= n;
  }
}

/* Every ISA knit supports is little-endian (format.h), so the native byte
 * order is the file's byte order. */
void knit_writer_put_u32(knit_writer *w, uint32_t v)
{
  knit_writer_put(w, &v, sizeof v);
}

void knit_writer_put_u64(knit_writer *w, uint64_t v)
{
  knit_writer_put(w, &v, sizeof v);
}

void knit_writer_begin_section(knit_writer *w, uint32_t tag)
{
  if (w->in_section)
    knit_writer_end_section(w);
  if (w->error != 0)
    return;
  knit_section_header sh = {.tag = tag, .reserved = 0, .length = 0};
  w->section_start = knit_writer_offset(w);
  w->in_section = 1;
  knit_writer_put(w, &sh, sizeof sh);
}

void knit_writer_end_section(knit_writer *w)
{
  if (!w->in_section)
    return;
  w->in_section = 0;
  if (w->error != 0)
    return;
  uint64_t length = knit_writer_offset(w) - w->section_start - sizeof(knit_section_header);
  uint64_t field = w->section_start + offsetof(knit_section_header, length);
  if (field >= w->written) {
    /* The field lies after everything flushed, so all of it is still in
     * the buffer. */
    copy_bytes(w->buf + (field - w->written), &length, sizeof length);
    return;
  }
  if (field + sizeof length <= w->written) {
    int rc = pwrite_all(w->fd, (const uint8_t *)&length, sizeof length, field);
    if (rc != 0)
      w->error = rc;
    return;
  }
  /* The field straddles the flushed part and the buffer. */
  size_t on_disk = (size_t)(w->written - field);
  int rc = pwrite_all(w->fd, (const uint8_t *)&length, on_disk, field);
  if (rc != 0) {
    w->error = rc;
    return;
  }
  copy_bytes(w->buf, (const uint8_t *)&length + on_disk, sizeof length - on_disk);
}

int knit_writer_close(knit_writer *w)
{
  if (w->fd < 0)
    return w->error != 0 ? w->error : -EBADF;
  knit_writer_end_section(w);
  knit_writer_begin_section(w, KNIT_SECTION_END);
  knit_writer_end_section(w);
  flush(w);
  if (close(w->fd) != 0 && w->error == 0)
    w->error = -errno;
  w->fd = -1;
  if (w->error == 0 && rename(w->tmp_path, w->final_path) != 0)
    w->error = -errno;
  if (w->error != 0)
    unlink(w->tmp_path);
  return w->error;
}
