/*
 * mockrt_invoke_microtask(fn, gtid*, btid*, argc, argv, exit_frame*) for
 * big-endian ppc64 (ELFv1): the Intel layout's trampoline between the
 * runtime and an outlined function, the counterpart of LLVM's
 * __kmp_invoke_microtask.
 *
 * It calls fn(gtid, btid, argv[0], ..., argv[argc - 1]): six forwarded
 * pointers go in r5..r10. ELFv1 always gives a callee a parameter save area
 * (at sp + 48, after the 48-byte header), here of max(8, argc + 2)
 * doublewords, and argv[6..] go into their slots there (argument k at
 * sp + 48 + 8k). fn is a function descriptor (code address, TOC,
 * environment): the call loads the body's TOC into r2 and its environment
 * into r11 and goes through ctr; r2 is saved in the TOC save slot
 * (sp + 40) and restored after, because the body's module has its own TOC
 * and our caller (a local call) expects r2 unchanged.
 *
 * Before the call it stores its frame's address (r1 once the frame is
 * allocated, where its back chain is) into *exit_frame, as libomp does
 * (the runtime sets the exit frame's flags to framepointer): it is the
 * runtime function that calls the body, so its frame is the implicit
 * task's OMPT exit frame. The frame has a
 * back chain (the ABI requires it) but no frame pointer register of the
 * usual kind: r31 holds the CFA because the frame size depends on argc.
 *
 * Arguments: r3 fn, r4 gtid, r5 btid, r6 argc, r7 argv, r8 exit_frame.
 */
        .abiversion 1
        .section ".opd", "aw"
        .p2align 3
        .globl  mockrt_invoke_microtask
        .hidden mockrt_invoke_microtask
        .type   mockrt_invoke_microtask, @function
mockrt_invoke_microtask:
        .quad   .L.mockrt_invoke_microtask, .TOC.@tocbase, 0
        .text
        .p2align 4
.L.mockrt_invoke_microtask:
        .cfi_startproc
        mflr    %r0
        std     %r0, 16(%r1)            /* LR save doubleword of the caller's frame */
        .cfi_offset 65, 16
        std     %r31, -8(%r1)           /* in the protected zone until the frame exists */
        .cfi_offset 31, -8
        mr      %r31, %r1
        .cfi_def_cfa_register 31        /* CFA = r31 from here on */

        /* Frame: 48-byte header, parameter save area, r31's slot; 16-aligned. */
        extsw   %r6, %r6                /* argc */
        addi    %r9, %r6, 2
        cmpdi   %r9, 8
        bge     1f
        li      %r9, 8
1:      sldi    %r9, %r9, 3
        addi    %r9, %r9, 48 + 8 + 15
        rldicr  %r9, %r9, 0, 59
        neg     %r9, %r9
        stdux   %r1, %r1, %r9           /* allocate and store the back chain at once */
        std     %r1, 0(%r8)             /* the exit frame: this frame's address */

        /* argv[i], i >= 6, is argument i + 2: sp + 64 + 8i. */
        li      %r10, 6
        cmpd    %r10, %r6
        bge     3f
2:      sldi    %r11, %r10, 3
        ldx     %r12, %r7, %r11
        addi    %r11, %r11, 64
        stdx    %r12, %r1, %r11
        addi    %r10, %r10, 1
        cmpd    %r10, %r6
        blt     2b

        /* Register arguments; argv is read only as far as argc says. */
3:      mr      %r12, %r3               /* fn's descriptor */
        mr      %r11, %r7               /* argv */
        mr      %r0, %r6                /* argc */
        mr      %r3, %r4                /* gtid */
        mr      %r4, %r5                /* btid */
        cmpdi   %r0, 1
        blt     4f
        ld      %r5, 0(%r11)
        cmpdi   %r0, 2
        blt     4f
        ld      %r6, 8(%r11)
        cmpdi   %r0, 3
        blt     4f
        ld      %r7, 16(%r11)
        cmpdi   %r0, 4
        blt     4f
        ld      %r8, 24(%r11)
        cmpdi   %r0, 5
        blt     4f
        ld      %r9, 32(%r11)
        cmpdi   %r0, 6
        blt     4f
        ld      %r10, 40(%r11)
4:      std     %r2, 40(%r1)            /* TOC save doubleword */
        ld      %r0, 0(%r12)            /* the body's code */
        mtctr   %r0
        ld      %r11, 16(%r12)          /* its environment */
        ld      %r2, 8(%r12)            /* its TOC */
        bctrl
        ld      %r2, 40(%r1)

        mr      %r1, %r31
        .cfi_def_cfa_register 1         /* CFA = r1 */
        ld      %r0, 16(%r1)
        mtlr    %r0
        .cfi_restore 65
        ld      %r31, -8(%r1)
        .cfi_restore 31
        blr
        .cfi_endproc
        .size   mockrt_invoke_microtask, .-.L.mockrt_invoke_microtask

        .section .note.GNU-stack,"",@progbits
