/*
 * lab_main.c - the device-lab firmware around one generated driver (one
 * library, one payload). Protocol with the simulator: wb_lab.h.
 *
 *  1. marker calibration: CAL_START and CAL_END back to back (the cost of a
 *     marker, subtracted from every measured span);
 *  2. one untimed round trip: encode, decode, check - a driver whose bytes do
 *     not decode to the payload's values stops here (exit 1..3);
 *  3. the encoded bytes, printed as "bytes <hex>";
 *  4. the timed encode (markers 1/2) and the timed decode (markers 3/4), each
 *     after painting the free RAM between the heap's high-water mark and the
 *     stack, so the peak stack of each operation can be read back
 *     ("stack_encode N"); "heap_encode N" / "heap_decode N" are the heap's
 *     high-water mark after each (the untimed round trip made the same
 *     calls first); the decoded values are checked again after the timed
 *     decode (exit 5 if they differ).
 *
 * Nothing here uses printf: the baseline firmware (driver "baseline") is this
 * file with an empty codec, so flash and RAM deltas are the library's.
 */
#include "wb_lab.h"

#ifndef WB_BUF_SIZE
#define WB_BUF_SIZE 1024
#endif

static uint8_t wb_buf[WB_BUF_SIZE];

#define WB_PAINT 0xA5u
/* At most this much RAM below the stack is painted (the simulators run every store). */
#ifndef WB_PAINT_MAX
#define WB_PAINT_MAX 16384
#endif

#if defined(__AVR__)
extern char __heap_start;
#define WB_HEAP_START ((uint8_t *)&__heap_start)
#else
extern char end; /* first free byte after .bss (c/lab/arm/link.ld) */
#define WB_HEAP_START ((uint8_t *)&end)
#endif

/* The heap's high-water mark: the end of the highest block malloc, calloc or realloc ever
 * returned (the firmware links with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc). The
 * allocators keep their free lists inside freed blocks below it, so painting starts above
 * it and never touches them. */
static uint8_t *wb_heap_top;

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);

static void *wb_heap_note(void *p, size_t n)
{
    if (p != NULL && (uint8_t *)p + n > wb_heap_top) {
        wb_heap_top = (uint8_t *)p + n;
    }
    return p;
}

void *__wrap_malloc(size_t n) { return wb_heap_note(__real_malloc(n), n); }
void *__wrap_calloc(size_t k, size_t n) { return wb_heap_note(__real_calloc(k, n), k * n); }
void *__wrap_realloc(void *p, size_t n) { return wb_heap_note(__real_realloc(p, n), n); }

/* Bytes from the heap start to its high-water mark. */
static uint32_t wb_heap_used(void)
{
    return wb_heap_top > WB_HEAP_START ? (uint32_t)(wb_heap_top - WB_HEAP_START) : 0;
}

static uint8_t *wb_paint_top;
static uint8_t *wb_paint_low;

/* Paint from above the heap's high-water mark (plus a margin for the allocator's next block
 * header) up to 32 bytes below a local of this function (nothing below it is in use while the
 * loop runs: no calls, no interrupts). */
static __attribute__((noinline)) void wb_paint(void)
{
    volatile uint8_t mark = 0;
    uint8_t *low = wb_heap_top > WB_HEAP_START ? wb_heap_top + 16 : WB_HEAP_START;
    uint8_t *top = (uint8_t *)&mark - 32;
    volatile uint8_t *p;
    if (top - low > WB_PAINT_MAX) {
        low = top - WB_PAINT_MAX; /* a stack deeper than this reads as this */
    }
    p = low;
    while (p < top) {
        *p++ = WB_PAINT;
    }
    wb_paint_low = low;
    wb_paint_top = top;
}

/* Bytes of stack the operation used, counted from `sp`, the stack position of the caller
 * before it: the lowest painted byte that changed, scanning up from the bottom of the painted
 * region (above the heap's high-water mark after the operation, whose blocks may have grown
 * into it), so untouched holes inside a large stack frame do not hide the frame. */
static uint32_t wb_stack_used(const uint8_t *sp)
{
    const uint8_t *low = wb_paint_low;
    const volatile uint8_t *p;
    if (wb_heap_top + 16 > low) {
        low = wb_heap_top + 16;
    }
    p = low;
    while (p < wb_paint_top && *p == WB_PAINT) {
        p++;
    }
    return (uint32_t)(sp - (const uint8_t *)p);
}

static void wb_puts(const char *s)
{
    while (*s) {
        wb_putc(*s++);
    }
}

static void wb_put_u32(const char *label, uint32_t v)
{
    char d[11];
    int n = 0;
    wb_puts(label);
    wb_putc(' ');
    do {
        d[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n) {
        wb_putc(d[--n]);
    }
    wb_putc('\n');
}

static void wb_put_hex(const char *label, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;
    wb_puts(label);
    wb_putc(' ');
    for (i = 0; i < n; i++) {
        wb_putc(hex[p[i] >> 4]);
        wb_putc(hex[p[i] & 15]);
    }
    wb_putc('\n');
}

int main(void)
{
    volatile uint8_t here = 0; /* its address: the stack position of main's frame */
    const uint8_t *sp = (const uint8_t *)&here;
    size_t n, n2;
    uint32_t floor;
    int r;

    wb_mark(WB_MARK_CAL_START);
    wb_mark(WB_MARK_CAL_END);

    wb_puts("driver ");
    wb_puts(wb_driver_name);
    wb_putc('\n');
    n = wb_encode(wb_buf, sizeof wb_buf);
    if (n == 0) {
        wb_puts("error encode failed\n");
        wb_exit(1);
    }
    wb_release();
    if (wb_decode(wb_buf, n) != 0) {
        wb_puts("error decode failed\n");
        wb_exit(2);
    }
    if (wb_check() != 0) {
        wb_puts("error decoded values differ from the payload at key ");
        wb_puts(wb_diff);
        wb_putc('\n');
        wb_exit(3);
    }
    wb_release();
    wb_put_hex("bytes", wb_buf, n);

    wb_paint();
    floor = (uint32_t)(sp - wb_paint_top);
    wb_mark(WB_MARK_ENCODE_START);
    n2 = wb_encode(wb_buf, sizeof wb_buf);
    wb_mark(WB_MARK_ENCODE_END);
    wb_put_u32("stack_encode", wb_stack_used(sp));
    wb_put_u32("heap_encode", wb_heap_used());
    if (n2 != n) {
        wb_puts("error second encode gave another length\n");
        wb_exit(4);
    }

    wb_release();
    wb_paint();
    wb_mark(WB_MARK_DECODE_START);
    r = wb_decode(wb_buf, n);
    wb_mark(WB_MARK_DECODE_END);
    wb_put_u32("stack_decode", wb_stack_used(sp));
    wb_put_u32("heap_decode", wb_heap_used());
    if (r != 0 || wb_check() != 0) {
        wb_puts("error timed decode failed\n");
        wb_exit(5);
    }
    /* what an operation that used less stack than this reads as */
    wb_put_u32("stack_floor", floor);
    wb_release();
    wb_exit(0);
}
