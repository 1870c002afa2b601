/*
 * Calling a kernel: the device image's function for a target region takes
 * one pointer-sized parameter per argument (device addresses, and
 * literals passed by value in a pointer's bits, as clang 14 outlines
 * them), so a call through a pointer of the right arity is the call the
 * compiler would make, on every ISA the tree builds for, with no
 * assembly.
 */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>

typedef void *mockrt_tgt_arg_t;

#define A(i) args[i]
#define P1   mockrt_tgt_arg_t
#define P2   P1, P1
#define P4   P2, P2
#define P8   P4, P4

void mockrt_tgt_kernel_call(void *fn, int argc, void **args)
{
  switch (argc) {
  case 0: ((void (*)(void))fn)(); break;
  case 1: ((void (*)(P1))fn)(A(0)); break;
  case 2: ((void (*)(P2))fn)(A(0), A(1)); break;
  case 3: ((void (*)(P2, P1))fn)(A(0), A(1), A(2)); break;
  case 4: ((void (*)(P4))fn)(A(0), A(1), A(2), A(3)); break;
  case 5: ((void (*)(P4, P1))fn)(A(0), A(1), A(2), A(3), A(4)); break;
  case 6: ((void (*)(P4, P2))fn)(A(0), A(1), A(2), A(3), A(4), A(5)); break;
  case 7: ((void (*)(P4, P2, P1))fn)(A(0), A(1), A(2), A(3), A(4), A(5), A(6)); break;
  case 8: ((void (*)(P8))fn)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7)); break;
  case 9: ((void (*)(P8, P1))fn)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8)); break;
  case 10:
    ((void (*)(P8, P2))fn)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9));
    break;
  case 11:
    ((void (*)(P8, P2, P1))fn)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9), A(10));
    break;
  case 12:
    ((void (*)(P8, P4))fn)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9), A(10),
                           A(11));
    break;
  case 13:
    ((void (*)(P8, P4, P1))fn)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9), A(10),
                               A(11), A(12));
    break;
  case 14:
    ((void (*)(P8, P4, P2))fn)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9), A(10),
                               A(11), A(12), A(13));
    break;
  case 15:
    ((void (*)(P8, P4, P2, P1))fn)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9),
                                   A(10), A(11), A(12), A(13), A(14));
    break;
  case 16:
    ((void (*)(P8, P8))fn)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9), A(10), A(11),
                           A(12), A(13), A(14), A(15));
    break;
  default:
    /* map.c refuses such kernels before they get here. */
    fprintf(stderr, "mockrt target: a kernel with %d arguments (at most %d)\n", argc,
            MOCKRT_TGT_MAX_ARGS);
    abort();
  }
}
