/* The ppc64le analyzer's model of single instructions: how each one changes
 * the frame state. Decoding helpers, branch classification and the frame
 * model. The sweep over a function and the recipes it writes are in
 * ppc64le_analyze.c; the file comment there says what is modelled and why. */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#include "unwind/ppc64le/ppc64le_analyze_internal.h"

/* ---- Decoding helpers ---------------------------------------------------- */

/* The GPR number of a Capstone register, or NO_REG. */
static int gpr(unsigned reg) {
  if (reg >= PPC_REG_R0 && reg <= PPC_REG_R31)
    return (int)(reg - PPC_REG_R0);
  if (reg == PPC_REG_X2) /* r2 under its TOC-pointer name */
    return 2;
  return NO_REG;
}

static int op_gpr(const cs_ppc *p, int i) {
  if (i >= p->op_count || p->operands[i].type != PPC_OP_REG)
    return NO_REG;
  return gpr(p->operands[i].reg);
}

static bool op_imm(const cs_ppc *p, int i, int64_t *imm) {
  if (i >= p->op_count || p->operands[i].type != PPC_OP_IMM)
    return false;
  *imm = p->operands[i].imm;
  return true;
}

bool knit_ppc64le_starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_store(const char *mn) { return knit_ppc64le_starts(mn, "st"); }

/* Update forms (stdu, stdux, ldu, lwzux, ...) also write their base. None
 * of the other loads and stores has a 'u' in its name. */
static bool is_update_form(const char *mn) {
  return (mn[0] == 'l' || is_store(mn)) && strchr(mn + 1, 'u') != NULL;
}

/* Instructions whose first operand is a source, not a destination. */
static bool writes_no_gpr(const char *mn) {
  return mn[0] == 'b' || knit_ppc64le_starts(mn, "cmp") || knit_ppc64le_starts(mn, "tw") ||
         knit_ppc64le_starts(mn, "td") || knit_ppc64le_starts(mn, "trap") || knit_ppc64le_starts(mn, "dcb") ||
         knit_ppc64le_starts(mn, "icb") || knit_ppc64le_starts(mn, "mt") || (is_store(mn) && !is_update_form(mn));
}

/* The base register an update form writes. */
static int update_base(const cs_ppc *p) {
  for (int i = 1; i < p->op_count; i++) {
    if (p->operands[i].type == PPC_OP_MEM)
      return gpr(p->operands[i].mem.base);
  }
  return op_gpr(p, 1); /* x-form: rS/rD, rA, rB */
}

