/*
 * Map clauses on the mock device: the present table (host ranges and the
 * device memory that corresponds to them, with reference counts), and
 * what a construct's map list does at its begin, at its end and in an
 * update, as OpenMP 5.0 says:
 * - begin: a range not present is allocated (and copied in for to and
 *   tofrom) with count 1; a present one only gains a count (always copies
 *   again);
 * - end: from copies back when the count is about to reach zero (or with
 *   always); the count drops (delete: to zero), and at zero the memory is
 *   released;
 * - struct members (MEMBER_OF) ride on their parent's entry and count;
 * - a pointer mapped with its pointee (PTR_AND_OBJ) is made to point to
 *   the pointee's device copy, and copies of the range that holds it keep
 *   each side's value (the host's pointer stays a host address);
 * - literals are passed by value, firstprivates get a device copy that
 *   lives as long as the kernel.
 * Every allocation, transfer and release is a device operation
 * (device.c), announced to the tool by target_data_op with a host_op_id
 * of its own.  The device's lock is held throughout.
 */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Device memory carries its size in front, for the accounting. */
#define MOCKRT_TGT_MEM_HEADER 16

void *mockrt_tgt_mem_alloc(mockrt_tgt_device_t *dev, size_t bytes)
{
  uint64_t limit = mockrt_tgt_settings.memory_limit;
  if (limit && dev->bytes_in_use + bytes > limit)
    return NULL;
  char *block = malloc(MOCKRT_TGT_MEM_HEADER + (bytes ? bytes : 1));
  if (!block)
    return NULL;
  memcpy(block, &bytes, sizeof bytes);
  dev->bytes_in_use += bytes;
  if (dev->bytes_in_use > dev->bytes_peak)
    dev->bytes_peak = dev->bytes_in_use;
  dev->allocations++;
  return block + MOCKRT_TGT_MEM_HEADER;
}

void mockrt_tgt_mem_free(mockrt_tgt_device_t *dev, void *p)
{
  if (!p)
    return;
  char *block = (char *)p - MOCKRT_TGT_MEM_HEADER;
  size_t bytes;
  memcpy(&bytes, block, sizeof bytes);
  dev->bytes_in_use -= bytes;
  free(block);
}

/* The entry whose range holds [host, host + size), or NULL. */
static mockrt_tgt_mapping_t *mockrt_tgt_map_find(mockrt_tgt_device_t *dev, uintptr_t host,
                                                 size_t size)
{
  for (size_t i = 0; i < dev->nmap; i++) {
    mockrt_tgt_mapping_t *m = &dev->map[i];
    if (host >= m->host_begin && host + size <= m->host_end &&
        (size > 0 || host < m->host_end || m->host_begin == m->host_end))
      return m;
  }
  return NULL;
}

static mockrt_tgt_mapping_t *mockrt_tgt_map_insert(mockrt_tgt_device_t *dev, uintptr_t host,
                                                   size_t size, void *dev_addr)
{
  if (dev->nmap == dev->map_cap) {
    size_t cap = dev->map_cap ? dev->map_cap * 2 : 32;
    mockrt_tgt_mapping_t *grown = realloc(dev->map, cap * sizeof *grown);
    if (!grown)
      return NULL;
    dev->map = grown;
    dev->map_cap = cap;
  }
  mockrt_tgt_mapping_t *m = &dev->map[dev->nmap++];
  memset(m, 0, sizeof *m);
  m->host_begin = host;
  m->host_end = host + size;
  m->dev = dev_addr;
  m->refcount = 1;
  return m;
}

static void mockrt_tgt_map_remove(mockrt_tgt_device_t *dev, mockrt_tgt_mapping_t *m)
{
  /* Pointers attached inside the range go with it. */
  for (size_t i = 0; i < dev->nshadows;) {
    uintptr_t at = dev->shadows[i].host_addr;
    if (at >= m->host_begin && at < m->host_end)
      dev->shadows[i] = dev->shadows[--dev->nshadows];
    else
      i++;
  }
  *m = dev->map[--dev->nmap];
}

