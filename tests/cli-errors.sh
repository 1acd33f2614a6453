#!/bin/sh
# cli-errors.sh: bad usage and bad input give one clear line naming the flag or the
# file:line:column, exit status 2, and nothing on stdout.
. "$srcdir/tests/lib.sh"

bad=$srcdir/tests/bad
e="vramlab:"
expect 2 "$e unknown option '--bogus' (see vramlab estimate --help)" estimate --bogus
expect 2 "$e --gpus needs a value" estimate --gpus
expect 2 "$e --gpus: 'abc' is not a whole number: expected a number" estimate --gpus abc
expect 2 "$e --gpus must be between 1 and 1048576" estimate --gpus 0
expect 2 "$e --gpus must be between 1 and 1048576" estimate --gpus 2000000
expect 2 "$e --zero must be between 0 and 3" estimate --zero 4
expect 2 "$e --precision: unknown value 'fp8' (expected fp32, fp16, bf16, fp16-mixed, bf16-mixed, fp16-amp or bf16-amp)" \
    estimate --precision fp8
expect 2 "$e --optimizer: unknown value 'adamww' (expected adamw, adam-8bit, sgd-momentum, sgd, lion, adafactor, adafactor-momentum or muon); did you mean 'adamw'?" \
    estimate --optimizer adamww
expect 2 "$e --format: unknown value 'yaml' (expected table, json, csv, markdown or svg)" estimate --format yaml
# a transformers release that names none, bitsandbytes in serving, a day that is none
expect 2 "$e --transformers: unknown value '4.x' (expected current or a release from 4.0 to 4.57); did you mean '4.0'?" \
    estimate --transformers 4.x
expect 2 "$e --bitsandbytes applies to --mode train only" estimate --mode infer --bitsandbytes 0.41
expect 2 "$e --padded: unknown value 'maybe' (expected auto, true or false)" estimate --padded maybe
expect 2 "$e --peft: unknown value '0.x' (expected current or 0.11)" estimate --peft 0.x
expect 2 "$e --peft applies to --mode train only" estimate --mode infer --peft 0.11
expect 2 "$e --quant-storage: unknown value 'int8' (expected uint8, bf16, fp16 or fp32); did you mean 'uint8'?" \
    estimate --qlora --lora-rank 8 --quant-storage int8
expect 2 "$e --quant-storage applies to --mode train only" estimate --mode infer --quant-storage bf16
expect 2 "$e --padded applies to --mode train only" estimate --mode infer --padded true
expect 2 "$e --as-of: '2023-02-29' is not a day: no such day in the calendar" estimate --as-of 2023-02-29
expect 2 "$e --as-of: 'yesterday' is not a day: expected YYYY-MM-DD, YYYY-MM, YYYY or current" \
    estimate --as-of yesterday
expect 2 "$e --as-of: '1999-12' is not a day: the year must be from 2000 to 2099" \
    estimate --as-of 1999-12
expect 2 "$e --bitsandbytes: unknown value '0.40' (expected current or a release from 0.41 to 0.43.1); the first modelled after it is 0.41" \
    estimate --qlora --bitsandbytes 0.40
expect 2 "$e --preset: no model or scenario named 'llama-2-7' (vramlab presets lists them); did you mean 'llama-2-7b'?" \
    estimate --preset llama-2-7
expect 2 "$e --gpu: no GPU named 'h100' (vramlab presets lists them); did you mean 'h100-80gb' or 'h100-pcie'?" estimate --gpu h100
# no name begins as it does: the names that hold it
expect 2 "$e --gpu: no GPU named '4090' (vramlab presets lists them); did you mean 'rtx-4090'?" estimate --gpu 4090
expect 2 "$e --preset: no model or scenario named 'Qwen/Qwen2.5-7B-Instruct' (vramlab presets lists them); did you mean 'qwen2.5-7b'?" \
    estimate --preset Qwen/Qwen2.5-7B-Instruct
# a variant named after its preset's repository rather than the preset
expect 2 "$e --preset: no model or scenario named 'meta-llama/Meta-Llama-3-8B-Instruct' (vramlab presets lists them); did you mean 'llama-3-8b'?" \
    estimate --preset meta-llama/Meta-Llama-3-8B-Instruct
expect 2 "$e --params: '7Q' is not a whole number: unknown unit suffix" estimate --params 7Q
expect 2 "$e --params: '1.5' is not a whole number: not a whole number" estimate --params 1.5
expect 2 "$e --params: '100' is outside 1M..100T" estimate --params 100
expect 2 "$e --overhead: 'lots' is not a size: expected a number (e.g. 0, 1GiB, 800MB)" \
    estimate --overhead lots
