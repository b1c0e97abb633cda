@ Firmware that fails on purpose, one way per -DERR=n (run_tests.py checks
@ that armsim exits with status 3 and one stderr line naming the cause).
@   1 read of unmapped memory       2 endless loop (instruction limit)
@   3 write to flash                4 BKPT
@   5 UDIV (Thumb-2): refused on cortex-m0plus, runs on cortex-m4
@   6 ADD.W (Thumb-2; the cycle model has a row for ADD): only the CPU model
@     of unicorn can refuse it on cortex-m0plus
@   7 a call to HardFault_Handler (startup.c): the fault handler hook
@   8 an unaligned LDR: a fault on cortex-m0plus (ARMv6-M), allowed on cortex-m4
    .include "kernel.inc"
    KERNEL_BEGIN
#if ERR == 1
    ldr r0, =0x30000000
    ldr r0, [r0]
#elif ERR == 2
1:  b 1b
#elif ERR == 3
    movs r0, #0
    str r0, [r0]
#elif ERR == 4
    bkpt #0
#elif ERR == 5
    movs r0, #6
    movs r1, #3
    .short 0xfbb0, 0xf0f1   @ udiv r0, r0, r1
    subs r0, r0, #2         @ 0 on a core with a divider
#elif ERR == 6
    movs r0, #1
    .short 0xf100, 0x0001   @ add.w r0, r0, #1
    subs r0, r0, #2
#elif ERR == 7
    bl HardFault_Handler
#elif ERR == 8
    ldr r0, =0x20000001
    ldr r0, [r0]
    movs r0, #0
#endif
    KERNEL_END
    KERNEL_RETURN
