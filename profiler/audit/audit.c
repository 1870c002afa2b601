/* knit audit: opening a file (ELF, CFI, bounds, decoders), walking each
 * function's instructions and counting how the recipes compare with the
 * CFI. The rules themselves are read and compared in audit_rule.c. */
#include <capstone/capstone.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/audit_flow.h"
#include "audit/audit_lr.h"
#include "audit/audit_model.h"
#include "audit/audit_rule.h"
#include "audit/audit_symbols.h"

/* Recipes of one function. The analyzers merge equal neighbours, so even
 * libc's largest functions stay far below this; a function that needs more
 * gets its last recipe stretched and flagged by the analyzer. */
#define MAX_RECIPES 8192

struct knit_audit_target {
  char path[512];
  int fd;
  Elf *elf;
  const knit_isa_ops *isa;
  uint16_t machine;
  knit_audit_cfi cfi;
  knit_func_table funcs;
  bool funcs_read;
  /* Two Capstone handles: the analyzer's, as its contract asks, and one in
   * SKIPDATA mode for the walk, so that bytes that do not decode are
   * stepped over by the ISA's instruction size rather than guessed. */
  csh analyze_cs, walk_cs;
  cs_insn *analyze_insn, *walk_insn;
  bool analyze_open, walk_open;
  knit_recipe *recipes;
  /* The analyzer's workspace, as the recipe cache gives it one, so that
   * the audit measures the analysis the profiler runs. */
  knit_analyze_work *work;
  /* Per 4-byte slot of the function audited: a direct branch goes there
   * (ISAs with a frame model; see find_branch_targets). */
  uint8_t *branched_to;
  size_t branched_cap;
  knit_audit_symbols symbols;
  bool symbols_read;
  /* The code section of the previous lookup: functions come in address
   * order, so most lookups hit it. */
  uint64_t sec_addr, sec_size;
  const uint8_t *sec_bytes;
};

static const char *const category_names[KNIT_AUDIT_CAT_COUNT] = {
    [KNIT_AUDIT_CAT_UNCERTAIN] = "analyzer flagged uncertain",
    [KNIT_AUDIT_CAT_CFI_STATIC] = "CFI without the frame (hand-written)",
    [KNIT_AUDIT_CAT_UNDECODABLE] = "after undecodable bytes",
    [KNIT_AUDIT_CAT_AFTER_PATH_END] = "after a path end or noreturn call",
    [KNIT_AUDIT_CAT_CFA_REGISTER] = "CFA from the other register",
    [KNIT_AUDIT_CAT_CFA_OFFSET] = "CFA offset",
    [KNIT_AUDIT_CAT_RETURN_ADDRESS] = "return address location",
};

static const char *const skip_names[KNIT_AUDIT_SKIP_COUNT] = {
    [KNIT_AUDIT_SKIP_NO_CFI] = "no CFI",
    [KNIT_AUDIT_SKIP_CFI_FORM] = "rule not expressible",
    [KNIT_AUDIT_SKIP_JUMP_ENTERED] = "function entered by a jump",
    [KNIT_AUDIT_SKIP_PADDING] = "padding or data",
    [KNIT_AUDIT_SKIP_OUTERMOST] = "outermost frame",
    [KNIT_AUDIT_SKIP_CFI_NOT_EXACT] = "CFI not exact here (synchronous unwind tables)",
};

const char *knit_audit_category_name(knit_audit_category c)
{
  return c < KNIT_AUDIT_CAT_COUNT ? category_names[c] : "?";
}

const char *knit_audit_skip_name(knit_audit_skip s)
{
  return s < KNIT_AUDIT_SKIP_COUNT ? skip_names[s] : "?";
}

double knit_audit_agreement(const knit_audit_result *res)
{
  if (res->instructions == 0)
    return 100.0;
  return 100.0 * (double)res->agree / (double)res->instructions;
}

