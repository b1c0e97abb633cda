/*
 * avr_run.c - runs a device-lab firmware (ELF) on simavr and prints the
 * lines of the lab contract (c/lab/wb_lab.h) on stdout:
 *
 *   mark <id> <cycles> <instructions>    a write to GPIOR0
 *   out <text>                           bytes written to GPIOR1, per line
 *   exit <code> <cycles> <instructions>  a write to GPIOR2 (the run ends)
 *
 * usage: avr_run [--mcu atmega328p] [--freq 16000000] [--max-cycles N] firmware.elf
 *
 * Counts are since reset and taken at the moment of the register write:
 * cycles = the simulated clock (simavr's per-instruction cycle counts),
 * instructions = the instructions completed before the writing one (the
 * writing instruction itself is counted from the next line on). Sleeping
 * adds cycles, never instructions.
 *
 * The loop below is simavr's raw run loop (avr_callback_run_raw) with three
 * changes: exactly one instruction per avr_run_one call (run_cycle_count = 0
 * turns off its "run several instructions until the next timer" shortcut, so
 * every executed instruction is counted once); sleeping takes no wall-clock
 * time; and the stop conditions of the contract.
 *
 * Exit status: 0 after an EXIT write (whatever the firmware's code); 2 for
 * bad arguments or a firmware that cannot be loaded; 3 when the cycle limit
 * is exceeded, the simulated CPU crashes or decodes an invalid opcode, or the
 * firmware sleeps with interrupts off without writing EXIT. Errors are one
 * line on stderr. simavr's own log messages are not printed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sim_avr.h>
#include <sim_core.h>
#include <sim_cycle_timers.h>
#include <sim_elf.h>
#include <sim_interrupts.h>
#include <sim_io.h>

/* Data-space addresses of the lab registers (I/O address + 0x20); the same
 * on every megaAVR that simavr models (ATmega328P, 1284P, 2560). */
#define ADDR_MARK 0x3e /* GPIOR0, I/O 0x1E */
#define ADDR_PUTC 0x4a /* GPIOR1, I/O 0x2A */
#define ADDR_EXIT 0x4b /* GPIOR2, I/O 0x2B */

static uint64_t n_instructions;
static int exited = -1;          /* EXIT code once written */
static char line[4096];          /* pending output line */
static size_t line_len;
static char sim_error[256];      /* first error simavr logged */

static void flush_line(void)
{
    if (line_len > 0) {
        printf("out %.*s\n", (int)line_len, line);
        line_len = 0;
    }
}

static void on_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)param;
    avr->data[addr] = v; /* the register keeps its value, as on the chip */
    if (exited >= 0) {
        return;
    }
    switch (addr) {
    case ADDR_MARK:
        printf("mark %u %llu %llu\n", (unsigned)v, (unsigned long long)avr->cycle,
               (unsigned long long)n_instructions);
        break;
    case ADDR_PUTC:
        if (v == '\n') {
            printf("out %.*s\n", (int)line_len, line);
            line_len = 0;
        } else if (v != '\r') {
            if (line_len == sizeof line) {
                flush_line();
            }
            line[line_len++] = (char)v;
        }
        break;
    default:
        flush_line();
        printf("exit %u %llu %llu\n", (unsigned)v, (unsigned long long)avr->cycle,
               (unsigned long long)n_instructions);
        exited = v;
        break;
    }
}

/* simavr's messages: silent; the first error (invalid opcode, bad address,
 * crash) is kept and stops the run. */
static void logger(avr_t *avr, const int level, const char *fmt, va_list ap)
{
    (void)avr;
    if (level == LOG_ERROR && sim_error[0] == 0) {
        size_t n;
        vsnprintf(sim_error, sizeof sim_error, fmt, ap);
        n = strlen(sim_error);
        while (n > 0 && (sim_error[n - 1] == '\n' || sim_error[n - 1] == ' ')) {
            sim_error[--n] = 0;
        }
        if (n == 0) {
            strcpy(sim_error, "simavr error");
        }
    }
}

static void no_sleep(avr_t *avr, avr_cycle_count_t how_long)
{
    (void)avr;
    (void)how_long;
}

static int fail(int status, const char *fmt, ...)
{
    va_list ap;
    flush_line();
    fflush(stdout);
    fputs("avr_run: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    if (s == NULL || *s < '0' || *s > '9') {
        return 0;
    }
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno != 0 || *end != 0) {
        /* also accept the 2e9 form */
        double d = strtod(s, &end);
        if (*end != 0 || !(d >= 1 && d < 1.8e19)) {
            return 0;
        }
        v = (unsigned long long)d;
    }
    *out = v;
    return 1;
}

