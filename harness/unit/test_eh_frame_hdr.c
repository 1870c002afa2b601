/* A function's bounds from a loaded object's .eh_frame_hdr in memory
 * (unwind/eh_frame_hdr.h, unwind/object_lookup.h): on this test's own
 * executable and on libc, against the bounds knit reads from their files;
 * and on hand-made headers, whose every unsupported or broken part gives
 * no bounds rather than wrong ones; and the notes of the objects frames
 * were found in, by which the thread's file names such frames. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "profiler/unwind/bounds.h"
#include "profiler/unwind/eh_frame_hdr.h"
#include "profiler/unwind/isa.h"
#include "profiler/unwind/object_lookup.h"

__attribute__((noinline)) static int hdr_subject_a(int x)
{
  return x * 5 + 3;
}

__attribute__((noinline)) static int hdr_subject_b(int x)
{
  return hdr_subject_a(x) ^ 0x33;
}

int main(void);

/* An object as _dl_find_object describes it, with its file and bias. */
typedef struct object {
  knit_dwarf_reader mem; /* its whole mapping */
  uint64_t hdr;          /* its .eh_frame_hdr */
  uint64_t bias;
  char path[512];
} object;

static void find_object(uint64_t addr, object *o)
{
  struct dl_find_object found;
  assert_int_equal(_dl_find_object((void *)(uintptr_t)addr, &found), 0);
  memset(o, 0, sizeof *o);
  o->mem.base = (const uint8_t *)found.dlfo_map_start;
  o->mem.size = (size_t)((const uint8_t *)found.dlfo_map_end - o->mem.base);
  o->mem.vaddr = (uint64_t)(uintptr_t)found.dlfo_map_start;
  o->mem.big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
  o->mem.addr_size = (int)sizeof(void *);
  o->hdr = (uint64_t)(uintptr_t)found.dlfo_eh_frame;
  assert_true(o->hdr != 0);
  o->bias = (uint64_t)found.dlfo_link_map->l_addr;
  const char *name = found.dlfo_link_map->l_name;
  if (name && name[0]) {
    snprintf(o->path, sizeof o->path, "%s", name);
  } else {
    ssize_t n = readlink("/proc/self/exe", o->path, sizeof o->path - 1);
    o->path[n > 0 ? n : 0] = '\0';
  }
}

/* The function at fn: found from memory, at its start, inside and at its
 * last byte, with the bounds the file gives; and the same through
 * knit_object_lookup, as the handler looks it up. */
static void expect_same_bounds(const object *o, const knit_func_table *t, uint64_t fn)
{
  uint64_t fstart, fend;
  assert_true(knit_bounds_lookup(t, fn - o->bias, &fstart, &fend));
  fstart += o->bias;
  fend += o->bias;
  assert_int_equal(fstart, fn);
  uint64_t at[3] = {fn, fn + (fend - fn) / 2, fend - 1};
  for (int i = 0; i < 3; i++) {
    uint64_t start = 0, end = 0, lo, hi;
    assert_true(knit_eh_frame_hdr_find(&o->mem, o->hdr, at[i], &start, &end));
    assert_int_equal(start, fstart);
    assert_int_equal(end, fend);
    start = end = 0;
    assert_true(knit_object_lookup(at[i], &lo, &hi, &start, &end));
    assert_int_equal(lo, o->mem.vaddr);
    assert_int_equal(start, fstart);
    assert_int_equal(end, fend);
  }
}

static void test_executable(void **state)
{
  (void)state;
  object o;
  find_object(knit_native_code_of((void (*)(void))main), &o);
  knit_func_table t;
  char err[256];
  assert_int_equal(knit_bounds_read(o.path, &t, err, sizeof err), 0);
  expect_same_bounds(&o, &t, knit_native_code_of((void (*)(void))hdr_subject_a));
  expect_same_bounds(&o, &t, knit_native_code_of((void (*)(void))hdr_subject_b));
  expect_same_bounds(&o, &t, knit_native_code_of((void (*)(void))expect_same_bounds));
  expect_same_bounds(&o, &t, knit_native_code_of((void (*)(void))main));
  /* Below the object's first function and outside its mapping: none. */
  uint64_t start, end;
  assert_false(knit_eh_frame_hdr_find(&o.mem, o.hdr, o.mem.vaddr, &start, &end));
  assert_false(knit_eh_frame_hdr_find(&o.mem, o.mem.vaddr - 1, o.hdr, &start, &end));
  assert_int_equal(hdr_subject_b(1), 8 ^ 0x33);
  knit_bounds_free(&t);
}

