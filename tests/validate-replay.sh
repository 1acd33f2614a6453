#!/bin/sh
# validate-replay.sh: `predict --replay`, which make validate sends real PyTorch storages
# through (tests/validate/alloc-trace.c, peak.py), on traces written by hand: the caching
# allocator's segments derived from its rules (src/core/runtime.h), a kernel's scratch left
# out, and traces it refuses.
. "$srcdir/tests/lib.sh"

predict=$builddir/tests/validate/predict

# replay TRACE-LINES EXPECTED: the replay prints "tensors allocated reserved"
replay() {
    checks=$((checks + 1))
    printf '%s\n' "$1" > "$tmp/trace"
    got=$("$predict" --replay "$tmp/trace" 2>&1)
    [ "$got" = "$2" ] || fail "replay of: $1
    expected: $2
    got:      $got"
}

# refused TRACE-LINES MESSAGE: exit 2 and the message naming the line
refused() {
    checks=$((checks + 1))
    printf '%s\n' "$1" > "$tmp/trace"
    got=$("$predict" --replay "$tmp/trace" 2>&1)
    status=$?
    [ "$status" -eq 2 ] && [ "$got" = "predict: $tmp/trace:$2" ] || fail "replay of: $1
    expected: exit 2, predict: $tmp/trace:$2
    got:      exit $status, $got"
}

# What the model makes before LOADED is the CPU's: left out, and so is its free.  A 5 MiB
# storage (a large-pool request under 10 MiB) takes a 20 MiB segment, a second one the
# next 5 MiB of it; the first freed, a 12 MiB request (10 MiB or more: a segment of its own,
# rounded to 2 MiB) fits neither the 5 MiB hole nor the 10 MiB left, and takes 12 MiB.
# The step measured, from START: 5 MiB, then 10, 5 and 17 MiB (17,825,792 B) of storages
# and of blocks; reserved 20 + 12 MiB = 33,554,432 B.
replay "a 99 1000000000
m LOADED
a 10 5242880
f 99
m START forward
a 20 5242880
f 10
a 30 12582912
m STOP" "17825792 17825792 33554432"

# Under 512 B a storage takes a 512 B block (allocated counts blocks), of a 2 MiB
# small-pool segment; the peak is the step's from its START, though nothing is made in it.
replay "m LOADED
a 10 100
m START x
f 10
m STOP" "100 512 2097152"

# A storage freed before any other is made or freed is a CPU kernel's scratch, left out: a
# 30 MiB one between two 5 MiB storages, which share one 20 MiB segment.  Freed after the
# next storage is made, or after a phase's line, it is kept: a 30 MiB segment of its own.
replay "m LOADED
m START x
a 10 5242880
a 20 31457280
f 20
a 30 5242880
m STOP" "10485760 10485760 20971520"
replay "m LOADED
m START x
a 10 5242880
a 20 31457280
a 30 5242880
f 20
m STOP" "41943040 41943040 52428800"
replay "m LOADED
m START x
a 10 5242880
a 20 31457280
m backward
f 20
a 30 5242880
m STOP" "36700160 36700160 52428800"

refused "m LOADED
a 10 100
garbage" "3: the trace is unreadable"
refused "m LOADED
x" "2: the trace ends early (the tracer's table was full)"
refused "a 10 100
m START x
m STOP" "3: the trace has no LOADED line"
refused "m LOADED
m START x" "2: the trace has no STOP line"

finish