static void close_decoders(knit_audit_target *t)
{
  if (t->analyze_insn)
    cs_free(t->analyze_insn, 1);
  if (t->walk_insn)
    cs_free(t->walk_insn, 1);
  if (t->analyze_open)
    cs_close(&t->analyze_cs);
  if (t->walk_open)
    cs_close(&t->walk_cs);
  t->analyze_insn = t->walk_insn = NULL;
  t->analyze_open = t->walk_open = false;
}

static bool open_decoders(knit_audit_target *t, char *err, size_t errlen)
{
  cs_arch arch = (cs_arch)t->isa->cs_arch;
  cs_mode mode = (cs_mode)t->isa->cs_mode;
  t->analyze_open = cs_open(arch, mode, &t->analyze_cs) == CS_ERR_OK;
  t->walk_open = t->analyze_open && cs_open(arch, mode, &t->walk_cs) == CS_ERR_OK;
  if (!t->walk_open) {
    snprintf(err, errlen, "%s: Capstone cannot decode %s", t->path, t->isa->name);
    return false;
  }
  cs_option(t->analyze_cs, CS_OPT_DETAIL, CS_OPT_ON);
  cs_option(t->walk_cs, CS_OPT_SKIPDATA, CS_OPT_ON);
  t->analyze_insn = cs_malloc(t->analyze_cs);
  t->walk_insn = cs_malloc(t->walk_cs);
  if (!t->analyze_insn || !t->walk_insn) {
    snprintf(err, errlen, "%s: out of memory", t->path);
    return false;
  }
  return true;
}

void knit_audit_close(knit_audit_target *t)
{
  if (!t)
    return;
  close_decoders(t);
  if (t->symbols_read)
    knit_audit_symbols_free(&t->symbols);
  if (t->funcs_read)
    knit_bounds_free(&t->funcs);
  knit_audit_cfi_close(&t->cfi);
  if (t->elf)
    elf_end(t->elf);
  if (t->fd >= 0)
    close(t->fd);
  free(t->recipes);
  free(t->work);
  free(t->branched_to);
  free(t);
}

/* Checks that the file is an ELF file of an ISA knit knows. */
static bool check_elf(knit_audit_target *t, char *err, size_t errlen)
{
  if (elf_kind(t->elf) != ELF_K_ELF) {
    snprintf(err, errlen, "%s: not an ELF file", t->path);
    return false;
  }
  GElf_Ehdr eh;
  if (!gelf_getehdr(t->elf, &eh)) {
    snprintf(err, errlen, "%s: unreadable ELF header: %s", t->path, elf_errmsg(-1));
    return false;
  }
  t->machine = eh.e_machine;
  /* By machine, class and byte order: one machine number names both byte
   * orders of 64-bit PowerPC, and the big-endian one (ELFv1) would be a
   * row of its own. */
  t->isa = knit_isa_for_elf(eh.e_machine, eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA]);
  if (!t->isa) {
    char names[128];
    knit_isa_names(names, sizeof names);
    snprintf(err, errlen, "%s: ELF machine %u (%s-bit, %s-endian) is not an ISA knit supports (%s)",
             t->path, eh.e_machine, eh.e_ident[EI_CLASS] == ELFCLASS64 ? "64" : "32",
             eh.e_ident[EI_DATA] == ELFDATA2MSB ? "big" : "little", names);
    return false;
  }
  return true;
}

