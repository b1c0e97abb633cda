#!/bin/sh
# size_arm.sh BUILD_DIR - codec cost on Cortex-M0+ and Cortex-M4.
# Builds the firmware in size/app.c four ways (baseline, encoder, decoder,
# both) with -Os -ffunction-sections -fdata-sections -Wl,--gc-sections,
# newlib-nano, own startup and linker script, and prints text/data/bss of
# each and the delta against the baseline (= what the codec costs).
# env: ARM_CC (arm-none-eabi-gcc), ARM_SIZE (arm-none-eabi-size)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$1/arm
cc=${ARM_CC:-arm-none-eabi-gcc}
size=${ARM_SIZE:-arm-none-eabi-size}
mkdir -p "$out"
common="-std=c99 -Wall -Wextra -Werror -pedantic -Os -ffunction-sections -fdata-sections -I$root/include"
link="-nostartfiles --specs=nano.specs --specs=nosys.specs -Wl,--gc-sections -T $here/link.ld"

sizes() { "$size" "$1" | awk 'NR == 2 {print $1, $2, $3}'; }

printf '%-14s %-9s %7s %6s %6s   %7s %6s %6s\n' cpu variant text data bss "d.text" "d.data" "d.bss"
for cpu in cortex-m0plus cortex-m4; do
    arch="-mcpu=$cpu -mthumb"
    # the library object alone (every function, before gc-sections)
    $cc $arch $common -c "$root/src/pson.c" -o "$out/pson_$cpu.o"
    $cc $arch $common -c "$here/startup.c" -o "$out/startup_$cpu.o"
    base=""
    for variant in baseline enc dec enc+dec; do
        case $variant in
            baseline) defs=""; lib="" ;;
            enc) defs="-DUSE_ENC"; lib="$out/pson_$cpu.o" ;;
            dec) defs="-DUSE_DEC"; lib="$out/pson_$cpu.o" ;;
            enc+dec) defs="-DUSE_ENC -DUSE_DEC"; lib="$out/pson_$cpu.o" ;;
        esac
        elf="$out/fw_${cpu}_$(echo $variant | tr + _).elf"
        $cc $arch $common $defs $link -o "$elf" "$here/app.c" "$out/startup_$cpu.o" $lib
        set -- $(sizes "$elf")
        if [ -z "$base" ]; then base="$1 $2 $3"; fi
        set -- "$@" $base
        printf '%-14s %-9s %7s %6s %6s   %+7d %+6d %+6d\n' "$cpu" "$variant" "$1" "$2" "$3" \
            $(($1 - $4)) $(($2 - $5)) $(($3 - $6))
    done
    set -- $($size "$out/pson_$cpu.o" | awk 'NR == 2 {print $1, $2, $3}')
    printf '%-14s %-9s %7s %6s %6s   (library object, all functions)\n' "$cpu" "pson.o" "$1" "$2" "$3"
done
