/*
 * mockrt_invoke_microtask(fn, gtid*, btid*, argc, argv, exit_frame*) for
 * x86-64 (System V): the Intel layout's trampoline between the runtime and
 * an outlined function, the counterpart of LLVM's __kmp_invoke_microtask.
 *
 * It calls fn(gtid, btid, argv[0], ..., argv[argc - 1]): the first four
 * forwarded pointers go in rdx, rcx, r8, r9 and the rest on the stack, the
 * last pushed first so argv[4] sits just above the return address.
 *
 * Its frame is libomp's: an rbp frame, whose frame pointer it stores into
 * *exit_frame before the call (the runtime sets the exit frame's flags to
 * framepointer): the function that calls the body is the implicit task's
 * exit frame, named as libomp names it.  The stack arguments move rsp by
 * an amount only argc says, so the frame pointer is also what the CFI and
 * an unwinder's analysis follow (CFA = rbp + 16), at every instruction.
 *
 * Arguments: rdi fn, rsi gtid, rdx btid, ecx argc, r8 argv, r9 exit_frame.
 */
        .text
        .globl  mockrt_invoke_microtask
        .hidden mockrt_invoke_microtask
        .type   mockrt_invoke_microtask, @function
        .p2align 4
mockrt_invoke_microtask:
        .cfi_startproc
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_offset %rbp, -16
        movq    %rsp, %rbp
        .cfi_def_cfa_register %rbp      /* CFA = rbp + 16 from here on */
        movq    %rbp, (%r9)             /* the exit frame: this frame's pointer */
        /* 16 bytes between the frame pointer and what the body sees, where
         * libomp saves registers: the exit frame lies above the body's
         * CFA, also when the body tail-calls the runtime (a nested fork). */
        subq    $16, %rsp
        movq    %rdi, %r11              /* fn */
        movq    %r8, %r10               /* argv */
        movslq  %ecx, %rax              /* argc */

        /* argv[4..argc-1] on the stack; rsp is 16-byte aligned here. */
        leaq    -4(%rax), %rcx
        testq   %rcx, %rcx
        jle     2f
        testb   $1, %cl                 /* an odd count needs a pad word */
        jz      1f
        subq    $8, %rsp
1:      pushq   24(%r10,%rcx,8)         /* argv[rcx + 3]: argv[argc - 1] first */
        decq    %rcx
        jnz     1b

        /* Register arguments; argv is read only as far as argc says. */
2:      movq    %rsi, %rdi              /* gtid */
        movq    %rdx, %rsi              /* btid */
        cmpl    $1, %eax
        jl      3f
        movq    (%r10), %rdx
        cmpl    $2, %eax
        jl      3f
        movq    8(%r10), %rcx
        cmpl    $3, %eax
        jl      3f
        movq    16(%r10), %r8
        cmpl    $4, %eax
        jl      3f
        movq    24(%r10), %r9
3:      xorl    %eax, %eax              /* the callee's type is variadic: no vector args */
        call    *%r11

        movq    %rbp, %rsp
        popq    %rbp
        .cfi_def_cfa %rsp, 8
        .cfi_restore %rbp
        ret
        .cfi_endproc
        .size   mockrt_invoke_microtask, .-mockrt_invoke_microtask

        .section .note.GNU-stack,"",@progbits