static bool mockrt_tgt_shadow_set(mockrt_tgt_device_t *dev, void **ptr, void *dev_value)
{
  size_t i = 0;
  while (i < dev->nshadows && dev->shadows[i].host_addr != (uintptr_t)ptr)
    i++;
  if (i == dev->nshadows) {
    if (dev->nshadows == dev->shadow_cap) {
      size_t cap = dev->shadow_cap ? dev->shadow_cap * 2 : 16;
      mockrt_tgt_shadow_t *grown = realloc(dev->shadows, cap * sizeof *grown);
      if (!grown)
        return false;
      dev->shadows = grown;
      dev->shadow_cap = cap;
    }
    dev->nshadows++;
  }
  dev->shadows[i] = (mockrt_tgt_shadow_t){(uintptr_t)ptr, *ptr, dev_value};
  return true;
}

void mockrt_tgt_shadow_after_copy(mockrt_tgt_device_t *dev, const mockrt_tgt_op_t *op)
{
  uintptr_t begin = (uintptr_t)op->host, end = begin + op->bytes;
  for (size_t i = 0; i < dev->nshadows; i++) {
    const mockrt_tgt_shadow_t *sh = &dev->shadows[i];
    if (sh->host_addr < begin || sh->host_addr + sizeof(void *) > end)
      continue;
    size_t at = sh->host_addr - begin;
    if (op->kind == MOCKRT_OP_FROM_DEVICE)
      memcpy((char *)op->host + at, &sh->host_value, sizeof(void *));
    else
      memcpy((char *)op->dev + at, &sh->dev_value, sizeof(void *));
  }
}

void *mockrt_tgt_map_lookup(mockrt_tgt_device_t *dev, const void *host, size_t size)
{
  mockrt_tgt_mapping_t *m = mockrt_tgt_map_find(dev, (uintptr_t)host, size);
  return m ? m->dev + ((uintptr_t)host - m->host_begin) : NULL;
}

void mockrt_tgt_map_global(mockrt_tgt_device_t *dev, void *host, void *dev_addr, size_t size)
{
  mockrt_tgt_mapping_t *m = mockrt_tgt_map_insert(dev, (uintptr_t)host, size, dev_addr);
  if (m)
    m->refcount = MOCKRT_TGT_REF_FOREVER;
}

/*
 * One device operation of a construct: its host_op_id, its callback
 * (before it runs, as the host asks for it), then the operation itself,
 * which the device thread records with its device times.
 */
static void mockrt_tgt_data_op(mockrt_tgt_construct_t *c, int kind, void *host, void *dev_addr,
                               size_t bytes)
{
  mockrt_tgt_device_t *dev = c->dev;
  mockrt_tgt_op_t op = {.kind = kind,
                        .target_id = c->target_id,
                        .host_op_id = mockrt_tgt_unique_id(),
                        .codeptr = c->codeptr,
                        .host = host,
                        .dev = dev_addr,
                        .bytes = bytes};
  mockrt_tgt_target_info(dev->num, c->target_id, op.host_op_id);
  const mockrt_target_cbs_t *cbs = mockrt_tgt_cbs();
  ompt_callback_target_data_op_emi_t emi = cbs ? cbs->target_data_op_emi : NULL;
  ompt_callback_target_data_op_t cb = cbs ? cbs->target_data_op : NULL;
  ompt_record_target_data_op_t d;
  mockrt_tgt_op_describe(dev, &op, &d);
  ompt_id_t tool_op_id = op.host_op_id;
  if (emi) {
    emi(ompt_scope_begin, NULL, mockrt_tgt_target_data(c), &tool_op_id, d.optype, d.src_addr,
        d.src_device_num, d.dest_addr, d.dest_device_num, d.bytes, c->codeptr);
    op.host_op_id = mockrt_tgt_host_op_id(op.host_op_id, tool_op_id);
    mockrt_tgt_target_info(dev->num, c->target_id, op.host_op_id);
  } else if (cb) {
    cb(c->target_id, op.host_op_id, d.optype, d.src_addr, d.src_device_num, d.dest_addr,
       d.dest_device_num, d.bytes, c->codeptr);
  }
  mockrt_tgt_device_run(dev, &op);
  if (emi)
    emi(ompt_scope_end, NULL, mockrt_tgt_target_data(c), &tool_op_id, d.optype, d.src_addr,
        d.src_device_num, d.dest_addr, d.dest_device_num, d.bytes, c->codeptr);
  mockrt_tgt_target_info(dev->num, c->target_id, 0);
}

