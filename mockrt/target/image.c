/*
 * Device images: what a program (or library) registers with
 * __tgt_register_lib, and each device's loaded copy of it.
 *
 * clang 14 embeds, per offload target, an ELF shared object holding the
 * kernels (one function per target region, named as the offload entry
 * says) and the declare-target globals.  The mock device runs only an
 * image of the process's own ISA: it writes the image into a file (or a
 * memfd) and dlopens it, once per device (each device has its own
 * globals), and a kernel is the symbol its offload entry names.  The
 * image's calls into the OpenMP runtime (a kernel's teams and parallel
 * regions) bind to the host runtime already loaded.
 */
#define _GNU_SOURCE
#include "target.h"
#include "target_isa.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

mockrt_tgt_lib_t mockrt_tgt_libs[MOCKRT_TGT_MAX_LIBS];
pthread_mutex_t mockrt_tgt_libs_lock = PTHREAD_MUTEX_INITIALIZER;

/* The ELF header of this very library, which says the process's ISA. */
static const ElfW(Ehdr) * mockrt_tgt_own_header(void)
{
  Dl_info info;
  if (!dladdr((void *)mockrt_tgt_own_header, &info))
    return NULL;
  return (const ElfW(Ehdr) *)info.dli_fbase;
}

/* NULL if the image can run here; else why not, in words. */
static const char *mockrt_tgt_image_refusal(const mockrt_tgt_device_image_t *img, char *why,
                                            size_t len)
{
  const ElfW(Ehdr) *own = mockrt_tgt_own_header();
  size_t size = (size_t)((char *)img->image_end - (char *)img->image_start);
  const ElfW(Ehdr) *eh = img->image_start;
  if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
    snprintf(why, len, "an image that is not an ELF object (%zu bytes)", size);
    return why;
  }
  if (!own || eh->e_ident[EI_CLASS] != own->e_ident[EI_CLASS] ||
      eh->e_ident[EI_DATA] != own->e_ident[EI_DATA] || eh->e_machine != own->e_machine) {
    snprintf(why, len, "an image for another ISA (ELF machine %u, %s-endian, %d-bit)",
             (unsigned)eh->e_machine, eh->e_ident[EI_DATA] == ELFDATA2MSB ? "big" : "little",
             eh->e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32);
    return why;
  }
  if (eh->e_type != ET_DYN) {
    snprintf(why, len, "an image that is not a shared object");
    return why;
  }
  return NULL;
}

MOCKRT_TGT_EXPORT void __tgt_register_lib(mockrt_tgt_bin_desc_t *desc)
{
  const mockrt_tgt_device_image_t *runnable = NULL;
  char why[160] = "no device image";
  for (int32_t i = 0; desc && i < desc->num_images && !runnable; i++) {
    if (!mockrt_tgt_image_refusal(&desc->images[i], why, sizeof why))
      runnable = &desc->images[i];
  }
  if (!runnable) {
    Dl_info info;
    const char *file = desc && dladdr(desc, &info) ? info.dli_fname : "a library";
    fprintf(stderr,
            "mockrt target: %s has %s, which the mock device cannot run on " MOCKRT_TGT_ISA_NAME
            ": its target regions run on the host\n",
            file, why);
  }
  pthread_mutex_lock(&mockrt_tgt_libs_lock);
  for (int i = 0; i < MOCKRT_TGT_MAX_LIBS; i++) {
    if (!mockrt_tgt_libs[i].desc) {
      mockrt_tgt_libs[i] = (mockrt_tgt_lib_t){.desc = desc, .image = runnable};
      pthread_mutex_unlock(&mockrt_tgt_libs_lock);
      return;
    }
  }
  pthread_mutex_unlock(&mockrt_tgt_libs_lock);
  fprintf(stderr, "mockrt target: more than %d offloading libraries; the rest run on the host\n",
          MOCKRT_TGT_MAX_LIBS);
}

/*
 * The library's slot is free again and each device forgets its copy (a
 * live device says device_unload).  The copies stay mapped: this runs from
 * the library's destructors, at exit too, when an image's own destructors
 * could no longer count on the runtime they call.
 */