static void test_libc(void **state)
{
  (void)state;
  /* The C library's own functions, looked up in it: under a sanitizer,
   * fopen and the like name the sanitizer's interceptors. */
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(libc);
  void *fns[] = {dlsym(libc, "fopen"), dlsym(libc, "qsort"), dlsym(libc, "getenv"),
                 dlsym(libc, "strtol")};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    assert_non_null(fns[i]);
  object o;
  find_object((uint64_t)(uintptr_t)fns[0], &o);
  assert_non_null(strstr(o.path, "libc"));
  knit_func_table t;
  char err[256];
  assert_int_equal(knit_bounds_read(o.path, &t, err, sizeof err), 0);
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    expect_same_bounds(&o, &t, knit_native_code_of((void (*)(void))fns[i]));
  knit_bounds_free(&t);
  dlclose(libc);
}

/* --- hand-made frame data --- */
/* A buffer at address BUF_ADDR: the header at HDR, a CIE at CIE and two
 * FDEs, of [0x1000, 0x1100) and [0x1200, 0x1280) (a gap between). */
#define BUF_ADDR 0x10000u
#define HDR      0x00u
#define CIE      0x40u
#define FDE1     0x60u
#define FDE2     0x80u

typedef struct buffer {
  uint8_t b[0xa0];
} buffer;

static void put32(buffer *b, size_t at, uint32_t v)
{
  memcpy(&b->b[at], &v, 4); /* the host's byte order, as the reader is told */
}

static void put_fde(buffer *b, size_t at, uint64_t start, uint32_t range)
{
  put32(b, at, 16);                           /* length */
  put32(b, at + 4, (uint32_t)(at + 4 - CIE)); /* back to the CIE */
  /* pcrel|sdata4: relative to the field itself */
  put32(b, at + 8, (uint32_t)(start - (BUF_ADDR + at + 8)));
  put32(b, at + 12, range);
}

static void make(buffer *b, knit_dwarf_reader *mem)
{
  memset(b, 0, sizeof *b);
  b->b[HDR] = 1;
  b->b[HDR + 1] = KNIT_PE_PCREL | KNIT_PE_SDATA4;   /* eh_frame_ptr */
  b->b[HDR + 2] = KNIT_PE_UDATA4;                   /* fde_count */
  b->b[HDR + 3] = KNIT_PE_DATAREL | KNIT_PE_SDATA4; /* table */
  put32(b, HDR + 4, (uint32_t)(CIE - (HDR + 4)));
  put32(b, HDR + 8, 2);
  put32(b, HDR + 12, 0x1000 - BUF_ADDR);
  put32(b, HDR + 16, FDE1);
  put32(b, HDR + 20, 0x1200 - BUF_ADDR);
  put32(b, HDR + 24, FDE2);
  /* CIE: length, id 0, version 1, "zR", code and data alignment, return
   * address register, augmentation length 1, R = pcrel|sdata4. */
  static const uint8_t cie[] = {20, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b};
  memcpy(&b->b[CIE], cie, sizeof cie);
  put_fde(b, FDE1, 0x1000, 0x100);
  put_fde(b, FDE2, 0x1200, 0x80);
  memset(mem, 0, sizeof *mem);
  mem->base = b->b;
  mem->size = sizeof b->b;
  mem->vaddr = BUF_ADDR;
  mem->big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
  mem->addr_size = 8;
}

static bool find_in(const buffer *b, knit_dwarf_reader mem, uint64_t pc, uint64_t *start,
                    uint64_t *end)
{
  mem.base = b->b;
  return knit_eh_frame_hdr_find(&mem, BUF_ADDR + HDR, pc, start, end);
}

static void test_made(void **state)
{
  (void)state;
  buffer b;
  knit_dwarf_reader mem;
  make(&b, &mem);
  uint64_t start, end;
  assert_true(find_in(&b, mem, 0x1080, &start, &end));
  assert_int_equal(start, 0x1000);
  assert_int_equal(end, 0x1100);
  assert_true(find_in(&b, mem, 0x127f, &start, &end));
  assert_int_equal(start, 0x1200);
  assert_int_equal(end, 0x1280);
  assert_false(find_in(&b, mem, 0xfff, &start, &end));  /* below the first */
  assert_false(find_in(&b, mem, 0x1100, &start, &end)); /* the gap */
  assert_false(find_in(&b, mem, 0x1280, &start, &end)); /* past the last */
}

