/*
 * mockrt_pgi_switch(top, call) for big-endian ppc64 (ELFv1): the PGI
 * layout's stack switch. It saves LR in its caller's LR save doubleword and
 * r31 below its caller's stack pointer, keeps the original r1 in r31
 * (non-volatile, so the trampoline and the body give it back), and builds a
 * minimal frame at top rounded down to 16 bytes: ELFv1's 48-byte header and
 * the parameter save area of eight doublewords every callee may use, 112
 * bytes. That frame's back chain is the original r1: the segment's frames
 * chain on into the original stack, as the ABI's back chain must. From
 * there it calls the Intel trampoline (mockrt_pgi_invoke_body), a local
 * call (same module, same TOC, and the trampoline gives r2 back: the nop
 * after the bl is the slot ELFv1's linker would fill with a TOC restore for
 * a call to another module); back, r1 comes from r31.
 *
 * Unwinding across: the CFI says CFA = r31 once r31 holds the original r1,
 * with LR at CFA + 16 and r31 at CFA - 8, so a DWARF unwinder steps from the
 * segment to the original stack at every instruction. knit does not rely on
 * that: its walk ends at the implicit task's exit frame, the trampoline's
 * CFA on the segment, which is this routine's frame there.
 *
 * Arguments: r3 top, r4 call (mockrt_pgi_call_t: fn, gtid, btid, argc,
 * argv, exit_frame at offsets 0..40).
 */
        .abiversion 1
        .section ".opd", "aw"
        .p2align 3
        .globl  mockrt_pgi_switch
        .hidden mockrt_pgi_switch
        .type   mockrt_pgi_switch, @function
mockrt_pgi_switch:
        .quad   .L.mockrt_pgi_switch, .TOC.@tocbase, 0
        .text
        .p2align 4
.L.mockrt_pgi_switch:
        .cfi_startproc
        mflr    %r0
        std     %r0, 16(%r1)            /* LR save doubleword of the caller's frame */
        .cfi_offset 65, 16
        std     %r31, -8(%r1)           /* below the original r1; nothing else uses it now */
        .cfi_offset 31, -8
        mr      %r31, %r1
        .cfi_def_cfa_register 31        /* CFA = r31 until the switch back */
        rldicr  %r3, %r3, 0, 59         /* top, 16-byte aligned */
        std     %r31, -112(%r3)         /* back chain of the segment's first frame */
        addi    %r1, %r3, -112          /* on the segment from here */
        mr      %r9, %r4
        ld      %r3, 0(%r9)             /* fn */
        ld      %r4, 8(%r9)             /* gtid */
        ld      %r5, 16(%r9)            /* btid */
        ld      %r6, 24(%r9)            /* argc */
        ld      %r7, 32(%r9)            /* argv */
        ld      %r8, 40(%r9)            /* exit_frame */
        bl      mockrt_pgi_invoke_body
        nop
        mr      %r1, %r31               /* back on the original stack */
        .cfi_def_cfa_register 1         /* CFA = r1 */
        ld      %r0, 16(%r1)
        mtlr    %r0
        .cfi_restore 65
        ld      %r31, -8(%r1)
        .cfi_restore 31
        blr
        .cfi_endproc
        .size   mockrt_pgi_switch, .-.L.mockrt_pgi_switch

        .section .note.GNU-stack,"",@progbits
