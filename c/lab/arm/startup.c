/* Cortex-M startup of the lab firmware run by armsim.py (link.ld): vector
 * table, .data copy, .bss clear, constructors, main(), then wb_exit with
 * main's return value. Provides wb_exit (wb_lab.h) and the _sbrk that
 * newlib-nano's malloc calls, with a high-water mark. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "../wb_lab.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
extern uint8_t _heap_start, _heap_limit;
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);
int main(void);

void Reset_Handler(void);
void HardFault_Handler(void);
void Default_Handler(void);

/* Bytes of heap in use at the highest break seen (malloc never returns
 * memory to _sbrk, so this is the heap's peak footprint). */
size_t wb_heap_peak;

static uint8_t *heap_break = &_heap_start;

void *_sbrk(ptrdiff_t incr)
{
    uint8_t *old = heap_break;
    if (incr > 0 && (size_t)incr > (size_t)(&_heap_limit - old)) {
        errno = ENOMEM;
        return (void *)-1;
    }
    if (incr < 0 && (size_t)(-incr) > (size_t)(old - &_heap_start)) {
        errno = EINVAL;
        return (void *)-1;
    }
    heap_break = old + incr;
    if ((size_t)(heap_break - &_heap_start) > wb_heap_peak) {
        wb_heap_peak = (size_t)(heap_break - &_heap_start);
    }
    return old;
}

void wb_exit(uint8_t code)
{
    WB_REG_EXIT = code;
    for (;;) {
    }
}

/* armsim stops with an error when a fault handler is entered; on hardware
 * these loops are where a debugger finds the core. */
void HardFault_Handler(void)
{
    for (;;) {
    }
}

void Default_Handler(void)
{
    for (;;) {
    }
}

void Reset_Handler(void)
{
    uint32_t *src = &_sidata, *dst = &_sdata;
    while (dst < &_edata) {
        *dst++ = *src++;
    }
    for (dst = &_sbss; dst < &_ebss; dst++) {
        *dst = 0;
    }
    for (void (**f)(void) = __init_array_start; f < __init_array_end; f++) {
        (*f)();
    }
    wb_exit((uint8_t)main());
}

/* Initial stack pointer, then the 15 system exception handlers. */
struct vector_table {
    uint32_t *initial_sp;
    void (*handler[15])(void);
};

__attribute__((section(".isr_vector"), used)) static const struct vector_table vectors = {
    &_estack,
    {Reset_Handler, Default_Handler, HardFault_Handler, Default_Handler, Default_Handler,
     Default_Handler, 0, 0, 0, 0, Default_Handler, Default_Handler, 0, Default_Handler,
     Default_Handler},
};