expect 2 "$e --batch: '-1' is not a whole number: must not be negative" estimate --batch -1
expect 2 "$e --seq must be between 1 and 16777216" estimate --seq 20000000
expect 2 "$e --zero applies to --mode train only" estimate --mode infer --zero 3
expect 2 "$e --optimizer applies to --mode train only" estimate --mode infer --optimizer sgd
expect 2 "$e --kv-dtype: unknown value 'q8_0' (expected fp32, fp16, bf16, fp8, int8 or int4)" estimate --mode infer --kv-dtype q8_0
expect 2 "$e --weight-dtype: unknown value 'q4_km' (expected fp32, fp16, bf16, fp8, int8, int4, bnb4, bnb4-dq, bnb8, q4_0, q4_1, q5_0, q5_1, q8_0, q2_k, q2_k_s, q3_k_s, q3_k_m, q3_k_l, q4_k_s, q4_k_m, q5_k_s, q5_k_m, q6_k, iq4_nl, iq4_xs, iq3_xxs, iq3_xs, iq3_s, iq3_m, iq2_xxs, iq2_xs, iq2_s, iq2_m, iq1_s or iq1_m); did you mean 'q4_k_m'?" estimate --mode infer --weight-dtype q4_km
expect 2 "$e --weight-dtype applies to --mode infer only" estimate --weight-dtype q4_k_m
expect 2 "$e --kv-dtype: unknown value 'bnb4' (expected fp32, fp16, bf16, fp8, int8 or int4)" estimate --mode infer --kv-dtype bnb4
expect 2 "$e --compute-dtype: unknown value 'int8' (expected fp32, fp16 or bf16)" estimate --mode infer --weight-dtype bnb4 --compute-dtype int8
expect 2 "$e --weight-format awq needs --weight-dtype int4 (AWQ's checkpoints are 4-bit)" \
    estimate --mode infer --weight-dtype int8 --weight-format awq
# --int4-format, its old name, reads the same and is named as the setting is
expect 2 "$e --weight-format: unknown value 'exl2' (expected symmetric, gptq or awq)" \
    estimate --mode infer --weight-dtype int4 --int4-format exl2
expect 2 "$e --compute-dtype applies to --mode infer only" estimate --compute-dtype bf16
expect 2 "$e --fsdp-mixed-precision: unknown value 'yes' (expected auto, true or false)" \
    estimate --zero 3 --gpus 8 --fsdp-mixed-precision yes
expect 2 "$e --fsdp-mixed-precision applies to --mode train only" \
    estimate --mode infer --fsdp-mixed-precision true
expect 2 "$e --zero-grad: unknown value 'forward' (expected step or backward)" \
    estimate --zero-grad forward
expect 2 "$e --paged-optimizer applies to --mode train only" estimate --mode infer --paged-optimizer
expect 2 "$e --mfu must be above 0 and at most 1, got '0'" estimate --mfu 0
expect 2 "$e --mfu: '1.5' is not a fraction: expected a fraction from 0 to 1 (0.4 or 40%)" estimate --mfu 1.5
expect 2 "$e --mfu: 'abc' is not a fraction: expected a number" estimate --mfu abc
expect 2 "$e --mfu applies to --mode train only" estimate --mode infer --mfu 0.3
expect 2 "$e --lora-dropout must be at least 0 and below 1, got '1'" estimate --lora-rank 8 --lora-dropout 1
expect 2 "$e --lora-dropout: '-0.1' is not a fraction: expected a fraction from 0 to 1 (0.4 or 40%)" \
    estimate --lora-rank 8 --lora-dropout -0.1
expect 2 "$e --tokens: '0x' is not a whole number: unknown unit suffix" estimate --tokens 0x
expect 2 "$e --tokens applies to --mode train only" estimate --mode infer --tokens 1T
expect 2 "$e $bad/mfu-range.yaml:5:8: settings.mfu: '1.5' is not a fraction from 0 to 1" \
    estimate --preset-file "$bad/mfu-range.yaml"
expect 2 "$e --ep needs a mixture-of-experts model" estimate --preset llama-2-7b --ep 2 --gpus 2
expect 2 "$e --ep 3 must divide the model's 8 routed experts (each GPU keeps whole experts)" \
    estimate --preset mixtral-8x7b --ep 3 --gpus 3
expect 2 "$e --ep must divide the data-parallel GPUs, --gpus / (--tp x --pp) (expert parallelism splits the experts over data-parallel ranks)" \
    estimate --preset mixtral-8x7b --ep 2 --gpus 3
expect 2 "$e --ep with --tp, --pp or --lora-rank is not modelled (expert parallelism runs with data parallelism and full fine-tuning)" \
    estimate --preset mixtral-8x7b --ep 2 --gpus 4 --tp 2
expect 2 "$e --ep applies to --mode train only" estimate --mode infer --ep 2
expect 2 "$e --ep must be between 1 and 1048576" estimate --ep 0
expect 2 "$e --cp must be between 1 and 1048576" estimate --cp 0
expect 2 "$e --cp: 'two' is not a whole number: expected a number" estimate --cp two
expect 2 "$e --cp applies to --mode train only" estimate --mode infer --cp 2
expect 2 "$e --gpus must be a multiple of --tp x --pp x --cp (GPUs = tensor x pipeline x context x data parallel)" \
    estimate --cp 4 --gpus 6
