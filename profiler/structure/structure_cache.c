/* The structure analysis's results on disk; see structure_cache.h.
 *
 * The file, all integers little-endian:
 *   header  "KNITLOOP", version u32, machine u16, class u8, data u8,
 *           lines u8, build-id length u8, build-id bytes, the running
 *           program's build-id length u8 and bytes,
 *           payload length u64, payload crc32 u32
 *   payload function count u32, then per function:
 *           start u64, end u64, analyzed u8, loop count u32, span count u32,
 *           its loops (header u64, latch u64, parent i32, depth u32, line u32),
 *           its spans (start u64, end u64, loop i32) */
#define _GNU_SOURCE /* dl_iterate_phdr, mkostemp */
#include "structure/structure_cache.h"

#include <elfutils/libdwelf.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/write_all.h"

/* Bumped whenever the file's layout or the analysis's results change: an
 * older file then reads as invalid and is rewritten. */
#define CACHE_VERSION 1u
static const char cache_magic[8] = {'K', 'N', 'I', 'T', 'L', 'O', 'O', 'P'};

/* A bound on what is read: far above any real module's loops (a 5 MB
 * program's are well under a megabyte), low enough that a hostile file
 * cannot make the report allocate without limit. */
#define CACHE_MAX_BYTES (256u << 20)

#define LOOP_BYTES     (8 + 8 + 4 + 4 + 4)
#define SPAN_BYTES     (8 + 8 + 4)
#define FUNCTION_BYTES (8 + 8 + 1 + 4 + 4)

/* The GNU build-id in the note segment [p, p + size) of a loaded object,
 * or 0. */
static size_t note_build_id(const uint8_t *p, size_t size, uint8_t *id, size_t max)
{
  while (size >= sizeof(ElfW(Nhdr))) {
    ElfW(Nhdr) nh;
    memcpy(&nh, p, sizeof nh);
    size_t name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
    size_t desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
    if (name > size - sizeof nh || desc > size - sizeof nh - name)
      return 0;
    const uint8_t *n = p + sizeof nh;
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(n, "GNU", 4) == 0 &&
        nh.n_descsz > 0 && nh.n_descsz <= max) {
      memcpy(id, n + name, nh.n_descsz);
      return nh.n_descsz;
    }
    p += sizeof nh + name + desc;
    size -= sizeof nh + name + desc;
  }
  return 0;
}

typedef struct own_id {
  uint8_t *id;
  size_t max, len;
} own_id;

/* The first object dl_iterate_phdr gives is the program itself. */
static int program_note(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  own_id *o = data;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum && o->len == 0; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_NOTE)
      o->len = note_build_id((const uint8_t *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz, o->id,
                             o->max);
  }
  return 1;
}

bool knit_structure_key_of(Elf *elf, bool lines, knit_structure_key *key)
{
  memset(key, 0, sizeof *key);
  GElf_Ehdr eh;
  const void *id = NULL;
  ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
  if (n <= 0 || (size_t)n > sizeof key->build_id || !gelf_getehdr(elf, &eh))
    return false;
  memcpy(key->build_id, id, (size_t)n);
  key->build_id_len = (uint32_t)n;
  key->machine = eh.e_machine;
  key->elf_class = eh.e_ident[EI_CLASS];
  key->elf_data = eh.e_ident[EI_DATA];
  key->lines = lines;
  own_id o = {key->tool_id, sizeof key->tool_id, 0};
  dl_iterate_phdr(program_note, &o);
  key->tool_id_len = (uint32_t)o.len;
  return o.len > 0;
}

char *knit_structure_cache_path(const knit_structure_key *key)
{
  const char *dir = getenv("KNIT_CACHE_DIR");
  const char *suffix = "";
  if (dir != NULL) {
    if (dir[0] == '\0')
      return NULL; /* turned off */
  } else if ((dir = getenv("XDG_CACHE_HOME")) != NULL && dir[0] == '/') {
    suffix = "/knit";
  } else if ((dir = getenv("HOME")) != NULL && dir[0] != '\0') {
    suffix = "/.cache/knit";
  } else {
    return NULL;
  }
  char hex[2 * sizeof key->build_id + 1];
  for (uint32_t i = 0; i < key->build_id_len; i++)
    snprintf(hex + 2 * i, 3, "%02x", key->build_id[i]);
  hex[2 * key->build_id_len] = '\0';
  size_t len = strlen(dir) + strlen(suffix) + strlen("/structure/") + strlen(hex) + 1;
  char *path = malloc(len);
  if (path)
    snprintf(path, len, "%s%s/structure/%s", dir, suffix, hex);
  return path;
}

void knit_function_loops_free(knit_function_loops *f)
{
  free(f->loops);
  free(f->spans);
  f->loops = NULL;
  f->spans = NULL;
}

/* ---- reading: a cursor that fails once and stays failed ---- */

typedef struct cursor {
  const uint8_t *p;
  size_t left;
  bool ok;
} cursor;

