#!/bin/sh
# train-opt-levels.sh: the CPU emulation of `probe train` built at -O0 and at -O2 (both
# with -ffp-contract=off, as the build) gives the same numbers bit for bit: every step of
# every regime (tests/train-dump.c), compared by hash.
. "$srcdir/tests/lib.sh"
cc=${CC:-cc}
top=$srcdir
# the build's config.h without CUDA: the dump runs the CPU emulation alone
sed '/HAVE_CUDA/d' "${builddir:-.}/config.h" > "$tmp/config.h"
for o in -O0 -O2; do
    checks=$((checks + 1))
    if ! $cc -std=c11 -D_POSIX_C_SOURCE=200809L $o -ffp-contract=off -I"$tmp" -I"$top/src" \
        -o "$tmp/dump$o" "$top/tests/train-dump.c" "$top/src/core/train.c" \
        "$top/src/core/backend.c" "$top/src/core/cpu-kernels.c" "$top/src/core/numerics.c" \
        -lm 2> "$tmp/cc.err"; then
        fail "cc $o: $(head -5 "$tmp/cc.err")"
        continue
    fi
    "$tmp/dump$o" > "$tmp/out$o" || fail "dump $o failed"
done
checks=$((checks + 1))
if [ -s "$tmp/out-O0" ] && cmp -s "$tmp/out-O0" "$tmp/out-O2"; then
    echo "ok: -O0 and -O2 identical ($(wc -l < "$tmp/out-O0") lines, sha256 $(sha256sum < "$tmp/out-O0" | cut -c1-16))"
else
    fail "-O0 and -O2 differ: $(diff "$tmp/out-O0" "$tmp/out-O2" | head -4)"
fi
finish
