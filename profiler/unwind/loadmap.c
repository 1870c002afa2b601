/* The process's load map: see loadmap.h. */
#define _GNU_SOURCE
#include "unwind/loadmap.h"

#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/run_aside.h"
#include "unwind/vdso.h"

static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;
static knit_module *modules[KNIT_MAX_MODULES];
static _Atomic uint32_t module_count;
static _Atomic(const knit_loadmap *) current_map;
static _Atomic(knit_loadmap_new_module_fn) on_new_module;

/* Functions in which stacks begin. Stepping out of them reads whatever lies
 * above the stack (argc on the initial thread), so the unwind stops there. */
static const char *const root_names[] = {"_start", "clone",    "__clone",
                                         "clone3", "__clone3", "__clone_internal"};

static void find_roots(knit_module *m)
{
  int fd = open(m->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  Elf_Scn *scn = NULL;
  while (elf && (scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
      continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; data && i < n; i++) {
      GElf_Sym sym;
      if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
          sym.st_value == 0)
        continue;
      const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (!name)
        continue;
      for (size_t r = 0; r < sizeof root_names / sizeof *root_names; r++) {
        if (strcmp(name, root_names[r]) != 0)
          continue;
        uint64_t addr = m->base + sym.st_value;
        bool dup = false;
        for (unsigned k = 0; k < m->root_count; k++)
          dup |= m->roots[k] == addr;
        if (!dup && m->root_count < KNIT_MAX_ROOT_FUNCS)
          m->roots[m->root_count++] = addr;
      }
    }
  }
  if (elf)
    elf_end(elf);
  close(fd);
}

typedef struct scan_state {
  const void *self_addr;
  const knit_module *seen[KNIT_MAX_MODULES];
  uint32_t seen_count;
} scan_state;

static knit_module *existing(const char *path, uint64_t base)
{
  uint32_t n = atomic_load(&module_count);
  for (uint32_t i = 0; i < n; i++)
    if (modules[i]->base == base && strcmp(modules[i]->path, path) == 0)
      return modules[i];
  return NULL;
}

/* The vdso's ELF image when info is the vdso, and its size; else NULL. */
static const void *vdso_image(const struct dl_phdr_info *info, size_t *size)
{
  const void *image = knit_vdso_image(size);
  if (!image ||
      (uintptr_t)info->dlpi_phdr != (uintptr_t)image + ((const ElfW(Ehdr) *)image)->e_phoff)
    return NULL;
  return image;
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  scan_state *st = arg;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      uint64_t a = info->dlpi_addr + ph->p_vaddr;
      if (a < lo)
        lo = a;
      if (a + ph->p_memsz > hi)
        hi = a + ph->p_memsz;
    }
  }
  if (lo >= hi)
    return 0;
  char exe[4096];
  const char *path = info->dlpi_name;
  if (!path || !*path) {
    /* The program itself: dl_iterate_phdr gives no name. */
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
      return 0;
    exe[n] = '\0';
    path = exe;
  }
  knit_module *m = existing(path, info->dlpi_addr);
  if (!m && atomic_load(&module_count) < KNIT_MAX_MODULES) {
    /* Modules and maps live as long as the process: a handler may hold
     * one. */
    size_t len = strlen(path);
    m = knit_shared_alloc(sizeof *m + len + 1, 16);
    if (!m)
      return 0;
    m->path = memcpy((char *)(m + 1), path, len + 1);
    m->base = info->dlpi_addr;
    m->text_lo = lo;
    m->text_hi = hi;
    char err[256];
    size_t image_size = 0;
    const void *image = vdso_image(info, &image_size);
    int read = image ? knit_bounds_read_image(image, image_size, &m->funcs, err, sizeof err)
                     : knit_bounds_read(m->path, &m->funcs, err, sizeof err);
    if (read != 0)
      memset(&m->funcs, 0, sizeof m->funcs); /* no file: no bounds */
    find_roots(m);
    knit_loadmap_add(m);
  }
  if (!m)
    return 0;
  uintptr_t self = (uintptr_t)st->self_addr;
  m->is_self = self >= m->text_lo && self < m->text_hi;
  if (st->seen_count < KNIT_MAX_MODULES)
    st->seen[st->seen_count++] = m;
  return 0;
}

