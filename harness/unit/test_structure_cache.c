/* Unit tests of the structure cache (profiler/structure/structure_cache.h):
 * a module's loops written at close and read at the next open give the
 * same answers, for every address of the module, without analyzing any
 * code again; a damaged, truncated or foreign file gives the answers of no
 * file and is rewritten valid; a module without a build-id, an empty
 * KNIT_CACHE_DIR or an unwritable folder write nothing and fail nothing.
 *
 * Subjects: test_loops_subject.c built by gcc at -O2 with a build-id and
 * without one (structure.cmake), and the workloads' loops program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "structure/structure.h"
#include "structure/structure_cache.h"
#include "unwind/bounds.h"

/* ---- the subject: its lines, its functions, and every answer ---- */

typedef struct subject {
  const char *path;
  int fd;
  Elf *elf;
  Dwarf *dwarf;
  knit_func_table funcs;
} subject;

/* Lines from the subject's DWARF, scope always the function's own: enough
 * for loops to be split and named as a report would. */
static unsigned line_of(void *ctx, uint64_t addr, uint64_t *scope)
{
  const subject *s = ctx;
  *scope = 0;
  Dwarf_Die cu;
  if (!s->dwarf || dwarf_addrdie(s->dwarf, addr, &cu) == NULL)
    return 0;
  Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
  int line = 0;
  return l && dwarf_lineno(l, &line) == 0 && line > 0 ? (unsigned)line : 0;
}

static void open_subject(const char *path, subject *s)
{
  memset(s, 0, sizeof *s);
  s->path = path;
  elf_version(EV_CURRENT);
  s->fd = open(path, O_RDONLY);
  assert_true(s->fd >= 0);
  s->elf = elf_begin(s->fd, ELF_C_READ, NULL);
  assert_non_null(s->elf);
  s->dwarf = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
  char err[256];
  if (knit_bounds_read(path, &s->funcs, err, sizeof err) != 0)
    fail_msg("%s", err);
}

static void close_subject(subject *s)
{
  knit_bounds_free(&s->funcs);
  if (s->dwarf)
    dwarf_end(s->dwarf);
  elf_end(s->elf);
  close(s->fd);
}

/* Every answer of a structure: per address of every function (every
 * fourth of large functions', to keep the test quick), the depth and the
 * loops. */
typedef struct answers {
  knit_loop_ref *refs; /* MAX_DEPTH per address */
  int *depth;
  size_t count;
  size_t loops; /* knit_structure_loop_count after the questions */
  size_t analyzed;
} answers;

#define MAX_DEPTH 8

static uint64_t step_of(uint64_t len)
{
  return len > 4096 ? 4 : 1;
}

static answers ask_all(const subject *s, knit_line_of_fn *lines)
{
  char err[256];
  knit_structure *st = knit_structure_open(s->path, lines, (void *)s, err, sizeof err);
  if (!st)
    fail_msg("%s", err);
  size_t n = 0;
  for (size_t i = 0; i < s->funcs.count; i++) {
    uint64_t len = s->funcs.end[i] - s->funcs.start[i];
    n += (len + step_of(len) - 1) / step_of(len);
  }
  answers a = {calloc(n * MAX_DEPTH, sizeof(knit_loop_ref)), calloc(n, sizeof(int)), n, 0, 0};
  assert_non_null(a.refs);
  assert_non_null(a.depth);
  size_t k = 0;
  for (size_t i = 0; i < s->funcs.count; i++) {
    uint64_t len = s->funcs.end[i] - s->funcs.start[i];
    for (uint64_t at = s->funcs.start[i]; at < s->funcs.end[i]; at += step_of(len), k++)
      a.depth[k] = knit_structure_loops_at(st, at, &a.refs[k * MAX_DEPTH], MAX_DEPTH);
  }
  a.loops = knit_structure_loop_count(st);
  a.analyzed = knit_structure_analyzed_count(st);
  knit_structure_close(st);
  return a;
}

