/*
 * mockrt_invoke_microtask(fn, gtid*, btid*, argc, argv, exit_frame*) for
 * AArch64 (AAPCS64): the Intel layout's trampoline between the runtime and
 * an outlined function, the counterpart of LLVM's __kmp_invoke_microtask.
 *
 * It calls fn(gtid, btid, argv[0], ..., argv[argc - 1]): six forwarded
 * pointers go in x2..x7, the rest in 8-byte slots from sp upwards, sp
 * 16-byte aligned at the call.
 *
 * Its frame is libomp's: a frame record (x29, x30) whose frame pointer it
 * stores into *exit_frame before the call (the runtime sets the exit
 * frame's flags to framepointer): the function that calls the body is the
 * implicit task's exit frame, named as libomp names it.  The stack
 * arguments move sp by an amount only argc says, so the frame pointer is
 * also what the CFI and an unwinder's analysis follow (CFA = x29 + 16).
 *
 * Arguments: x0 fn, x1 gtid, x2 btid, w3 argc, x4 argv, x5 exit_frame.
 */
        .text
        .globl  mockrt_invoke_microtask
        .hidden mockrt_invoke_microtask
        .type   mockrt_invoke_microtask, %function
        .p2align 4
mockrt_invoke_microtask:
        .cfi_startproc
        stp     x29, x30, [sp, #-16]!
        .cfi_def_cfa_offset 16
        .cfi_offset x29, -16
        .cfi_offset x30, -8
        mov     x29, sp
        .cfi_def_cfa_register x29       /* CFA = x29 + 16 from here on */
        str     x29, [x5]               /* the exit frame: this frame's pointer */
        /* 16 bytes between the frame record and what the body sees, where
         * libomp saves registers: the exit frame lies above the body's
         * CFA, also when the body tail-calls the runtime (a nested fork). */
        sub     sp, sp, #16
        mov     x9, x0                  /* fn */
        mov     x10, x4                 /* argv */
        sxtw    x11, w3                 /* argc */

        /* argv[6..argc-1] at sp, sp + 8, ...; the area rounded up to 16. */
        subs    x12, x11, #6
        b.le    2f
        lsl     x13, x12, #3
        add     x13, x13, #15
        and     x13, x13, #~15
        sub     sp, sp, x13
        add     x14, x10, #48           /* &argv[6] */
        mov     x15, #0
1:      ldr     x16, [x14, x15, lsl #3]
        str     x16, [sp, x15, lsl #3]
        add     x15, x15, #1
        cmp     x15, x12
        b.lt    1b

        /* Register arguments; argv is read only as far as argc says. */
2:      mov     x0, x1                  /* gtid */
        mov     x1, x2                  /* btid */
        cmp     x11, #1
        b.lt    3f
        ldr     x2, [x10]
        cmp     x11, #2
        b.lt    3f
        ldr     x3, [x10, #8]
        cmp     x11, #3
        b.lt    3f
        ldr     x4, [x10, #16]
        cmp     x11, #4
        b.lt    3f
        ldr     x5, [x10, #24]
        cmp     x11, #5
        b.lt    3f
        ldr     x6, [x10, #32]
        cmp     x11, #6
        b.lt    3f
        ldr     x7, [x10, #40]
3:      blr     x9
        mov     sp, x29
        .cfi_def_cfa_register sp        /* CFA = sp + 16 */
        ldp     x29, x30, [sp], #16
        .cfi_def_cfa_offset 0
        .cfi_restore x29
        .cfi_restore x30
        ret
        .cfi_endproc
        .size   mockrt_invoke_microtask, .-mockrt_invoke_microtask

        .section .note.GNU-stack,"",%progbits
