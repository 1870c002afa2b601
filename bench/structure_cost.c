/* The cost of the structure analysis (profiler/structure): every function
 * of each file given (default: the C library and cppcheck, a 5 MB
 * program) analyzed for loops, against its peer, decoding the same
 * functions' instructions with Capstone and nothing else (what any
 * analysis of the code must pay). Prints per file the functions, loops,
 * both times, their ratio, and the memory the analysis kept (the growth
 * of the process's peak resident set). Then the cache (structure_cache.h),
 * in a folder of its own made for the run: the time to write the file
 * after computing, and the time of the same questions answered from the
 * file (open, questions, close) against computing them.
 *   bench_structure_cost [FILE...]
 * Exit status: 0, or 1 when a file could not be read. */
#include <capstone/capstone.h>
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "structure/structure.h"
#include "structure/structure_cache.h"
#include "unwind/bounds.h"
#include "unwind/isa.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_kib(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* The peer: every function's instructions decoded, no detail. Returns the
 * instructions decoded. */
static size_t decode_all(const char *path, const knit_func_table *t)
{
  int fd = open(path, O_RDONLY);
  Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  GElf_Ehdr eh;
  size_t count = 0;
  if (!elf || !gelf_getehdr(elf, &eh))
    goto out;
  const knit_isa_ops *isa =
      knit_isa_for_elf(eh.e_machine, eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA]);
  csh cs;
  if (!isa || cs_open(isa->cs_arch, isa->cs_mode, &cs) != CS_ERR_OK)
    goto out;
  cs_insn *insn = cs_malloc(cs);
  Elf_Scn *scn = NULL;
  GElf_Shdr sh;
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type != SHT_PROGBITS)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    for (size_t i = 0; d && i < t->count; i++) {
      if (t->start[i] < sh.sh_addr || t->end[i] > sh.sh_addr + sh.sh_size)
        continue;
      const uint8_t *p = (const uint8_t *)d->d_buf + (t->start[i] - sh.sh_addr);
      size_t left = t->end[i] - t->start[i];
      uint64_t pc = t->start[i];
      while (left > 0) {
        if (cs_disasm_iter(cs, &p, &left, &pc, insn)) {
          count++;
          continue;
        }
        size_t step = isa->cs_arch == CS_ARCH_X86 ? 1 : 4;
        step = left < step ? left : step;
        p += step, left -= step, pc += step;
      }
    }
  }
  cs_free(insn, 1);
  cs_close(&cs);
out:
  if (elf)
    elf_end(elf);
  if (fd >= 0)
    close(fd);
  return count;
}

/* Asks about each function's first instruction, which analyzes it (or
 * finds it in the cache file). */
static void ask_all(knit_structure *s, const knit_func_table *t)
{
  for (size_t i = 0; i < t->count; i++) {
    knit_loop_ref r[64];
    knit_structure_loops_at(s, t->start[i], r, 64);
  }
}

/* The size of path's cache file, KiB (0 when there is none). */
static size_t cache_kib(const char *path)
{
  int fd = open(path, O_RDONLY);
  Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
  knit_structure_key key;
  char *file =
      elf && knit_structure_key_of(elf, false, &key) ? knit_structure_cache_path(&key) : NULL;
  struct stat st;
  size_t kib = file && stat(file, &st) == 0 ? (size_t)st.st_size / 1024 : 0;
  free(file);
  if (elf)
    elf_end(elf);
  if (fd >= 0)
    close(fd);
  return kib;
}

static int measure(const char *path)
{
  char err[256];
  knit_func_table t;
  if (knit_bounds_read(path, &t, err, sizeof err) != 0) {
    fprintf(stderr, "bench_structure_cost: %s\n", err);
    return 1;
  }
  double t0 = now();
  size_t insns = decode_all(path, &t);
  double decode = now() - t0;

  long kib0 = peak_kib();
  t0 = now();
  knit_structure *s = knit_structure_open(path, NULL, NULL, err, sizeof err);
  if (!s) {
    fprintf(stderr, "bench_structure_cost: %s\n", err);
    knit_bounds_free(&t);
    return 1;
  }
  ask_all(s, &t);
  double analyze = now() - t0;
  long kib1 = peak_kib();
  size_t loops = knit_structure_loop_count(s);
  t0 = now();
  knit_structure_close(s);
  double write = now() - t0;
  printf("%-44s %7zu functions %9zu instructions %7zu loops  decode %7.1f ms  structure %7.1f "
         "ms  ratio %5.2f  memory +%ld KiB\n",
         path, t.count, insns, loops, decode * 1e3, analyze * 1e3,
         decode > 0 ? analyze / decode : 0.0, kib1 - kib0);

  /* The same questions from the cache file the close wrote. */
  t0 = now();
  s = knit_structure_open(path, NULL, NULL, err, sizeof err);
  if (!s) {
    fprintf(stderr, "bench_structure_cost: %s\n", err);
    knit_bounds_free(&t);
    return 1;
  }
  ask_all(s, &t);
  size_t analyzed = knit_structure_analyzed_count(s);
  knit_structure_close(s);
  double warm = now() - t0;
  if (analyzed == t.count) {
    printf("%-44s   cache: none (no build-id)\n", path);
  } else {
    printf("%-44s   cache: write %7.1f ms  %7zu KiB  warm %7.1f ms  computing/warm %6.1fx  "
           "(%zu analyzed warm)\n",
           path, write * 1e3, cache_kib(path), warm * 1e3, warm > 0 ? analyze / warm : 0.0,
           analyzed);
  }
  knit_bounds_free(&t);
  return 0;
}

/* Removes the run's cache folder: its structure/ files, then both
 * folders. */
static void remove_cache(const char *dir)
{
  char sub[4096];
  snprintf(sub, sizeof sub, "%s/structure", dir);
  DIR *d = opendir(sub);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    char file[4400];
    snprintf(file, sizeof file, "%s/%s", sub, e->d_name);
    if (e->d_name[0] != '.')
      unlink(file);
  }
  if (d)
    closedir(d);
  rmdir(sub);
  rmdir(dir);
}

int main(int argc, char **argv)
{
  elf_version(EV_CURRENT);
  /* A cache folder of the run's own: the cold times are cold, and the
   * user's cache is neither used nor filled. */
  char dir[] = "/tmp/knit-bench-structure-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("bench_structure_cost: mkdtemp");
    return 1;
  }
  setenv("KNIT_CACHE_DIR", dir, 1);
  const char *defaults[] = {"/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/cppcheck"};
  int rc = 0;
  if (argc > 1) {
    for (int i = 1; i < argc; i++)
      rc |= measure(argv[i]);
  } else {
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
      if (access(defaults[i], R_OK) == 0)
        rc |= measure(defaults[i]);
  }
  remove_cache(dir);
  return rc;
}