knit_audit_target *knit_audit_open(const char *path, char *err, size_t errlen)
{
  knit_audit_target *t = calloc(1, sizeof *t);
  if (!t) {
    snprintf(err, errlen, "%s: out of memory", path);
    return NULL;
  }
  snprintf(t->path, sizeof t->path, "%s", path);
  t->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (t->fd < 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    knit_audit_close(t);
    return NULL;
  }
  elf_version(EV_CURRENT);
  t->elf = elf_begin(t->fd, ELF_C_READ_MMAP, NULL);
  if (!t->elf) {
    snprintf(err, errlen, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
    knit_audit_close(t);
    return NULL;
  }
  if (!check_elf(t, err, errlen)) {
    knit_audit_close(t);
    return NULL;
  }
  char berr[256];
  if (knit_bounds_read(path, &t->funcs, berr, sizeof berr) != 0) {
    snprintf(err, errlen, "%s: function bounds: %s", path, berr);
    knit_audit_close(t);
    return NULL;
  }
  t->funcs_read = true;
  knit_audit_cfi_open(&t->cfi, t->elf);
  t->recipes = malloc(MAX_RECIPES * sizeof *t->recipes);
  t->work = malloc(sizeof *t->work);
  if (!t->recipes || !t->work) {
    snprintf(err, errlen, "%s: out of memory", path);
    knit_audit_close(t);
    return NULL;
  }
  if (!open_decoders(t, err, errlen)) {
    knit_audit_close(t);
    return NULL;
  }
  return t;
}

const knit_isa_ops *knit_audit_target_isa(const knit_audit_target *t)
{
  return t->isa;
}

const knit_func_table *knit_audit_target_functions(const knit_audit_target *t)
{
  return &t->funcs;
}

/* The bytes of [start, end) as the file holds them, clipped to the end of
 * their section; NULL when no section with contents holds start (a
 * separate debug file, say). */
static const uint8_t *code_at(knit_audit_target *t, uint64_t start, uint64_t end, size_t *len)
{
  if (!(t->sec_bytes && start >= t->sec_addr && start < t->sec_addr + t->sec_size)) {
    t->sec_bytes = NULL;
    for (Elf_Scn *scn = elf_nextscn(t->elf, NULL); scn; scn = elf_nextscn(t->elf, scn)) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC) ||
          start < sh.sh_addr || start >= sh.sh_addr + sh.sh_size)
        continue;
      /* Raw bytes: code is never translated, whatever the file's order. */
      Elf_Data *d = elf_rawdata(scn, NULL);
      if (!d || !d->d_buf || d->d_size < sh.sh_size)
        return NULL;
      t->sec_addr = sh.sh_addr;
      t->sec_size = sh.sh_size;
      t->sec_bytes = d->d_buf;
      break;
    }
    if (!t->sec_bytes)
      return NULL;
  }
  uint64_t limit = t->sec_addr + t->sec_size;
  *len = (size_t)((end < limit ? end : limit) - start);
  return t->sec_bytes + (start - t->sec_addr);
}

static void print_disagreement(knit_audit_target *t, uint64_t func, uint64_t at,
                               const knit_frame_rule *recipe, const knit_frame_rule *cfi,
                               knit_audit_category cat, FILE *out)
{
  if (!t->symbols_read) {
    t->symbols_read = true;
    knit_audit_symbols_read(t->elf, &t->symbols); /* no names on failure */
  }
  /* A stripped library names only its exported functions: a local one is
   * named by its address rather than by the export before it. */
  uint64_t off = 0;
  const char *name = knit_audit_symbols_find(&t->symbols, at, &off);
  char where[300], r[160], c[160];
  if (name && at - off == func)
    snprintf(where, sizeof where, "%s+%#" PRIx64, name, off);
  else
    snprintf(where, sizeof where, "fn_%" PRIx64 "+%#" PRIx64, func, at - func);
  knit_audit_rule_format(recipe, t->isa, r, sizeof r);
  knit_audit_rule_format(cfi, t->isa, c, sizeof c);
  fprintf(out, "  %#" PRIx64 " %s: recipe %s; cfi %s (%s)\n", at, where, r, c, category_names[cat]);
}