expect 2 "$e --seq must be a multiple of 2 x --cp (context parallelism gives each GPU two of 2 x cp equal chunks of the sequence)" \
    estimate --cp 4 --gpus 4 --seq 2052
expect 2 "$e --cp needs --attention sdpa or flash (context parallelism runs ring attention over blocks, never the whole s x s scores)" \
    estimate --cp 2 --gpus 2 --attention eager
expect 2 "$e --cp with --ep or --lora-rank is not modelled (context parallelism as Megatron-Core runs it: full fine-tuning, dense or with --tp, --pp)" \
    estimate --cp 2 --gpus 2 --lora-rank 8
expect 2 "$e --torch: SDPA attention needs PyTorch 2.0 or later, which brought scaled_dot_product_attention (give --attention eager or flash)" \
    estimate --framework litgpt --torch 1.13
expect 2 "$e --autocast false: the -amp precisions are autocast over fp32 weights (give fp16 or bf16 for a 16-bit model without it)" \
    estimate --precision bf16-amp --autocast false
expect 2 "$e --autocast true: autocast over fp32 weights is --precision bf16-amp or fp16-amp" \
    estimate --precision fp32 --autocast true
expect 2 "$e --autocast: unknown value 'maybe' (expected auto, true or false)" estimate --autocast maybe
expect 2 "$e --vpp must be between 1 and 1048576" estimate --vpp 0
expect 2 "$e --vpp applies to --mode train only" estimate --mode infer --vpp 2
expect 2 "$e --vpp needs --pp 2 or more (interleaving splits each pipeline stage's layers into model chunks)" \
    estimate --vpp 2
expect 2 "$e --vpp needs --grad-accum a multiple of --pp (the interleaved schedule runs micro-batches in groups of pp)" \
    estimate --pp 4 --gpus 4 --vpp 2 --grad-accum 6
expect 2 "$e --pp x --vpp (24) must divide the model's 32 layers (each model chunk holds as many whole layers)" \
    estimate --preset llama-2-7b --pp 4 --gpus 4 --vpp 6 --grad-accum 8
expect 2 "$e --gpu-util: '1.2' is not a fraction: expected a fraction from 0 to 1 (0.4 or 40%)" \
    estimate --mode infer --gpu-util 1.2
expect 2 "$e --gpu-util applies to --mode infer only" estimate --gpu-util 0.9
expect 2 "$e --kv-block must be between 1 and 65536" estimate --mode infer --kv-block 100000
expect 2 "$e --kv-block applies to --mode infer only" estimate --kv-block 16
expect 2 "$e --prefill-chunk must be between 1 and 16777216" estimate --mode infer --prefill-chunk 99999999
expect 2 "$e --prefill-chunk: '-5' is not a whole number: must not be negative" \
    estimate --mode infer --prefill-chunk -5
expect 2 "$e --prefill-chunk applies to --mode infer only" estimate --prefill-chunk 512
expect 2 "$e --profile-seqs must be between 1 and 1048576" estimate --mode infer --profile-seqs 0
expect 2 "$e --cpu-offload applies to --mode infer only" estimate --cpu-offload 4GiB
expect 2 "$e --cpu-offload: '-4GiB' is not a size: must not be negative (e.g. 0, 1GiB, 800MB)" \
    estimate --mode infer --cpu-offload -4GiB
expect 2 "$e --cpu-offload: '4GiG' is not a size: unknown unit suffix (e.g. 0, 1GiB, 800MB)" \
    estimate --mode infer --cpu-offload 4GiG
expect 2 "$e --cpu-offload: '65TiB' is outside 0 B .. 64 TiB" \
    estimate --mode infer --cpu-offload 65TiB
expect 2 "$e --cpu-offload with a GGUF --weight-dtype is not modelled (llama.cpp runs the layers it keeps in CPU memory on the CPU: --n-gpu-layers)" \
    estimate --mode infer --weight-dtype q4_k_m --cpu-offload 1GiB
expect 2 "$e --solve max-concurrency is for serving (--mode infer)" estimate --solve max-concurrency
expect 1 "$e --solve max-concurrency on a100-40gb: not one sequence's KV cache fits beside the weights, workspace and overhead" \
    estimate --mode infer --solve max-concurrency --gpu a100-40gb --preset llama-2-70b --gpu-util 0.5
expect 2 "$e --gpus: tensor parallelism needs the GPU count to divide the model's attention heads" \
    estimate --mode infer --gpus 3
expect 2 "$e --solve: unknown value 'max-gpus' (expected max-batch, max-context, min-gpus or max-concurrency); did you mean 'min-gpus'?" \
    estimate --solve max-gpus
