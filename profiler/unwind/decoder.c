/* Capstone with signal-safe memory: see decoder.h. */
#include "unwind/decoder.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <string.h>

#include "base/arena.h"
#include "base/run_aside.h"
#include "base/safe_format.h"

/* Every block carries its size in front, so realloc can copy. */
typedef struct block_header {
  size_t size;
  size_t pad; /* keeps the payload 16-byte aligned */
} block_header;

static void *safe_malloc(size_t size)
{
  block_header *h = knit_shared_alloc(sizeof *h + size, 16);
  if (!h)
    return NULL;
  h->size = size;
  return h + 1;
}

static void *safe_calloc(size_t n, size_t size)
{
  if (size && n > (size_t)-1 / size)
    return NULL;
  /* The shared arena hands out fresh zeroed pages and never reuses. */
  return safe_malloc(n * size);
}

static void *safe_realloc(void *p, size_t size)
{
  void *q = safe_malloc(size);
  if (q && p) {
    size_t old = ((block_header *)p - 1)->size;
    memcpy(q, p, old < size ? old : size);
  }
  return q;
}

/* Memory is never returned: Capstone frees only at cs_close and on errors,
 * and the amounts are small and bounded by the number of threads. */
static void safe_free(void *p)
{
  (void)p;
}

/* Decodes isa's warm_code as an analyzer would (each instruction, then its
 * registers), so that Capstone's first uses of that architecture happen
 * here, once, and not in a sample: a sample that interrupted malloc and was
 * the first to decode x86 code would wait for ever for malloc's lock, held
 * by its own thread (isa.h, warm_code). */
static void warm_up(const knit_isa_ops *isa)
{
  csh h;
  if (!isa || cs_open((cs_arch)isa->cs_arch, (cs_mode)isa->cs_mode, &h) != CS_ERR_OK)
    return;
  cs_insn *insn = NULL;
  if (cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK && (insn = cs_malloc(h)) != NULL) {
    const uint8_t *code = isa->warm_code;
    size_t left = isa->warm_code_len;
    uint64_t pc = 0;
    while (left > 0 && cs_disasm_iter(h, &code, &left, &pc, insn)) {
      cs_regs read, written;
      uint8_t nread, nwritten;
      cs_regs_access(h, insn, read, &nread, written, &nwritten);
    }
    cs_free(insn, 1);
  }
  cs_close(&h);
}

/* Every ISA knit decodes, whichever this process's is: the tests decode
 * all three. */
static void warm_up_all(void *unused)
{
  (void)unused;
  for (size_t i = 0; knit_isas[i]; i++)
    warm_up(knit_isas[i]);
}

bool knit_decoder_setup(void)
{
  cs_opt_mem mem = {
      .malloc = safe_malloc,
      .calloc = safe_calloc,
      .realloc = safe_realloc,
      .free = safe_free,
      .vsnprintf = knit_safe_vsnprintf,
  };
  if (cs_option(0, CS_OPT_MEM, (size_t)&mem) != CS_ERR_OK)
    return false;
  /* Aside: Capstone's first decode sorts a table in qsort's malloc'ed
   * scratch. */
  knit_run_aside(warm_up_all, NULL);
  return true;
}

bool knit_decoder_open(knit_decoder *d, const knit_isa_ops *isa)
{
  memset(d, 0, sizeof *d);
  csh h;
  if (cs_open((cs_arch)isa->cs_arch, (cs_mode)isa->cs_mode, &h) != CS_ERR_OK)
    return false;
  if (cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
    cs_close(&h);
    return false;
  }
  cs_insn *insn = cs_malloc(h);
  if (!insn) {
    cs_close(&h);
    return false;
  }
  d->handle = h;
  d->insn = insn;
  d->isa = isa;
  d->open = true;
  return true;
}

void knit_decoder_close(knit_decoder *d)
{
  if (!d->open)
    return;
  csh h = d->handle;
  cs_free(d->insn, 1);
  cs_close(&h);
  d->open = false;
}