static uint64_t get(cursor *c, size_t bytes)
{
  if (!c->ok || c->left < bytes) {
    c->ok = false;
    return 0;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; i++)
    v |= (uint64_t)c->p[i] << (8 * i);
  c->p += bytes;
  c->left -= bytes;
  return v;
}

/* The header: whether it is one of key's; leaves c at the payload, whose
 * length and checksum it gives. */
static bool read_header(cursor *c, const knit_structure_key *key, uint64_t *payload_len,
                        uint32_t *crc)
{
  if (c->left < sizeof cache_magic || memcmp(c->p, cache_magic, sizeof cache_magic) != 0)
    return false;
  c->p += sizeof cache_magic;
  c->left -= sizeof cache_magic;
  if (get(c, 4) != CACHE_VERSION || get(c, 2) != key->machine || get(c, 1) != key->elf_class ||
      get(c, 1) != key->elf_data || get(c, 1) != (key->lines ? 1u : 0u) ||
      get(c, 1) != key->build_id_len)
    return false;
  if (!c->ok || c->left < key->build_id_len || memcmp(c->p, key->build_id, key->build_id_len) != 0)
    return false;
  c->p += key->build_id_len;
  c->left -= key->build_id_len;
  if (get(c, 1) != key->tool_id_len || !c->ok || c->left < key->tool_id_len ||
      memcmp(c->p, key->tool_id, key->tool_id_len) != 0)
    return false;
  c->p += key->tool_id_len;
  c->left -= key->tool_id_len;
  *payload_len = get(c, 8);
  *crc = (uint32_t)get(c, 4);
  return c->ok;
}

/* Whether f's loops and spans are what the report can walk: parents
 * before their loops with consistent depths (knit_structure_loops_at
 * indexes its output by depth), spans ascending inside the function. */
static bool function_valid(const knit_function_loops *f)
{
  if (f->start >= f->end)
    return false;
  if (!f->analyzed && (f->loop_count || f->span_count))
    return false;
  for (uint32_t l = 0; l < f->loop_count; l++) {
    const knit_cached_loop *lp = &f->loops[l];
    if (lp->parent < -1 || lp->parent >= (int32_t)l)
      return false;
    uint32_t want = lp->parent < 0 ? 1 : f->loops[lp->parent].depth + 1;
    if (lp->depth != want)
      return false;
  }
  uint64_t at = f->start;
  for (uint32_t k = 0; k < f->span_count; k++) {
    const knit_loop_span *sp = &f->spans[k];
    if (sp->start < at || sp->end <= sp->start || sp->end > f->end || sp->loop < 0 ||
        (uint32_t)sp->loop >= f->loop_count)
      return false;
    at = sp->end;
  }
  return true;
}

static bool read_function(cursor *c, knit_function_loops *f)
{
  memset(f, 0, sizeof *f);
  f->start = get(c, 8);
  f->end = get(c, 8);
  uint64_t analyzed = get(c, 1);
  f->loop_count = (uint32_t)get(c, 4);
  f->span_count = (uint32_t)get(c, 4);
  /* Counts are checked against the bytes left before anything is
   * allocated for them. */
  if (!c->ok || analyzed > 1 || f->loop_count > c->left / LOOP_BYTES ||
      f->span_count > (c->left - (size_t)f->loop_count * LOOP_BYTES) / SPAN_BYTES)
    return false;
  f->analyzed = analyzed == 1;
  f->loops = calloc(f->loop_count ? f->loop_count : 1, sizeof *f->loops);
  f->spans = calloc(f->span_count ? f->span_count : 1, sizeof *f->spans);
  if (!f->loops || !f->spans)
    return false;
  for (uint32_t l = 0; l < f->loop_count; l++) {
    knit_cached_loop *lp = &f->loops[l];
    lp->header = get(c, 8);
    lp->latch = get(c, 8);
    lp->parent = (int32_t)(uint32_t)get(c, 4);
    lp->depth = (uint32_t)get(c, 4);
    lp->line = (uint32_t)get(c, 4);
  }
  for (uint32_t k = 0; k < f->span_count; k++) {
    knit_loop_span *sp = &f->spans[k];
    sp->start = get(c, 8);
    sp->end = get(c, 8);
    sp->loop = (int32_t)(uint32_t)get(c, 4);
  }
  return c->ok && function_valid(f);
}

/* The whole file at path into memory, when it is a regular file of at
 * most CACHE_MAX_BYTES. */
static uint8_t *read_file(const char *path, size_t *size)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  uint8_t *buf = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
      (uint64_t)st.st_size > CACHE_MAX_BYTES)
    goto out;
  buf = malloc((size_t)st.st_size);
  size_t got = 0;
  while (buf && got < (size_t)st.st_size) {
    ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  if (buf && got != (size_t)st.st_size) {
    free(buf);
    buf = NULL;
  }
  *size = got;
out:
  close(fd);
  return buf;
}