expect 1 "$e --solve min-gpus on h100-80gb: no GPU count fits: at ZeRO-0 every GPU holds the whole model (try --zero 1, 2 or 3)" \
    estimate --solve min-gpus
expect 2 "$e --gen applies to --mode infer only" estimate --gen 10
expect 2 "$e --weight-dtype applies to --mode infer only" estimate --weight-dtype int4
expect 2 "$e --fp32-grads needs fp32, fp16-mixed, bf16-mixed, fp16-amp or bf16-amp" \
    estimate --precision bf16 --fp32-grads
expect 2 "$e give only one of --preset, --preset-file, --hf-config, --model and --params" estimate --preset gpt2 --params 7B
expect 2 "$e the result does not fit in 64 bits (over 16 EiB per GPU): reduce --batch or --seq" \
    estimate --params 10T --precision fp32 --batch 1048576 --seq 16777216
expect 2 "$e unexpected argument 'extra' (see vramlab estimate --help)" estimate extra
expect 2 "$e unknown command 'frobnicate' (see vramlab --help)" frobnicate
# a prefix of more than one option is ambiguous, and the message lists them
expect 2 "$e ambiguous option '--p' (it could be --precision, --paged-optimizer, --padded, --pp, --peft, --prefill-chunk, --profile-seqs, --preset, --preset-file, --params)" \
    estimate --p gpt2
expect 2 "$e ambiguous option '--pre' (it could be --precision, --prefill-chunk, --preset, --preset-file)" \
    estimate --pre gpt2
expect 2 "$e ambiguous option '--s' (it could be --seed, --steps, --scale, --saturate)" \
    probe underflow --s 2
expect 2 "$e $bad/missing.yaml: cannot open: No such file or directory" \
    estimate --preset-file "$bad/missing.yaml"
expect 2 "$e $bad/params-mismatch.yaml:3:1: params: 6,738,415,617 does not match the architecture's count (embedding 131,072,000 + output layer 131,072,000 + 32 layers x 202,383,360 + final norm 4,096 = 6,738,415,616)" \
    estimate --preset-file "$bad/params-mismatch.yaml"
expect 2 "$e $bad/unknown-key.yaml:7:3: unknown key 'architecture.vocab_sise'; did you mean 'vocab_size'?" \
    estimate --preset-file "$bad/unknown-key.yaml"
expect 2 "$e $bad/syntax.yaml:5:2: YAML syntax error: did not find expected key while parsing a block mapping" \
    estimate --preset-file "$bad/syntax.yaml"
expect 2 "$e --preset-file: $srcdir/presets/gpus/h100-80gb.yaml is a 'gpu' preset, not a model or scenario" \
    estimate --preset-file "$srcdir/presets/gpus/h100-80gb.yaml"
expect 2 "$e presets: unexpected argument 'x'" presets x
expect 2 "$e --no-mouse, --no-color, --ascii, --theme, --lesson and --lang apply to the explorer (vramlab tui) only" \
    estimate --ascii
expect 2 "$e --no-mouse, --no-color, --ascii, --theme, --lesson and --lang apply to the explorer (vramlab tui) only" \
    estimate --lesson 2
expect 2 "$e --lesson: '0' is not a step from 1 to 16 (NAME:N, N or NAME)" tui --lesson 0
expect 2 "$e --lesson: 'mixed-precision:x' is not a step from 1 to 16 (NAME:N, N or NAME)" \
    tui --lesson mixed-precision:x
expect 2 "$e --lang: unknown value 'fr' (expected en or zh)" tui --lang fr
expect 2 "$e --format, --check-fit and --explain apply to vramlab estimate" tui --format json
expect 2 "$e --theme: unknown value 'dark' (expected default or high-contrast)" tui --theme dark

# formats, inspect and probe
expect 2 "$e formats: unexpected argument 'extra'" formats extra
expect 2 "$e --format: unknown value 'csv' (expected table or json)" formats --format csv
expect 2 "$e inspect: give at least one VALUE (e.g. vramlab inspect 0.1)" inspect
expect 2 "$e inspect: give at least one VALUE (e.g. vramlab inspect 0.1)" inspect --saturate
expect 2 "$e inspect: 'abc': expected a number (values are e.g. 0.1, -1e-8, 0x1p-24, 2^-24, inf)" \
    inspect 0.1 abc
expect 2 "$e inspect: '2^x': expected 2^N with a whole N (values are e.g. 0.1, -1e-8, 0x1p-24, 2^-24, inf)" \
    inspect 2^x
# a value that fp64 cannot hold is refused, not shown as 0 or inf with no error
expect 2 "$e inspect: '1e-400': it underflows fp64: nonzero but below 2^-1074 (4.9e-324), it reads as 0 (values are e.g. 0.1, -1e-8, 0x1p-24, 2^-24, inf)" \
    inspect 1e-400
expect 2 "$e inspect: '-1e400': it overflows fp64: above 1.8e308 it reads as inf (write inf for infinity) (values are e.g. 0.1, -1e-8, 0x1p-24, 2^-24, inf)" \
    inspect -- -1e400
