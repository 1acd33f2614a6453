#!/bin/sh
# device-check.sh: the CUDA backend on a machine with a GPU, in one short run.
#
#   tests/device-check.sh            build vramlab with CUDA in a temporary directory
#   tests/device-check.sh VRAMLAB    or use that program (built with CUDA)
#
# Runs `vramlab probe selftest` (every kernel on both backends, bit for bit), then each
# experiment, `probe train` included, with defaults and at its edges, on --backend cuda and
# on --backend cpu, and compares the two JSON outputs without their backend lines; then
# the selftest and a training run again with CUDA_FORCE_PTX_JIT=1 (the PTX, compiled by
# the driver at load time, as a GPU newer than the build would run it).  Prints one line per check
# and a summary; exits 0 only when the selftest passed and every pair is identical.
# Needs, to build: a C compiler, make, pkg-config, ncursesw, libyaml, jansson, autoconf and
# automake (from git), and nvcc.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
failures=0
checks=0

say() { printf '%s\n' "$*"; }
fail() {
    failures=$((failures + 1))
    say "FAIL  $*"
}

if [ $# -gt 0 ]; then
    vramlab=$1
else
    say "building with CUDA in $work/build"
    if ! { [ -x "$src/configure" ] || (cd "$src" && autoreconf -fi > "$work/autoreconf.log" 2>&1); } ||
        ! mkdir "$work/build" ||
        ! (cd "$work/build" && "$src/configure" -q --with-cuda > "$work/configure.log" 2>&1) ||
        ! make -C "$work/build" -j"$(nproc 2> /dev/null || echo 2)" src/vramlab > "$work/make.log" 2>&1; then
        tail -n 30 "$work"/*.log
        say "device-check: the CUDA build failed"
        exit 1
    fi
    vramlab=$work/build/src/vramlab
fi
command -v nvidia-smi > /dev/null && nvidia-smi -L

checks=$((checks + 1))
"$vramlab" probe selftest > "$work/selftest" 2>&1
status=$?
cat "$work/selftest"
if grep -q '^skipped: ' "$work/selftest"; then
    say "device-check: no CUDA device answered, so nothing was checked"
    exit 1
elif [ $status -ne 0 ]; then
    fail "selftest: exit status $status"
fi

# pair ARGS...: vramlab probe ARGS on both backends, the same numbers.
pair() {
    checks=$((checks + 1))
    if ! "$vramlab" probe "$@" --backend cuda --format json > "$work/cuda.json" 2> "$work/err" ||
        ! "$vramlab" probe "$@" --backend cpu --format json > "$work/cpu.json" 2>> "$work/err"; then
        fail "probe $*: $(cat "$work/err")"
        return
    fi
    if ! grep -q '^ "backend": "cuda",$' "$work/cuda.json"; then
        fail "probe $*: did not run on the GPU: $(grep '"backend' "$work/cuda.json" | tr -d '\n')"
        return
    fi
    grep -v '^ "backend' "$work/cuda.json" > "$work/cuda.nb"
    grep -v '^ "backend' "$work/cpu.json" > "$work/cpu.nb"
    if cmp -s "$work/cuda.nb" "$work/cpu.nb"; then
        say "ok    probe $* ($(wc -c < "$work/cuda.nb") bytes identical)"
    else
        fail "probe $*: CUDA and CPU differ:"
        diff "$work/cpu.nb" "$work/cuda.nb" | head -n 10
    fi
}

pair underflow
pair underflow --saturate --scale 1,2^-20,3,2^100
pair underflow --count 16M --seed 9
pair scaler
pair scaler --growth-factor 1.5 --backoff-factor 0.7 --growth-interval 3 --overflow-prob 0.05
pair scaler --init-scale 2^126 --growth-interval 1 --grad-max 0 --steps 8
pair scaler --init-scale 2^-147 --overflow-at 1,2,3,4,5 --steps 10
pair update
pair update --weight 448 --update -16 --steps 100
pair update --weight 0.1 --update 1e-5 --count 4096
pair accumulate
pair accumulate --value 0.5
pair accumulate --value 0.75 --count 1M
pair train
pair train --accumulate-in format --steps 200
pair train --regimes fp16-dynamic,fp8 --init-scale 2^40 --steps 100
pair train --regimes fp16-static --scale 2^24 --steps 50 --seed 7

# The PTX path: the driver compiles the embedded PTX (compute_75's, or the newest one the
# GPU can run) at load time instead of using the SASS, as for a GPU newer than the build
# knows, and the results must be the same.
checks=$((checks + 1))
if CUDA_FORCE_PTX_JIT=1 "$vramlab" probe selftest > "$work/jit" 2>&1; then
    say "ok    selftest with CUDA_FORCE_PTX_JIT=1 ($(tail -n 1 "$work/jit"))"
else
    fail "selftest with CUDA_FORCE_PTX_JIT=1:"
    tail -n 5 "$work/jit"
fi
export CUDA_FORCE_PTX_JIT=1
pair train --steps 100
unset CUDA_FORCE_PTX_JIT

say ""
if [ $failures -eq 0 ]; then
    say "device-check: $checks checks passed: the CUDA kernels give the CPU emulation's results bit for bit"
else
    say "device-check: $failures of $checks checks FAILED"
fi
[ $failures -eq 0 ]
