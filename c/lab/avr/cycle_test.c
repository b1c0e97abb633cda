/*
 * cycle_test.c - firmware for the avr_run self-test (make test-avr): code
 * sequences between markers whose cycle and instruction counts are worked
 * out by hand from the AVR instruction set manual, written in inline
 * assembly so the compiler cannot change them.
 *
 *   CAL_START -> CAL_END: ldi, out                      2 cycles, 2 instructions
 *   1 -> 2: out(1) ldi(1) 100 x [nop(1) dec(1) brne(2)], the last brne
 *           not taken (1), ldi(1)                       402 cycles, 303 instructions
 *   3 -> 4: out(1) ldi(1) ldi(1) 1000 x [sbiw(2) brne(2)], last brne 1,
 *           ldi(1)                                      4003 cycles, 2004 instructions
 *   5 -> 6: out(1) ldi(1) rcall(3) ret(4) rjmp(2) ldi(1)
 *                                                       12 cycles, 6 instructions
 *           (rcall 4 and ret 5 cycles on parts with a 3-byte PC, e.g. the
 *           atmega2560: 14 cycles there)
 *
 * -DMODE=1: sleeps with interrupts off without EXIT; -DMODE=2: loops forever
 * (both must make avr_run exit with status 3).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "wb_lab.h"

#ifndef MODE
#define MODE 0
#endif

int main(void)
{
#if MODE == 1
    cli();
    sleep_enable();
    sleep_cpu();
#elif MODE == 2
    for (;;) {
        __asm__ volatile("nop");
    }
#endif
    __asm__ volatile(
        "ldi r24, %[cs]\n\t"
        "out %[mark], r24\n\t"
        "ldi r24, %[ce]\n\t"
        "out %[mark], r24\n\t"
        "ldi r24, 1\n\t"
        "out %[mark], r24\n\t"
        "ldi r25, 100\n"
        "1: nop\n\t"
        "dec r25\n\t"
        "brne 1b\n\t"
        "ldi r24, 2\n\t"
        "out %[mark], r24\n\t"
        "ldi r24, 3\n\t"
        "out %[mark], r24\n\t"
        "ldi r26, lo8(1000)\n\t"
        "ldi r27, hi8(1000)\n"
        "2: sbiw r26, 1\n\t"
        "brne 2b\n\t"
        "ldi r24, 4\n\t"
        "out %[mark], r24\n\t"
        "ldi r24, 5\n\t"
        "out %[mark], r24\n\t"
        "ldi r25, 0\n\t"
        "rcall 3f\n\t"
        "rjmp 4f\n"
        "3: ret\n"
        "4: ldi r24, 6\n\t"
        "out %[mark], r24\n\t"
        :
        : [mark] "I"(_SFR_IO_ADDR(GPIOR0)), [cs] "M"(WB_MARK_CAL_START), [ce] "M"(WB_MARK_CAL_END)
        : "r24", "r25", "r26", "r27", "memory");
    wb_putc('o');
    wb_putc('k');
    wb_putc('\n');
    wb_exit(0);
}
