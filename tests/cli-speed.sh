#!/bin/sh
# cli-speed.sh: training step time against published large runs.
. "$srcdir/tests/lib.sh"

# jnum KEY FILE: the number after "KEY": in FILE
jnum() {
    sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p" "$2" | head -1
}
# within GOT WANT PERCENT: |GOT - WANT| <= PERCENT% of WANT
within() {
    awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'
}

# Llama 3.1 405B: 30.84M H100-80GB GPU-hours (the model card, meta-llama/Llama-3.1-405B,
# "Training Factors"), for 15.6T tokens at a sequence of 8192 on up to 16,384 H100s at
# 38-43% BF16 MFU (Dubey et al. 2024, "The Llama 3 Herd of Models", sections 3.1.1, 3.3
# and Table 4).  At the default --mfu 0.4: within 10%.
checks=$((checks + 1))
"$VRAMLAB" estimate --preset llama-3.1-405b --gpu h100-80gb --gpus 16384 --tp 8 --pp 16 \
    --zero 1 --seq 8192 --grad-accum 16 --tokens 15.6T --format json > "$tmp/l.json" ||
    fail "llama-3.1-405b: exit $?"
h=$(jnum gpu_hours "$tmp/l.json")
within "$h" 30840000 10 || fail "Llama 3.1 405B: $h GPU-hours, published 30.84M"
# the FLOPs of the 405B's pretraining, 3.8e25 (Dubey et al. 2024, section 1)
checks=$((checks + 1))
f=$(jnum model_flops_per_token "$tmp/l.json")
within "$(awk -v f="$f" 'BEGIN { print f * 15.6e12 }')" 3.8e25 10 ||
    fail "Llama 3.1 405B: $f FLOPs a token x 15.6T, published 3.8e25"

# GPT-3 175B: 3.14e23 FLOPs for 300B tokens at a context of 2048 (Brown et al. 2020,
# Table D.1, 3.64e3 petaflop/s-days, which leave attention out, "less than 10%").
checks=$((checks + 1))
"$VRAMLAB" estimate --preset gpt3-175b --gpus 1024 --tp 8 --pp 8 --zero 1 --tokens 300B \
    --format json > "$tmp/g.json" || fail "gpt3-175b: exit $?"
f=$(jnum model_flops_per_token "$tmp/g.json")
within "$(awk -v f="$f" 'BEGIN { print f * 300e9 }')" 3.14e23 10 ||
    fail "GPT-3 175B: $f FLOPs a token x 300B, published 3.14e23"

# Every format says it: the table and Markdown a speed line, JSON the numbers.
for f in table markdown; do
    checks=$((checks + 1))
    "$VRAMLAB" estimate --tokens 2T --mfu 0.5 --format $f > "$tmp/out"
    grep -q 'at 50% MFU of 989 TFLOP/s:.*2e12 tokens: .* days, .* GPU-hours' "$tmp/out" ||
        fail "--format $f: no step time: $(grep -i speed "$tmp/out")"
done
checks=$((checks + 1))
"$VRAMLAB" estimate --precision fp32 --format json > "$tmp/out"
grep -q '"step_seconds": null' "$tmp/out" || fail "fp32: a step time without a peak"
finish