/* Device memory for a new entry or a firstprivate, said when refused. */
static void *mockrt_tgt_data_alloc(mockrt_tgt_construct_t *c, void *host, size_t bytes)
{
  void *p = mockrt_tgt_mem_alloc(c->dev, bytes);
  if (!p) {
    fprintf(stderr,
            "mockrt target: device %d: out of device memory for %zu bytes (%llu in use, "
            "MOCKRT_TARGET_MEMORY=%llu)\n",
            c->dev->num, bytes, (unsigned long long)c->dev->bytes_in_use,
            (unsigned long long)mockrt_tgt_settings.memory_limit);
    return NULL;
  }
  mockrt_tgt_data_op(c, MOCKRT_OP_ALLOC, host, p, bytes);
  return p;
}

/* What a map type says to the tool (ompt_target_map_flag_t). */
static unsigned mockrt_tgt_map_flags(int64_t type, bool exiting)
{
  unsigned flags = 0;
  if (type & MOCKRT_MAP_TO)
    flags |= ompt_target_map_flag_to;
  if (type & MOCKRT_MAP_FROM)
    flags |= ompt_target_map_flag_from;
  if (type & MOCKRT_MAP_DELETE)
    flags |= ompt_target_map_flag_delete;
  if (type & MOCKRT_MAP_IMPLICIT)
    flags |= ompt_target_map_flag_implicit;
  if (!(type & (MOCKRT_MAP_TO | MOCKRT_MAP_FROM | MOCKRT_MAP_DELETE)))
    flags |= exiting ? ompt_target_map_flag_release : ompt_target_map_flag_alloc;
  return flags;
}

/* target_map: the construct's list as the tool may want it, once. */
static void mockrt_tgt_map_announce(mockrt_tgt_construct_t *c, const mockrt_tgt_maps_t *maps,
                                    bool exiting)
{
  const mockrt_target_cbs_t *cbs = mockrt_tgt_cbs();
  ompt_callback_target_map_emi_t emi = cbs ? cbs->target_map_emi : NULL;
  ompt_callback_target_map_t cb = cbs ? cbs->target_map : NULL;
  if ((!emi && !cb) || maps->n <= 0)
    return;
  size_t n = (size_t)maps->n;
  void **host = calloc(n, sizeof *host);
  void **devs = calloc(n, sizeof *devs);
  size_t *bytes = calloc(n, sizeof *bytes);
  unsigned *flags = calloc(n, sizeof *flags);
  unsigned k = 0;
  for (size_t i = 0; host && devs && bytes && flags && i < n; i++) {
    int64_t type = maps->types[i];
    if (type & (MOCKRT_MAP_LITERAL | MOCKRT_MAP_PRIVATE))
      continue;
    host[k] = maps->begins[i];
    devs[k] = mockrt_tgt_map_lookup(c->dev, maps->begins[i], (size_t)maps->sizes[i]);
    bytes[k] = (size_t)maps->sizes[i];
    flags[k] = mockrt_tgt_map_flags(type, exiting);
    k++;
  }
  if (k > 0 && emi)
    emi(mockrt_tgt_target_data(c), k, host, devs, bytes, flags, c->codeptr);
  else if (k > 0)
    cb(c->target_id, k, host, devs, bytes, flags, c->codeptr);
  free(host);
  free(devs);
  free(bytes);
  free(flags);
}