static void assert_same(const answers *a, const answers *b)
{
  assert_int_equal(a->count, b->count);
  assert_int_equal(a->loops, b->loops);
  for (size_t k = 0; k < a->count; k++) {
    assert_int_equal(a->depth[k], b->depth[k]);
    for (int d = 0; d < a->depth[k] && d < MAX_DEPTH; d++) {
      const knit_loop_ref *x = &a->refs[k * MAX_DEPTH + d], *y = &b->refs[k * MAX_DEPTH + d];
      assert_int_equal(x->function, y->function);
      assert_int_equal(x->index, y->index);
      assert_int_equal(x->header, y->header);
      assert_int_equal(x->latch, y->latch);
      assert_int_equal(x->line, y->line);
    }
  }
}

static void free_answers(answers *a)
{
  free(a->refs);
  free(a->depth);
}

/* ---- the cache folder: a fresh one per test, inside the build tree ---- */

static char cache_dir[4096];

static int fresh_cache(void **state)
{
  (void)state;
  const char *base = getenv("KNIT_CACHE_DIR");
  if (!base || !base[0])
    base = "/tmp";
  mkdir(base, 0700);
  snprintf(cache_dir, sizeof cache_dir, "%s/unit-structure-XXXXXX", base);
  if (!mkdtemp(cache_dir))
    return -1;
  setenv("KNIT_CACHE_DIR", cache_dir, 1);
  return 0;
}

static void remove_tree(const char *path)
{
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char sub[4096];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      remove_tree(sub);
    }
    closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

static int drop_cache(void **state)
{
  (void)state;
  remove_tree(cache_dir);
  return 0;
}

/* The subject's cache file (malloc'd). */
static char *cache_file(const subject *s, bool lines)
{
  knit_structure_key key;
  assert_true(knit_structure_key_of(s->elf, lines, &key));
  char *path = knit_structure_cache_path(&key);
  assert_non_null(path);
  return path;
}

static uint8_t *slurp(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *size = (size_t)n;
  return buf;
}

static void spill(const char *path, const uint8_t *buf, size_t size)
{
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(buf, 1, size, f), size);
  fclose(f);
}

static bool file_valid(const subject *s, const char *path, bool lines, size_t *functions)
{
  knit_structure_key key;
  assert_true(knit_structure_key_of(s->elf, lines, &key));
  knit_function_loops *f;
  size_t n;
  bool ok = knit_structure_cache_read(path, &key, &f, &n);
  for (size_t i = 0; i < n; i++)
    knit_function_loops_free(&f[i]);
  free(f);
  if (functions)
    *functions = n;
  return ok;
}

/* ---- tests ---- */

static void warm_equals_cold(const char *path)
{
  subject s;
  open_subject(path, &s);
  answers cold = ask_all(&s, line_of);
  assert_true(cold.analyzed > 0);
  assert_true(cold.loops > 0);
  char *file = cache_file(&s, true);
  size_t functions = 0;
  assert_true(file_valid(&s, file, true, &functions));
  assert_int_equal(functions, cold.analyzed);

  answers warm = ask_all(&s, line_of);
  assert_int_equal(warm.analyzed, 0);
  assert_same(&cold, &warm);
  print_message("  %s: %zu functions, %zu loops, none analyzed warm\n", path, functions,
                cold.loops);

  /* Without lines the analysis differs: the file of lines is not used,
   * and is replaced by one without. */
  answers bare = ask_all(&s, NULL);
  assert_true(bare.analyzed > 0);
  assert_true(file_valid(&s, file, false, NULL));
  answers bare_warm = ask_all(&s, NULL);
  assert_int_equal(bare_warm.analyzed, 0);
  assert_same(&bare, &bare_warm);

  free_answers(&cold);
  free_answers(&warm);
  free_answers(&bare);
  free_answers(&bare_warm);
  free(file);
  close_subject(&s);
}

static void test_warm_equals_cold(void **state)
{
  (void)state;
  warm_equals_cold(KNIT_CACHE_SUBJECT);
}

