@ A multiply chain (MULS): 1 cycle each on both cores (M0+: the single-cycle
@ multiplier option, as on the SAMD21; M4: MUL 1).
@
@   movs r0, #3            1
@   movs r1, #5            1
@   muls r0, r1, r0  x4    4
@   KERNEL_END             3
@ cycles 9, instructions 8, on both cores.
@
@ expect cortex-m0plus cycles=9 instructions=8
@ expect cortex-m4 cycles=9 instructions=8
    .include "kernel.inc"
    KERNEL_BEGIN
    movs r0, #3
    movs r1, #5
    muls r0, r1, r0
    muls r0, r1, r0
    muls r0, r1, r0
    muls r0, r1, r0
    KERNEL_END
    ldr r1, =1875       @ 3 * 5^4
    subs r0, r0, r1
    KERNEL_RETURN
