@ Calls and returns: BL, BLX, BX LR, PUSH and POP with PC.
@
@                           M0+               M4
@   movs r0, #0             1                 1
@   bl func                 3                 1+P = 2 (immediate target)
@     push {r4, r5, lr}     1+N = 4           1+N = 4
@     movs r4, #1           1                 1
@     pop {r4, r5, pc}      3+N = 5 (N = 2    1+N+P = 6 (N = 3 with the PC,
@                           besides the PC)   P = 2: target from a load)
@   bl leaf                 3                 2
@     adds r0, r0, #1       1                 1
@     bx lr                 2                 1+P = 3 (register target)
@   ldr r3, =leaf           2                 2
@   blx r3                  2                 1+P = 3
@     adds r0, r0, #1       1                 1
@     bx lr                 2                 3
@   KERNEL_END              3                 3
@ M0+: 1 + 3+4+1+5 + 3+1+2 + 2+2+1+2 + 3 = 30
@ M4:  1 + 2+4+1+6 + 2+1+3 + 2+3+1+3 + 3 = 32;  14 instructions.
@
@ expect cortex-m0plus cycles=30 instructions=14
@ expect cortex-m4 cycles=32 instructions=14
    .include "kernel.inc"
    KERNEL_BEGIN
    movs r0, #0
    bl func
    bl leaf
    ldr r3, =leaf
    blx r3
    KERNEL_END
    subs r0, r0, #2     @ leaf ran twice
    KERNEL_RETURN

    .type func, %function
    .thumb_func
func:
    push {r4, r5, lr}
    movs r4, #1
    pop {r4, r5, pc}

    .type leaf, %function
    .thumb_func
leaf:
    adds r0, r0, #1
    bx lr