expect 2 "$e inspect: '2^1024': 2^N is a number of fp64 for N from -1074 to 1023 only (values are e.g. 0.1, -1e-8, 0x1p-24, 2^-24, inf)" \
    inspect 2^1024
expect 2 "$e unknown option '--bogus' (see vramlab inspect --help)" inspect 1 --bogus
expect 2 "$e --format needs a value" inspect 1 --format
expect 2 "$e --format: unknown value 'xml' (expected table or json)" inspect 1 --format=xml
expect 2 "$e probe: unknown experiment 'frob' (expected underflow, scaler, update, accumulate, train or selftest)" \
    probe frob
expect 2 "$e probe: unknown experiment 'underflw' (expected underflow, scaler, update, accumulate, train or selftest); did you mean 'underflow'?" \
    probe underflw
expect 2 "$e probe: unexpected argument 'extra' (see vramlab probe --help)" probe underflow extra
expect 2 "$e unknown option '--bogus' (see vramlab probe --help)" probe --bogus
expect 2 "$e --steps needs a value" probe scaler --steps
expect 2 "$e probe: --count is for probe underflow, update or accumulate: name the experiment" \
    probe --count 5
expect 2 "$e probe scaler: --value does not apply (it is for accumulate)" probe scaler --value 1
expect 2 "$e probe selftest: --backend does not apply (it is for underflow, scaler, update, accumulate or train)" \
    probe selftest --backend cpu
expect 2 "$e --backend: unknown value 'metal' (expected auto, cpu or cuda)" probe --backend metal
expect 2 "$e --seed: 'x' is not a whole number: expected a number" probe --seed x
expect 2 "$e --scale: '0' must be a positive finite number" probe underflow --scale 0
expect 2 "$e --scale: '-8' must be a positive finite number" probe underflow --scale 1,-8
expect 2 "$e --scale: 'inf' must be a positive finite number" probe underflow --scale inf
expect 2 "$e --scale: '1e-50' must be a positive finite number (in fp32)" probe underflow --scale 1e-50
expect 2 "$e --scale: '1,,2' is not a list of values separated by commas" probe underflow --scale 1,,2
expect 2 "$e --scale: at most 8 values" probe underflow --scale 1,2,3,4,5,6,7,8,9
expect 2 "$e --count must be between 1 and 268435456" probe underflow --count 0
expect 2 "$e --count must be between 1 and 65536" probe update --count 100000
expect 2 "$e --count must be between 1 and 16777216" probe accumulate --count 1e9
expect 2 "$e --steps must be between 1 and 1000000" probe scaler --steps 2M
expect 2 "$e probe underflow: give --count or --input, not both" probe underflow --count 5 --input x.npy
expect 2 "$e --growth-factor: '1' must be a finite number above 1" probe scaler --growth-factor 1
expect 2 "$e --backoff-factor: '1.5' must be between 0 and 1, exclusive" probe scaler --backoff-factor 1.5
expect 2 "$e --growth-interval must be between 1 and 2147483647" probe scaler --growth-interval 0
expect 2 "$e --init-scale: 'nan' must be a positive finite number" probe scaler --init-scale nan
expect 2 "$e --grad-max: '-1' must be a finite number, 0 or more" probe scaler --grad-max -1
expect 2 "$e --overflow-prob: '2' must be a probability, 0 to 1" probe scaler --overflow-prob 2
expect 2 "$e --overflow-at: steps count from 1" probe scaler --overflow-at 5,0
expect 2 "$e --overflow-at: step 13000 is past the last step (12000)" probe scaler --overflow-at 13000
expect 2 "$e probe scaler: give --overflow-prob or --overflow-at, not both" \
    probe scaler --overflow-at 5 --overflow-prob 0.1
expect 2 "$e --weight: 'inf' must be a finite number" probe update --weight inf
expect 2 "$e --update: '1e39' must be a finite number (in fp32)" probe update --update 1e39
expect 2 "$e --value: 'abc' is not a number: expected a number" probe accumulate --value abc

# gradient files that are not what they say, each refused with its reason
npy() { # npy FILE HEADER-DICT DATA-BYTES: a version 1.0 .npy file, header padded to 64 bytes
    printf '\223NUMPY\001\000\166\000%-117s\n' "$2" > "$1"
    head -c "$3" /dev/zero >> "$1"
}
d="{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }"
npy "$tmp/good.npy" "$d" 16
head -c 40 "$tmp/good.npy" > "$tmp/truncated.npy"
expect 2 "$e --input: $tmp/truncated.npy: truncated .npy header: the file has 40 bytes, the header needs 128" \
    probe underflow --input "$tmp/truncated.npy"
printf 'NUMPY-ish' > "$tmp/magic.npy"
expect 2 "$e --input: $tmp/magic.npy: not a .npy file (it does not start with \\x93NUMPY)" \
    probe underflow --input "$tmp/magic.npy"