static void strip_color(char *s)
{
    /* simavr colours its errors with ANSI escapes; keep one plain line */
    char *r = s, *w = s;
    while (*r) {
        if (*r == '\033') {
            while (*r && *r != 'm') {
                r++;
            }
            if (*r) {
                r++;
            }
            continue;
        }
        *w++ = (*r == '\n') ? ' ' : *r;
        r++;
    }
    *w = 0;
}

int main(int argc, char **argv)
{
    const char *mcu = "atmega328p", *path = NULL;
    uint64_t freq = 16000000, max_cycles = 2000000000ull;
    elf_firmware_t fw;
    avr_t *avr;
    int i;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--mcu") == 0 && i + 1 < argc) {
            mcu = argv[++i];
        } else if (strcmp(a, "--freq") == 0 && i + 1 < argc) {
            if (!parse_u64(argv[++i], &freq) || freq == 0 || freq > 0xffffffffu) {
                return fail(2, "--freq: not a frequency in Hz: %s", argv[i]);
            }
        } else if (strcmp(a, "--max-cycles") == 0 && i + 1 < argc) {
            if (!parse_u64(argv[++i], &max_cycles) || max_cycles == 0) {
                return fail(2, "--max-cycles: not a positive cycle count: %s", argv[i]);
            }
        } else if (a[0] == '-' && a[1] != 0) {
            return fail(2, "unknown or incomplete option %s (usage: avr_run [--mcu atmega328p] "
                           "[--freq 16000000] [--max-cycles N] firmware.elf)", a);
        } else if (path == NULL) {
            path = a;
        } else {
            return fail(2, "more than one firmware given: %s", a);
        }
    }
    if (path == NULL) {
        return fail(2, "usage: avr_run [--mcu atmega328p] [--freq 16000000] [--max-cycles N] firmware.elf");
    }

    avr_global_logger_set(logger);
    memset(&fw, 0, sizeof fw);
    {
        FILE *f = fopen(path, "rb");
        if (f == NULL) {
            return fail(2, "cannot open %s: %s", path, strerror(errno));
        }
        fclose(f);
    }
    if (elf_read_firmware(path, &fw) != 0 || fw.flashsize == 0) {
        return fail(2, "%s: not an AVR ELF firmware", path);
    }
    avr = avr_make_mcu_by_name(mcu);
    if (avr == NULL) {
        return fail(2, "unknown MCU %s (simavr has no such core)", mcu);
    }
    if (avr_init(avr) != 0) {
        return fail(2, "simavr cannot initialise %s", mcu);
    }
    if (fw.flashsize > avr->flashend + 1u) {
        return fail(2, "%s: %u bytes of flash do not fit the %s (%u bytes)", path, (unsigned)fw.flashsize, mcu,
                    (unsigned)(avr->flashend + 1u));
    }
    avr_load_firmware(avr, &fw);
    avr->frequency = (uint32_t)freq;
    avr->sleep = no_sleep;
    avr->log = LOG_NONE;
    sim_error[0] = 0; /* loading messages are not run errors */
    avr_register_io_write(avr, ADDR_MARK, on_write, NULL);
    avr_register_io_write(avr, ADDR_PUTC, on_write, NULL);
    avr_register_io_write(avr, ADDR_EXIT, on_write, NULL);

    for (;;) {
        avr_flashaddr_t new_pc = avr->pc;
        avr_cycle_count_t sleep;
        if (avr->state == cpu_Running) {
            avr->run_cycle_count = 0; /* one instruction */
            new_pc = avr_run_one(avr);
            n_instructions++;
        }
        if (exited >= 0) {
            fflush(stdout);
            return 0;
        }
        if (sim_error[0] != 0 || avr->state == cpu_Crashed) {
            strip_color(sim_error);
            return fail(3, "simulated CPU crashed at pc 0x%05lx, cycle %llu: %s", (unsigned long)avr->pc,
                        (unsigned long long)avr->cycle, sim_error[0] ? sim_error : "crashed");
        }
        sleep = avr_cycle_timer_process(avr);
        avr->pc = new_pc;
        if (avr->state == cpu_Sleeping) {
            if (!avr->sreg[S_I]) {
                return fail(3, "firmware sleeps with interrupts off without writing EXIT (pc 0x%05lx, cycle %llu)",
                            (unsigned long)avr->pc, (unsigned long long)avr->cycle);
            }
            avr->cycle += 1 + sleep;
        } else if (avr->state != cpu_Running) {
            return fail(3, "simulated CPU stopped (state %d) at pc 0x%05lx without writing EXIT", avr->state,
                        (unsigned long)avr->pc);
        }
        if (avr->interrupt_state) {
            avr_service_interrupts(avr);
        }
        if (avr->cycle > max_cycles) {
            return fail(3, "cycle limit %llu exceeded (pc 0x%05lx) without EXIT", (unsigned long long)max_cycles,
                        (unsigned long)avr->pc);
        }
    }
}