static bool mockrt_tgt_refuse_mappers(const mockrt_tgt_maps_t *maps)
{
  for (int32_t i = 0; maps->mappers && i < maps->n; i++) {
    if (maps->mappers[i]) {
      fprintf(stderr, "mockrt target: user-defined mappers (declare mapper) are not supported by "
                      "the mock device\n");
      return true;
    }
  }
  return false;
}

/* A struct member that lies inside its parent's entry, whose count is the
 * parent's; a member pointer's pointee (PTR_AND_OBJ) is a range of its own. */
static bool mockrt_tgt_inside_parent(int64_t type)
{
  return (type & MOCKRT_MAP_MEMBER_OF) && !(type & MOCKRT_MAP_PTR_AND_OBJ);
}

/* The pointer at host address ptr now points to the device copy of its pointee. */
static int mockrt_tgt_attach_pointer(mockrt_tgt_construct_t *c, void **ptr, char *pointee_dev,
                                     uintptr_t pointee_host)
{
  mockrt_tgt_device_t *dev = c->dev;
  mockrt_tgt_mapping_t *pm = mockrt_tgt_map_find(dev, (uintptr_t)ptr, sizeof(void *));
  if (pm && pm->implicit_pointer) {
    pm->refcount++;
  } else if (!pm) {
    /* A pointer not mapped itself gets device storage, counted with its
     * pointee's maps. */
    void *p = mockrt_tgt_data_alloc(c, ptr, sizeof(void *));
    if (!p)
      return MOCKRT_TGT_FAIL;
    pm = mockrt_tgt_map_insert(dev, (uintptr_t)ptr, sizeof(void *), p);
    if (!pm)
      return MOCKRT_TGT_FAIL;
    pm->owned = true;
    pm->implicit_pointer = true;
  }
  /* The host pointer may point into its pointee's range, not at its start. */
  char *value = pointee_dev - (pointee_host - (uintptr_t)*ptr);
  memcpy(pm->dev + ((uintptr_t)ptr - pm->host_begin), &value, sizeof value);
  return mockrt_tgt_shadow_set(dev, ptr, value) ? MOCKRT_TGT_SUCCESS : MOCKRT_TGT_FAIL;
}

