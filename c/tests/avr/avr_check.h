/* Checks for the codec tests that run on a simulated AVR (c/tests/avr):
 * output goes to the lab's PUTC register (../../lab/wb_lab.h), one line per
 * failure, strings from flash. One translation unit includes this once. */
#ifndef WB_AVR_CHECK_H
#define WB_AVR_CHECK_H

#include <avr/pgmspace.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "wb_lab.h"

static unsigned long n_checks, n_failed;
static char context[96]; /* the vector being checked */

static int lab_put(char c, FILE *s)
{
    (void)s;
    wb_putc(c);
    return 0;
}

static FILE lab_out;

static inline void check_init(void)
{
    fdev_setup_stream(&lab_out, lab_put, NULL, _FDEV_SETUP_WRITE);
    stdout = &lab_out;
}

/* what: a flash string (PSTR). Prints "FAIL <context>: <what>". */
static inline int check_(int ok, const char *what, unsigned long a)
{
    n_checks++;
    if (!ok) {
        n_failed++;
        if (n_failed <= 50) {
            printf_P(PSTR("FAIL %s: "), context);
            printf_P(what, a);
            putchar('\n');
        }
    }
    return ok;
}
/* CHECK(cond, "text with at most one %lu") */
#define CHECK(cond, what) check_((cond) ? 1 : 0, PSTR(what), 0)
#define CHECKV(cond, what, v) check_((cond) ? 1 : 0, PSTR(what), (unsigned long)(v))

static inline void set_context_P(const char *name_P)
{
    strncpy_P(context, name_P, sizeof context - 1);
    context[sizeof context - 1] = 0;
}

/* Last line: "<codec> on AVR: N checks, M failed (... )", then EXIT. */
static inline void check_done(const char *codec_P, unsigned long n_vec, unsigned long n_skip)
{
    printf_P(PSTR("%S on AVR: %lu vectors (%lu skipped), %lu checks, %lu failed\n"), codec_P, n_vec, n_skip,
             n_checks, n_failed);
    wb_exit(n_failed == 0 ? 0 : 1);
}

#endif