MOCKRT_TGT_EXPORT void __tgt_unregister_lib(mockrt_tgt_bin_desc_t *desc)
{
  const mockrt_target_cbs_t *cbs = mockrt_tgt_cbs();
  ompt_callback_device_unload_t unload = cbs ? cbs->device_unload : NULL;
  pthread_mutex_lock(&mockrt_tgt_libs_lock);
  for (int i = 0; i < MOCKRT_TGT_MAX_LIBS; i++) {
    if (!desc || mockrt_tgt_libs[i].desc != desc)
      continue;
    mockrt_tgt_libs[i] = (mockrt_tgt_lib_t){0};
    for (int d = 0; d < MOCKRT_TGT_MAX_DEVICES; d++) {
      mockrt_tgt_device_t *dev = &mockrt_tgt_devices[d];
      if (dev->handles[i] && unload && !dev->finalized)
        unload(dev->num, dev->module_ids[i]);
      dev->handles[i] = NULL;
      dev->loaded[i] = false;
    }
  }
  pthread_mutex_unlock(&mockrt_tgt_libs_lock);
}

static bool mockrt_tgt_write_all(int fd, const char *p, size_t size)
{
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fd, p + done, size - done);
    if (n <= 0)
      return false;
    done += (size_t)n;
  }
  return true;
}

/* FNV-1a: names an image's file by its bytes. */
static uint64_t mockrt_tgt_image_hash(const unsigned char *p, size_t size)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/*
 * The image as a file of its own, kept after the run, so that a profiler
 * can still read a kernel's symbols when it reports (a memfd is gone by
 * then): $TMPDIR/mockrt-device-images/<hash of the bytes>-<device>.so, in
 * a folder of the user's own, reused by every run of the same program (one
 * file a device, since dlopen gives one copy a file and each device has
 * globals of its own).  False when no such file can be had.
 */
static bool mockrt_tgt_image_file(const mockrt_tgt_device_image_t *img, int device, char *path,
                                  size_t len)
{
  size_t size = (size_t)((char *)img->image_end - (char *)img->image_start);
  const char *tmp = getenv("TMPDIR");
  char dir[PATH_MAX];
  struct stat st;
  snprintf(dir, sizeof dir, "%s/mockrt-device-images", tmp && *tmp ? tmp : "/tmp");
  if (mkdir(dir, 0700) != 0 && errno != EEXIST)
    return false;
  /* Another user's folder could hold files that are not this image. */
  if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
    return false;
  int n = snprintf(path, len, "%s/%016llx-%d.so", dir,
                   (unsigned long long)mockrt_tgt_image_hash(img->image_start, size), device);
  if (n < 0 || (size_t)n >= len)
    return false;
  if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == size)
    return true;
  /* Written aside and renamed: a run at the same time sees all or nothing. */
  char part[PATH_MAX + 32];
  snprintf(part, sizeof part, "%s.%ld.part", path, (long)getpid());
  int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
  if (fd < 0)
    return false;
  bool ok = mockrt_tgt_write_all(fd, img->image_start, size);
  ok = close(fd) == 0 && ok && rename(part, path) == 0;
  if (!ok)
    unlink(part);
  return ok;
}

/* The device's copy of an image: from its file, else from a memfd (path
 * then says the host object the image came from). */
