/*
 * mockrt_pgi_switch(top, call) for x86-64 (System V): the PGI layout's
 * stack switch.  It keeps the original stack pointer in rbx (callee-saved,
 * so the trampoline and the body give it back), sets rsp to top rounded
 * down to 16 bytes, and from there calls the Intel trampoline
 * (mockrt_pgi_invoke_body) with the six arguments that *call holds; back,
 * it restores rsp from rbx.  At the call rsp is 16-byte aligned, as the ABI
 * wants.
 *
 * Unwinding across: the CFI says CFA = rbx + 16 once rbx holds the
 * original stack pointer, and rbx's own value is saved at CFA - 16, so a
 * DWARF unwinder (gdb, libunwind, libgcc) steps from the segment to the
 * original stack.  It is exact at every instruction, the two around the
 * switch included.  knit's recipes cannot express this frame: they know a
 * CFA of sp or fp plus an offset, not one that lives in rbx and is
 * unrelated to the current sp.  They never have to: knit's walk ends at the
 * implicit task's exit frame, the trampoline's CFA on the segment, below
 * this routine.  The exception is a timer sample in the few instructions
 * before the trampoline stores the exit frame or after it returns (the
 * exit frame is then NULL): that walk would reach this routine and end
 * partial, as it would in any runtime code recipes cannot describe.
 *
 * Arguments: rdi top, rsi call (mockrt_pgi_call_t: fn, gtid, btid, argc,
 * argv, exit_frame at offsets 0..40).
 */
        .text
        .globl  mockrt_pgi_switch
        .hidden mockrt_pgi_switch
        .type   mockrt_pgi_switch, @function
        .p2align 4
mockrt_pgi_switch:
        .cfi_startproc
        pushq   %rbx
        .cfi_adjust_cfa_offset 8
        .cfi_offset %rbx, -16
        movq    %rsp, %rbx
        .cfi_def_cfa_register %rbx      /* CFA = rbx + 16 until the switch back */
        andq    $-16, %rdi
        movq    %rdi, %rsp              /* on the segment from here */
        movq    %rsi, %rax
        movq    0(%rax), %rdi           /* fn */
        movq    8(%rax), %rsi           /* gtid */
        movq    16(%rax), %rdx          /* btid */
        movl    24(%rax), %ecx          /* argc */
        movq    32(%rax), %r8           /* argv */
        movq    40(%rax), %r9           /* exit_frame */
        call    mockrt_pgi_invoke_body
        movq    %rbx, %rsp              /* back on the original stack */
        .cfi_def_cfa_register %rsp      /* CFA = rsp + 16 */
        popq    %rbx
        .cfi_adjust_cfa_offset -8
        .cfi_restore %rbx
        ret
        .cfi_endproc
        .size   mockrt_pgi_switch, .-mockrt_pgi_switch

        .section .note.GNU-stack,"",@progbits