npy "$tmp/fortran.npy" "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }" 16
expect 2 "$e --input: $tmp/fortran.npy: fortran_order is True: only C-order arrays are read (save numpy.ascontiguousarray(a))" \
    probe underflow --input "$tmp/fortran.npy"
npy "$tmp/big.npy" "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }" 16
expect 2 "$e --input: $tmp/big.npy: dtype '>f4' is big-endian: only little-endian float32 ('<f4') and float64 ('<f8') are read" \
    probe underflow --input "$tmp/big.npy"
npy "$tmp/int.npy" "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }" 16
expect 2 "$e --input: $tmp/int.npy: dtype '<i4' is not float32 ('<f4') or float64 ('<f8')" \
    probe underflow --input "$tmp/int.npy"
npy "$tmp/short.npy" "$d" 12
expect 2 "$e --input: $tmp/short.npy: shape (4,) of '<f4' needs 16 bytes of data, the file has 12" \
    probe underflow --input "$tmp/short.npy"
printf 'abcde' > "$tmp/odd.raw"
expect 2 "$e --input: $tmp/odd.raw: 5 bytes is not a whole number of float32 values (a name without .npy is read as raw little-endian float32)" \
    probe underflow --input "$tmp/odd.raw"
expect 2 "$e --input: $tmp/missing.npy: cannot open: No such file or directory" \
    probe underflow --input "$tmp/missing.npy"
checks=$((checks + 1))
"$VRAMLAB" probe underflow --input "$tmp/good.npy" > "$tmp/out" || fail "a good .npy file is refused"
checks=$((checks + 1))
[ "$(head -1 "$tmp/out")" = "underflow: 4 gradients from $tmp/good.npy, times each loss scale, cast to each format" ] ||
    fail "probe underflow --input: $(head -1 "$tmp/out")"

# LoRA and QLoRA (training only; --qlora and --lora-targets need a rank).
expect 2 "$e --lora-rank must be between 1 and 65536" \
    estimate --lora-rank 0
expect 2 "$e --lora-targets: unknown target 'x' (expected q, k, v, o, gate, up, down, head or all-linear); did you mean 'q'?" \
    estimate --lora-rank 8 --lora-targets q,x
expect 2 "$e --qlora needs --lora-rank (the adapters' rank)" estimate --qlora
expect 2 "$e --lora-targets needs --lora-rank (the adapters' rank)" estimate --lora-targets all-linear
expect 2 "$e --lora-rank applies to --mode train only" estimate --mode infer --lora-rank 8
expect 2 "$e --qlora applies to --mode train only" estimate --mode infer --qlora
expect 2 "$e --lora-targets: the model's MLP has no gate projection (standard MLP: up and down)" \
    estimate --preset gpt2 --lora-rank 4 --lora-targets gate
expect 2 "$e --lora-targets: a classification head has no output layer over the vocabulary to adapt (PEFT trains the classifier whole, modules_to_save, which is not modelled)" \
    estimate --preset bert-large-uncased --head cls --lora-rank 8 --lora-targets q,v,head

# Offload (training only; params at ZeRO-3, optimizer at ZeRO 1 and up).
expect 2 "$e --framework: no framework named 'torch' (vramlab presets lists them); did you mean 'pytorch'?" \
    estimate --framework torch
expect 2 "$e --framework: no framework named 'caffe2000' (vramlab presets lists them)" \
    estimate --framework caffe2000
printf 'kind: scenario\nname: sc\nparams: 7B\nsettings: {framework: mxnet}\n' > "$tmp/fw-scenario.yaml"
expect 2 "$e scenario 'sc' ($tmp/fw-scenario.yaml): no framework named 'mxnet' (vramlab presets lists them)" \
    estimate --preset-file "$tmp/fw-scenario.yaml"
expect 2 "$e --preset-file: $srcdir/presets/frameworks/hf.yaml is a 'framework' preset, not a model or scenario" \
    estimate --preset-file "$srcdir/presets/frameworks/hf.yaml"
expect 2 "$e --attention: unknown value 'flash2' (expected eager, sdpa or flash); did you mean 'flash'?" \
    estimate --attention flash2
expect 2 "$e --head: unknown value 'seq-cls' (expected lm, cls or mlm)" estimate --head seq-cls
expect 2 "$e --interconnect: unknown value 'nvlnk' (expected auto, pcie or nvlink); did you mean 'nvlink'?" \
    estimate --mode infer --gpus 2 --interconnect nvlnk
expect 2 "$e --interconnect: unknown value 'infiniband' (expected auto, pcie or nvlink)" \
    estimate --interconnect infiniband
expect 2 "$e --vllm applies to --mode infer only" estimate --vllm 0.10
expect 2 "$e --sglang applies to --mode infer only" estimate --sglang 0.4
expect 2 "$e --sglang: unknown value '0.2.9' (expected current or a release from 0.3 to 0.5.10); the first modelled after it is 0.3" \
    estimate --mode infer --framework sglang --sglang 0.2.9
