@ Conditional branches not taken and taken, and an unconditional branch.
@
@                          M0+   M4
@   movs r0, #1            1     1
@   cmp r0, #0             1     1
@   beq 1f                 1     1    not taken
@   adds r0, r0, #1        1     1
@   cmp r0, #2             1     1
@   beq 2f                 2     2    taken (M4: 1+P, P = 1)
@ 2:b 3f                   2     2    (M4: 1+P)
@ 3:cmp r0, #2             1     1
@   KERNEL_END             3     3
@ cycles 13, instructions 10, on both cores.
@
@ expect cortex-m0plus cycles=13 instructions=10
@ expect cortex-m4 cycles=13 instructions=10
    .include "kernel.inc"
    KERNEL_BEGIN
    movs r0, #1
    cmp r0, #0
    beq 1f
    adds r0, r0, #1
    cmp r0, #2
    beq 2f
1:  movs r0, #9
2:  b 3f
    movs r0, #9
3:  cmp r0, #2
    KERNEL_END
    subs r0, r0, #2
    KERNEL_RETURN
