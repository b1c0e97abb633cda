@ Cortex-M4 only: UDIV/SDIV, 2..12 cycles by early termination. The model
@ (cycles.div_cycles): 2 when the quotient is 0 (or the divisor is 0), else
@ 2 + ceil(10 q / 32), q = bitlen(|n|) - bitlen(|d|) + 1.
@
@   ldr r0, =1000000       2    after the MARK store
@   movs r1, #7            1
@   udiv r2, r0, r1        8    q = 20 - 3 + 1 = 18: 2 + ceil(180/32) = 2 + 6
@   udiv r3, r1, r0        2    7 / 1000000: quotient 0
@   movs r6, #100          1
@   udiv r6, r6, r1        4    q = 7 - 3 + 1 = 5: 2 + ceil(50/32) = 2 + 2
@   movs r4, #0            1
@   udiv r4, r0, r4        2    divide by zero (result 0, no trap)
@   mov.w r5, #-1          1    (a literal load would be 2)
@   movs r1, #1            1
@   udiv r5, r5, r1        12   q = 32: 2 + ceil(320/32) = 12
@   ldr r0, =-1000000      2
@   movs r1, #7            1
@   sdiv r0, r0, r1        8    magnitudes as in the first divide
@   KERNEL_END             3
@ cycles 2+1+8+2+1+4+1+2+1+1+12+2+1+8+3 = 49, instructions 16.
@
@ expect cortex-m4 cycles=49 instructions=16
    .include "kernel.inc"
    KERNEL_BEGIN
    ldr r0, =1000000
    movs r1, #7
    udiv r2, r0, r1
    udiv r3, r1, r0
    movs r6, #100
    udiv r6, r6, r1
    movs r4, #0
    udiv r4, r0, r4
    mov.w r5, #-1
    movs r1, #1
    udiv r5, r5, r1
    ldr r0, =-1000000
    movs r1, #7
    sdiv r0, r0, r1
    KERNEL_END
    ldr r1, =142857
    cmp r2, r1
    bne 9f
    adds r0, r0, r1     @ -142857 + 142857
    orrs r0, r3
    orrs r0, r4
    adds r5, r5, #1     @ 0xffffffff + 1
    orrs r0, r5
    KERNEL_RETURN
9:  movs r0, #1
    KERNEL_RETURN
