/*
 * The mock device's maps and refusals, called as clang 14 calls
 * libomptarget (the __tgt_* entry points with map-type arrays), with a
 * device image the project's compiler built (target_image.c), so that the
 * test runs on every ISA the tree builds for, under QEMU in cross trees.
 *
 * Checked, each by what the host sees afterwards: to/from/tofrom copies,
 * reference counts across enter data, target and exit data, update, always,
 * delete, a struct with a pointer member (MEMBER_OF, PTR_AND_OBJ: the kernel
 * reads through the device's pointer, the host's pointer stays its own),
 * literals, firstprivates, a zero-length section not present (a null
 * pointer), a declare-target global, the device memory routines, a kernel
 * in a child of fork; and the refusals: map(present) of storage not
 * present, 17 arguments, an unknown region, a device that does not exist,
 * an image of another ISA and one that is no ELF object (the host then
 * runs the region: the entry point fails).
 *
 * Usage: target_maps IMAGE.so           (every case)
 *        target_maps IMAGE.so --limited (MOCKRT_TARGET_MEMORY=100: an
 *                                        allocation beyond it is refused)
 *        target_maps IMAGE.so --fork    (a kernel in a child of fork)
 * Exit status 0 means pass.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* clang 14's offloading ABI, as the mock device reads it. */
typedef struct entry {
  void *addr;
  char *name;
  size_t size;
  int32_t flags, reserved;
} entry_t;
typedef struct image {
  void *start, *end;
  entry_t *entries_begin, *entries_end;
} image_t;
typedef struct bin_desc {
  int32_t n;
  image_t *images;
  entry_t *entries_begin, *entries_end;
} bin_desc_t;

void __tgt_register_lib(bin_desc_t *desc);
void __tgt_unregister_lib(bin_desc_t *desc);
int __tgt_target_mapper(void *loc, int64_t device, void *region, int32_t n, void **bases,
                        void **begins, int64_t *sizes, int64_t *types, void **names,
                        void **mappers);
void __tgt_target_data_begin_mapper(void *loc, int64_t device, int32_t n, void **bases,
                                    void **begins, int64_t *sizes, int64_t *types, void **names,
                                    void **mappers);
void __tgt_target_data_end_mapper(void *loc, int64_t device, int32_t n, void **bases, void **begins,
                                  int64_t *sizes, int64_t *types, void **names, void **mappers);
void __tgt_target_data_update_mapper(void *loc, int64_t device, int32_t n, void **bases,
                                     void **begins, int64_t *sizes, int64_t *types, void **names,
                                     void **mappers);
int omp_get_num_devices(void);
int omp_target_is_present(const void *ptr, int device);
void *omp_target_alloc(size_t size, int device);
void omp_target_free(void *ptr, int device);
int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
                      size_t src_offset, int dst_device, int src_device);

enum {
  TO = 0x01,
  FROM = 0x02,
  ALWAYS = 0x04,
  DELETE = 0x08,
  PTR_AND_OBJ = 0x10,
  PARAM = 0x20,
  PRIVATE = 0x80,
  LITERAL = 0x100,
  PRESENT = 0x1000,
};
#define MEMBER_OF(i) ((int64_t)(i) << 48)

/* The region ids (one byte each, as clang's) and the host entries. */
static char r_scale, r_ptr, r_private, r_isnull, r_global, r_many, r_foreign, r_unknown;
static int g_host = -1;
static entry_t entries[] = {
    {&r_scale, "k_scale", 0, 0, 0},          {&r_ptr, "k_ptr", 0, 0, 0},
    {&r_private, "k_private", 0, 0, 0},      {&r_isnull, "k_isnull", 0, 0, 0},
    {&r_global, "k_global", 0, 0, 0},        {&r_many, "k_many", 0, 0, 0},
    {&g_host, "g_dev", sizeof g_host, 0, 0},
};
static entry_t foreign_entries[] = {{&r_foreign, "k_scale", 0, 0, 0}};

#define N_OF(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))

static int target(void *region, int32_t n, void **bases, void **begins, int64_t *sizes,
                  int64_t *types)
{
  return __tgt_target_mapper(NULL, -1, region, n, bases, begins, sizes, types, NULL, NULL);
}