static void test_warm_equals_cold_workload(void **state)
{
  (void)state;
  if (access(KNIT_CACHE_WORKLOAD, R_OK) != 0)
    skip();
  warm_equals_cold(KNIT_CACHE_WORKLOAD);
}

/* Only part of the functions asked, then others: the second report adds
 * to the file what it analyzed, keeping what the first wrote. */
static void test_merge(void **state)
{
  (void)state;
  subject s;
  open_subject(KNIT_CACHE_SUBJECT, &s);
  char err[256];
  knit_structure *st = knit_structure_open(s.path, line_of, &s, err, sizeof err);
  assert_non_null(st);
  knit_loop_ref r[MAX_DEPTH];
  knit_structure_loops_at(st, s.funcs.start[0], r, MAX_DEPTH);
  assert_int_equal(knit_structure_analyzed_count(st), 1);
  knit_structure_close(st);

  st = knit_structure_open(s.path, line_of, &s, err, sizeof err);
  assert_non_null(st);
  for (size_t i = 0; i < s.funcs.count; i++)
    knit_structure_loops_at(st, s.funcs.start[i], r, MAX_DEPTH);
  assert_int_equal(knit_structure_analyzed_count(st), s.funcs.count - 1);
  knit_structure_close(st);

  char *file = cache_file(&s, true);
  size_t functions = 0;
  assert_true(file_valid(&s, file, true, &functions));
  assert_int_equal(functions, s.funcs.count);
  free(file);
  close_subject(&s);
}

/* A damaged file: every truncation and many single-byte changes (each
 * byte of the file is the header's or under the checksum) read as no file,
 * give the answers of no file, and leave a valid file behind. */
static void test_damaged_files(void **state)
{
  (void)state;
  subject s;
  open_subject(KNIT_CACHE_SUBJECT, &s);
  answers cold = ask_all(&s, line_of);
  char *file = cache_file(&s, true);
  size_t size;
  uint8_t *good = slurp(file, &size);
  uint8_t *bad = malloc(size + 64);
  assert_non_null(bad);

  size_t tried = 0;
  for (size_t cut = 0; cut < size; cut += cut < 64 ? 1 : 37) {
    spill(file, good, cut);
    answers a = ask_all(&s, line_of);
    assert_int_equal(a.analyzed, cold.analyzed);
    assert_same(&cold, &a);
    free_answers(&a);
    assert_true(file_valid(&s, file, true, NULL));
    tried++;
  }
  for (size_t at = 0; at < size; at += at < 64 ? 1 : 13) {
    memcpy(bad, good, size);
    bad[at] ^= (uint8_t)(1u << (at % 8));
    spill(file, bad, size);
    answers a = ask_all(&s, line_of);
    assert_int_equal(a.analyzed, cold.analyzed);
    assert_same(&cold, &a);
    free_answers(&a);
    assert_true(file_valid(&s, file, true, NULL));
    tried++;
  }
  /* Bytes after the end. */
  memcpy(bad, good, size);
  memset(bad + size, 0x5a, 64);
  spill(file, bad, size + 64);
  answers a = ask_all(&s, line_of);
  assert_int_equal(a.analyzed, cold.analyzed);
  free_answers(&a);
  print_message("  %zu damaged files: answers as without a file\n", tried + 1);

  free(bad);
  free(good);
  free(file);
  free_answers(&cold);
  close_subject(&s);
}

/* A valid file of another key: written by another build of knit (its
 * analysis may differ), or for another ISA. Not used, and replaced. */
