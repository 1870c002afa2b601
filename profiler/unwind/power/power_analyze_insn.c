/* The POWER analyzer's model of single instructions: how each one changes
 * the frame state. Decoding helpers, branch classification, jump tables and
 * the frame model. Each instruction is first classified into a record of
 * what the model reads of it (once per analysis), then applied to a state
 * (on every pass). The driver is unwind/analyze.c; power_analyze.c says
 * what is modelled and why. */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/power/power_analyze_internal.h"

/* ---- Decoding helpers ---------------------------------------------------- */

/* The GPR number of a Capstone register, or NO_REG. */
static int gpr(unsigned reg)
{
  if (reg >= PPC_REG_R0 && reg <= PPC_REG_R31)
    return (int)(reg - PPC_REG_R0);
  if (reg == PPC_REG_X2) /* r2 under its TOC-pointer name */
    return 2;
  return NO_REG;
}

static int op_gpr(const cs_ppc *p, int i)
{
  if (i >= p->op_count || p->operands[i].type != PPC_OP_REG)
    return NO_REG;
  return gpr(p->operands[i].reg);
}

static bool op_imm(const cs_ppc *p, int i, int64_t *imm)
{
  if (i >= p->op_count || p->operands[i].type != PPC_OP_IMM)
    return false;
  *imm = p->operands[i].imm;
  return true;
}

