@ Cortex-M4 only: IT (folded or not), CBZ/CBNZ, LDRD/STRD, long multiplies,
@ MLA/MLS, TBB.
@
@   movs r0, #0            1
@   cmp r0, #0             1    16-bit
@   ite eq                 0    folded into the preceding 16-bit instruction
@   moveq r1, #1           1
@   movne r1, #2           1    fails its condition; charged as executed
@   cmp.w r0, #1           1    32-bit
@   it ne                  1    not folded: follows a 32-bit instruction
@   addne r1, r1, #1       1
@   cbz r0, 1f             2    taken, 1+P (P = 1)
@ 1:cbnz r0, .Lcase0       1    not taken
@   ldr r2, =buf           2
@   ldrd r4, r5, [r2]      3    1+N, N = 2 (never pipelined)
@   strd r4, r5, [r2, #8]  3
@   umull r4, r5, r0, r1   1
@   movs r0, #7            1
@   smlal r4, r5, r0, r1   1
@   mla r3, r0, r1, r4     1
@   mls r3, r0, r1, r3     1
@   movs r0, #1            1
@   tbb [pc, r0]           4    2+P (P = 2: target from a load)
@   bl cond_ret            2    (at .Lcase1)
@     cmp r0, #5           1
@     it eq                0    folded
@     bxeq lr              1    condition fails: as a not-taken branch
@     it ne                1    first of its block (after the BXEQ): not folded
@     bxne lr              3    taken, 1+P (P = 2)
@   KERNEL_END             3
@ cycles 9 + 1 + 8 + 6 + 4 + 8 + 3 = 39, instructions 28.
@
@ expect cortex-m4 cycles=39 instructions=28
    .include "kernel.inc"
    KERNEL_BEGIN
    movs r0, #0
    cmp r0, #0
    ite eq
    moveq r1, #1
    movne r1, #2
    cmp.w r0, #1
    it ne
    addne r1, r1, #1
    cbz r0, 1f
    nop
1:  cbnz r0, .Lcase0
    ldr r2, =buf
    ldrd r4, r5, [r2]
    strd r4, r5, [r2, #8]
    umull r4, r5, r0, r1
    movs r0, #7
    smlal r4, r5, r0, r1
    mla r3, r0, r1, r4
    mls r3, r0, r1, r3
    movs r0, #1
    tbb [pc, r0]
.Ltbb:
    .byte (.Lcase0 - .Ltbb) / 2
    .byte (.Lcase1 - .Ltbb) / 2
    .p2align 1
.Lcase0:
    movs r0, #9
.Lcase1:
    bl cond_ret
    KERNEL_END
    @ r1 == 2 (moveq, addne), r3 == r4 (mls undoes mla), buf[2..3] == buf[0..1]
    subs r0, r1, #2
    subs r3, r3, r4
    orrs r0, r3
    ldr r2, =buf
    ldrd r4, r5, [r2]
    ldr r3, [r2, #8]
    subs r3, r3, r4
    orrs r0, r3
    ldr r3, [r2, #12]
    subs r3, r3, r5
    orrs r0, r3
    KERNEL_RETURN

    .type cond_ret, %function
    .thumb_func
cond_ret:
    cmp r0, #5
    it eq
    bxeq lr
    it ne
    bxne lr

    .data
    .p2align 3
buf:
    .word 0x01020304, 0x05060708, 0, 0
