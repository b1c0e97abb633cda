@ Countdown loop: SUBS/BNE, 100 iterations.
@
@                          M0+ (DDI 0484)        M4 (DDI 0439)
@   movs r0, #100          1                     1
@ 1:subs r0, r0, #1        1 x 100               1 x 100
@   bne 1b                 taken 2 x 99,         taken 1+P = 2 x 99 (P = 1,
@                          not taken 1 x 1       immediate target), not taken 1
@   KERNEL_END             3                     3
@ cycles: 1 + 100 + 198 + 1 + 3 = 303 on both; instructions 1 + 200 + 2 = 203.
@ With --flash-wait-states 1 every instruction costs one more: 303 + 203 = 506
@ (checked by run_tests.py from these numbers).
@
@ expect cortex-m0plus cycles=303 instructions=203
@ expect cortex-m4 cycles=303 instructions=203
    .include "kernel.inc"
    KERNEL_BEGIN
    movs r0, #100
1:  subs r0, r0, #1
    bne 1b
    KERNEL_END
    movs r0, #0
    KERNEL_RETURN