bool knit_structure_cache_read(const char *path, const knit_structure_key *key,
                               knit_function_loops **out, size_t *count)
{
  *out = NULL;
  *count = 0;
  size_t size = 0;
  uint8_t *buf = read_file(path, &size);
  if (!buf)
    return false;
  cursor c = {buf, size, true};
  uint64_t payload_len;
  uint32_t crc;
  knit_function_loops *f = NULL;
  size_t n = 0;
  bool ok = read_header(&c, key, &payload_len, &crc) && payload_len == c.left &&
            crc32(0L, c.p, (uInt)c.left) == crc;
  uint64_t want = ok ? get(&c, 4) : 0;
  if (ok && c.ok && want <= c.left / FUNCTION_BYTES) {
    f = calloc(want ? want : 1, sizeof *f);
    for (; f && n < want; n++) {
      if (!read_function(&c, &f[n]) || (n > 0 && f[n].start < f[n - 1].end)) {
        n++; /* its arrays are freed below */
        ok = false;
        break;
      }
    }
    ok = ok && f && c.ok && c.left == 0;
  } else {
    ok = false;
  }
  free(buf);
  if (!ok) {
    for (size_t i = 0; i < n; i++)
      knit_function_loops_free(&f[i]);
    free(f);
    return false;
  }
  *out = f;
  *count = n;
  return true;
}

/* ---- writing ---- */

typedef struct buffer {
  uint8_t *p;
  size_t len, cap;
  bool ok;
} buffer;

static void put(buffer *b, uint64_t v, size_t bytes)
{
  if (!b->ok)
    return;
  if (b->len + bytes > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->len + bytes)
      cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
      b->ok = false;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  for (size_t i = 0; i < bytes; i++)
    b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

/* Creates the folders of path's parent that do not exist. */
static bool make_parents(const char *path)
{
  char *dir = strdup(path);
  if (!dir)
    return false;
  bool ok = true;
  for (char *s = dir + 1; ok && (s = strchr(s, '/')) != NULL; s++) {
    *s = '\0';
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
      ok = false;
    *s = '/';
  }
  free(dir);
  return ok;
}

bool knit_structure_cache_write(const char *path, const knit_structure_key *key,
                                const knit_function_loops *f, size_t count)
{
  if (count > UINT32_MAX)
    return false;
  buffer payload = {.ok = true};
  put(&payload, count, 4);
  for (size_t i = 0; i < count; i++) {
    put(&payload, f[i].start, 8);
    put(&payload, f[i].end, 8);
    put(&payload, f[i].analyzed ? 1 : 0, 1);
    put(&payload, f[i].loop_count, 4);
    put(&payload, f[i].span_count, 4);
    for (uint32_t l = 0; l < f[i].loop_count; l++) {
      put(&payload, f[i].loops[l].header, 8);
      put(&payload, f[i].loops[l].latch, 8);
      put(&payload, (uint32_t)f[i].loops[l].parent, 4);
      put(&payload, f[i].loops[l].depth, 4);
      put(&payload, f[i].loops[l].line, 4);
    }
    for (uint32_t k = 0; k < f[i].span_count; k++) {
      put(&payload, f[i].spans[k].start, 8);
      put(&payload, f[i].spans[k].end, 8);
      put(&payload, (uint32_t)f[i].spans[k].loop, 4);
    }
  }
  buffer head = {.ok = true};
  for (size_t i = 0; i < sizeof cache_magic; i++)
    put(&head, (uint8_t)cache_magic[i], 1);
  put(&head, CACHE_VERSION, 4);
  put(&head, key->machine, 2);
  put(&head, key->elf_class, 1);
  put(&head, key->elf_data, 1);
  put(&head, key->lines ? 1 : 0, 1);
  put(&head, key->build_id_len, 1);
  for (uint32_t i = 0; i < key->build_id_len; i++)
    put(&head, key->build_id[i], 1);
  put(&head, key->tool_id_len, 1);
  for (uint32_t i = 0; i < key->tool_id_len; i++)
    put(&head, key->tool_id[i], 1);
  put(&head, payload.len, 8);
  put(&head, payload.ok ? crc32(0L, payload.p, (uInt)payload.len) : 0, 4);

  bool ok = false;
  char *tmp = NULL;
  int fd = -1;
  if (!payload.ok || !head.ok || payload.len > CACHE_MAX_BYTES || !make_parents(path))
    goto out;
  size_t tlen = strlen(path) + sizeof ".XXXXXX";
  tmp = malloc(tlen);
  if (!tmp)
    goto out;
  snprintf(tmp, tlen, "%s.XXXXXX", path);
  fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0)
    goto out;
  ok = knit_write_all(fd, head.p, head.len) == 0 && knit_write_all(fd, payload.p, payload.len) == 0;
  ok = close(fd) == 0 && ok;
  fd = -1;
  ok = ok && rename(tmp, path) == 0;
  if (!ok)
    unlink(tmp);
out:
  free(tmp);
  free(head.p);
  free(payload.p);
  return ok;
}