static void *mockrt_tgt_dlopen_image(const mockrt_tgt_device_image_t *img, int device, char *path,
                                     size_t len)
{
  void *handle = NULL;
  if (mockrt_tgt_image_file(img, device, path, len)) {
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle)
      return handle;
  }
  size_t size = (size_t)((char *)img->image_end - (char *)img->image_start);
  char name[64], fd_path[64];
  snprintf(name, sizeof name, "mockrt-device-%d-image", device);
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0 || !mockrt_tgt_write_all(fd, img->image_start, size)) {
    perror("mockrt target: writing the device image");
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  snprintf(fd_path, sizeof fd_path, "/proc/self/fd/%d", fd);
  handle = dlopen(fd_path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    fprintf(stderr, "mockrt target: device %d: the device image does not load: %s\n", device,
            dlerror());
  close(fd);
  Dl_info info;
  snprintf(path, len, "%s", dladdr(img->image_start, &info) ? info.dli_fname : "");
  return handle;
}

static void mockrt_tgt_image_load(mockrt_tgt_device_t *dev, int lib)
{
  const mockrt_tgt_lib_t *l = &mockrt_tgt_libs[lib];
  dev->loaded[lib] = true;
  if (!l->image)
    return;
  char path[PATH_MAX];
  void *handle = mockrt_tgt_dlopen_image(l->image, dev->num, path, sizeof path);
  dev->handles[lib] = handle;
  if (!handle)
    return;
  /* Declare-target globals: the image's own copies, mapped for good. */
  for (mockrt_tgt_offload_entry_t *e = l->desc->host_entries_begin; e < l->desc->host_entries_end;
       e++) {
    if (e->size == 0)
      continue;
    void *addr = dlsym(handle, e->name);
    if (addr)
      mockrt_tgt_map_global(dev, e->addr, addr, e->size);
  }
  dev->module_ids[lib] = mockrt_tgt_unique_id();
  const mockrt_target_cbs_t *cbs = mockrt_tgt_cbs();
  ompt_callback_device_load_t cb = cbs ? cbs->device_load : NULL;
  if (!cb)
    return;
  struct link_map *lm = NULL;
  dlinfo(handle, RTLD_DI_LINKMAP, &lm);
  /* The file the device loaded (the whole image), whose bytes are at
   * host_addr in the host object too. */
  cb(dev->num, path[0] ? path : NULL, 0, NULL,
     (size_t)((char *)l->image->image_end - (char *)l->image->image_start), l->image->image_start,
     lm ? (void *)lm->l_addr : NULL, dev->module_ids[lib]);
}

void mockrt_tgt_image_load_all(mockrt_tgt_device_t *dev)
{
  pthread_mutex_lock(&mockrt_tgt_libs_lock);
  for (int i = 0; i < MOCKRT_TGT_MAX_LIBS; i++) {
    if (mockrt_tgt_libs[i].desc && !dev->loaded[i])
      mockrt_tgt_image_load(dev, i);
  }
  pthread_mutex_unlock(&mockrt_tgt_libs_lock);
}

void mockrt_tgt_image_unload_all(mockrt_tgt_device_t *dev)
{
  const mockrt_target_cbs_t *cbs = mockrt_tgt_cbs();
  ompt_callback_device_unload_t cb = cbs ? cbs->device_unload : NULL;
  for (int i = 0; i < MOCKRT_TGT_MAX_LIBS; i++) {
    if (dev->handles[i] && cb)
      cb(dev->num, dev->module_ids[i]);
  }
}

void *mockrt_tgt_image_kernel(mockrt_tgt_device_t *dev, const void *region_id)
{
  void *fn = NULL;
  const char *name = NULL;
  bool loaded = false;
  pthread_mutex_lock(&mockrt_tgt_libs_lock);
  for (int i = 0; i < MOCKRT_TGT_MAX_LIBS && !name; i++) {
    const mockrt_tgt_lib_t *l = &mockrt_tgt_libs[i];
    if (!l->desc)
      continue;
    for (mockrt_tgt_offload_entry_t *e = l->desc->host_entries_begin;
         e < l->desc->host_entries_end && !name; e++) {
      if (e->addr == region_id && e->size == 0) {
        name = e->name;
        loaded = dev->handles[i] != NULL;
        fn = loaded ? dlsym(dev->handles[i], e->name) : NULL;
      }
    }
  }
  pthread_mutex_unlock(&mockrt_tgt_libs_lock);
  /* An image that did not load or cannot run was said at that time. */
  if (name && !fn && loaded)
    fprintf(stderr, "mockrt target: device %d: the device image has no kernel %s\n", dev->num,
            name);
  if (!name)
    fprintf(stderr, "mockrt target: device %d: no registered target region has the id %p\n",
            dev->num, region_id);
  return fn;
}