/* Reading a new library's function bounds allocates (libelf, qsort):
 * done aside, off the program's heap. */
static void scan_all(void *st)
{
  dl_iterate_phdr(visit, st);
}

static int by_text_lo(const void *a, const void *b)
{
  const knit_module *x = *(const knit_module *const *)a, *y = *(const knit_module *const *)b;
  return x->text_lo < y->text_lo ? -1 : x->text_lo > y->text_lo;
}

/* Cheap change detection: glibc counts objects added and removed. */
static int counters(struct dl_phdr_info *info, size_t size, void *arg)
{
  unsigned long long *c = arg;
  if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
    c[0] = info->dlpi_adds;
    c[1] = info->dlpi_subs;
  }
  return 1;
}

void knit_loadmap_refresh(const void *self_addr)
{
  unsigned long long c[2] = {~0ull, ~0ull};
  dl_iterate_phdr(counters, c);
  /* The counts travel with the map they describe, published by one atomic
   * store: the common case, nothing loaded or unloaded, needs no lock. */
  const knit_loadmap *now = atomic_load_explicit(&current_map, memory_order_acquire);
  if (now && now->adds == c[0] && now->subs == c[1])
    return;
  pthread_mutex_lock(&refresh_lock);
  /* Another thread may have rebuilt it meanwhile; the counts are read again
   * under the lock, so that the map built is at least as new as they are. */
  dl_iterate_phdr(counters, c);
  now = atomic_load_explicit(&current_map, memory_order_acquire);
  if (now && now->adds == c[0] && now->subs == c[1]) {
    pthread_mutex_unlock(&refresh_lock);
    return;
  }
  scan_state *st = knit_pages_alloc(sizeof *st);
  if (!st) {
    pthread_mutex_unlock(&refresh_lock);
    return;
  }
  st->self_addr = self_addr;
  uint32_t known = atomic_load(&module_count);
  knit_run_aside(scan_all, st);
  knit_loadmap *map =
      knit_shared_alloc(sizeof *map + st->seen_count * sizeof map->by_address[0], 16);
  if (map) {
    map->adds = c[0];
    map->subs = c[1];
    map->count = st->seen_count;
    memcpy(map->by_address, st->seen, st->seen_count * sizeof st->seen[0]);
    qsort(map->by_address, map->count, sizeof map->by_address[0], by_text_lo);
    /* The old map is not freed: a handler may be reading it. */
    atomic_store_explicit(&current_map, map, memory_order_release);
  }
  knit_pages_free(st);
  knit_loadmap_new_module_fn fn = atomic_load(&on_new_module);
  for (uint32_t id = known; fn && id < atomic_load(&module_count); id++)
    fn(modules[id]);
  pthread_mutex_unlock(&refresh_lock);
}

void knit_loadmap_on_new_module(knit_loadmap_new_module_fn fn)
{
  atomic_store(&on_new_module, fn);
}

const knit_loadmap *knit_loadmap_current(void)
{
  return atomic_load_explicit(&current_map, memory_order_acquire);
}

const knit_module *knit_loadmap_find(const knit_loadmap *map, uint64_t pc)
{
  if (!map)
    return NULL;
  uint32_t lo = 0, hi = map->count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    const knit_module *m = map->by_address[mid];
    if (pc < m->text_lo)
      hi = mid;
    else if (pc >= m->text_hi)
      lo = mid + 1;
    else
      return m;
  }
  return NULL;
}

uint32_t knit_loadmap_module_count(void)
{
  return atomic_load(&module_count);
}

const knit_module *knit_loadmap_module(uint32_t id)
{
  return id < atomic_load(&module_count) ? modules[id] : NULL;
}

bool knit_loadmap_is_self(uint32_t id)
{
  const knit_module *m = knit_loadmap_module(id);
  return m && m->is_self;
}

uint32_t knit_loadmap_add(knit_module *m)
{
  uint32_t id = atomic_load(&module_count);
  m->id = id;
  modules[id] = m;
  /* Published after the slot is filled, so readers never see a hole. */
  atomic_store_explicit(&module_count, id + 1, memory_order_release);
  return id;
}
