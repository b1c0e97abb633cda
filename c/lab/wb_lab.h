/*
 * wb_lab.h - the contract between a device-lab firmware and the simulator
 * that runs it (c/lab/avr/avr_run for AVR on simavr, c/lab/arm/armsim.py for
 * Cortex-M on unicorn).
 *
 * The firmware talks to the simulator through three one-byte registers:
 *
 *   register   AVR (ATmega328P)       Cortex-M (lab MMIO)   meaning
 *   MARK       GPIOR0 (I/O 0x1E)      0x40000000            a marker id
 *   PUTC       GPIOR1 (I/O 0x2A)      0x40000004            one output byte
 *   EXIT       GPIOR2 (I/O 0x2B)      0x40000008            stop, with this code
 *
 * Each write to MARK makes the simulator print one line
 *     mark <id> <cycles> <instructions>
 * with the cycle and instruction counts since reset at the moment of the
 * write. Output bytes are collected into lines and printed as
 *     out <text>
 * and a write to EXIT ends the run with
 *     exit <code> <cycles> <instructions>
 * (code 0 = every check passed). The simulator exits non-zero, with one line
 * on stderr, if the firmware runs past its cycle limit, executes an invalid
 * instruction or touches unmapped memory.
 *
 * Marker ids: WB_MARK_CAL_START/END are written back to back once, so the
 * cost of the marker itself can be subtracted; operation k is bracketed by
 * ids 2k+1 (start) and 2k+2 (end).
 */
#ifndef WB_LAB_H
#define WB_LAB_H

#include <stddef.h>
#include <stdint.h>

#define WB_MARK_CAL_START 0x7E
#define WB_MARK_CAL_END 0x7F
#define WB_MARK_ENCODE_START 1
#define WB_MARK_ENCODE_END 2
#define WB_MARK_DECODE_START 3
#define WB_MARK_DECODE_END 4

#if defined(__AVR__)
#include <avr/io.h>
#define WB_REG_MARK GPIOR0
#define WB_REG_PUTC GPIOR1
#define WB_REG_EXIT GPIOR2
#elif defined(__arm__)
#define WB_REG_MARK (*(volatile uint8_t *)0x40000000u)
#define WB_REG_PUTC (*(volatile uint8_t *)0x40000004u)
#define WB_REG_EXIT (*(volatile uint8_t *)0x40000008u)
#else
#error "wb_lab.h: the lab runs on AVR or Cortex-M"
#endif

static inline void wb_mark(uint8_t id) { WB_REG_MARK = id; }
static inline void wb_putc(char c) { WB_REG_PUTC = (uint8_t)c; }
void wb_exit(uint8_t code) __attribute__((noreturn));

/* The generated driver of one library and one payload provides these. */
size_t wb_encode(uint8_t *buf, size_t cap); /* encoded length, 0 on failure */
int wb_decode(const uint8_t *buf, size_t len); /* into the driver's variables; 0 = ok */
int wb_check(void); /* the decoded variables equal the payload's values; 0 = ok */
void wb_release(void); /* frees what decode allocated (outside the timed part) */
extern const char wb_driver_name[];
extern const char *wb_diff; /* after a failed wb_check: the key that differed */

#endif
