/* Functions whose recipes test_x86_64_analyze compares with the CFI gcc
 * wrote for them. Built with -O2 and unwind tables whatever the build type;
 * each has one shape the analyzer must model. noinline and the volatile sink
 * keep every shape in the binary. */
#include <stdint.h>
#include <string.h>

volatile int knit_audit_sink;

__attribute__((noinline)) int knit_audit_fill(int *buf, int n)
{
  for (int i = 0; i < 8; i++)
    buf[i] = n + i + knit_audit_sink;
  return n;
}

/* A frameless leaf. */
__attribute__((noinline)) int knit_audit_leaf(int a, int b)
{
  return a * b + 3;
}

/* push + sub rsp, two epilogues (an early return). */
__attribute__((noinline)) int knit_audit_multi_exit(int n)
{
  int buf[8];
  int a = knit_audit_fill(buf, n);
  if (a > 10)
    return a + buf[n & 7];
  return knit_audit_fill(buf, a) + buf[0];
}

/* A frame pointer kept on purpose: push rbp; mov rbp,rsp ... leave/pop. */
__attribute__((noinline, optimize("no-omit-frame-pointer"))) int knit_audit_frame_pointer(int n)
{
  int buf[8];
  knit_audit_fill(buf, n);
  return buf[n & 7] + 1;
}

/* A variable-length array: rsp moves by a register amount, so gcc sets up
 * rbp and the CFA must follow it. */
__attribute__((noinline)) int knit_audit_vla(int n)
{
  int vla[n + 8];
  knit_audit_fill(vla, n);
  return vla[n & 7];
}

/* A 32-byte aligned local: and rsp,-32 after the frame set-up. */
__attribute__((noinline)) int knit_audit_aligned(int n)
{
  _Alignas(32) int buf[8];
  knit_audit_fill(buf, n);
  return buf[3];
}

/* Both: a VLA and an over-aligned local. gcc realigns through a DRAP
 * register (lea r10,[rsp+8]; and rsp,-32; push [r10-8]; push rbp;
 * mov rbp,rsp; ... push r10): the CFA is saved in the frame, and the
 * caller's rbp is at rbp+0, no fixed distance from the CFA. */
__attribute__((noinline)) int knit_audit_drap(int n)
{
  _Alignas(32) int buf[8];
  int vla[n + 8];
  knit_audit_fill(vla, n);
  knit_audit_fill(buf, vla[1]);
  return vla[n & 7] + buf[3];
}

/* Many live values across calls: pushes of most callee-saved registers,
 * rbp among them as a general register. */
__attribute__((noinline)) int knit_audit_many_saves(int a, int b, int c, int d, int e, int f)
{
  int buf[8];
  int x = knit_audit_fill(buf, a);
  int y = knit_audit_fill(buf, b + x);
  int z = knit_audit_fill(buf, c + y);
  int w = knit_audit_fill(buf, d + z);
  return a * x + b * y + c * z + d * w + e * f + buf[e & 7] + buf[f & 7];
}

/* A jump table and several returns. */
__attribute__((noinline)) int knit_audit_switch(int k, int v)
{
  int buf[8];
  switch (k) {
  case 0: return v;
  case 1: return knit_audit_fill(buf, v) + 1;
  case 2: return knit_audit_fill(buf, v * 3) + buf[2];
  case 3: knit_audit_sink = v; return 7;
  case 4: return knit_audit_fill(buf, v - 1) * 2;
  case 5: return knit_audit_leaf(v, k);
  default: return -1;
  }
}