static void *read_file(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *bytes = malloc((size_t)n);
  if (bytes && fread(bytes, 1, (size_t)n, f) != (size_t)n) {
    free(bytes);
    bytes = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return bytes;
}

/* Each call of a kernel doubles x on the device; the host sees what comes back. */
static void check_copies_and_counts(void)
{
  double x[8];
  uintptr_t n = 8;
  for (int i = 0; i < 8; i++)
    x[i] = i + 1;
  void *bases[] = {x, (void *)n};
  void *begins[] = {x, (void *)n};
  int64_t sizes[] = {sizeof x, sizeof n};
  int64_t tofrom[] = {TO | FROM | PARAM, LITERAL | PARAM};
  CHECK(target(&r_scale, 2, bases, begins, sizes, tofrom) == 0);
  CHECK(x[0] == 2 && x[7] == 16);
  CHECK(!omp_target_is_present(x, 0));

  /* enter data: present with count 1; the target region adds one and
   * takes it back, so nothing is copied in or out. */
  int64_t to[] = {TO};
  __tgt_target_data_begin_mapper(NULL, 0, 1, bases, begins, sizes, to, NULL, NULL);
  CHECK(omp_target_is_present(x, 0));
  x[0] = 100;
  CHECK(target(&r_scale, 2, bases, begins, sizes, tofrom) == 0);
  CHECK(x[0] == 100 && x[1] == 4);
  /* update from: the device's doubled copy of the values entered. */
  int64_t from[] = {FROM};
  __tgt_target_data_update_mapper(NULL, 0, 1, bases, begins, sizes, from, NULL, NULL);
  CHECK(x[0] == 4 && x[1] == 8);
  /* always: copied in though present. */
  x[0] = 5;
  int64_t always_to[] = {ALWAYS | TO | PARAM, LITERAL | PARAM};
  CHECK(target(&r_scale, 2, bases, begins, sizes, always_to) == 0);
  x[0] = 0;
  __tgt_target_data_update_mapper(NULL, 0, 1, bases, begins, sizes, from, NULL, NULL);
  CHECK(x[0] == 10 && x[1] == 16);
  /* exit data from: the count reaches zero, copied back and released. */
  x[0] = 0;
  __tgt_target_data_end_mapper(NULL, 0, 1, bases, begins, sizes, from, NULL, NULL);
  CHECK(x[0] == 10);
  CHECK(!omp_target_is_present(x, 0));
  /* Again: not present, nothing happens. */
  __tgt_target_data_end_mapper(NULL, 0, 1, bases, begins, sizes, from, NULL, NULL);
  CHECK(x[0] == 10);

  /* Two enters, one delete: gone at once, and without from nothing is
   * copied back. */
  __tgt_target_data_begin_mapper(NULL, 0, 1, bases, begins, sizes, to, NULL, NULL);
  __tgt_target_data_begin_mapper(NULL, 0, 1, bases, begins, sizes, to, NULL, NULL);
  int64_t del[] = {DELETE};
  x[0] = -1;
  __tgt_target_data_end_mapper(NULL, 0, 1, bases, begins, sizes, del, NULL, NULL);
  CHECK(!omp_target_is_present(x, 0));
  CHECK(x[0] == -1);
  /* A release without from at count 2 keeps it. */
  __tgt_target_data_begin_mapper(NULL, 0, 1, bases, begins, sizes, to, NULL, NULL);
  __tgt_target_data_begin_mapper(NULL, 0, 1, bases, begins, sizes, to, NULL, NULL);
  int64_t release[] = {0};
  __tgt_target_data_end_mapper(NULL, 0, 1, bases, begins, sizes, release, NULL, NULL);
  CHECK(omp_target_is_present(x, 0));
  __tgt_target_data_end_mapper(NULL, 0, 1, bases, begins, sizes, release, NULL, NULL);
  CHECK(!omp_target_is_present(x, 0));
}

/* map(tofrom: s, s.p[0:4]): the struct, then its pointer's pointee. */
static void check_pointer_member(void)
{
  struct pair {
    long n;
    double *p;
  } s;
  double arr[4] = {1, 2, 3, 4};
  s.n = 4;
  s.p = arr;
  void *bases[] = {&s, &s.p};
  void *begins[] = {&s, arr};
  int64_t sizes[] = {sizeof s, sizeof arr};
  int64_t types[] = {TO | FROM | PARAM, TO | FROM | PTR_AND_OBJ | MEMBER_OF(1)};
  CHECK(target(&r_ptr, 2, bases, begins, sizes, types) == 0);
  CHECK(s.p == arr && s.n == 4);
  CHECK(arr[0] == 2 && arr[3] == 5);
  CHECK(!omp_target_is_present(&s, 0) && !omp_target_is_present(arr, 0));
}

/* A pointer not mapped itself, with its pointee (PTR_AND_OBJ): the device
 * maps the pointer too, counted with the pointee's maps. */
static double *q;
static void check_pointer_counted(void)
{
  double arr[4] = {1, 2, 3, 4};
  q = arr;
  void *bases[] = {&q};
  void *begins[] = {arr};
  int64_t sizes[] = {sizeof arr};
  int64_t to[] = {TO | PTR_AND_OBJ};
  int64_t from[] = {FROM | PTR_AND_OBJ};
  __tgt_target_data_begin_mapper(NULL, 0, 1, bases, begins, sizes, to, NULL, NULL);
  __tgt_target_data_begin_mapper(NULL, 0, 1, bases, begins, sizes, to, NULL, NULL);
  CHECK(omp_target_is_present(arr, 0) && omp_target_is_present(&q, 0));
  __tgt_target_data_end_mapper(NULL, 0, 1, bases, begins, sizes, from, NULL, NULL);
  CHECK(omp_target_is_present(arr, 0) && omp_target_is_present(&q, 0));
  __tgt_target_data_end_mapper(NULL, 0, 1, bases, begins, sizes, from, NULL, NULL);
  CHECK(!omp_target_is_present(arr, 0) && !omp_target_is_present(&q, 0));
  CHECK(q == arr && arr[3] == 4);
}

static void check_literal_private_null(void)
{
  int v = 5;
  void *pb[] = {&v};
  int64_t psize[] = {sizeof v};
  int64_t ptype[] = {PRIVATE | TO | PARAM};
  CHECK(target(&r_private, 1, pb, pb, psize, ptype) == 0);
  CHECK(v == 5);

  double never[4];
  int flag = -1;
  void *nb[] = {never, &flag};
  int64_t nsize[] = {0, sizeof flag};
  int64_t ntype[] = {TO | PARAM, FROM | PARAM};
  CHECK(target(&r_isnull, 2, nb, nb, nsize, ntype) == 0);
  CHECK(flag == 1);
}

static void check_global(void)
{
  void *b[] = {&g_host};
  int64_t size[] = {sizeof g_host};
  int64_t from[] = {FROM};
  /* The image's own copy, initialized there, mapped for good. */
  __tgt_target_data_update_mapper(NULL, 0, 1, b, b, size, from, NULL, NULL);
  CHECK(g_host == 42);
  CHECK(target(&r_global, 0, NULL, NULL, NULL, NULL) == 0);
  __tgt_target_data_update_mapper(NULL, 0, 1, b, b, size, from, NULL, NULL);
  CHECK(g_host == 43);
  CHECK(omp_target_is_present(&g_host, 0));
}

static void check_memory_routines(void)
{
  CHECK(omp_get_num_devices() == 1);
  int host = omp_get_num_devices();
  char *p = omp_target_alloc(64, 0);
  CHECK(p != NULL);
  char src[64], back[64];
  memset(src, 7, sizeof src);
  memset(back, 0, sizeof back);
  CHECK(omp_target_memcpy(p, src, sizeof src, 0, 0, 0, host) == 0);
  CHECK(omp_target_memcpy(back, p, 32, 0, 32, host, 0) == 0);
  CHECK(back[0] == 7 && back[31] == 7 && back[32] == 0);
  CHECK(omp_target_memcpy(back, p, 1, 0, 0, host, 9) != 0);
  omp_target_free(p, 0);
  CHECK(omp_target_alloc(8, 5) == NULL);
}

static void check_refusals(void)
{
  double y[4] = {0};
  uintptr_t n = 4;
  void *b[] = {y, (void *)n};
  int64_t sizes[] = {sizeof y, sizeof n};
  int64_t present[] = {PRESENT | TO | PARAM, LITERAL | PARAM};
  CHECK(target(&r_scale, 2, b, b, sizes, present) != 0);
  CHECK(!omp_target_is_present(y, 0));
  /* A begin that fails halfway takes back what it mapped, copying nothing. */
  double z[4] = {1, 2, 3, 4};
  void *zb[] = {z, y};
  int64_t zsizes[] = {sizeof z, sizeof y};
  int64_t ztypes[] = {TO | FROM | PARAM, PRESENT | TO | PARAM};
  CHECK(target(&r_scale, 2, zb, zb, zsizes, ztypes) != 0);
  CHECK(!omp_target_is_present(z, 0) && z[0] == 1);
  __tgt_target_data_begin_mapper(NULL, 0, 2, zb, zb, zsizes, ztypes, NULL, NULL);
  CHECK(!omp_target_is_present(z, 0));

  void *many[17];
  int64_t msizes[17], mtypes[17];
  for (int i = 0; i < 17; i++) {
    many[i] = (void *)(uintptr_t)i;
    msizes[i] = sizeof(void *);
    mtypes[i] = LITERAL | PARAM;
  }
  CHECK(target(&r_many, 17, many, many, msizes, mtypes) != 0);
  CHECK(target(&r_unknown, 0, NULL, NULL, NULL, NULL) != 0);
  CHECK(__tgt_target_mapper(NULL, 5, &r_scale, 2, b, b, sizes, present, NULL, NULL) != 0);
  /* The image of another ISA: registered, refused when its region runs. */
  CHECK(target(&r_foreign, 0, NULL, NULL, NULL, NULL) != 0);
}

/* A child of fork runs kernels too, on a device it starts again, with the
 * maps it inherited. */
static void check_fork(void)
{
  double x[2] = {1, 2};
  uintptr_t n = 2;
  void *b[] = {x, (void *)n};
  int64_t sizes[] = {sizeof x, sizeof n};
  int64_t to[] = {TO, 0};
  int64_t tofrom[] = {TO | FROM | PARAM, LITERAL | PARAM};
  __tgt_target_data_begin_mapper(NULL, 0, 1, b, b, sizes, to, NULL, NULL);
  pid_t pid = fork();
  if (pid == 0) {
    /* Present in the child too: the kernel doubles the inherited copy. */
    int rc = target(&r_scale, 2, b, b, sizes, tofrom);
    __tgt_target_data_end_mapper(NULL, 0, 1, b, b, sizes, tofrom, NULL, NULL);
    _exit(rc == 0 && x[0] == 2 && x[1] == 4 ? 0 : 1);
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(target(&r_scale, 2, b, b, sizes, tofrom) == 0);
  __tgt_target_data_end_mapper(NULL, 0, 1, b, b, sizes, tofrom, NULL, NULL);
  CHECK(x[0] == 2 && x[1] == 4);
}

/* MOCKRT_TARGET_MEMORY=100: 64 bytes fit, 128 do not. */
static void check_limited(void)
{
  double small[8] = {1}, big[16] = {1};
  uintptr_t n = 8;
  void *b[] = {small, (void *)n};
  int64_t sizes[] = {sizeof small, sizeof n};
  int64_t types[] = {TO | FROM | PARAM, LITERAL | PARAM};
  CHECK(target(&r_scale, 2, b, b, sizes, types) == 0);
  CHECK(small[0] == 2);
  void *bb[] = {big, (void *)n};
  int64_t bsizes[] = {sizeof big, sizeof n};
  CHECK(target(&r_scale, 2, bb, bb, bsizes, types) != 0);
  CHECK(big[0] == 1);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: target_maps IMAGE.so [--limited]\n");
    return 2;
  }
  size_t size = 0;
  char *bytes = read_file(argv[1], &size);
  if (!bytes) {
    perror(argv[1]);
    return 2;
  }
  image_t image = {bytes, bytes + size, entries, entries + N_OF(entries)};
  bin_desc_t desc = {1, &image, entries, entries + N_OF(entries)};
  __tgt_register_lib(&desc);
  /* The same image claiming another machine (e_machine is at offset 18 of
   * every ELF header), and bytes that are no ELF object at all. */
  char *foreign = malloc(size);
  memcpy(foreign, bytes, size);
  foreign[18] ^= 0x40;
  static char not_elf[] = "not an ELF object";
  image_t foreign_images[] = {{foreign, foreign + size, NULL, NULL},
                              {not_elf, not_elf + sizeof not_elf, NULL, NULL}};
  bin_desc_t foreign_desc = {2, foreign_images, foreign_entries,
                             foreign_entries + N_OF(foreign_entries)};
  __tgt_register_lib(&foreign_desc);

  if (argc > 2 && strcmp(argv[2], "--limited") == 0) {
    check_limited();
  } else if (argc > 2 && strcmp(argv[2], "--fork") == 0) {
    check_fork();
  } else {
    check_copies_and_counts();
    check_pointer_member();
    check_pointer_counted();
    check_literal_private_null();
    check_global();
    check_memory_routines();
    check_refusals();
    /* Unregistered, the program's regions run on the host; registered
     * again, on the device, from a fresh copy of the image. */
    __tgt_unregister_lib(&desc);
    CHECK(target(&r_global, 0, NULL, NULL, NULL, NULL) != 0);
    __tgt_register_lib(&desc);
    CHECK(target(&r_global, 0, NULL, NULL, NULL, NULL) == 0);
  }
  /* The devices loaded their copies: the bytes are the test's to free. */
  free(foreign);
  free(bytes);
  printf("target_maps: %s\n", failures ? "FAIL" : "ok");
  return failures ? 1 : 0;
}