static void test_other_key(void **state)
{
  (void)state;
  subject s;
  open_subject(KNIT_CACHE_SUBJECT, &s);
  answers cold = ask_all(&s, line_of);
  char *file = cache_file(&s, true);
  knit_structure_key key;
  assert_true(knit_structure_key_of(s.elf, true, &key));
  knit_function_loops *f;
  size_t n;
  assert_true(knit_structure_cache_read(file, &key, &f, &n));
  for (int which = 0; which < 2; which++) {
    knit_structure_key other = key;
    if (which == 0)
      other.tool_id[0] ^= 1;
    else
      other.machine ^= 1;
    assert_true(knit_structure_cache_write(file, &other, f, n));
    assert_false(file_valid(&s, file, true, NULL));
    answers a = ask_all(&s, line_of);
    assert_int_equal(a.analyzed, cold.analyzed);
    assert_same(&cold, &a);
    assert_true(file_valid(&s, file, true, NULL));
    free_answers(&a);
  }
  for (size_t i = 0; i < n; i++)
    knit_function_loops_free(&f[i]);
  free(f);
  free(file);
  free_answers(&cold);
  close_subject(&s);
}

/* Files whose checksum is right but whose content is garbage (what the
 * checksum cannot catch: a hostile file): never a crash, never an answer
 * outside the caller's array. */
static void test_hostile_payloads(void **state)
{
  (void)state;
  subject s;
  open_subject(KNIT_CACHE_SUBJECT, &s);
  answers cold = ask_all(&s, line_of);
  char *file = cache_file(&s, true);
  knit_structure_key key;
  assert_true(knit_structure_key_of(s.elf, true, &key));
  /* The header: magic, version, machine, class, data, lines, id length,
   * the id, this program's id length and id, the payload's length and
   * checksum. */
  size_t head = 8 + 4 + 2 + 1 + 1 + 1 + 1 + key.build_id_len + 1 + key.tool_id_len + 8 + 4;
  size_t size;
  uint8_t *good = slurp(file, &size);
  assert_true(size > head);
  uint8_t *bad = malloc(size + 256);
  assert_non_null(bad);
  srand(12345);
  size_t accepted = 0, rounds = 600;
  for (size_t round = 0; round < rounds; round++) {
    size_t len = size;
    memcpy(bad, good, size);
    if (round % 3 == 2) {
      /* A payload of random bytes and length. */
      len = head + (size_t)rand() % (size - head + 200);
      for (size_t i = head; i < len; i++)
        bad[i] = (uint8_t)rand();
    } else {
      /* A few bytes of the real payload changed: counts, indexes, bounds. */
      for (size_t k = 0; k < 1 + round % 4; k++)
        bad[head + (size_t)rand() % (size - head)] = (uint8_t)rand();
    }
    uint64_t plen = len - head;
    uint32_t crc = (uint32_t)crc32(0L, bad + head, (uInt)plen);
    for (int i = 0; i < 8; i++)
      bad[head - 12 + i] = (uint8_t)(plen >> (8 * i));
    for (int i = 0; i < 4; i++)
      bad[head - 4 + i] = (uint8_t)(crc >> (8 * i));
    spill(file, bad, len);
    accepted += file_valid(&s, file, true, NULL);
    spill(file, bad, len);
    /* Answers from whatever was accepted: through loops_at's walk of
     * parents, depths and spans, with a small output array too. */
    char err[256];
    knit_structure *st = knit_structure_open(s.path, line_of, &s, err, sizeof err);
    assert_non_null(st);
    for (size_t i = 0; i < s.funcs.count; i++) {
      for (uint64_t at = s.funcs.start[i]; at < s.funcs.end[i]; at++) {
        knit_loop_ref r[2];
        int d = knit_structure_loops_at(st, at, r, 2);
        assert_true(d >= 0);
      }
    }
    knit_structure_close(st);
  }
  print_message("  %zu of %zu hostile payloads passed the checks\n", accepted, rounds);
  free(bad);
  free(good);
  free(file);
  free_answers(&cold);
  close_subject(&s);
}

/* Counts the files under a folder, its subfolders' included. */
static size_t files_under(const char *path)
{
  DIR *d = opendir(path);
  if (!d)
    return 0;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
    struct stat st;
    if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
      n += files_under(sub);
    else
      n++;
  }
  closedir(d);
  return n;
}