static bool starts(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_store(const char *mn)
{
  return starts(mn, "st");
}

/* Update forms (stdu, stdux, ldu, lwzux, ...) also write their base. None
 * of the other loads and stores has a 'u' in its name. */
static bool is_update_form(const char *mn)
{
  return (mn[0] == 'l' || is_store(mn)) && strchr(mn + 1, 'u') != NULL;
}

/* Instructions whose first operand is a source, not a destination. */
static bool writes_no_gpr(const char *mn)
{
  return mn[0] == 'b' || starts(mn, "cmp") || starts(mn, "tw") || starts(mn, "td") ||
         starts(mn, "trap") || starts(mn, "dcb") || starts(mn, "icb") || starts(mn, "mt") ||
         (is_store(mn) && !is_update_form(mn));
}

/* The base register an update form writes. */
static int update_base(const cs_ppc *p)
{
  for (int i = 1; i < p->op_count; i++) {
    if (p->operands[i].type == PPC_OP_MEM)
      return gpr(p->operands[i].mem.base);
  }
  return op_gpr(p, 1); /* x-form: rS/rD, rA, rB */
}

/* Collects the GPRs an instruction writes, as a mask. */
static uint32_t gprs_written(const cs_insn *insn)
{
  const cs_ppc *p = &insn->detail->ppc;
  const char *mn = insn->mnemonic;
  uint32_t mask = 0;
  if (is_update_form(mn)) {
    int base = update_base(p);
    if (base != NO_REG)
      mask |= 1u << base;
  }
  if (!writes_no_gpr(mn)) {
    int d = op_gpr(p, 0);
    if (d != NO_REG)
      mask |= 1u << d;
  }
  return mask;
}

/* ---- Branches ------------------------------------------------------------ */

/* Classifies by mnemonic: Capstone 4 gives PPC branches neither groups nor
 * a consistent id for the many conditional aliases (ble, bdnz, beqlr+...). */
static branch_info classify_branch(const cs_insn *insn)
{
  branch_info b = {0};
  const char *mn = insn->mnemonic;
  if (mn[0] != 'b' || starts(mn, "brinc"))
    return b;
  b.is_branch = true;
  char name[16];
  size_t n = strlen(mn);
  if (n >= sizeof name)
    n = sizeof name - 1;
  memcpy(name, mn, n);
  name[n] = '\0';
  while (n > 0 && (name[n - 1] == '+' || name[n - 1] == '-'))
    name[--n] = '\0'; /* prediction hints */
  b.links = n > 1 && (name[n - 1] == 'l' || (n > 2 && name[n - 2] == 'l' && name[n - 1] == 'a'));
  b.to_ctr = strstr(name, "ctr") != NULL;
  b.to_lr =
      !b.to_ctr && n >= 3 && (strcmp(name + n - 2, "lr") == 0 || strcmp(name + n - 3, "lrl") == 0);
  b.conditional =
      !(strcmp(name, "b") == 0 || strcmp(name, "ba") == 0 || strcmp(name, "bl") == 0 ||
        strcmp(name, "bla") == 0 || strcmp(name, "blr") == 0 || strcmp(name, "blrl") == 0 ||
        strcmp(name, "bctr") == 0 || strcmp(name, "bctrl") == 0);
  const cs_ppc *p = &insn->detail->ppc;
  if (!b.to_lr && !b.to_ctr && p->op_count > 0) {
    int64_t imm;
    if (op_imm(p, p->op_count - 1, &imm)) {
      b.has_target = true;
      b.target = (uint64_t)imm;
    }
  }
  return b;
}

/* ---- The frame model ----------------------------------------------------- */

/* Reports the queued saves (see the file comment). As in gcc, a copy of LR
 * in a GPR that is reported makes that GPR LR's home until LR is saved. */
void knit_power_publish(frame_state *s)
{
  if (s->lr_queued)
    s->lr_home = s->ra_saved ? NO_REG : s->ra_reg;
  s->lr_queued = 0;
  s->ra_pending = 0;
  s->fp_pending = 0;
  s->queued = 0;
}

/* The word at r1 after r1 moved: the frame's own back chain when r1 is back
 * at the depth where it was stored, else unknown. */
static void chain_after_move(frame_state *s)
{
  s->chain_known = s->sp_known && s->alloc_known && s->sp_depth == s->alloc_depth;
  if (s->chain_known)
    s->chain_depth = s->alloc_chain;
}

static void set_sp(frame_state *s, int32_t depth)
{
  s->sp_depth = depth;
  s->sp_known = 1;
  chain_after_move(s);
}

static void lose_sp(frame_state *s)
{
  s->sp_known = 0;
  s->chain_known = 0;
}

/* r31 is overwritten by something other than its restore. */
static void clobber_fp(frame_state *s)
{
  s->fp_frame = 0;
  s->cfa_on_fp = 0;
  s->r31_caller = 0;
}

/* The distance below the CFA of the address held by register r, if known. */
static bool cfa_rel(const ppc_model *a, const frame_state *s, int r, int32_t *depth)
{
  if (r == GPR_SP && s->sp_known) {
    *depth = s->sp_depth;
    return true;
  }
  if (r == GPR_FP && s->fp_frame) {
    *depth = s->fp_depth;
    return true;
  }
  if (r > 0 && r != GPR_SP && r != GPR_FP && a->regs[r].kind == VAL_CFA_REL) {
    *depth = (int32_t)a->regs[r].v;
    return true;
  }
  return false;
}

static bool const_of(const ppc_model *a, int r, int64_t *c)
{
  if (r == NO_REG || r == GPR_SP || r == GPR_FP || a->regs[r].kind != VAL_CONST)
    return false;
  *c = a->regs[r].v;
  return true;
}

static void set_reg(ppc_model *a, int r, value_kind kind, int64_t v)
{
  if (r != NO_REG) {
    a->regs[r].kind = (uint8_t)kind;
    a->regs[r].v = v;
  }
}

/* Any write of a GPR not modeled above. */
static void clobber(ppc_model *a, frame_state *s, uint32_t written)
{
  for (int r = 0; r < 32; r++) {
    if (!(written & (1u << r)))
      continue;
    if (r == GPR_SP)
      lose_sp(s);
    else if (r == GPR_FP)
      clobber_fp(s);
    else
      set_reg(a, r, VAL_UNKNOWN, 0);
    if (r == s->ra_reg)
      s->ra_reg = NO_REG;
  }
}

/* The frame is allocated at r1 + delta, the old r1 stored as back chain. */
static void allocate(frame_state *s, int64_t delta, bool chain_is_old_sp, bool chain_known,
                     int32_t chain_depth)
{
  int32_t old_depth = s->sp_depth;
  bool old_known = s->sp_known;
  if (chain_is_old_sp) {
    chain_known = old_known;
    chain_depth = old_depth;
  }
  if (old_known)
    s->sp_depth = old_depth - (int32_t)delta;
  s->sp_known = old_known;
  s->chain_known = chain_known;
  s->chain_depth = chain_depth;
  if (s->sp_known && chain_known) {
    s->alloc_known = 1;
    s->alloc_depth = s->sp_depth;
    s->alloc_chain = chain_depth;
  }
}

/* A store of register src at CFA - depth + disp. */
static void model_store_slot(frame_state *s, int src, int32_t slot, bool is_doubleword)
{
  if (!is_doubleword)
    return;
  if (src != NO_REG && src == s->ra_reg) {
    /* A second store of the same copy (a spill of the register that holds
     * it) leaves the first, which gcc's CFI names, in charge. */
    if (s->ra_saved)
      return;
    s->ra_saved = 1;
    s->ra_slot = slot;
    if (s->sp_known && s->sp_depth > 0) {
      /* After the frame is allocated, gcc saves LR as a separately
       * shrink-wrapped component, whose store carries its own CFI note:
       * reported at once, not queued like the prologue's. */
      s->ra_pending = 0;
      s->lr_queued = 0;
      s->lr_home = NO_REG;
      return;
    }
    s->ra_pending = 1;
    s->lr_queued = 1;
  } else if (src == GPR_FP && s->r31_caller && !s->fp_saved) {
    s->fp_saved = 1;
    s->fp_pending = 1;
    s->fp_slot = slot;
    s->queued |= 1u << src;
  } else if (src >= 14) {
    s->queued |= 1u << src; /* callee-saved: gcc queues it the same way */
  }
}

static void model_store(ppc_model *a, frame_state *s, const ppc_record *r)
{
  uint32_t written = r->written;
  int src = r->gpr[0];
  bool dword = (r->form & PPC_STORE_DWORD) != 0;
  if ((r->form & PPC_STORE_STDU) && r->op_count == 2 && r->mem1 && r->mem_base == GPR_SP) {
    if (src == GPR_SP) {
      allocate(s, r->mem_disp, true, false, 0);
    } else {
      int32_t d;
      bool known = cfa_rel(a, s, src, &d);
      allocate(s, r->mem_disp, false, known, d);
    }
    return;
  }
  if ((r->form & PPC_STORE_STDUX) && r->gpr[1] == GPR_SP) {
    int64_t c;
    int32_t d = 0;
    bool chain_old = src == GPR_SP;
    bool chain_known = !chain_old && cfa_rel(a, s, src, &d);
    if (const_of(a, r->gpr[2], &c)) {
      allocate(s, c, chain_old, chain_known, d);
    } else {
      /* A dynamic size: r1 is lost, but the chain word gives the CFA. */
      int32_t old_depth = s->sp_depth;
      bool old_known = s->sp_known;
      lose_sp(s);
      s->chain_known = chain_old ? old_known : chain_known;
      s->chain_depth = chain_old ? old_depth : d;
    }
    return;
  }
  if (r->op_count >= 2 && r->mem1) {
    int base = r->mem_base;
    int32_t depth;
    if (base != NO_REG && cfa_rel(a, s, base, &depth)) {
      int32_t slot = r->mem_disp - depth;
      if (base == GPR_SP && r->mem_disp == 0 && dword) {
        /* The back chain word is rewritten (alloca's epilogue). */
        int32_t d;
        s->chain_known = cfa_rel(a, s, src, &d);
        s->chain_depth = d;
      }
      model_store_slot(s, src, slot, dword);
    }
  }
  clobber(a, s, written); /* the base of other update forms */
}

/* ld rD,d(rB): restores, back chain loads, copies of the return address.
 * What the load means is decided on the state before it; the write itself
 * is then applied like any other. */
static void model_load(ppc_model *a, frame_state *s, const ppc_record *r)
{
  uint32_t written = r->written;
  int dst = r->gpr[0];
  bool chain = false, fp_restore = false, ra_copy = false;
  int32_t chain_depth = 0;
  if (r->op_count == 2 && r->mem1 && dst != NO_REG) {
    int base = r->mem_base;
    int32_t disp = r->mem_disp, depth;
    /* The back chain is known even where r1 is not (after alloca). */
    chain = base == GPR_SP && disp == 0 && s->chain_known;
    chain_depth = s->chain_depth;
    if (base != NO_REG && cfa_rel(a, s, base, &depth)) {
      int32_t slot = disp - depth;
      fp_restore = dst == GPR_FP && s->fp_saved && slot == s->fp_slot;
      ra_copy = s->ra_saved && slot == s->ra_slot;
    }
  }
  clobber(a, s, written);
  if (chain && dst == GPR_SP) {
    set_sp(s, chain_depth); /* ld r1,0(r1): the frame is popped */
    s->cfa_on_fp = 0;
  } else if (chain && dst != GPR_FP) {
    set_reg(a, dst, VAL_CFA_REL, chain_depth);
  } else if (fp_restore) {
    s->fp_saved = 0;
    s->fp_pending = 0;
    s->r31_caller = 1;
  } else if (ra_copy && dst != GPR_SP && dst != GPR_FP) {
    s->ra_reg = (int8_t)dst;
  }
}

/* addi rD,rS,imm (and mr, an addi of 0 here): moves of r1 and r31, copies
 * of addresses in the frame, constants. */
static void model_addi(ppc_model *a, frame_state *s, int dst, int src, int64_t imm,
                       uint32_t written)
{
  int32_t depth = 0;
  int64_t c = 0;
  bool rel = cfa_rel(a, s, src, &depth);
  /* rA = 0 means the literal 0 in addi (that is li). */
  bool con = src == 0 || src == NO_REG || const_of(a, src, &c);
  clobber(a, s, written);
  if (dst == GPR_SP) {
    if (rel)
      set_sp(s, depth - (int32_t)imm);
    /* r1 restored from the frame pointer is the epilogue: gcc's CFA
     * returns to r1 there (a VLA's end restores r1 from another copy and
     * keeps the CFA on r31). */
    if (rel && src == GPR_FP)
      s->cfa_on_fp = 0;
  } else if (dst == GPR_FP) {
    if (rel) {
      s->fp_frame = 1;
      s->fp_depth = depth - (int32_t)imm;
    }
  } else if (rel) {
    set_reg(a, dst, VAL_CFA_REL, depth - imm);
  } else if (con) {
    set_reg(a, dst, VAL_CONST, c + imm);
  }
}

/* mr rD,rS. */
static void model_mr(ppc_model *a, frame_state *s, int dst, int src, uint32_t written)
{
  bool sp_known = s->sp_known;
  int32_t depth = s->sp_depth;
  if (dst == GPR_FP && src == GPR_SP && sp_known) {
    /* The frame pointer: the CFA follows r31 from here, as in gcc's CFI. */
    clobber(a, s, written);
    s->fp_frame = 1;
    s->fp_depth = depth;
    s->cfa_on_fp = 1;
    return;
  }
  if (src != NO_REG && src == s->ra_reg && dst != GPR_SP && dst != GPR_FP) {
    clobber(a, s, written);
    s->ra_reg = (int8_t)dst;
    return;
  }
  model_addi(a, s, dst, src, 0, written);
}

/* add rD,rA,rB: frame sizes beyond 16 bits come in a register. */
static void model_add(ppc_model *a, frame_state *s, const ppc_record *r)
{
  uint32_t written = r->written;
  int dst = r->gpr[0], x = r->gpr[1], y = r->gpr[2];
  int64_t cx, cy;
  int32_t depth;
  if (cfa_rel(a, s, x, &depth) && const_of(a, y, &cy)) {
    model_addi(a, s, dst, x, cy, written);
  } else if (cfa_rel(a, s, y, &depth) && const_of(a, x, &cx)) {
    model_addi(a, s, dst, y, cx, written);
  } else if (const_of(a, x, &cx) && const_of(a, y, &cy)) {
    clobber(a, s, written);
    if (dst != GPR_SP && dst != GPR_FP)
      set_reg(a, dst, VAL_CONST, cx + cy);
  } else {
    clobber(a, s, written);
  }
}

/* Updates s for one instruction other than a branch. */
static void model_insn(ppc_model *a, frame_state *s, const ppc_record *rec)
{
  int d = rec->gpr[0], r = rec->gpr[1];
  int64_t imm, c;
  uint32_t written = rec->written;

  if (rec->kind == PPC_MFLR && d != NO_REG) {
    clobber(a, s, written);
    if (s->lr_has_ra) {
      /* A second copy taken before the first is saved (code that also
       * wants its own return address, as __builtin_return_address(0)
       * does) leaves the first copy, the one about to be saved, in charge;
       * r0 is the register gcc saves from, so a copy into r0 wins. */
      bool keep_first = !s->ra_saved && s->ra_reg != NO_REG && d != 0;
      if (keep_first)
        return;
      /* Along control flow from the entry a save is known to stand: a
       * copy taken after it (the return address passed on as an
       * argument) does not undo it. */
      if (s->ra_saved && !s->guessed)
        return;
      s->ra_reg = (int8_t)d;
      s->lr_queued = 1;
      /* Code that copies LR while it still holds the return address is
       * about to save it: on this path it is not saved yet. gcc's separate
       * shrink-wrapping saves LR only in the blocks that call, so a block
       * reached from one that did not save it looks like this. */
      s->ra_saved = 0;
      s->ra_pending = 0;
    }
  } else if (rec->kind == PPC_MTLR) {
    /* The return address is back in LR: gcc restores LR's rule here. */
    s->lr_has_ra = d != NO_REG && d == s->ra_reg;
    if (s->lr_has_ra) {
      s->ra_saved = 0;
      s->ra_pending = 0;
    }
  } else if (rec->kind == PPC_STORE) {
    model_store(a, s, rec);
  } else if (rec->kind == PPC_LD) {
    model_load(a, s, rec);
  } else if (rec->kind == PPC_MR && d != NO_REG && r != NO_REG) {
    model_mr(a, s, d, r, written);
  } else if ((rec->kind == PPC_ADDI || rec->kind == PPC_SUBI) && d != NO_REG && rec->imm2_ok) {
    /* Capstone may give the signed 16-bit immediate as unsigned. */
    imm = (int16_t)(uint16_t)rec->imm2;
    model_addi(a, s, d, r, rec->kind == PPC_SUBI ? -imm : imm, written);
  } else if ((rec->kind == PPC_LI || rec->kind == PPC_LIS) && d != NO_REG && rec->imm1_ok) {
    clobber(a, s, written);
    int64_t v = (int16_t)(uint16_t)rec->imm1;
    if (d != GPR_SP && d != GPR_FP)
      set_reg(a, d, VAL_CONST, rec->kind == PPC_LIS ? v * 65536 : v);
  } else if (rec->kind == PPC_ORI && d != NO_REG && rec->imm2_ok) {
    imm = rec->imm2;
    if (d == 2 && r == 2 && imm == 0)
      return; /* gcc's nop */
    bool con = const_of(a, r, &c);
    clobber(a, s, written);
    if (con && d != GPR_SP && d != GPR_FP)
      set_reg(a, d, VAL_CONST, c | (imm & 0xffff));
  } else if (rec->kind == PPC_ADD && rec->op_count == 3) {
    model_add(a, s, rec);
  } else {
    clobber(a, s, written);
  }
}

/* ---- Jump tables and branches --------------------------------------------- */

/* gcc's jump table (switch): the bctr is followed by the table itself,
 * 32-bit offsets of the cases from the table's start, which is the address
 * after the bctr (addis/addi of it from the TOC, lwax, add, mtctr, bctr).
 * Its cases are entered from the bctr with the bctr's state, a followed
 * state: recording them as branch targets keeps a case that saves LR
 * itself from being taken for a guess (and giving way to, or passing on,
 * the state of a neighbouring block that is not a case). A word is an
 * entry when its primary opcode is 0 or 63, that is, an offset within
 * 64 MiB; gcc's entries are 4-byte aligned and land in the function outside
 * the table. Anything else (clang's tables are in .rodata, and the code
 * after them begins with an instruction; a traceback table begins with a
 * zero word, an offset into itself) records nothing. */
static void record_jump_table(const knit_power_abi *abi, knit_analysis *an, uint64_t at,
                              const uint8_t *p, size_t left, uint64_t base, const frame_state *s)
{
  size_t n = 0;
  while (n + 4 <= left) {
    uint32_t w = knit_power_word(abi, p + n);
    uint64_t target = base + (uint64_t)(int64_t)(int32_t)w;
    if ((w >> 26 != 0 && w >> 26 != 63) || (w & 3) != 0 || !knit_analysis_in_function(an, target))
      break;
    n += 4;
  }
  if (n == 0)
    return;
  for (size_t i = 0; i < n; i += 4) {
    uint32_t w = knit_power_word(abi, p + i);
    uint64_t target = base + (uint64_t)(int64_t)(int32_t)w;
    if (target >= base && target < base + n)
      return; /* into the words themselves: not a table */
  }
  for (size_t i = 0; i < n; i += 4) {
    uint32_t w = knit_power_word(abi, p + i);
    knit_analysis_record_target(an, at, base + (uint64_t)(int64_t)(int32_t)w, s);
  }
}

/* The control flow of a branch, and its effect on LR. */
static knit_flow_kind branch_flow(const knit_analysis *an, frame_state *s, const branch_info *b)
{
  if (b->links) {
    s->lr_has_ra = 0; /* a call (or bcl to read the pc) overwrites LR */
    return FLOW_NEXT;
  }
  if (b->conditional)
    return b->has_target && !b->to_lr && !b->to_ctr ? FLOW_BRANCH : FLOW_NEXT;
  if (b->has_target && knit_analysis_in_function(an, b->target))
    return FLOW_JUMP;
  return FLOW_END; /* blr, bctr, or b to another function: a tail call */
}

/* ---- Classifying: what the model reads of an instruction ---------------- */

/* A load or store whose base is the literal 0 (RA = 0 in a D-form access:
 * Capstone prints "d(0)") reads or writes the first 32 KiB of the address
 * space, which Linux never maps: no program executes one. Such a word is
 * data among the code: gcc's traceback table after a function, whose flag
 * bytes (0x80 0x00 0x00 0x00 and the like) decode as lwz r0,0(0) where
 * instruction words are big-endian (ppc64); little-endian, the same bytes
 * decode as nothing. */
static bool is_absolute_access(const cs_insn *insn)
{
  size_t n = strlen(insn->op_str);
  return n > 3 && strcmp(insn->op_str + n - 3, "(0)") == 0;
}

/* gcc's alignment nops ("nop", "ori r2,r2,0") are never executed after the
 * end of a path, nor are data words that decode as impossible accesses. */
static bool is_padding(const cs_insn *insn)
{
  return strcmp(insn->mnemonic, "nop") == 0 ||
         (strcmp(insn->mnemonic, "ori") == 0 && strcmp(insn->op_str, "r2, r2, 0") == 0) ||
         is_absolute_access(insn);
}

/* The linker's TOC restore in the slot after a call to another module
 * (ELFv2 saves r2 at 24(r1), ELFv1 at 40(r1)): part of the call sequence,
 * so the block after it is still the call's fall-through, which a noreturn
 * call never takes (bl abort; ld r2,24(r1); then a block a branch enters).
 * Both slots are accepted under both ABIs: r2 is the TOC pointer under
 * either, never allocated to anything else, so a load of it from the stack
 * is a TOC restore wherever it comes from. */
static bool is_toc_restore(const cs_insn *insn)
{
  return strcmp(insn->mnemonic, "ld") == 0 &&
         (strcmp(insn->op_str, "r2, 0x18(r1)") == 0 || strcmp(insn->op_str, "r2, 0x28(r1)") == 0);
}

static ppc_kind kind_of(const char *mn)
{
  static const struct {
    const char *mn;
    ppc_kind kind;
  } names[] = {
      {"mflr", PPC_MFLR}, {"mtlr", PPC_MTLR}, {"ld", PPC_LD},     {"mr", PPC_MR},
      {"addi", PPC_ADDI}, {"subi", PPC_SUBI}, {"li", PPC_LI},     {"lis", PPC_LIS},
      {"ori", PPC_ORI},   {"add", PPC_ADD},   {"trap", PPC_TRAP},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(mn, names[i].mn) == 0)
      return names[i].kind;
  return is_store(mn) ? PPC_STORE : PPC_OTHER;
}

void knit_power_classify(size_t cs_handle, const cs_insn *insn, void *rec)
{
  (void)cs_handle;
  ppc_record *r = rec;
  memset(r, 0, sizeof *r);
  const cs_ppc *p = &insn->detail->ppc;
  const char *mn = insn->mnemonic;
  r->kind = (uint8_t)kind_of(mn);
  if (starts(mn, "trap"))
    r->form |= PPC_TRAP_FORM;
  if (strcmp(mn, "std") == 0 || strcmp(mn, "stdu") == 0 || strcmp(mn, "stdx") == 0 ||
      strcmp(mn, "stdux") == 0)
    r->form |= PPC_STORE_DWORD;
  if (strcmp(mn, "stdu") == 0)
    r->form |= PPC_STORE_STDU;
  if (strcmp(mn, "stdux") == 0)
    r->form |= PPC_STORE_STDUX;
  r->op_count = p->op_count;
  for (int i = 0; i < 3; i++)
    r->gpr[i] = (int8_t)op_gpr(p, i);
  r->mem_base = NO_REG;
  if (p->op_count >= 2 && p->operands[1].type == PPC_OP_MEM) {
    r->mem1 = true;
    r->mem_base = (int8_t)gpr(p->operands[1].mem.base);
    r->mem_disp = p->operands[1].mem.disp;
  }
  r->imm1_ok = op_imm(p, 1, &r->imm1);
  r->imm2_ok = op_imm(p, 2, &r->imm2);
  r->written = gprs_written(insn);
  branch_info b = classify_branch(insn);
  r->branch = b;
  uint64_t next = insn->address + insn->size;
  bool padding = is_padding(insn);
  if (padding)
    r->head.flags |= KNIT_INSN_PADDING;
  if (padding || is_toc_restore(insn))
    r->head.flags |= KNIT_INSN_CALL_SEQ;
  if (b.is_branch) {
    /* Any branch ends a run of tear-downs; calls, conditional branches
     * and bcl to read the pc too. */
    r->head.flags |= KNIT_INSN_BREAKS_RUN;
    /* At blr the return address is in LR, r1 is the caller's and r31 is
     * restored, whatever came before. */
    if (b.to_lr && !b.conditional && !b.links)
      r->head.flags |= KNIT_INSN_RETURN;
    /* A call, not bcl to read the pc. */
    if (b.links && b.has_target && b.target != next)
      r->head.flags |= KNIT_INSN_CALL;
  }
}

/* ---- Applying a record to a state ----------------------------------------- */

knit_flow_kind knit_power_apply(knit_analysis *an, void *state, const void *rec, uint64_t at,
                                uint64_t *target)
{
  ppc_model *a = an->model;
  frame_state *cur = state;
  const ppc_record *r = rec;
  const branch_info *b = &r->branch;
  uint64_t pc = at + r->head.size;
  frame_state before = *cur;
  /* Only a call from a frame of its own (stubs without one, as glink's,
   * keep LR in odd places and have no landing pads). */
  if (b->is_branch && b->links && !b->conditional && (!b->has_target || b->target != pc) &&
      cur->ra_saved && ((cur->sp_known && cur->sp_depth > 0) || cur->fp_frame)) {
    a->call_state = *cur;
    a->have_call = true;
  }
  bool table_jump = b->is_branch && b->to_ctr && !b->links && !b->conditional &&
                    (cur->ra_saved || (cur->sp_known && cur->sp_depth > 0));
  if (table_jump) {
    a->table_state = *cur;
    a->have_table = true;
    size_t left;
    const uint8_t *after = knit_analysis_code_at(an, pc, &left);
    record_jump_table(a->abi, an, at, after, left, pc, cur);
  }
  knit_flow_kind flow;
  if (b->is_branch) {
    flow = branch_flow(an, cur, b);
  } else if (r->kind == PPC_TRAP) {
    flow = FLOW_END;
  } else {
    model_insn(a, cur, r);
    flow = FLOW_NEXT;
  }
  /* gcc reports queued saves with the next change of the CFA, too. */
  knit_recipe rb, ra;
  knit_power_recipe(&before, &rb);
  knit_power_recipe(cur, &ra);
  if (rb.cfa_base != ra.cfa_base || rb.cfa_offset != ra.cfa_offset)
    knit_power_publish(cur);
  *target = b->target;
  return flow;
}
