/* Building a function's control-flow graph; see cfg.h. */
#include "structure/cfg.h"

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_flow.h"
#include "audit/audit_isa.h"

/* How control leaves one instruction. */
typedef enum insn_flow {
  INSN_NEXT,  /* falls through */
  INSN_COND,  /* falls through, and may go to target */
  INSN_JUMP,  /* goes to target only */
  INSN_END,   /* return, trap, tail call */
  INSN_TABLE, /* indirect jump: a jump table's dispatch, or a tail call */
} insn_flow;

typedef struct insn {
  uint64_t at;
  uint64_t target; /* INSN_COND or INSN_JUMP inside the function, else 0 */
  uint16_t size;
  uint8_t flow;    /* insn_flow */
  uint8_t padding; /* a nop or trap, which may be alignment filler */
} insn;

static insn_flow classify(const knit_isa_ops *isa, const knit_audit_isa *row, const cs_insn *in,
                          uint64_t lo, uint64_t hi, uint64_t *target)
{
  unsigned flags = knit_audit_flow(isa, in->mnemonic, in->op_str);
  uint64_t t = 0;
  bool branch = knit_audit_branch_target(isa, in->mnemonic, in->op_str, &t);
  bool direct = branch && t >= lo && t < hi;
  *target = 0;
  if (flags & KNIT_FLOW_CALL)
    return INSN_NEXT;
  if (flags & KNIT_FLOW_PATH_END) {
    if (!branch && row->indirect_jump && row->indirect_jump(in->mnemonic, in->op_str))
      return INSN_TABLE;
    if (!direct)
      return INSN_END;
    *target = t;
    return INSN_JUMP;
  }
  if (row->conditional && row->conditional(in->mnemonic)) {
    if (direct)
      *target = t;
    return INSN_COND;
  }
  return INSN_NEXT;
}

static int compare_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Whether addr is the address of a decoded instruction (insns by address). */
static bool is_insn_start(const insn *v, size_t n, uint64_t addr)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].at == addr)
      return true;
    if (v[mid].at < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return false;
}

/* Gives each block that no edge reaches (but the entry, and blocks of
 * padding alone) to the nearest indirect jump before it as one of its
 * cases; see cfg.h. v: the instructions, as out->insn_at. Returns 0, or
 * -1 when out of memory. */
static int add_cases(knit_cfg *out, const insn *v)
{
  size_t n = out->count;
  uint32_t *owner = malloc((n ? n : 1) * sizeof *owner);
  bool *reached = calloc(n ? n : 1, sizeof *reached);
  if (!owner || !reached) {
    free(owner);
    free(reached);
    return -1;
  }
  for (size_t b = 0; b < n; b++)
    for (unsigned k = 0; k < out->blocks[b].succ_count; k++)
      reached[out->blocks[b].succ[k]] = true;
  size_t count = 0;
  long table = -1; /* the last block before b that ends in an indirect jump */
  for (size_t b = 0; b < n; b++) {
    const knit_cfg_block *blk = &out->blocks[b];
    bool filler = true;
    for (uint32_t i = 0; i < blk->insn_count && filler; i++)
      filler = v[blk->first_insn + i].padding;
    if (b > 0 && !reached[b] && !filler && table >= 0) {
      owner[count++] = (uint32_t)b;
      out->blocks[table].case_count++;
    }
    if (blk->insn_count > 0 && v[blk->first_insn + blk->insn_count - 1].flow == INSN_TABLE)
      table = (long)b;
  }
  free(reached);
  out->cases = malloc((count ? count : 1) * sizeof *out->cases);
  if (!out->cases) {
    free(owner);
    return -1;
  }
  /* Each jump's cases in one run, in address order. */
  uint32_t next = 0;
  for (size_t b = 0; b < n; b++) {
    out->blocks[b].case_first = next;
    next += out->blocks[b].case_count;
    out->blocks[b].case_count = 0;
  }
  table = -1;
  size_t c = 0;
  for (size_t b = 0; b < n && c < count; b++) {
    if (owner[c] == b) {
      knit_cfg_block *t = &out->blocks[table];
      out->cases[t->case_first + t->case_count++] = (uint32_t)b;
      c++;
    }
    const knit_cfg_block *blk = &out->blocks[b];
    if (blk->insn_count > 0 && v[blk->first_insn + blk->insn_count - 1].flow == INSN_TABLE)
      table = (long)b;
  }
  free(owner);
  return 0;
}

