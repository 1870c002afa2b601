/* The recipe analyzer's driver: see analyze.h. */
#include "unwind/analyze.h"

#include <string.h>

/* A state of the ISA's, as bytes. */
typedef struct state_buf {
  _Alignas(8) unsigned char b[KNIT_ANALYZE_STATE_MAX];
} state_buf;

/* A target's entry: its offset, the branch's, then the state
 * (KNIT_ANALYZE_TARGET_BYTES). */
typedef struct target_head {
  uint32_t addr;
  uint32_t from;
} target_head;

_Static_assert(sizeof(target_head) == 8, "KNIT_ANALYZE_TARGET_BYTES counts 8 bytes of head");

#define STATE_OFFSET sizeof(target_head)

static target_head *target_at(const knit_analysis *an, int i)
{
  return (target_head *)(void *)(an->targets + (size_t)i * an->target_stride);
}

static void *target_state(const knit_analysis *an, int i)
{
  return an->targets + (size_t)i * an->target_stride + STATE_OFFSET;
}

static void copy_state(const knit_analysis *an, void *to, const void *from)
{
  memcpy(to, from, an->az->state_size);
}

bool knit_recipe_same_rule(const knit_recipe *a, const knit_recipe *b)
{
  return a->cfa_base == b->cfa_base && a->cfa_offset == b->cfa_offset && a->ra_rule == b->ra_rule &&
         a->ra_offset == b->ra_offset && a->fp_rule == b->fp_rule && a->fp_offset == b->fp_offset &&
         a->flags == b->flags && a->fp_sp_delta == b->fp_sp_delta;
}

const uint8_t *knit_analysis_code_at(const knit_analysis *an, uint64_t addr, size_t *left)
{
  *left = (size_t)(an->func_end - addr);
  return an->code + (addr - an->func_start);
}

/* ---- Branch targets and calls that do not return ------------------------ */