static knit_audit_category classify(const knit_recipe *r, const knit_frame_rule *recipe,
                                    const knit_frame_rule *cfi, bool cfi_static, bool seen_data,
                                    unsigned prev_flow, bool cfi_changed)
{
  if (r->flags & KNIT_RECIPE_UNCERTAIN)
    return KNIT_AUDIT_CAT_UNCERTAIN;
  if (cfi_static)
    return KNIT_AUDIT_CAT_CFI_STATIC;
  if (seen_data)
    return KNIT_AUDIT_CAT_UNDECODABLE;
  /* After a path end the state comes from whichever branch leads here;
   * after a call the CFI changes only when the call does not return. */
  if ((prev_flow & KNIT_FLOW_PATH_END) || ((prev_flow & KNIT_FLOW_CALL) && cfi_changed))
    return KNIT_AUDIT_CAT_AFTER_PATH_END;
  if (recipe->cfa_reg != cfi->cfa_reg)
    return KNIT_AUDIT_CAT_CFA_REGISTER;
  if (recipe->cfa_offset != cfi->cfa_offset || recipe->cfa_deref_offset != cfi->cfa_deref_offset)
    return KNIT_AUDIT_CAT_CFA_OFFSET;
  return KNIT_AUDIT_CAT_RETURN_ADDRESS;
}

static bool same_rule(const knit_frame_rule *a, const knit_frame_rule *b)
{
  return a->cfa_kind == b->cfa_kind && a->cfa_reg == b->cfa_reg && a->cfa_offset == b->cfa_offset &&
         a->cfa_deref_offset == b->cfa_deref_offset && a->ra_kind == b->ra_kind &&
         a->ra_offset == b->ra_offset && a->ra_reg == b->ra_reg;
}

/* Whether the function is entered the way its analyzer assumed (by a
 * call, or as PLT0 by the jump from a stub): the CFI at its first
 * instruction agrees with the recipe there. Parts split off by the compiler
 * (foo.cold) are entered by a jump with a frame in place, and _start (its
 * return address "undefined") by the kernel; the analyzers cannot know
 * their incoming frame. No CFI at the start: assume a call.
 * gcc also starts the FDE of an exception landing pad placed apart (in
 * foo.cold) one nop early, with the entry rule on the nop only and the
 * frame from the next instruction on: entered by a jump too.
 * *cfi_static tells whether the CFI's first row spans the whole function:
 * then the CFI never describes a frame. */
static bool entered_as_assumed(knit_audit_target *t, const uint8_t *code, uint64_t start,
                               uint64_t end, const knit_recipe *first, bool *cfi_static)
{
  knit_frame_rule recipe, cfi;
  uint64_t row_end;
  *cfi_static = false;
  if (!knit_audit_cfi_at(&t->cfi, t->isa, start, &cfi, &row_end))
    return true;
  *cfi_static = row_end >= end;
  if (cfi.ra_kind == KNIT_AUDIT_RA_UNDEFINED)
    return false;
  const uint8_t *p = code;
  size_t left = (size_t)(end - start);
  uint64_t pc = start;
  if (cs_disasm_iter(t->walk_cs, &p, &left, &pc, t->walk_insn) &&
      knit_audit_flow(t->isa, t->walk_insn->mnemonic, t->walk_insn->op_str) == KNIT_FLOW_PADDING &&
      row_end == pc)
    return false;
  knit_audit_rule_from_recipe(first, t->isa, &recipe);
  return knit_audit_compare(&recipe, &cfi, t->isa) != KNIT_RULE_DISAGREE;
}

/* Marks the instructions of [start, start + len) that a direct branch in
 * it goes to. The frame model follows fall-through only: a block that a
 * branch enters may be reached only that way (after a call that does not
 * return, gcc's ppc64 TOC restore "ld r2,24(r1)" is the dead fall-through),
 * so the model forgets its state there. False when there is no memory:
 * then the model is not used. */