int mockrt_tgt_map_begin(mockrt_tgt_construct_t *c, const mockrt_tgt_maps_t *maps,
                         void **kernel_args, int *nkernel_args)
{
  mockrt_tgt_device_t *dev = c->dev;
  unsigned long seq = ++dev->construct_seq;
  int nk = 0;
  c->mapped = 0;
  if (mockrt_tgt_refuse_mappers(maps))
    return MOCKRT_TGT_FAIL;
  for (int32_t i = 0; i < maps->n; i++, c->mapped = i) {
    int64_t type = maps->types[i];
    char *base = maps->bases[i];
    char *begin = maps->begins[i];
    size_t size = (size_t)maps->sizes[i];
    char *dev_begin = NULL;
    bool param = kernel_args && (type & MOCKRT_MAP_TARGET_PARAM);
    if (param && nk >= MOCKRT_TGT_MAX_ARGS) {
      fprintf(stderr, "mockrt target: a kernel with more than %d arguments is not supported\n",
              MOCKRT_TGT_MAX_ARGS);
      return MOCKRT_TGT_FAIL;
    }
    if (type & MOCKRT_MAP_LITERAL) {
      if (param)
        kernel_args[nk++] = begin;
      continue;
    }
    if (type & MOCKRT_MAP_PRIVATE) {
      if (c->nprivates >= (int)(sizeof c->privates / sizeof c->privates[0]))
        return MOCKRT_TGT_FAIL;
      dev_begin = mockrt_tgt_data_alloc(c, begin, size);
      if (!dev_begin)
        return MOCKRT_TGT_FAIL;
      c->privates[c->nprivates] = dev_begin;
      c->private_bytes[c->nprivates++] = size;
      if (type & MOCKRT_MAP_TO)
        mockrt_tgt_data_op(c, MOCKRT_OP_TO_DEVICE, begin, dev_begin, size);
      if (param)
        kernel_args[nk++] = dev_begin + (base - begin);
      continue;
    }
    mockrt_tgt_mapping_t *m = mockrt_tgt_map_find(dev, (uintptr_t)begin, size);
    if (m) {
      bool member = mockrt_tgt_inside_parent(type);
      if (!member && size > 0 && m->refcount != MOCKRT_TGT_REF_FOREVER)
        m->refcount++;
      dev_begin = m->dev + ((uintptr_t)begin - m->host_begin);
      /* A member of an entry made by this construct is copied in with it. */
      bool copy = (type & MOCKRT_MAP_ALWAYS) || (member && m->fresh == seq);
      if ((type & MOCKRT_MAP_TO) && copy && size > 0)
        mockrt_tgt_data_op(c, MOCKRT_OP_TO_DEVICE, begin, dev_begin, size);
    } else if (size == 0) {
      /* A zero-length section of storage not present: a null pointer on
       * the device (OpenMP 5.0). */
      dev_begin = NULL;
    } else {
      if (type & MOCKRT_MAP_PRESENT) {
        fprintf(stderr,
                "mockrt target: device %d: %zu bytes at %p are not present (map(present: ...))\n",
                dev->num, size, (void *)begin);
        return MOCKRT_TGT_FAIL;
      }
      dev_begin = mockrt_tgt_data_alloc(c, begin, size);
      if (!dev_begin)
        return MOCKRT_TGT_FAIL;
      m = mockrt_tgt_map_insert(dev, (uintptr_t)begin, size, dev_begin);
      if (!m)
        return MOCKRT_TGT_FAIL;
      m->owned = true;
      m->fresh = seq;
      if (type & MOCKRT_MAP_TO)
        mockrt_tgt_data_op(c, MOCKRT_OP_TO_DEVICE, begin, dev_begin, size);
    }
    if ((type & MOCKRT_MAP_PTR_AND_OBJ) && dev_begin &&
        mockrt_tgt_attach_pointer(c, (void **)base, dev_begin, (uintptr_t)begin) != 0)
      return MOCKRT_TGT_FAIL;
    if (param) {
      /* The kernel gets the base's device address (a pointer into the
       * section may point before its begin). */
      kernel_args[nk++] = dev_begin ? dev_begin + (base - begin) : NULL;
    }
  }
  if (nkernel_args)
    *nkernel_args = nk;
  mockrt_tgt_map_announce(c, maps, false);
  return MOCKRT_TGT_SUCCESS;
}

/* The end of the first n entries of a list; copy_back false for a begin
 * that failed, whose data the host keeps as it is. */