expect 2 "$e --sglang: unknown value '0.4.7x' (expected current or a release from 0.3 to 0.5.10); did you mean '0.4.7'?" \
    estimate --mode infer --framework sglang --sglang 0.4.7x
expect 2 "$e --vllm: unknown value '0.3.0' (expected current or a release from 0.3.1 to 0.34); the first modelled after it is 0.3.1" \
    estimate --mode infer --framework vllm-v0 --vllm 0.3.0
expect 2 "$e --vllm before 0.8 is a release of vLLM's V0 engine: --framework vllm-v0 (the vllm profile is the V1 engine's, from 0.8)" \
    estimate --mode infer --framework vllm --vllm 0.7
expect 2 "$e --vllm under vllm-v0 must be 0.10 or earlier (0.11 removed the V0 engine)" \
    estimate --mode infer --framework vllm-v0 --vllm 0.19
expect 2 "$e --trl applies to --mode train only" estimate --mode infer --trl 0.13
expect 2 "$e --megatron applies to --mode train only" estimate --mode infer --megatron 0.5
expect 2 "$e --megatron: unknown value 'x' (expected current or a release from 0.1 to 0.7)" \
    estimate --framework megatron --megatron x
expect 2 "$e --trl: unknown value '0.7.5' (expected current or a release from 0.8 to 0.21); the first modelled after it is 0.8" \
    estimate --qlora --lora-rank 8 --trl 0.7.5
expect 2 "$e --cuda: unknown value '12.7' (expected current, 10.2, 11.0, 11.1, 11.2, 11.3, 11.4, 11.5, 11.6, 11.7, 11.8, 12.0, 12.1, 12.2, 12.3, 12.4, 12.5, 12.6, 12.8, 12.9 or auto); the first modelled after it is 12.8" \
    estimate --cuda 12.7
expect 2 "$e --labels must be between 1 and 1048576" estimate --head cls --labels 0
expect 2 "$e --labels applies to --mode train only" estimate --mode infer --labels 3
expect 2 "$e --loss-dtype: unknown value 'fp8' (expected fp32, bf16, fp16 or auto)" estimate --loss-dtype fp8
expect 2 "$e --offload: unknown value 'cpu' (expected none, optimizer or params)" estimate --offload cpu
expect 2 "$e --offload params needs --zero 3 (only ZeRO-3 shards the weights it moves)" \
    estimate --offload params --zero 2
expect 2 "$e --offload optimizer needs --zero 1, 2 or 3 (ZeRO-Offload moves each GPU's optimizer partition)" \
    estimate --offload optimizer
expect 2 "$e --offload applies to --mode train only" estimate --mode infer --offload optimizer
expect 2 "$e --gpus-per-node must be between 1 and 1048576" estimate --gpus-per-node 0

# Model parallelism in training: layouts that do not work.
expect 2 "$e --gpus must be a multiple of --tp x --pp (GPUs = tensor x pipeline x data parallel)" \
    estimate --tp 3 --gpus 8
expect 2 "$e --tp 3 must divide the model's 32 attention heads" estimate --tp 3 --gpus 3
expect 2 "$e --tp 16 must divide the model's 8 KV heads (each GPU keeps whole KV heads)" \
    estimate --preset mistral-7b --tp 16 --gpus 16
expect 2 "$e --pp 64 must be at most the model's 32 layers (a stage holds whole layers)" \
    estimate --pp 64 --gpus 64
expect 2 "$e --sp (sequence parallel) needs --tp 2 or more" estimate --sp
# Pipeline-parallel serving: whole stages of whole layers, tensor parallel within them.
expect 2 "$e --pp must be between 1 and 1048576" estimate --mode infer --pp 0
expect 2 "$e --pp 33 must be at most the model's 32 layers (a stage holds whole layers)" \
    estimate --mode infer --pp 33 --gpus 33
expect 2 "$e --gpus must be a multiple of --pp (serving: GPUs = tensor x pipeline parallel)" \
    estimate --mode infer --pp 2 --gpus 3
expect 2 "$e --gpus: tensor parallelism needs --gpus / --pp to divide the model's attention heads" \
    estimate --mode infer --pp 2 --gpus 6
expect 2 "$e --pp with a GGUF --weight-dtype is not modelled (llama.cpp splits the layers over --gpus itself)" \
    estimate --mode infer --pp 2 --gpus 2 --weight-dtype q4_k_m
expect 2 "$e --tp applies to --mode train only" estimate --mode infer --pp 2 --gpus 4 --tp 2
expect 2 "$e --tp must be between 1 and 1048576" estimate --tp 0
expect 2 "$e --grad-accum must be between 1 and 1048576" estimate --grad-accum 0
expect 2 "$e --tp applies to --mode train only" estimate --mode infer --tp 2
expect 2 "$e --lora-rank with --tp or --pp is not modelled (LoRA runs data parallel)" \
    estimate --tp 2 --gpus 2 --lora-rank 8

