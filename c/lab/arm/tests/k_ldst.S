@ Single loads and stores; on the M4, the pipelining of a load or store that
@ directly follows a load (TRM 3.3.2).
@
@                          M0+   M4
@   ldr r1, =buf           2     2   after the MARK store: not pipelined
@   ldr r2, [r1]           2     2   address is the previous load's result
@   ldr r3, [r1, #4]       2     1   pipelined after a load
@   str r2, [r1, #8]       2     1   a store pipelines after a load
@   str r3, [r1, #12]      2     2   nothing pipelines after a store
@   ldrb r4, [r1, #1]      2     2
@   adds r4, r4, r2        1     1
@   strh r4, [r1, #16]     2     2   after an ALU instruction
@   ldrh r5, [r1, #16]     2     2   after a store
@   ldr r0, [r1, #20]      2     1   pipelined after a load
@   KERNEL_END             3     3
@ M0+: 9 x 2 + 1 + 3 = 22; M4: 2+2+1+1+2+2+1+2+2+1 + 3 = 19; 12 instructions.
@
@ expect cortex-m0plus cycles=22 instructions=12
@ expect cortex-m4 cycles=19 instructions=12
    .include "kernel.inc"
    KERNEL_BEGIN
    ldr r1, =buf
    ldr r2, [r1]
    ldr r3, [r1, #4]
    str r2, [r1, #8]
    str r3, [r1, #12]
    ldrb r4, [r1, #1]
    adds r4, r4, r2
    strh r4, [r1, #16]
    ldrh r5, [r1, #16]
    ldr r0, [r1, #20]
    KERNEL_END
    @ check: buf[2] == buf[0], buf[3] == buf[1], halfword at 16 == low half of 0x33 + 0x11223344
    ldr r1, =buf
    ldr r2, [r1, #8]
    ldr r3, [r1]
    cmp r2, r3
    bne 9f
    ldr r2, [r1, #12]
    ldr r3, [r1, #4]
    cmp r2, r3
    bne 9f
    ldrh r2, [r1, #16]
    ldr r3, =0x3377
    cmp r2, r3
    bne 9f
    movs r0, #0
    KERNEL_RETURN
9:  movs r0, #1
    KERNEL_RETURN

    .data
    .p2align 2
buf:
    .word 0x11223344, 0x55667788, 0, 0, 0, 0x99
