/*
 * mockrt_pgi_switch(top, call) for AArch64 (AAPCS64): the PGI layout's
 * stack switch.  It saves x19 and the return address on the original
 * stack, keeps the original sp in x19 (callee-saved, so the trampoline and
 * the body give it back), sets sp to top rounded down to 16 bytes, and from
 * there calls the Intel trampoline (mockrt_pgi_invoke_body) with the six
 * arguments that *call holds; back, it restores sp from x19.
 *
 * Unwinding across: the CFI says CFA = x19 + 16 once x19 holds the
 * original sp, with x19 and x30 saved at CFA - 16 and CFA - 8, so a DWARF
 * unwinder (gdb, libunwind, libgcc) steps from the segment to the original
 * stack, exactly at every instruction.  x29 is left alone: the body's
 * frame record links to the frame record of this routine's caller on the
 * original stack, so a frame-pointer walk crosses too (and, like the Intel
 * trampoline, skips this routine).  knit's recipes cannot express a CFA
 * held in x19 unrelated to sp, and need not: knit's walk ends at the
 * implicit task's exit frame, the trampoline's CFA on the segment.  Only a
 * timer sample in the few instructions around the trampoline's call, while
 * the exit frame is NULL, would reach this routine, and would end partial.
 *
 * Arguments: x0 top, x1 call (mockrt_pgi_call_t: fn, gtid, btid, argc,
 * argv, exit_frame at offsets 0..40).
 */
        .text
        .globl  mockrt_pgi_switch
        .hidden mockrt_pgi_switch
        .type   mockrt_pgi_switch, %function
        .p2align 4
mockrt_pgi_switch:
        .cfi_startproc
        stp     x19, x30, [sp, #-16]!
        .cfi_def_cfa_offset 16
        .cfi_offset x19, -16
        .cfi_offset x30, -8
        mov     x19, sp
        .cfi_def_cfa_register x19       /* CFA = x19 + 16 until the switch back */
        and     x9, x0, #~15
        mov     sp, x9                  /* on the segment from here */
        mov     x9, x1
        ldr     x0, [x9]                /* fn */
        ldr     x1, [x9, #8]            /* gtid */
        ldr     x2, [x9, #16]           /* btid */
        ldr     w3, [x9, #24]           /* argc */
        ldr     x4, [x9, #32]           /* argv */
        ldr     x5, [x9, #40]           /* exit_frame */
        bl      mockrt_pgi_invoke_body
        mov     sp, x19                 /* back on the original stack */
        .cfi_def_cfa_register sp        /* CFA = sp + 16 */
        ldp     x19, x30, [sp], #16
        .cfi_def_cfa_offset 0
        .cfi_restore x19
        .cfi_restore x30
        ret
        .cfi_endproc
        .size   mockrt_pgi_switch, .-mockrt_pgi_switch

        .section .note.GNU-stack,"",%progbits
