/* Minimal Cortex-M startup for the size-arm firmware: vector table, .data
 * copy, .bss clear, main(). No libc start files. */
#include <stdint.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);

void Reset_Handler(void);
void Default_Handler(void);

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
    (void)main();
    for (;;) {
    }
}

/* Initial stack pointer, then the 15 system exception handlers. */
struct vector_table {
    uint32_t *initial_sp;
    void (*handler[15])(void);
};

__attribute__((section(".isr_vector"), used)) static const struct vector_table vectors = {
    &_estack,
    {Reset_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler,
     Default_Handler, 0, 0, 0, 0, Default_Handler, Default_Handler, 0, Default_Handler,
     Default_Handler},
};