static void mockrt_tgt_unmap(mockrt_tgt_construct_t *c, const mockrt_tgt_maps_t *maps, int32_t n,
                             bool copy_back)
{
  mockrt_tgt_device_t *dev = c->dev;
  /* In reverse: members before their parent, while its count still holds. */
  for (int32_t i = n - 1; i >= 0; i--) {
    int64_t type = maps->types[i];
    if (type & (MOCKRT_MAP_LITERAL | MOCKRT_MAP_PRIVATE))
      continue;
    char *begin = maps->begins[i];
    size_t size = (size_t)maps->sizes[i];
    mockrt_tgt_mapping_t *m = mockrt_tgt_map_find(dev, (uintptr_t)begin, size);
    if (!m || size == 0)
      continue;
    bool forever = m->refcount == MOCKRT_TGT_REF_FOREVER;
    bool last = !forever && ((type & MOCKRT_MAP_DELETE) || m->refcount == 1);
    if (copy_back && (type & MOCKRT_MAP_FROM) && ((type & MOCKRT_MAP_ALWAYS) || last))
      mockrt_tgt_data_op(c, MOCKRT_OP_FROM_DEVICE, begin,
                         m->dev + ((uintptr_t)begin - m->host_begin), size);
    if (type & MOCKRT_MAP_PTR_AND_OBJ) {
      /* A pointer the device mapped for its pointee goes with it. */
      mockrt_tgt_mapping_t *pm =
          mockrt_tgt_map_find(dev, (uintptr_t)maps->bases[i], sizeof(void *));
      if (pm && pm != m && pm->implicit_pointer && --pm->refcount <= 0) {
        mockrt_tgt_data_op(c, MOCKRT_OP_DELETE, NULL, pm->dev, pm->host_end - pm->host_begin);
        mockrt_tgt_map_remove(dev, pm);
        m = mockrt_tgt_map_find(dev, (uintptr_t)begin, size);
        if (!m)
          continue;
      }
    }
    if (forever || mockrt_tgt_inside_parent(type))
      continue;
    m->refcount = (type & MOCKRT_MAP_DELETE) ? 0 : m->refcount - 1;
    if (m->refcount > 0)
      continue;
    mockrt_tgt_data_op(c, MOCKRT_OP_DELETE, (void *)m->host_begin, m->dev,
                       m->host_end - m->host_begin);
    mockrt_tgt_map_remove(dev, m);
  }
}

int mockrt_tgt_map_end(mockrt_tgt_construct_t *c, const mockrt_tgt_maps_t *maps)
{
  if (mockrt_tgt_refuse_mappers(maps))
    return MOCKRT_TGT_FAIL;
  mockrt_tgt_map_announce(c, maps, true);
  mockrt_tgt_unmap(c, maps, maps->n, true);
  return MOCKRT_TGT_SUCCESS;
}

void mockrt_tgt_map_undo(mockrt_tgt_construct_t *c, const mockrt_tgt_maps_t *maps)
{
  mockrt_tgt_map_free_privates(c);
  mockrt_tgt_unmap(c, maps, c->mapped, false);
  c->mapped = 0;
}

int mockrt_tgt_map_update(mockrt_tgt_construct_t *c, const mockrt_tgt_maps_t *maps)
{
  mockrt_tgt_device_t *dev = c->dev;
  if (mockrt_tgt_refuse_mappers(maps))
    return MOCKRT_TGT_FAIL;
  mockrt_tgt_map_announce(c, maps, false);
  for (int32_t i = 0; i < maps->n; i++) {
    int64_t type = maps->types[i];
    char *begin = maps->begins[i];
    size_t size = (size_t)maps->sizes[i];
    /* OpenMP 5.0: an update of storage not present does nothing. */
    char *dev_begin = mockrt_tgt_map_lookup(dev, begin, size);
    if (!dev_begin || size == 0)
      continue;
    if (type & MOCKRT_MAP_TO)
      mockrt_tgt_data_op(c, MOCKRT_OP_TO_DEVICE, begin, dev_begin, size);
    if (type & MOCKRT_MAP_FROM)
      mockrt_tgt_data_op(c, MOCKRT_OP_FROM_DEVICE, begin, dev_begin, size);
  }
  return MOCKRT_TGT_SUCCESS;
}

/* A kernel's firstprivate copies go with it. */
void mockrt_tgt_map_free_privates(mockrt_tgt_construct_t *c)
{
  for (int i = 0; i < c->nprivates; i++)
    mockrt_tgt_data_op(c, MOCKRT_OP_DELETE, NULL, c->privates[i], c->private_bytes[i]);
  c->nprivates = 0;
}
