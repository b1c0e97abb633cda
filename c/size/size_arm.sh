#!/bin/sh
# size_arm.sh BUILD_DIR - codec cost on Cortex-M0+ and Cortex-M4.
# For each codec (pson: size/app.c, uadp: size/app_uadp.c, cdr:
# size/app_cdr.c) the firmware is built four ways (baseline, enc, dec,
# enc+dec) with -Os -ffunction-sections -fdata-sections -Wl,--gc-sections,
# newlib-nano, own startup and linker script; prints text/data/bss of each
# and the delta against that codec's baseline (= what the codec costs), and
# the size of each library object alone (every function, before gc).
# Also writes BUILD_DIR/arm/sizes.csv.
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
csv="$out/sizes.csv"
echo "cpu,codec,variant,text,data,bss,delta_text,delta_data,delta_bss" > "$csv"

sizes() { "$size" "$1" | awk 'NR == 2 {print $1, $2, $3}'; }

printf '%-14s %-5s %-9s %7s %6s %6s   %7s %6s %6s\n' cpu codec variant text data bss "d.text" "d.data" "d.bss"
for cpu in cortex-m0plus cortex-m4; do
    arch="-mcpu=$cpu -mthumb"
    $cc $arch $common -c "$here/startup.c" -o "$out/startup_$cpu.o"
    for codec in pson uadp cdr; do
        case $codec in
            pson) app="$here/app.c" ;;
            *) app="$here/app_$codec.c" ;;
        esac
        # the library object alone (every function, before gc-sections)
        $cc $arch $common -c "$root/src/$codec.c" -o "$out/${codec}_$cpu.o"
        base=""
        for variant in baseline enc dec enc+dec; do
            case $variant in
                baseline) defs=""; lib="" ;;
                enc) defs="-DUSE_ENC"; lib="$out/${codec}_$cpu.o" ;;
                dec) defs="-DUSE_DEC"; lib="$out/${codec}_$cpu.o" ;;
                enc+dec) defs="-DUSE_ENC -DUSE_DEC"; lib="$out/${codec}_$cpu.o" ;;
            esac
            elf="$out/fw_${codec}_${cpu}_$(echo $variant | tr + _).elf"
            $cc $arch $common $defs $link -o "$elf" "$app" "$out/startup_$cpu.o" $lib
            set -- $(sizes "$elf")
            if [ -z "$base" ]; then base="$1 $2 $3"; fi
            set -- "$@" $base
            printf '%-14s %-5s %-9s %7s %6s %6s   %+7d %+6d %+6d\n' "$cpu" "$codec" "$variant" "$1" "$2" "$3" \
                $(($1 - $4)) $(($2 - $5)) $(($3 - $6))
            echo "$cpu,$codec,$variant,$1,$2,$3,$(($1 - $4)),$(($2 - $5)),$(($3 - $6))" >> "$csv"
        done
        set -- $($size "$out/${codec}_$cpu.o" | awk 'NR == 2 {print $1, $2, $3}')
        printf '%-14s %-5s %-9s %7s %6s %6s   (library object, all functions)\n' "$cpu" "$codec" "$codec.o" "$1" "$2" "$3"
        echo "$cpu,$codec,object,$1,$2,$3,,," >> "$csv"
    done
done
echo "size-arm: table in $csv"