# Numbers are read whole or refused: an exponent needs digits, a fraction too fine for 64
# bits is still a fraction, and a huge bad value is cut in the one-line message.
expect 2 "$e --batch: '4e+' is not a whole number: the exponent has no digits" estimate --batch 4e+
expect 2 "$e --params: '7e+B' is not a whole number: the exponent has no digits" estimate --params 7e+B
expect 2 "$e --zero: '1.0000000000000000000001' is not a whole number: not a whole number" \
    estimate --zero 1.0000000000000000000001
x64=$(head -c 64 /dev/zero | tr '\0' x)
expect 2 "$e --batch: '$x64...' is not a whole number: expected a number" \
    estimate --batch "$(head -c 131000 /dev/zero | tr '\0' x)"
# any message: its start and its end, where the reason is, around "..."
x859=$(head -c 859 /dev/zero | tr '\0' x)
x270=$(head -c 270 /dev/zero | tr '\0' x)
expect 2 "$e --preset: no model or scenario named '$x859...$x270' (vramlab presets lists them)" \
    estimate --preset "$(head -c 131000 /dev/zero | tr '\0' x)"

# Output that cannot be written fails every command: exit 2 and the reason, for a full
# device and for a closed stdout.
for args in estimate "estimate --format json" "estimate --help" presets "presets --format json" \
    formats "inspect 0.1" "probe underflow" --help --version; do
    checks=$((checks + 1))
    # shellcheck disable=SC2086 # the words of args are the arguments
    "$VRAMLAB" $args > /dev/full 2> "$tmp/err"
    status=$?
    [ "$status" -eq 2 ] && [ "$(cat "$tmp/err")" = "$e cannot write the output: No space left on device" ] ||
        fail "vramlab $args > /dev/full: exit $status, stderr: $(cat "$tmp/err")"
    checks=$((checks + 1))
    # shellcheck disable=SC2086
    "$VRAMLAB" $args >&- 2> "$tmp/err"
    status=$?
    [ "$status" -eq 2 ] && [ "$(cat "$tmp/err")" = "$e cannot write the output: Bad file descriptor" ] ||
        fail "vramlab $args >&-: exit $status, stderr: $(cat "$tmp/err")"
done

# Hostile input.  Commands that could hang run under timeout(1): a hang fails the check
# (exit 124) instead of stopping the suite.
bounded=$tmp/bounded
printf '#!/bin/sh\nexec timeout 10 "%s" "$@"\n' "$VRAMLAB" > "$bounded"
chmod +x "$bounded"
unbounded=$VRAMLAB
VRAMLAB=$bounded

# A FIFO is not read (opening it alone would wait for a writer).
mkfifo "$tmp/fifo.yaml" "$tmp/fifo.json" "$tmp/fifo.npy"
expect 2 "$e $tmp/fifo.yaml: not a regular file" estimate --preset-file "$tmp/fifo.yaml"
expect 2 "$e $tmp/fifo.json: not a regular file" estimate --hf-config "$tmp/fifo.json"
expect 2 "$e --input: $tmp/fifo.npy: not a regular file" probe underflow --input "$tmp/fifo.npy"
# /dev/stdin is read whatever it is
checks=$((checks + 1))
"$VRAMLAB" estimate --preset-file /dev/stdin --format csv < "$srcdir/presets/models/gpt2.yaml" \
    > /dev/null 2> "$tmp/err" || fail "--preset-file /dev/stdin: $(cat "$tmp/err")"

# Deep nesting is refused before libyaml builds its tree (which takes time quadratic in
# the depth: 45 s for these 100,000 levels), as a file or in a preset folder.
{
    printf 'kind: model\nname: deep\nnotes: '
    head -c 100000 /dev/zero | tr '\0' '['
    head -c 100000 /dev/zero | tr '\0' ']'
    echo
} > "$tmp/deep.yaml"
expect 2 "$e $tmp/deep.yaml:3:71: nested more than 64 levels deep" \
    estimate --preset-file "$tmp/deep.yaml"
mkdir "$tmp/deep"
cp "$tmp/deep.yaml" "$tmp/deep/"
checks=$((checks + 1))
VRAMLAB_PRESETS=$tmp/deep "$VRAMLAB" estimate --format csv > /dev/null 2> "$tmp/err"
[ "$(cat "$tmp/err")" = "$e warning: $tmp/deep/deep.yaml:3:71: nested more than 64 levels deep" ] ||
    fail "a deep preset in a folder: $(cat "$tmp/err")"

VRAMLAB=$unbounded

# A good preset file loads and is used.
checks=$((checks + 1))
"$VRAMLAB" estimate --preset-file "$srcdir/presets/models/gpt2.yaml" --format csv > "$tmp/out" ||
    fail "--preset-file with a good preset"

finish