static bool find_branch_targets(knit_audit_target *t, const uint8_t *code, size_t len,
                                uint64_t start)
{
  size_t slots = len / 4 + 1;
  if (slots > t->branched_cap) {
    uint8_t *b = realloc(t->branched_to, slots);
    if (!b)
      return false;
    t->branched_to = b;
    t->branched_cap = slots;
  }
  memset(t->branched_to, 0, slots);
  const uint8_t *p = code;
  size_t left = len;
  uint64_t pc = start, target;
  while (left > 0 && cs_disasm_iter(t->walk_cs, &p, &left, &pc, t->walk_insn))
    if (knit_audit_branch_target(t->isa, t->walk_insn->mnemonic, t->walk_insn->op_str, &target) &&
        target >= start && target - start < len)
      t->branched_to[(target - start) / 4] = 1;
  return true;
}

static void skip(knit_audit_result *res, knit_audit_skip why)
{
  res->skipped[why]++;
  res->not_comparable++;
}

/* When the function [start, end) is a part entered by jumps from a parent
 * (a hot/cold split, unwind/bounds.h), the parent's states at its jumps
 * into it, as the recipe cache finds them at run time (part_entry in
 * unwind/recipe_cache.c): a parent that is a part itself is analyzed from
 * its own entry states, up to the same depth. */
static bool jump_entered(knit_audit_target *t, uint64_t start, uint64_t end, int depth,
                         knit_part_entries *entries)
{
  uint64_t pstart, pend;
  size_t plen;
  if (depth >= KNIT_MAX_PART_DEPTH || !t->isa->analyze_entered ||
      !knit_bounds_parent(&t->funcs, start, &pstart, &pend))
    return false;
  const uint8_t *pcode = code_at(t, pstart, pend, &plen);
  if (!pcode || plen == 0)
    return false;
  knit_part_entries parent_entries;
  bool parent_is_part = jump_entered(t, pstart, pend, depth + 1, &parent_entries);
  int n = t->isa->analyze_entered((size_t)t->analyze_cs, t->analyze_insn, pcode, plen, pstart,
                                  parent_is_part ? &parent_entries : NULL, start, end, entries,
                                  t->recipes, MAX_RECIPES, t->work);
  return n > 0 && knit_part_entry_at(entries, start);
}