/* The index of the first recorded target at or after off. */
static int target_lower_bound(const knit_analysis *an, uint32_t off)
{
  int lo = 0, hi = an->target_count;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (target_at(an, mid)->addr < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static const void *target_find(const knit_analysis *an, uint64_t addr)
{
  uint32_t off = (uint32_t)(addr - an->func_start);
  int i = target_lower_bound(an, off);
  return i < an->target_count && target_at(an, i)->addr == off ? target_state(an, i) : NULL;
}

/* The first branch to a target decides, with two exceptions: a
 * better-founded state (the ISA's rank) replaces the recorded one, and the
 * deciding branch updates its own record when a later pass knows better
 * what reaches it. News for a target this pass has passed calls for
 * another pass; a target ahead is still to be swept in this one. */
void knit_analysis_record_target(knit_analysis *an, uint64_t at, uint64_t target, const void *s)
{
  const knit_analyzer *az = an->az;
  if (!knit_analysis_in_function(an, target))
    return;
  uint32_t off = (uint32_t)(target - an->func_start);
  uint32_t from = (uint32_t)(at - an->func_start);
  int i = target_lower_bound(an, off);
  if (i < an->target_count && target_at(an, i)->addr == off) {
    target_head *t = target_at(an, i);
    void *ts = target_state(an, i);
    /* Only a different state, or a better-founded one, is news: a loop of
     * blocks entered after a path end would otherwise pass its guessed
     * mark around forever. */
    bool news = (t->from == from && !az->same(ts, s)) || az->rank(s) > az->rank(ts);
    if (news) {
      t->from = from;
      copy_state(an, ts, s);
      an->changed |= off <= from;
    }
    return;
  }
  if (an->target_count == an->targets_max)
    return; /* full: see knit_analyzer.targets_work */
  memmove(an->targets + (size_t)(i + 1) * an->target_stride,
          an->targets + (size_t)i * an->target_stride,
          (size_t)(an->target_count - i) * an->target_stride);
  target_at(an, i)->addr = off;
  target_at(an, i)->from = from;
  copy_state(an, target_state(an, i), s);
  an->target_count++;
  an->changed |= off <= from;
}

static bool noreturn_find(const knit_analysis *an, uint64_t next)
{
  uint32_t off = (uint32_t)(next - an->func_start);
  for (int i = 0; i < an->noreturn_count; i++)
    if (an->noreturn[i] == off)
      return true;
  return false;
}

static void noreturn_record(knit_analysis *an, uint64_t next)
{
  if (noreturn_find(an, next) || an->noreturn_count == KNIT_ANALYZE_NORETURN_MAX)
    return;
  an->noreturn[an->noreturn_count++] = (uint32_t)(next - an->func_start);
  an->changed = true;
}

/* ---- Recipes -------------------------------------------------------------- */

/* Appends the recipe of [start, end), merged into the previous interval
 * when the rule is the same. When out is full, the last interval is
 * stretched over the rest and flagged, so that the function stays
 * covered. guess flags the recipe (bytes that do not decode). */
static void emit(knit_analysis *an, const void *s, bool guess, uint64_t start, uint64_t end)
{
  knit_recipe r;
  an->az->recipe(s, &r);
  r.start = start;
  r.end = end;
  if (guess)
    r.flags |= KNIT_RECIPE_UNCERTAIN;
  if (an->count > 0) {
    knit_recipe *last = &an->out[an->count - 1];
    if (last->end == start && knit_recipe_same_rule(last, &r)) {
      last->end = end;
      return;
    }
    if (an->count == an->max) {
      last->end = end;
      last->flags |= KNIT_RECIPE_UNCERTAIN;
      return;
    }
  }
  if (an->count < an->max)
    an->out[an->count++] = r;
}

/* ---- The canonical state -------------------------------------------------- */

/* The state before the epilogue that leads to the first end of a path. An
 * epilogue is a straight run of tear-down instructions (others may be
 * interleaved) with no call, no branch and no growth of the frame in it;
 * that keeps the pops of pushed call arguments from passing for one. When
 * the first path end has no such run before it (a jump in the body, a
 * switch dispatch), the state at it is canonical. */
typedef struct canonical_search {
  state_buf state; /* the result, once found (or provisional) */
  bool found;
  bool provisional; /* state holds a stand-in (canonical_provisional) */
  bool in_run;      /* inside a run of tear-down instructions */
  state_buf before_run;
} canonical_search;

/* A call that did not return ended a path before any return or jump did
 * (KNIT_CALLS_LEARNED). Its state stands for the canonical one until a
 * real path end is found: it often includes an alignment push of the
 * error path rather than being the body's frame, so it does not end the
 * search. */
static void canonical_provisional(const knit_analysis *an, canonical_search *c, const void *s)
{
  if (c->found || c->provisional)
    return;
  copy_state(an, c->state.b, c->in_run ? c->before_run.b : s);
  an->az->mark_guessed(c->state.b);
  c->provisional = true;
}

static void canonical_step(const knit_analysis *an, canonical_search *c, const void *before,
                           const void *after, const knit_insn_head *rec, knit_flow_kind flow)
{
  const knit_analyzer *az = an->az;
  if (c->found)
    return;
  if (flow == FLOW_END || flow == FLOW_JUMP) {
    copy_state(an, c->state.b, c->in_run ? c->before_run.b : before);
    c->found = true;
    return;
  }
  if (az->grows(before, after) || flow == FLOW_BRANCH || (rec->flags & KNIT_INSN_BREAKS_RUN)) {
    c->in_run = false;
  } else if (az->shrinks(before, after) && !c->in_run) {
    c->in_run = true;
    copy_state(an, c->before_run.b, before);
  }
}

/* ---- Ways into other code, and in from it --------------------------------- */

/* A direct jump to target, out of the code into the range asked for, with
 * the state before it: a jump does not change the frame, so that is the
 * state its target is entered with. The first jump to each target
 * decides, unless it was guessed and a later one was not. With the set
 * full, the start of the range (the part's own entry) still goes in, in
 * place of the last. */
static void note_jump(knit_analysis *an, uint64_t target, const void *s)
{
  const knit_analyzer *az = an->az;
  knit_part_entries *set = an->at_jumps;
  if (knit_analysis_in_function(an, target))
    return; /* only a jump out of the code is a way into another part */
  int i = 0;
  while (i < set->count && set->at[i].rule.start != target)
    i++;
  if (i < set->count) {
    if (!an->jump_guessed[i] || az->guessed(s))
      return;
  } else if (set->count < KNIT_MAX_PART_ENTRIES) {
    set->count++;
  } else if (target == an->jump_lo) {
    i = KNIT_MAX_PART_ENTRIES - 1;
  } else {
    return;
  }
  az->to_jump(s, &set->at[i]);
  set->at[i].rule.start = target;
  an->jump_guessed[i] = az->guessed(s);
}

/* Records the addresses the code is entered at besides its start as
 * branch targets, with the states the parent's jumps leave there, before
 * a run: a block of a part that no path of the part reaches (it follows
 * a jump back into the parent) is then swept from its entry state, not
 * from a guess. Their branch is none of the code's (from UINT32_MAX), so
 * a branch of the code replaces such a state only with a better-founded
 * one (knit_analysis_record_target). */
static void seed_entries(knit_analysis *an)
{
  const knit_analyzer *az = an->az;
  for (int e = 0; an->entries && e < an->entries->count; e++) {
    const knit_jump_state *j = &an->entries->at[e];
    uint64_t addr = j->rule.start;
    if (addr == an->func_start || !knit_analysis_in_function(an, addr) || !az->start_state ||
        an->target_count == an->targets_max)
      continue;
    uint32_t off = (uint32_t)(addr - an->func_start);
    int i = target_lower_bound(an, off);
    if (i < an->target_count && target_at(an, i)->addr == off)
      continue;
    memmove(an->targets + (size_t)(i + 1) * an->target_stride,
            an->targets + (size_t)i * an->target_stride,
            (size_t)(an->target_count - i) * an->target_stride);
    target_at(an, i)->addr = off;
    target_at(an, i)->from = UINT32_MAX;
    az->start_state(an->code, (size_t)(an->func_end - an->func_start), j, target_state(an, i));
    an->target_count++;
  }
}

/* ---- The sweep ------------------------------------------------------------ */

/* The record of the instruction at pc, the i-th of the function: kept from
 * an earlier pass, or decoded (and kept when there is room). slot holds
 * one record when there is none. */
static const knit_insn_head *fetch(knit_analysis *an, int i, const uint8_t *p, size_t left,
                                   uint64_t pc, void *slot)
{
  const knit_analyzer *az = an->az;
  if (i < an->records_filled)
    return (const knit_insn_head *)(void *)(an->records + (size_t)i * az->insn_size);
  bool keep = i < an->records_max;
  void *rec = keep ? an->records + (size_t)i * az->insn_size : slot;
  knit_insn_head *head = rec;
  uint64_t next = pc;
  if (cs_disasm_iter(an->handle, &p, &left, &next, an->insn)) {
    az->classify((size_t)an->handle, an->insn, rec);
    head->size = (uint8_t)(next - pc);
  } else {
    /* Not an instruction Capstone knows (data, or too new). */
    memset(rec, 0, az->insn_size);
    head->flags = KNIT_INSN_UNDECODED;
    head->size = (uint8_t)(left < az->undecoded_skip ? left : az->undecoded_skip);
  }
  if (keep)
    an->records_filled = i + 1;
  return head;
}

/* One linear pass over the function with the targets recorded so far,
 * writing its recipes from scratch. Returns the instructions decoded. */
static int sweep(knit_analysis *an, const void *start, int pass)
{
  const knit_analyzer *az = an->az;
  bool learned = az->call_policy == KNIT_CALLS_LEARNED;
  state_buf cur, before;
  _Alignas(8) unsigned char slot[KNIT_ANALYZE_INSN_MAX];
  copy_state(an, cur.b, start);
  canonical_search canonical = {.found = false};
  copy_state(an, canonical.state.b, start);
  bool path_ended = false; /* the previous instruction ended a path */
  /* While a call's fall-through lasts (knit_call_policy), the address
   * after the call; else 0. */
  uint64_t call_next = 0;
  bool prev_call = false; /* KNIT_CALLS_LEARNED: the previous instruction was
                             a call, */
  bool padded = false;    /* ... padding right after a call, */
  bool dead_call = false; /* ... a call known not to return, or its padding */
  int decoded = 0;
  an->count = 0;
  an->changed = false;
  if (an->at_jumps)
    an->at_jumps->count = 0;
  if (az->begin_pass)
    az->begin_pass(an, pass);
  uint64_t pc = an->func_start;
  for (int i = 0; pc < an->func_end; i++) {
    uint64_t at = pc;
    size_t left;
    const uint8_t *p = knit_analysis_code_at(an, at, &left);
    const knit_insn_head *rec = fetch(an, i, p, left, at, slot);
    pc += rec->size;
    bool undecoded = (rec->flags & KNIT_INSN_UNDECODED) != 0;
    bool padding = (rec->flags & KNIT_INSN_PADDING) != 0;
    if (learned) {
      if (prev_call && !path_ended && noreturn_find(an, at)) {
        /* An earlier pass learnt that the call before does not return.
         * Its padding keeps the call's state, as the CFI does. */
        canonical_provisional(an, &canonical, cur.b);
        dead_call = true;
      }
      if (dead_call && !padding) {
        path_ended = true;
        dead_call = false;
      }
    }
    bool resumed = path_ended;
    const void *known = target_find(an, at);
    if ((resumed || known) && az->join)
      az->join(an);
    if (resumed) {
      /* Only a branch gets here: its state, else a guess. A branch state
       * spoiled by an unmodeled instruction is a worse guess than the
       * canonical one, unless that is spoiled too. */
      bool use_known =
          known && (!az->spoiled || !az->spoiled(known) || az->spoiled(canonical.state.b));
      if (use_known) {
        copy_state(an, cur.b, known);
      } else {
        if (az->resume_guess)
          az->resume_guess(an, canonical.state.b, cur.b);
        else
          copy_state(an, cur.b, canonical.state.b);
        az->mark_guessed(cur.b);
      }
      call_next = 0;
    } else if (known && call_next && az->call_conflict(known, cur.b)) {
      /* The state that fell through from a call meets a branch's other
       * state: the call did not return (abort, __stack_chk_fail, a
       * runtime error), and the code here belongs to the branch. */
      if (learned) {
        /* The next pass ends the path at the call, so that the stretch
         * after it does not leave its wrong state for branch targets. */
        noreturn_record(an, call_next);
        canonical_provisional(an, &canonical, cur.b);
        call_next = 0;
      }
      copy_state(an, cur.b, known);
    } else if (known && az->rank(known) > az->rank(cur.b)) {
      /* A guessed or spoiled state gives way to a better one recorded for
       * this address. */
      copy_state(an, cur.b, known);
      if (learned)
        call_next = 0;
    } else if (learned && padded) {
      /* Padding after a call: probably a call that does not return, and
       * this code is reached from elsewhere; the call's state is kept, as
       * a guess. */
      az->mark_guessed(cur.b);
    } else if (learned && known) {
      call_next = 0; /* a branch agrees: the call returned */
    }
    if (undecoded) {
      /* Cover the bytes with a flagged guess and go on after them. */
      emit(an, cur.b, true, at, pc);
      if (learned)
        call_next = 0;
      if (az->target_undecoded_is_code)
        path_ended = path_ended && !known;
      continue;
    }
    decoded++;
    if (rec->flags & KNIT_INSN_RETURN)
      copy_state(an, cur.b, az->entry_state);
    if (az->prepare)
      az->prepare(an, cur.b, rec);
    emit(an, cur.b, false, at, pc);

    copy_state(an, before.b, cur.b);
    uint64_t target = 0;
    knit_flow_kind flow = az->apply(an, cur.b, rec, at, &target);
    canonical_step(an, &canonical, before.b, cur.b, rec, flow);
    if (flow == FLOW_BRANCH || flow == FLOW_JUMP)
      knit_analysis_record_target(an, at, target, cur.b);
    if (an->at_jumps && (rec->flags & KNIT_INSN_JUMPS) && rec->jump_target >= an->jump_lo &&
        rec->jump_target < an->jump_hi)
      note_jump(an, rec->jump_target, before.b);
    /* Alignment padding after the end of a path is never executed: the
     * code after it is still entered only by branches. */
    bool dead_padding = padding && !(az->target_padding_is_code && known);
    path_ended = flow == FLOW_END || flow == FLOW_JUMP || (resumed && dead_padding);
    if (learned) {
      padded = !path_ended && padding && (prev_call || padded);
      prev_call = (rec->flags & KNIT_INSN_CALL) != 0;
      if (prev_call)
        call_next = pc;
      else if (path_ended || !az->same(before.b, cur.b))
        call_next = 0;
    } else if (rec->flags & KNIT_INSN_CALL) {
      call_next = pc;
    } else if (!(rec->flags & KNIT_INSN_CALL_SEQ)) {
      call_next = 0;
    }
  }
  return decoded;
}

/* ---- Runs ----------------------------------------------------------------- */

/* Repeats the sweep until it learns no new target state (a block placed
 * after a path end and entered only by a later backward branch gets the
 * branch's state on the next pass). Returns the number of recipes, or -1
 * when nothing decodes. */
static int run(knit_analysis *an, const void *start)
{
  an->target_count = 0;
  an->noreturn_count = 0;
  seed_entries(an);
  for (int pass = 0;; pass++) {
    if (sweep(an, start, pass) == 0)
      return -1;
    if (!an->changed || pass + 1 == KNIT_ANALYZE_PASSES_MAX)
      return an->count;
  }
}

static int analyze(knit_analysis *an, const void *start)
{
  int n;
  do {
    n = run(an, start);
  } while (n > 0 && an->az->run_again && an->az->run_again(an));
  return n;
}

/* Without a workspace: the target table on this function's own frame,
 * which exists only on this path, so that a caller with a workspace does
 * not pay for it on its stack. */
static __attribute__((noinline)) int analyze_on_stack(knit_analysis *an, const void *start)
{
  _Alignas(8) unsigned char targets[KNIT_ANALYZE_STACK_TARGET_BYTES];
  an->targets = targets;
  an->targets_max = an->az->targets_stack;
  if ((size_t)an->targets_max * an->target_stride > sizeof targets)
    an->targets_max = (int)(sizeof targets / an->target_stride);
  return analyze(an, start);
}

int knit_analyze_function(const knit_analyzer *az, void *model, size_t cs_handle, void *insn,
                          const uint8_t *code, size_t len, uint64_t addr,
                          const knit_part_entries *entries, uint64_t into, uint64_t into_end,
                          knit_part_entries *at_jumps, knit_recipe *out, int max,
                          knit_analyze_work *work)
{
  if (az->state_size > KNIT_ANALYZE_STATE_MAX || az->insn_size > KNIT_ANALYZE_INSN_MAX ||
      az->insn_size < sizeof(knit_insn_head))
    return -1;
  knit_analysis an = {
      .az = az,
      .model = model,
      .handle = (csh)cs_handle,
      .insn = insn,
      .code = code,
      .func_start = addr,
      .func_end = addr + len,
      .out = out,
      .max = max,
      .target_stride = KNIT_ANALYZE_TARGET_BYTES(az->state_size),
      .entries = entries,
  };
  if (at_jumps) {
    at_jumps->count = 0;
    if (az->to_jump && into < into_end) {
      an.at_jumps = at_jumps;
      an.jump_lo = into;
      an.jump_hi = into_end;
    }
  }
  state_buf start;
  if (az->start_state)
    az->start_state(code, len, knit_part_entry_at(entries, addr), start.b);
  else
    copy_state(&an, start.b, az->entry_state);

  int n;
  if (work) {
    /* The workspace: the target table, then the records. */
    size_t table = (size_t)az->targets_work * an.target_stride;
    if (table > sizeof work->bytes)
      table = sizeof work->bytes / an.target_stride * an.target_stride;
    an.targets = work->bytes;
    an.targets_max = (int)(table / an.target_stride);
    an.records = work->bytes + table;
    an.records_max = (int)((sizeof work->bytes - table) / az->insn_size);
    n = analyze(&an, start.b);
  } else {
    n = analyze_on_stack(&an, start.b);
  }
  if (n < 0 && at_jumps)
    at_jumps->count = 0;
  return n;
}
