#!/bin/sh
# nm_check.sh NM OBJECT [arm]
# Fails if OBJECT references an allocator or any undefined symbol other than
# memcpy/memset/memcmp/memmove/strlen. With "arm", the libgcc integer helpers
# (__aeabi_llsl/llsr/lasr for 64-bit shifts, __aeabi_uidiv/uidivmod for
# 32-bit unsigned division on cores without a divide instruction such as the
# Cortex-M0+, __gnu_thumb1_case_* for switch tables on Thumb-1) are allowed too, and any soft-float helper (__aeabi_d*/__aeabi_f*/..., i.e. floating
# point arithmetic) is an error. Also reports writable global data.
set -eu
nm_tool=$1
obj=$2
mode=${3:-host}
undef=$($nm_tool -u "$obj" | awk '{print $NF}' | sort -u)
echo "nm-check: $obj: undefined symbols: $(echo $undef | tr '\n' ' ')"
bad=0
for s in $undef; do
    case "$s" in
        memcpy|memset|memcmp|memmove|strlen) ;;
        __aeabi_llsl|__aeabi_llsr|__aeabi_lasr|__aeabi_uidiv|__aeabi_uidivmod|__gnu_thumb1_case_*)
            if [ "$mode" != arm ]; then echo "nm-check: unexpected $s"; bad=1; fi ;;
        malloc|calloc|realloc|free)
            echo "nm-check: FORBIDDEN allocator symbol $s"; bad=1 ;;
        *)
            echo "nm-check: FORBIDDEN undefined symbol $s"; bad=1 ;;
    esac
done
data=$($nm_tool "$obj" | awk '$2 ~ /^[DdBbCc]$/ {print $3}')
if [ -n "$data" ]; then
    echo "nm-check: FORBIDDEN writable static data: $data"
    bad=1
fi
if [ $bad -ne 0 ]; then
    echo "nm-check: $obj: FAILED"
    exit 1
fi
echo "nm-check: $obj: OK (no allocator, no libc beyond mem*/strlen, no writable static data)"