static void test_made_unsupported(void **state)
{
  (void)state;
  buffer b;
  knit_dwarf_reader mem;
  uint64_t start, end;
  /* Each change alone, from a header that works. */
  make(&b, &mem);
  b.b[HDR] = 2; /* version */
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  b.b[HDR + 3] = KNIT_PE_ABSPTR; /* a table of absolute pointers */
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  b.b[HDR + 3] = KNIT_PE_DATAREL | KNIT_PE_SDATA8;
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  b.b[HDR + 2] = KNIT_PE_OMIT; /* no table */
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  b.b[HDR + 1] = KNIT_PE_INDIRECT | KNIT_PE_PCREL | KNIT_PE_SDATA4;
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  b.b[CIE + 16] = KNIT_PE_TEXTREL | KNIT_PE_SDATA4; /* FDEs the bytes cannot place */
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  b.b[CIE + 9] = 'x'; /* an augmentation not understood */
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
}

static void test_made_broken(void **state)
{
  (void)state;
  buffer b;
  knit_dwarf_reader mem;
  uint64_t start, end;
  make(&b, &mem);
  put32(&b, HDR + 8, 1000); /* more entries than the range holds */
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  put32(&b, HDR + 8, 0);
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  put32(&b, HDR + 16, 0x7ffff000); /* an FDE outside the range */
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  put32(&b, FDE1 + 4, 0x1000); /* a CIE pointer before the range */
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  put32(&b, FDE1, 6); /* an FDE too short for its fields */
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  put32(&b, FDE1 + 8, (uint32_t)(0x1010 - (BUF_ADDR + FDE1 + 8))); /* not the table's start */
  assert_false(find_in(&b, mem, 0x1080, &start, &end));
  make(&b, &mem);
  mem.size = FDE2 + 8; /* the range ends inside the second FDE */
  assert_false(find_in(&b, mem, 0x1210, &start, &end));
  assert_true(find_in(&b, mem, 0x1010, &start, &end));
  make(&b, &mem);
  assert_false(knit_eh_frame_hdr_find(&mem, BUF_ADDR - 4, 0x1080, &start, &end));
  assert_false(knit_eh_frame_hdr_find(&mem, BUF_ADDR + sizeof b.b, 0x1080, &start, &end));
}

/* The notes of objects frames were found in (object_lookup.h): one
 * process-wide table, so the cases run in order in one test. */
static void test_object_notes(void **state)
{
  (void)state;
  uint64_t since, lo, hi;
  assert_false(knit_object_lookup_since(0x5000, &since, &lo, &hi)); /* none noted */
  knit_object_lookup_used(0x4000, 0x6000, 3);
  assert_true(knit_object_lookup_since(0x5000, &since, &lo, &hi));
  assert_int_equal(since, 3);
  assert_int_equal(lo, 0x4000);
  assert_int_equal(hi, 0x6000);
  assert_false(knit_object_lookup_since(0x6000, &since, &lo, &hi)); /* past its end */
  /* The same object again: its smallest count is kept. */
  knit_object_lookup_used(0x4000, 0x6000, 5);
  knit_object_lookup_used(0x4000, 0x6000, 2);
  assert_true(knit_object_lookup_since(0x4000, &since, &lo, &hi));
  assert_int_equal(since, 2);
  /* Another object seen over part of it (one unloaded, another loaded
   * there): its addresses belong to neither, the rest to the first. */
  knit_object_lookup_used(0x5800, 0x7000, 4);
  assert_false(knit_object_lookup_since(0x5900, &since, &lo, &hi));
  assert_true(knit_object_lookup_since(0x6800, &since, &lo, &hi));
  assert_int_equal(since, 4);
  assert_true(knit_object_lookup_since(0x4100, &since, &lo, &hi));
  assert_int_equal(since, 2);
  /* More objects than the notes hold: none is trusted any more. */
  for (uint64_t i = 0; i < KNIT_LOOKUP_OBJECTS; i++)
    knit_object_lookup_used(0x100000 + i * 0x1000, 0x100800 + i * 0x1000, 0);
  assert_false(knit_object_lookup_since(0x4100, &since, &lo, &hi));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_executable),
      cmocka_unit_test(test_libc),
      cmocka_unit_test(test_made),
      cmocka_unit_test(test_made_unsupported),
      cmocka_unit_test(test_made_broken),
      /* Last: it fills the process's notes, which test_executable's
       * knit_object_lookup calls do not touch. */
      cmocka_unit_test(test_object_notes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
