#!/bin/sh
# cli-errors.sh: bad usage and bad input give one clear line naming the flag or the
# file:line:column, exit status 2, and nothing on stdout.
. "$srcdir/tests/lib.sh"

# expect STATUS MESSAGE ARGS...: vramlab ARGS exits STATUS with exactly MESSAGE on stderr.
expect() {
    want_status=$1
    want=$2
    shift 2
    checks=$((checks + 1))
    "$VRAMLAB" "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
    got=$(cat "$tmp/err")
    if [ "$status" -ne "$want_status" ]; then
        fail "vramlab $*: exit $status, expected $want_status ($got)"
    elif [ "$got" != "$want" ]; then
        fail "vramlab $*: stderr
    expected: $want
    got:      $got"
    elif [ -s "$tmp/out" ]; then
        fail "vramlab $*: printed on stdout as well"
    fi
}

bad=$srcdir/tests/bad
e="vramlab:"
expect 2 "$e unknown option '--bogus' (see vramlab estimate --help)" estimate --bogus
expect 2 "$e --gpus needs a value" estimate --gpus
expect 2 "$e --gpus: 'abc' is not a whole number: expected a number" estimate --gpus abc
expect 2 "$e --gpus must be between 1 and 1048576" estimate --gpus 0
expect 2 "$e --gpus must be between 1 and 1048576" estimate --gpus 2000000
expect 2 "$e --zero: '4' is not a ZeRO stage (0, 1, 2 or 3)" estimate --zero 4
expect 2 "$e --precision: unknown value 'fp8' (expected fp32, fp16, bf16, fp16-mixed, bf16-mixed, fp16-amp or bf16-amp)" \
    estimate --precision fp8
expect 2 "$e --optimizer: unknown value 'adamww' (expected adamw, adam-8bit, sgd-momentum, sgd or lion); did you mean 'adamw'?" \
    estimate --optimizer adamww
expect 2 "$e --format: unknown value 'yaml' (expected table, json, csv, markdown or svg)" estimate --format yaml
expect 2 "$e --preset: no model named 'llama-2-7' (vramlab presets lists them); did you mean 'llama-2-7b'?" \
    estimate --preset llama-2-7
expect 2 "$e --gpu: no GPU named 'h100' (vramlab presets lists them)" estimate --gpu h100
expect 2 "$e --params: '7Q' is not a whole number: unknown unit suffix" estimate --params 7Q
expect 2 "$e --params: '1.5' is not a whole number: not a whole number" estimate --params 1.5
expect 2 "$e --params: '100' is outside 1M..100T" estimate --params 100
expect 2 "$e --overhead: 'lots' is not a size (e.g. 0, 1GiB, 800MB): expected a number" \
    estimate --overhead lots
expect 2 "$e --batch: '-1' is not a whole number: must not be negative" estimate --batch -1
expect 2 "$e --seq must be between 1 and 16777216" estimate --seq 20000000
expect 2 "$e --mode infer: inference estimates are not in this version yet; use --mode train" \
    estimate --mode infer
expect 2 "$e --gen applies to --mode infer only" estimate --gen 10
expect 2 "$e --weight-dtype and --kv-dtype apply to --mode infer only" estimate --weight-dtype int4
expect 2 "$e --fp32-grads needs fp32, fp16-mixed, bf16-mixed, fp16-amp or bf16-amp" \
    estimate --precision bf16 --fp32-grads
expect 2 "$e give only one of --preset, --preset-file and --params" estimate --preset gpt2 --params 7B
expect 2 "$e the result does not fit in 64 bits (over 16 EiB per GPU): reduce --batch or --seq" \
    estimate --params 10T --precision fp32 --batch 1048576 --seq 16777216
expect 2 "$e unexpected argument 'extra' (see vramlab estimate --help)" estimate extra
expect 2 "$e unknown command 'frobnicate' (see vramlab --help)" frobnicate
expect 2 "$e $bad/missing.yaml: cannot open: No such file or directory" \
    estimate --preset-file "$bad/missing.yaml"
expect 2 "$e $bad/params-mismatch.yaml:3:1: params: 6,738,415,617 does not match the architecture's count (embedding 131,072,000 + untied output layer + 32 layers x 202,383,360 + final norm 4,096 = 6,738,415,616)" \
    estimate --preset-file "$bad/params-mismatch.yaml"
expect 2 "$e $bad/unknown-key.yaml:7:3: unknown key 'architecture.vocab_sise'; did you mean 'vocab_size'?" \
    estimate --preset-file "$bad/unknown-key.yaml"
expect 2 "$e $bad/syntax.yaml:5:2: YAML syntax error: did not find expected key while parsing a block mapping" \
    estimate --preset-file "$bad/syntax.yaml"
expect 2 "$e --preset-file: $srcdir/presets/gpus/h100-80gb.yaml is a 'gpu' preset, not a model" \
    estimate --preset-file "$srcdir/presets/gpus/h100-80gb.yaml"
expect 2 "$e presets: unexpected argument 'x'" presets x
expect 2 "$e --no-mouse, --no-color, --ascii and --theme apply to the explorer (vramlab tui) only" \
    estimate --ascii
expect 2 "$e --format, --check-fit and --explain apply to vramlab estimate" tui --format json
expect 2 "$e --theme: unknown value 'dark' (expected default or high-contrast)" tui --theme dark

# A good preset file loads and is used.
checks=$((checks + 1))
"$VRAMLAB" estimate --preset-file "$srcdir/presets/models/gpt2.yaml" --format csv > "$tmp/out" ||
    fail "--preset-file with a good preset"

finish