bool knit_audit_function(knit_audit_target *t, uint64_t start, uint64_t end,
                         const knit_audit_options *opt, knit_audit_result *res, FILE *disagreements)
{
  size_t len;
  const uint8_t *code = code_at(t, start, end, &len);
  if (!code || len == 0)
    return false;
  res->functions++;
  if (!t->isa->analyze)
    return false;
  knit_part_entries entries;
  bool jumped = jump_entered(t, start, end, 0, &entries);
  int n = jumped ? t->isa->analyze_entered((size_t)t->analyze_cs, t->analyze_insn, code, len, start,
                                           &entries, 0, 0, NULL, t->recipes, MAX_RECIPES, t->work)
                 : t->isa->analyze((size_t)t->analyze_cs, t->analyze_insn, code, len, start,
                                   t->recipes, MAX_RECIPES, t->work);
  if (n <= 0) {
    res->functions_undecodable++;
    return false;
  }
  bool cfi_static;
  bool by_call = entered_as_assumed(t, code, start, start + len, &t->recipes[0], &cfi_static);
  bool print = opt && opt->verbose && disagreements;
  const uint8_t *p = code;
  size_t left = len;
  uint64_t pc = start;
  unsigned prev_flow = 0;
  bool after_end = false, have_prev_cfi = false, seen_data = false;
  /* The recipe and kind of the previous disagreement, to keep a run's kind. */
  const knit_recipe *run_recipe = NULL;
  knit_audit_category run_cat = KNIT_AUDIT_CAT_CFA_OFFSET;
  knit_frame_rule prev_cfi = {0};
  cs_insn *insn = t->walk_insn;
  knit_audit_lr lr;
  knit_audit_lr_start(&lr, t->isa);
  /* The audit's own frame model, before this instruction: it is stepped
   * over the previous one at the top of the loop, whichever way that one
   * left the loop, and set from every agreement below. */
  knit_audit_model model;
  knit_audit_model_start(&model, t->isa);
  if (model.known && !find_branch_targets(t, code, len, start))
    model.known = false;
  /* A part's other entries are entered from its parent, as branch targets. */
  for (int e = 0; model.known && jumped && e < entries.count; e++)
    if (entries.at[e].rule.start > start && entries.at[e].rule.start - start < len)
      t->branched_to[(entries.at[e].rule.start - start) / 4] = 1;
  char prev_mn[sizeof insn->mnemonic], prev_ops[sizeof insn->op_str];
  unsigned prev_model_flow = 0;
  bool have_prev = false;
  while (left > 0 && cs_disasm_iter(t->walk_cs, &p, &left, &pc, insn)) {
    uint64_t at = insn->address;
    /* SKIPDATA gives id 0 to bytes that are not an instruction. */
    unsigned flow =
        insn->id == 0 ? KNIT_FLOW_PADDING : knit_audit_flow(t->isa, insn->mnemonic, insn->op_str);
    if (have_prev)
      knit_audit_model_step(&model, prev_mn, prev_ops, prev_model_flow);
    if (have_prev && t->branched_to && t->branched_to[(at - start) / 4])
      model.known = false; /* relearnt at the next agreement */
    knit_audit_model_at_return(&model, t->isa, insn->mnemonic, insn->op_str);
    memcpy(prev_mn, insn->mnemonic, sizeof prev_mn);
    memcpy(prev_ops, insn->op_str, sizeof prev_ops);
    /* Data in the code: the model cannot say what runs after it. */
    prev_model_flow = insn->id == 0 ? KNIT_FLOW_PATH_END : flow;
    have_prev = true;
    /* The return address's whereabouts before this instruction, for the
     * comparison, and after it, for the next. */
    knit_audit_lr lr_before = lr;
    knit_audit_lr_step(&lr, insn, (flow & KNIT_FLOW_PATH_END) != 0);
    if (!by_call) {
      skip(res, KNIT_AUDIT_SKIP_JUMP_ENTERED);
      continue;
    }
    if (insn->id == 0 || (after_end && (flow & KNIT_FLOW_PADDING))) {
      /* Data after the end of a path (a jump table, the traceback table)
       * is on no path: the analyzer lost no instruction there, and what
       * follows is classified as after a path end. */
      seen_data |= insn->id == 0 && !after_end;
      skip(res, KNIT_AUDIT_SKIP_PADDING);
      continue;
    }
    /* A nop between a noreturn call and the next block does not hide the
     * call from the classification. */
    unsigned before = prev_flow;
    if (flow != KNIT_FLOW_PADDING)
      prev_flow = flow;
    after_end = (flow & KNIT_FLOW_PATH_END) != 0;
    const knit_recipe *r = knit_recipe_find(t->recipes, (size_t)n, at);
    knit_frame_rule cfi, recipe;
    if (!r) { /* the analyzer broke its contract: say so, do not guess */
      skip(res, KNIT_AUDIT_SKIP_CFI_FORM);
      continue;
    }
    if (!knit_audit_cfi_at(&t->cfi, t->isa, at, &cfi, NULL)) {
      have_prev_cfi = false;
      skip(res, KNIT_AUDIT_SKIP_NO_CFI);
      continue;
    }
    bool cfi_changed = have_prev_cfi && !same_rule(&prev_cfi, &cfi);
    prev_cfi = cfi;
    have_prev_cfi = true;
    if (cfi.ra_kind == KNIT_AUDIT_RA_UNDEFINED) {
      skip(res, KNIT_AUDIT_SKIP_OUTERMOST);
      continue;
    }
    knit_audit_rule_from_recipe(r, t->isa, &recipe);
    /* Where the stream shows that the return address is in both places
     * the two sides name, compare the rest as if the CFI named the
     * recipe's: an equivalence must not hide a CFA that differs. */
    knit_lr_equiv eq = knit_audit_lr_equivalent(&lr_before, &recipe, &cfi, t->isa);
    knit_frame_rule cfi_eq = cfi;
    if (eq != KNIT_LR_EQUIV_NONE) {
      cfi_eq.ra_kind = recipe.ra_kind;
      cfi_eq.ra_reg = recipe.ra_reg;
    }
    knit_rule_verdict v = knit_audit_compare(&recipe, &cfi_eq, t->isa);
    /* The CFA from the other register: the same address when the analyzer
     * knows fp - sp here. The rest is compared as it is, and a CFA that
     * still differs is classified on the CFI's register (an offset). */
    knit_frame_rule recipe_eq;
    bool on_other = v == KNIT_RULE_DISAGREE &&
                    knit_audit_cfa_on_cfi_register(&recipe, &cfi_eq, t->isa, &recipe_eq);
    if (on_other) {
      v = knit_audit_compare(&recipe_eq, &cfi_eq, t->isa);
      res->cfa_other_register += v == KNIT_RULE_AGREE;
    }
    if (v == KNIT_RULE_NOT_COMPARABLE) {
      skip(res, KNIT_AUDIT_SKIP_CFI_FORM);
      continue;
    }
    /* The CFI is not this moment's rule and the recipe is the one the
     * model followed (see KNIT_AUDIT_SKIP_CFI_NOT_EXACT). A recipe the
     * analyzer flagged a guess is left to count as one. */
    if (v == KNIT_RULE_DISAGREE && !(r->flags & KNIT_RECIPE_UNCERTAIN) &&
        knit_audit_model_holds(&model, &recipe, t->isa) &&
        !knit_audit_model_holds(&model, &cfi, t->isa)) {
      skip(res, KNIT_AUDIT_SKIP_CFI_NOT_EXACT);
      continue;
    }
    res->instructions++;
    if (v == KNIT_RULE_AGREE) {
      knit_audit_model_agreed(&model, &recipe, t->isa);
      run_recipe = NULL;
      res->agree++;
      res->ra_copied += eq == KNIT_LR_EQUIV_COPIED;
      res->ra_restored += eq == KNIT_LR_EQUIV_RESTORED;
      res->ra_saved += eq == KNIT_LR_EQUIV_SAVED;
      bool stale;
      if (!knit_audit_fp_agrees(&recipe, &cfi, &stale))
        res->fp_disagree++;
      res->fp_stale += stale;
      continue;
    }
    res->disagree++;
    /* A part's block entered by its parent's jump is not reached from a
     * path end (what its frame is, the jump says), however it is laid out
     * after one: the mock runtime's GOMP_parallel.cold had its join block,
     * after the fork block's jump back, 32 bytes off, and the audit had
     * excused it as after a path end. */
    bool entered_here = jumped && knit_part_entry_at(&entries, at);
    knit_audit_category cat = r == run_recipe
                                  ? run_cat
                                  : classify(r, on_other ? &recipe_eq : &recipe, &cfi, cfi_static,
                                             seen_data, entered_here ? 0u : before, cfi_changed);
    run_recipe = r;
    run_cat = cat;
    res->category[cat]++;
    if (print && (opt->limit == 0 || res->printed < opt->limit)) {
      print_disagreement(t, start, at, &recipe, &cfi, cat, disagreements);
      res->printed++;
    }
  }
  return true;
}

int knit_audit_file(const char *path, const knit_audit_options *opt, knit_audit_result *res,
                    FILE *disagreements)
{
  memset(res, 0, sizeof *res);
  snprintf(res->path, sizeof res->path, "%s", path);
  knit_audit_target *t = knit_audit_open(path, res->error, sizeof res->error);
  if (!t)
    return -1;
  res->isa = t->isa;
  res->elf_machine = t->machine;
  res->has_cfi = knit_audit_cfi_present(&t->cfi);
  res->has_analyzer = t->isa->analyze != NULL;
  for (size_t i = 0; i < t->funcs.count; i++)
    knit_audit_function(t, t->funcs.start[i], t->funcs.end[i], opt, res, disagreements);
  knit_audit_close(t);
  return 0;
}