/* Collects the GPRs an instruction writes, as a mask. */
uint32_t knit_ppc64le_gprs_written(const cs_insn *insn) {
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
branch_info knit_ppc64le_classify_branch(const cs_insn *insn) {
  branch_info b = {0};
  const char *mn = insn->mnemonic;
  if (mn[0] != 'b' || knit_ppc64le_starts(mn, "brinc"))
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
  b.to_lr = !b.to_ctr && n >= 3 &&
            (strcmp(name + n - 2, "lr") == 0 || strcmp(name + n - 3, "lrl") == 0);
  b.conditional = !(strcmp(name, "b") == 0 || strcmp(name, "ba") == 0 ||
                    strcmp(name, "bl") == 0 || strcmp(name, "bla") == 0 ||
                    strcmp(name, "blr") == 0 || strcmp(name, "blrl") == 0 ||
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
void knit_ppc64le_publish(frame_state *s) {
  if (s->lr_queued)
    s->lr_home = s->ra_saved ? NO_REG : s->ra_reg;
  s->lr_queued = 0;
  s->ra_pending = 0;
  s->fp_pending = 0;
  s->queued = 0;
}

/* The word at r1 after r1 moved: the frame's own back chain when r1 is back
 * at the depth where it was stored, else unknown. */
static void chain_after_move(frame_state *s) {
  s->chain_known = s->sp_known && s->alloc_known && s->sp_depth == s->alloc_depth;
  if (s->chain_known)
    s->chain_depth = s->alloc_chain;
}

static void set_sp(frame_state *s, int32_t depth) {
  s->sp_depth = depth;
  s->sp_known = 1;
  chain_after_move(s);
}

static void lose_sp(frame_state *s) {
  s->sp_known = 0;
  s->chain_known = 0;
}

/* r31 is overwritten by something other than its restore. */
static void clobber_fp(frame_state *s) {
  s->fp_frame = 0;
  s->cfa_on_fp = 0;
  s->r31_caller = 0;
}

/* The distance below the CFA of the address held by register r, if known. */
static bool cfa_rel(const analysis *a, const frame_state *s, int r, int32_t *depth) {
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

static bool const_of(const analysis *a, int r, int64_t *c) {
  if (r == NO_REG || r == GPR_SP || r == GPR_FP || a->regs[r].kind != VAL_CONST)
    return false;
  *c = a->regs[r].v;
  return true;
}

static void set_reg(analysis *a, int r, value_kind kind, int64_t v) {
  if (r != NO_REG) {
    a->regs[r].kind = (uint8_t)kind;
    a->regs[r].v = v;
  }
}

/* Any write of a GPR not modeled above. */
static void clobber(analysis *a, frame_state *s, uint32_t written) {
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
static void allocate(frame_state *s, int64_t delta, bool chain_is_old_sp,
                     bool chain_known, int32_t chain_depth) {
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
static void model_store_slot(frame_state *s, int src, int32_t slot,
                             bool is_doubleword) {
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

static void model_store(analysis *a, frame_state *s, const cs_insn *insn,
                        uint32_t written) {
  const cs_ppc *p = &insn->detail->ppc;
  const char *mn = insn->mnemonic;
  int src = op_gpr(p, 0);
  bool dword = strcmp(mn, "std") == 0 || strcmp(mn, "stdu") == 0 ||
               strcmp(mn, "stdx") == 0 || strcmp(mn, "stdux") == 0;
  if (strcmp(mn, "stdu") == 0 && p->op_count == 2 && p->operands[1].type == PPC_OP_MEM &&
      gpr(p->operands[1].mem.base) == GPR_SP) {
    if (src == GPR_SP) {
      allocate(s, p->operands[1].mem.disp, true, false, 0);
    } else {
      int32_t d;
      bool known = cfa_rel(a, s, src, &d);
      allocate(s, p->operands[1].mem.disp, false, known, d);
    }
    return;
  }
  if (strcmp(mn, "stdux") == 0 && op_gpr(p, 1) == GPR_SP) {
    int64_t c;
    int32_t d = 0;
    bool chain_old = src == GPR_SP;
    bool chain_known = !chain_old && cfa_rel(a, s, src, &d);
    if (const_of(a, op_gpr(p, 2), &c)) {
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
  if (p->op_count >= 2 && p->operands[1].type == PPC_OP_MEM) {
    int base = gpr(p->operands[1].mem.base);
    int32_t depth;
    if (base != NO_REG && cfa_rel(a, s, base, &depth)) {
      int32_t slot = p->operands[1].mem.disp - depth;
      if (base == GPR_SP && p->operands[1].mem.disp == 0 && dword) {
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
static void model_load(analysis *a, frame_state *s, const cs_insn *insn,
                       uint32_t written) {
  const cs_ppc *p = &insn->detail->ppc;
  int dst = op_gpr(p, 0);
  bool chain = false, fp_restore = false, ra_copy = false;
  int32_t chain_depth = 0;
  if (p->op_count == 2 && p->operands[1].type == PPC_OP_MEM && dst != NO_REG) {
    int base = gpr(p->operands[1].mem.base);
    int32_t disp = p->operands[1].mem.disp, depth;
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
static void model_addi(analysis *a, frame_state *s, int dst, int src,
                       int64_t imm, uint32_t written) {
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
static void model_mr(analysis *a, frame_state *s, int dst, int src,
                     uint32_t written) {
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
static void model_add(analysis *a, frame_state *s, const cs_ppc *p,
                      uint32_t written) {
  int dst = op_gpr(p, 0), x = op_gpr(p, 1), y = op_gpr(p, 2);
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

bool knit_ppc64le_in_function(const analysis *a, uint64_t target) {
  return target >= a->func_start && target < a->func_end;
}

/* Updates s for one instruction other than a branch. */
void knit_ppc64le_model_insn(analysis *a, frame_state *s, const cs_insn *insn) {
  const cs_ppc *p = &insn->detail->ppc;
  const char *mn = insn->mnemonic;
  int d = op_gpr(p, 0), r = op_gpr(p, 1);
  int64_t imm, c;
  uint32_t written = knit_ppc64le_gprs_written(insn);

  if (strcmp(mn, "mflr") == 0 && d != NO_REG) {
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
  } else if (strcmp(mn, "mtlr") == 0) {
    /* The return address is back in LR: gcc restores LR's rule here. */
    s->lr_has_ra = d != NO_REG && d == s->ra_reg;
    if (s->lr_has_ra) {
      s->ra_saved = 0;
      s->ra_pending = 0;
    }
  } else if (is_store(mn)) {
    model_store(a, s, insn, written);
  } else if (strcmp(mn, "ld") == 0) {
    model_load(a, s, insn, written);
  } else if (strcmp(mn, "mr") == 0 && d != NO_REG && r != NO_REG) {
    model_mr(a, s, d, r, written);
  } else if ((strcmp(mn, "addi") == 0 || strcmp(mn, "subi") == 0) &&
             d != NO_REG && op_imm(p, 2, &imm)) {
    /* Capstone may give the signed 16-bit immediate as unsigned. */
    imm = (int16_t)(uint16_t)imm;
    model_addi(a, s, d, r, strcmp(mn, "subi") == 0 ? -imm : imm, written);
  } else if ((strcmp(mn, "li") == 0 || strcmp(mn, "lis") == 0) && d != NO_REG &&
             op_imm(p, 1, &imm)) {
    clobber(a, s, written);
    int64_t v = (int16_t)(uint16_t)imm;
    if (d != GPR_SP && d != GPR_FP)
      set_reg(a, d, VAL_CONST, mn[2] == 's' ? v * 65536 : v);
  } else if (strcmp(mn, "ori") == 0 && d != NO_REG && op_imm(p, 2, &imm)) {
    if (d == 2 && r == 2 && imm == 0)
      return; /* gcc's nop */
    bool con = const_of(a, r, &c);
    clobber(a, s, written);
    if (con && d != GPR_SP && d != GPR_FP)
      set_reg(a, d, VAL_CONST, c | (imm & 0xffff));
  } else if (strcmp(mn, "add") == 0 && p->op_count == 3) {
    model_add(a, s, p, written);
  } else {
    clobber(a, s, written);
  }
}
