#!/bin/sh
# probe-selftest.sh: `vramlab probe selftest`, the CUDA kernels against the CPU emulation
# bit for bit.  Skipped (77) where no CUDA device answers, as on most build machines.
. "$srcdir/tests/lib.sh"

"$VRAMLAB" probe selftest > "$tmp/out" 2>&1
status=$?
cat "$tmp/out"
if grep -Eq '^skipped: (no CUDA device|no CUDA driver|CUDA driver too old|built without CUDA|.*: no kernel image for sm_[0-9]+)' "$tmp/out"; then
    [ $status -eq 0 ] || { echo "FAIL: a skipped selftest exits $status"; exit 1; }
    exit 77
fi
checks=$((checks + 1))
[ $status -eq 0 ] && tail -1 "$tmp/out" | grep -q '^selftest: [0-9]* checks, all identical$' ||
    fail "selftest: exit status $status"
finish