int knit_cfg_build(const knit_isa_ops *isa, size_t cs, const uint8_t *code, size_t len,
                   uint64_t addr, knit_cfg *out)
{
  memset(out, 0, sizeof *out);
  const knit_audit_isa *row = knit_audit_isa_of(isa);
  if (!row)
    return -1;
  cs_insn *ci = cs_malloc((csh)cs);
  size_t cap = len / 2 + 16, n = 0;
  insn *v = malloc(cap * sizeof *v);
  uint64_t *leaders = malloc(2 * cap * sizeof *leaders); /* starts, then targets */
  size_t nlead = 0;
  int rc = -1;
  if (!ci || !v || !leaders)
    goto done;
  /* Decode linearly; bytes that do not decode are stepped over by the
   * ISA's smallest instruction (one byte on x86, four elsewhere). */
  const uint8_t *p = code;
  size_t left = len;
  uint64_t pc = addr, hi = addr + len;
  size_t step = isa->cs_arch == CS_ARCH_X86 ? 1 : 4;
  bool next_leads = true;
  while (left > 0) {
    if (!cs_disasm_iter((csh)cs, &p, &left, &pc, ci)) {
      size_t s = left < step ? left : step;
      p += s;
      left -= s;
      pc += s;
      next_leads = true;
      continue;
    }
    if (n == cap) {
      /* At most one instruction per byte: never reached for len/2 + 16
       * but on x86 with one-byte instructions. */
      size_t ncap = cap * 2;
      insn *nv = realloc(v, ncap * sizeof *v);
      if (!nv)
        goto done;
      v = nv;
      uint64_t *nl = realloc(leaders, 2 * ncap * sizeof *nl);
      if (!nl)
        goto done;
      leaders = nl;
      cap = ncap;
    }
    uint64_t target;
    insn_flow f = classify(isa, row, ci, addr, hi, &target);
    v[n] = (insn){.at = ci->address,
                  .target = target,
                  .size = ci->size,
                  .flow = (uint8_t)f,
                  .padding =
                      (knit_audit_flow(isa, ci->mnemonic, ci->op_str) & KNIT_FLOW_PADDING) != 0};
    if (next_leads)
      leaders[nlead++] = ci->address;
    next_leads = f != INSN_NEXT;
    n++;
  }
  /* Branch targets lead too (leaders holds at most n + n entries). */
  for (size_t i = 0; i < n; i++)
    if (v[i].target && is_insn_start(v, n, v[i].target))
      leaders[nlead++] = v[i].target;
  qsort(leaders, nlead, sizeof *leaders, compare_u64);
  size_t uniq = 0;
  for (size_t i = 0; i < nlead; i++)
    if (uniq == 0 || leaders[i] != leaders[uniq - 1])
      leaders[uniq++] = leaders[i];
  out->blocks = calloc(uniq ? uniq : 1, sizeof *out->blocks);
  if (!out->blocks)
    goto done;
  out->count = uniq;
  for (size_t b = 0; b < uniq; b++)
    out->blocks[b].start = leaders[b];
  out->insn_at = malloc((n ? n : 1) * sizeof *out->insn_at);
  if (!out->insn_at)
    goto done;
  out->insn_count = n;
  for (size_t i = 0; i < n; i++)
    out->insn_at[i] = v[i].at;
  /* Each block's extent and successors, from its last instruction. */
  size_t b = 0;
  for (size_t i = 0; i < n; i++) {
    while (b + 1 < uniq && v[i].at >= leaders[b + 1])
      b++;
    if (out->blocks[b].insn_count++ == 0)
      out->blocks[b].first_insn = (uint32_t)i;
    bool last = i + 1 == n || (b + 1 < uniq && v[i + 1].at >= leaders[b + 1]);
    if (!last)
      continue;
    knit_cfg_block *blk = &out->blocks[b];
    uint64_t after = v[i].at + v[i].size;
    blk->end = after;
    blk->last = v[i].at;
    blk->succ_count = 0;
    if ((v[i].flow == INSN_NEXT || v[i].flow == INSN_COND) && b + 1 < uniq &&
        leaders[b + 1] == after)
      blk->succ[blk->succ_count++] = (uint32_t)(b + 1);
    if ((v[i].flow == INSN_COND || v[i].flow == INSN_JUMP) && v[i].target) {
      long t = knit_cfg_block_of(out, v[i].target);
      if (t >= 0 && out->blocks[t].start == v[i].target &&
          (blk->succ_count == 0 || blk->succ[0] != (uint32_t)t))
        blk->succ[blk->succ_count++] = (uint32_t)t;
    }
  }
  if (add_cases(out, v) != 0)
    goto done;
  rc = 0;
done:
  if (rc != 0)
    knit_cfg_free(out);
  free(v);
  free(leaders);
  if (ci)
    cs_free(ci, 1);
  return rc;
}

long knit_cfg_block_of(const knit_cfg *g, uint64_t addr)
{
  /* The last block starting at or before addr. */
  size_t lo = 0, hi = g->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->blocks[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo == 0 ? -1 : (long)(lo - 1);
}

void knit_cfg_free(knit_cfg *g)
{
  free(g->blocks);
  free(g->insn_at);
  free(g->cases);
  memset(g, 0, sizeof *g);
}