static void test_no_build_id(void **state)
{
  (void)state;
  subject s;
  open_subject(KNIT_CACHE_SUBJECT_NO_ID, &s);
  knit_structure_key key;
  assert_false(knit_structure_key_of(s.elf, true, &key));
  answers a = ask_all(&s, line_of);
  assert_true(a.loops > 0);
  answers b = ask_all(&s, line_of);
  assert_true(b.analyzed > 0);
  assert_same(&a, &b);
  assert_int_equal(files_under(cache_dir), 0);
  free_answers(&a);
  free_answers(&b);
  close_subject(&s);
}

/* KNIT_CACHE_DIR empty: no cache. A folder that cannot be made (under a
 * regular file): no cache, no failure. */
static void test_cache_off_or_unwritable(void **state)
{
  (void)state;
  subject s;
  open_subject(KNIT_CACHE_SUBJECT, &s);
  setenv("KNIT_CACHE_DIR", "", 1);
  knit_structure_key key;
  assert_true(knit_structure_key_of(s.elf, true, &key));
  assert_null(knit_structure_cache_path(&key));
  answers a = ask_all(&s, line_of);
  answers b = ask_all(&s, line_of);
  assert_true(b.analyzed > 0);
  assert_same(&a, &b);
  assert_int_equal(files_under(cache_dir), 0);
  free_answers(&b);

  char plain[4200];
  snprintf(plain, sizeof plain, "%s/plain", cache_dir);
  spill(plain, (const uint8_t *)"x", 1);
  char under[4300];
  snprintf(under, sizeof under, "%s/sub", plain);
  setenv("KNIT_CACHE_DIR", under, 1);
  answers c = ask_all(&s, line_of);
  answers d = ask_all(&s, line_of);
  assert_true(d.analyzed > 0);
  assert_same(&a, &c);
  assert_same(&a, &d);
  free_answers(&c);
  free_answers(&d);
  assert_int_equal(files_under(cache_dir), 1); /* the plain file alone */
  setenv("KNIT_CACHE_DIR", cache_dir, 1);
  free_answers(&a);
  close_subject(&s);
}

/* The folder: KNIT_CACHE_DIR, then XDG_CACHE_HOME/knit, then
 * HOME/.cache/knit; the file named by the build-id in hex. */
static void test_cache_path(void **state)
{
  (void)state;
  knit_structure_key key = {.build_id = {0x01, 0xab, 0xff}, .build_id_len = 3};
  char *p = knit_structure_cache_path(&key);
  char want[4200];
  snprintf(want, sizeof want, "%s/structure/01abff", cache_dir);
  assert_string_equal(p, want);
  free(p);
  unsetenv("KNIT_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  p = knit_structure_cache_path(&key);
  assert_string_equal(p, "/x/cache/knit/structure/01abff");
  free(p);
  unsetenv("XDG_CACHE_HOME");
  char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
  setenv("HOME", "/h", 1);
  p = knit_structure_cache_path(&key);
  assert_string_equal(p, "/h/.cache/knit/structure/01abff");
  free(p);
  if (home)
    setenv("HOME", home, 1);
  free(home);
  setenv("KNIT_CACHE_DIR", cache_dir, 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_warm_equals_cold, fresh_cache, drop_cache),
      cmocka_unit_test_setup_teardown(test_warm_equals_cold_workload, fresh_cache, drop_cache),
      cmocka_unit_test_setup_teardown(test_merge, fresh_cache, drop_cache),
      cmocka_unit_test_setup_teardown(test_damaged_files, fresh_cache, drop_cache),
      cmocka_unit_test_setup_teardown(test_other_key, fresh_cache, drop_cache),
      cmocka_unit_test_setup_teardown(test_hostile_payloads, fresh_cache, drop_cache),
      cmocka_unit_test_setup_teardown(test_no_build_id, fresh_cache, drop_cache),
      cmocka_unit_test_setup_teardown(test_cache_off_or_unwritable, fresh_cache, drop_cache),
      cmocka_unit_test_setup_teardown(test_cache_path, fresh_cache, drop_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
