/*
 * avr_lab.c - the AVR side of the device lab (see ../wb_lab.h): wb_exit
 * writes the code to the EXIT register (GPIOR2) and then stops the CPU
 * (interrupts off, sleep), which avr_run reports as an error if the EXIT
 * write was somehow missed. Startup is avr-libc's crt (vectors, stack,
 * .data / .bss set-up, then main).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "wb_lab.h"

void wb_exit(uint8_t code)
{
    WB_REG_EXIT = code;
    cli();
    sleep_enable();
    for (;;) {
        sleep_cpu();
    }
}
