#!/bin/sh
# cli-presets.sh: scenarios (their settings first, flags over them), `vramlab presets` and
# the search path: origins, later wins, bad files and duplicate names as warnings.
. "$srcdir/tests/lib.sh"

# setting NAME of the JSON on stdin
setting() {
    sed -n "s/.*\"$1\": \"*\\([^,\"}]*\\).*/\\1/p" | head -1
}

check_json() { # what, file, key, expected
    checks=$((checks + 1))
    got=$(setting "$3" < "$2")
    [ "$got" = "$4" ] || fail "$1: $3 is '$got', expected '$4'"
}

# A scenario sets the model, the settings and the GPU.
"$VRAMLAB" estimate --preset llama-2-7b-full-finetune-8xa100 --format json > "$tmp/s.json" ||
    fail "scenario run"
check_json scenario "$tmp/s.json" name llama-2-7b
check_json scenario "$tmp/s.json" zero 3
check_json scenario "$tmp/s.json" gpus 8
check_json scenario "$tmp/s.json" seq 4096
check_json scenario "$tmp/s.json" precision bf16-mixed
sed -n 's/.*"gpu": {"name": "\([^"]*\)".*/\1/p' "$tmp/s.json" > "$tmp/gpu"
checks=$((checks + 1))
[ "$(cat "$tmp/gpu")" = a100-80gb ] || fail "scenario GPU: $(cat "$tmp/gpu")"

# Flags override the scenario's settings, one by one.
"$VRAMLAB" estimate --preset llama-2-7b-full-finetune-8xa100 --gpus 16 --gpu h100-80gb \
    --format json > "$tmp/o.json" || fail "scenario with flags"
check_json override "$tmp/o.json" gpus 16
check_json override "$tmp/o.json" zero 3
check_json override "$tmp/o.json" seq 4096
checks=$((checks + 1))
grep -q '"gpu": {"name": "h100-80gb"' "$tmp/o.json" || fail "--gpu over the scenario's GPU"

# A scenario by file, and one with a free count (the ZeRO paper's 7.5B, 64 GPUs, K = 12):
# ZeRO-3 keeps 16 x 7.5e9 / 64 = 1,875,000,000 bytes of model states per GPU.
"$VRAMLAB" estimate --preset-file "$srcdir/presets/scenarios/zero-paper-7.5b-64gpus.yaml" \
    --format json > "$tmp/z.json" || fail "scenario file"
checks=$((checks + 1))
grep '"per_gpu"' "$tmp/z.json" > "$tmp/z.line"
w=$(setting weights < "$tmp/z.line")
g=$(setting gradients < "$tmp/z.line")
o=$(setting optimizer < "$tmp/z.line")
[ $((w + g + o)) -eq 1875000000 ] || fail "ZeRO paper scenario: $w + $g + $o"

# A QLoRA scenario carries the adapters' settings; flags override them.
"$VRAMLAB" estimate --preset llama-2-7b-qlora-rtx-4090 --format json > "$tmp/q.json" ||
    fail "QLoRA scenario run"
check_json qlora "$tmp/q.json" lora_rank 16
check_json qlora "$tmp/q.json" lora_targets all-linear
check_json qlora "$tmp/q.json" qlora true
check_json qlora "$tmp/q.json" trainable_params 39976960
"$VRAMLAB" estimate --preset llama-2-7b-qlora-rtx-4090 --lora-rank 8 --lora-targets q,v \
    --format json > "$tmp/q8.json" || fail "QLoRA scenario with flags"
check_json qlora-override "$tmp/q8.json" lora_rank 8
checks=$((checks + 1))
grep -q '"lora_targets": "q,v"' "$tmp/q8.json" || fail "qlora-override: lora_targets"
check_json qlora-override "$tmp/q8.json" trainable_params 4194304
printf 'kind: scenario\nname: badlora\nmodel: gpt2\nsettings: {lora_rank: 8, lora_targets: "q,w"}\n' \
    > "$tmp/badlora.yaml"
expect 2 "vramlab: $tmp/badlora.yaml:4:40: settings.lora_targets: unknown target 'w' (expected q, k, v, o, gate, up, down, head or all-linear); did you mean 'q'?" \
    estimate --preset-file "$tmp/badlora.yaml"

# A day in a scenario: the releases it does not give are those of the day, and a day that is
# none is refused at its line and column.
printf 'kind: scenario\nname: day\nmodel: gpt2\nsettings: {as_of: 2022-01-11, torch: 2.1}\n' \
    > "$tmp/day.yaml"
"$VRAMLAB" estimate --preset-file "$tmp/day.yaml" --format json > "$tmp/d.json" ||
    fail "a scenario with a day"
check_json day "$tmp/d.json" as_of 2022-01-11
check_json day "$tmp/d.json" transformers 4.15
check_json day "$tmp/d.json" torch 2.1
check_json day "$tmp/d.json" bitsandbytes 0.41
printf 'kind: scenario\nname: noday\nmodel: gpt2\nsettings: {as_of: 2022-02-30}\n' \
    > "$tmp/noday.yaml"
expect 2 "vramlab: $tmp/noday.yaml:4:19: settings.as_of: '2022-02-30' is not a day: no such day in the calendar" \
    estimate --preset-file "$tmp/noday.yaml"

# A scenario reads a setting as the command line does: a release's patch as its line (which
# dates the releases it does not give: transformers 4.27 came out with PyTorch 2.0), a GGUF
# type in capitals.
printf 'kind: scenario\nname: releases\nmodel: gpt2\nsettings: {cuda: 11.2.1, transformers: 4.27.4, trl: 0.13.0}\n' \
    > "$tmp/releases.yaml"
"$VRAMLAB" estimate --preset-file "$tmp/releases.yaml" --format json > "$tmp/r.json" ||
    fail "a scenario with releases"
check_json releases "$tmp/r.json" cuda 11.2
check_json releases "$tmp/r.json" transformers 4.27
check_json releases "$tmp/r.json" torch 2.0
check_json releases "$tmp/r.json" trl 0.13
check_json releases "$tmp/r.json" attention eager
printf 'kind: scenario\nname: gguf\nmodel: gpt2\nsettings: {mode: infer, weight_dtype: Q4_K_M}\n' \
    > "$tmp/gguf.yaml"
"$VRAMLAB" estimate --preset-file "$tmp/gguf.yaml" --format json > "$tmp/g.json" ||
    fail "a scenario with a GGUF type"
check_json gguf "$tmp/g.json" weight_dtype q4_k_m
# A key an earlier release wrote (int4_format, now weight_format) still reads, into the same
# setting; both at once are refused at the old one.
printf 'kind: scenario\nname: old\nmodel: gpt2\nsettings: {mode: infer, weight_dtype: int4, int4_format: awq}\n' \
    > "$tmp/old.yaml"
"$VRAMLAB" estimate --preset-file "$tmp/old.yaml" --format json > "$tmp/o.json" ||
    fail "a scenario with int4_format"
check_json old-key "$tmp/o.json" weight_format awq
printf 'kind: scenario\nname: both\nmodel: gpt2\nsettings: {mode: infer, weight_format: gptq, int4_format: awq}\n' \
    > "$tmp/both.yaml"
expect 2 "vramlab: $tmp/both.yaml:4:46: settings.int4_format: give weight_format or int4_format, not both" \
    estimate --preset-file "$tmp/both.yaml"
# and so does the flag of the earlier release
"$VRAMLAB" estimate --mode infer --weight-dtype int4 --int4-format gptq --format json \
    > "$tmp/old-flag.json" || fail "--int4-format gptq"
"$VRAMLAB" estimate --mode infer --weight-dtype int4 --weight-format gptq --format json \
    > "$tmp/new-flag.json" || fail "--weight-format gptq"
checks=$((checks + 1))
cmp -s "$tmp/old-flag.json" "$tmp/new-flag.json" || fail "--int4-format is not --weight-format"

# A name as people write it finds its preset: any case, spaces or hyphens ("RTX 3090",
# "A100 80GB", "Llama-2-7B", "HF"); a name two presets spell alike finds neither, and one that
# begins several names lists them.
for spelled in "RTX 3090:rtx-3090" "rtx3090:rtx-3090" "A100 80GB:a100-80gb" "T4:t4"; do
    "$VRAMLAB" estimate --gpu "${spelled%%:*}" --format json > "$tmp/loose.json" ||
        fail "--gpu '${spelled%%:*}'"
    checks=$((checks + 1))
    grep -q "\"gpu\": {\"name\": \"${spelled#*:}\"" "$tmp/loose.json" ||
        fail "--gpu '${spelled%%:*}' is not ${spelled#*:}"
done
# the decimal point counts: "OPT-13B" is opt-13b and "opt 1.3b" is opt-1.3b, not both
for spelled in "OPT-13B:opt-13b" "opt 1.3b:opt-1.3b" "Llama 3.1 8B:llama-3.1-8b"; do
    "$VRAMLAB" estimate --preset "${spelled%%:*}" --format json > "$tmp/loose.json" ||
        fail "--preset '${spelled%%:*}'"
    check_json loose "$tmp/loose.json" name "${spelled#*:}"
done
"$VRAMLAB" estimate --preset Llama-2-7B --framework HF --format json > "$tmp/loose.json" ||
    fail "--preset Llama-2-7B --framework HF"
check_json loose "$tmp/loose.json" name llama-2-7b
check_json loose "$tmp/loose.json" framework hf
mkdir -p "$tmp/twins"
for n in lab-card labcard; do
    printf 'kind: gpu\nname: %s\ngeneration: ampere\nmemory: 24GiB\n' "$n" > "$tmp/twins/$n.yaml"
done
checks=$((checks + 1))
VRAMLAB_PRESETS="$tmp/twins" "$VRAMLAB" estimate --gpu "Lab Card" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && grep -q "no GPU named 'Lab Card' (vramlab presets lists them); did you mean 'lab-card' or 'labcard'?" "$tmp/err" ||
    fail "a name two presets spell alike: $(cat "$tmp/err")"
VRAMLAB_PRESETS="$tmp/twins" "$VRAMLAB" estimate --gpu lab-card > /dev/null ||
    fail "the exact name of one of two alike"
VRAMLAB_PRESETS="$tmp/twins" "$VRAMLAB" estimate --gpu LAB-CARD --format json > "$tmp/loose.json" ||
    fail "one of two alike, spelled exactly in another case"
checks=$((checks + 1))
grep -q '"gpu": {"name": "lab-card"' "$tmp/loose.json" || fail "LAB-CARD is not lab-card"

# Every shipped scenario runs.
for f in "$srcdir"/presets/scenarios/*.yaml; do
    checks=$((checks + 1))
    "$VRAMLAB" estimate --preset-file "$f" > /dev/null 2> "$tmp/err" || fail "$f: $(cat "$tmp/err")"
done

# A scenario whose model is not in the catalog.
printf 'kind: scenario\nname: lost\nmodel: nowhere-7b\n' > "$tmp/lost.yaml"
checks=$((checks + 1))
"$VRAMLAB" estimate --preset-file "$tmp/lost.yaml" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && [ "$(cat "$tmp/err")" = "vramlab: scenario 'lost' ($tmp/lost.yaml): no model named 'nowhere-7b'" ] ||
    fail "scenario with an unknown model: $(cat "$tmp/err")"

# The search path, run away from the source tree: built-ins, then the user's folder, then
# VRAMLAB_PRESETS; bad files are warnings and the run goes on.
mkdir -p "$tmp/run" "$tmp/home/.config/vramlab/presets/gpus" "$tmp/env/models"
printf 'kind: gpu\nname: lab-card\nmemory: 12GiB\n' > "$tmp/home/.config/vramlab/presets/gpus/lab.yaml"
printf 'kind: gpu\nname: rtx-4090\nmemory: 20GiB\n' > "$tmp/home/.config/vramlab/presets/gpus/mine.yaml"
printf 'kind: gpu\nname: rtx-4090\nmemory: 22GiB\n' > "$tmp/env/over.yaml"
printf 'kind: gpu\nname: bad\nmemory: lots\n' > "$tmp/env/models/bad.yaml"
printf 'kind: gpu\nname: twice\nmemory: 1GiB\n' > "$tmp/env/a.yaml"
printf 'kind: gpu\nname: twice\nmemory: 2GiB\n' > "$tmp/env/b.yaml"
cd "$tmp/run" || exit 99
VRAMLAB_PRESETS="$tmp/env" "$VRAMLAB" presets --format json > "$tmp/p.json" 2> "$tmp/err" ||
    fail "presets with warnings should succeed"
cat > "$tmp/want-err" <<WARN
vramlab: warning: $tmp/env/b.yaml: duplicate gpu name 'twice' (also in $tmp/env/a.yaml); this one is ignored
vramlab: warning: $tmp/env/models/bad.yaml:3:9: memory: 'lots' is not a size in bytes: expected a number
WARN
checks=$((checks + 1))
diff -u "$tmp/want-err" "$tmp/err" || fail "search path warnings"
checks=$((checks + 1))
grep -q '"kind": "gpu", "name": "lab-card", "memory": 12884901888, .*"origin": "'"$tmp"'/home/.config/vramlab/presets/gpus/lab.yaml"' "$tmp/p.json" ||
    fail "the user's folder is on the search path"
checks=$((checks + 1))
grep -q '"name": "rtx-4090", "memory": 23622320128, .*"origin": "'"$tmp"'/env/over.yaml"' "$tmp/p.json" ||
    fail "VRAMLAB_PRESETS comes last and wins"
checks=$((checks + 1))
grep -q '"name": "gpt2", .*"origin": "(built-in)/models/gpt2.yaml"' "$tmp/p.json" ||
    fail "built-in origin"
checks=$((checks + 1))
VRAMLAB_PRESETS="$tmp/env" "$VRAMLAB" estimate --preset gpt2 --gpu lab-card > /dev/null 2>&1 ||
    fail "estimate goes on despite warnings"
checks=$((checks + 1))
XDG_CONFIG_HOME="$tmp/xdg" "$VRAMLAB" presets | grep -q lab-card &&
    fail "XDG_CONFIG_HOME replaces ~/.config"

# A framework preset on the search path: --framework and a scenario's framework find it, and
# its profile is its base's with its own fields over it (hf with eager attention here, which
# the flags say the other way).
mkdir -p "$tmp/fw/frameworks"
printf 'kind: framework\nname: hf-eager\ndisplay: "HF, eager attention"\nbase: hf\nattention: eager\n' \
    > "$tmp/fw/frameworks/hf-eager.yaml"
printf 'kind: scenario\nname: fw-scenario\nmodel: gpt2\nsettings: {framework: hf-eager, batch: 4}\n' \
    > "$tmp/fw/fw-scenario.yaml"
checks=$((checks + 1))
VRAMLAB_PRESETS="$tmp/fw" "$VRAMLAB" presets > "$tmp/fw.txt" &&
    grep -q "^framework hf-eager  .* eager  HF, eager attention  .*$tmp/fw/frameworks/hf-eager.yaml\$" "$tmp/fw.txt" ||
    fail "presets lists a framework: $(grep '^framework' "$tmp/fw.txt")"
for f in json markdown; do
    checks=$((checks + 1))
    VRAMLAB_PRESETS="$tmp/fw" "$VRAMLAB" estimate --preset gpt2 --batch 4 --framework hf-eager \
        --format $f > "$tmp/fw-mine.$f" &&
        "$VRAMLAB" estimate --preset gpt2 --batch 4 --framework hf --attention eager --format $f |
        sed 's/"framework": "hf"/"framework": "hf-eager"/; s/Hugging Face transformers Trainer + PEFT/HF, eager attention/' \
            > "$tmp/fw-flags.$f" &&
        cmp -s "$tmp/fw-mine.$f" "$tmp/fw-flags.$f" ||
        fail "--framework hf-eager ($f) is not hf with --attention eager: $(diff "$tmp/fw-flags.$f" "$tmp/fw-mine.$f" | head -5)"
done
checks=$((checks + 1))
VRAMLAB_PRESETS="$tmp/fw" "$VRAMLAB" estimate --preset fw-scenario --format json > "$tmp/fw-sc.json" &&
    cmp -s "$tmp/fw-sc.json" "$tmp/fw-mine.json" ||
    fail "a scenario's framework: $(diff "$tmp/fw-mine.json" "$tmp/fw-sc.json" | head -5)"
check_json fw-scenario "$tmp/fw-sc.json" attention eager

# The user's folder with a relative XDG_CONFIG_HOME, which XDG says to ignore: a scenario
# saved in ~/.config/vramlab/presets, where the explorer saves it then, is found.
printf 'kind: scenario\nname: saved-here\nmodel: gpt2\nsettings:\n  gpus: 2\n' \
    > "$tmp/home/.config/vramlab/presets/saved-here.yaml"
XDG_CONFIG_HOME=cfg "$VRAMLAB" presets > "$tmp/rel.txt" 2> "$tmp/err" || fail "relative XDG_CONFIG_HOME"
checks=$((checks + 1))
grep -q "^scenario saved-here .* $tmp/home/.config/vramlab/presets/saved-here.yaml\$" "$tmp/rel.txt" &&
    grep -q "^searched, later wins: (built-in), .*$tmp/home/.config/vramlab/presets\$" "$tmp/rel.txt" ||
    fail "a relative XDG_CONFIG_HOME is ignored: $(cat "$tmp/rel.txt")"
XDG_CONFIG_HOME=cfg "$VRAMLAB" estimate --preset saved-here --format json > "$tmp/saved.json" ||
    fail "the saved scenario runs"
check_json saved "$tmp/saved.json" gpus 2
cd "$OLDPWD" || exit 99

# From the source tree ./presets wins over the built-ins: its files, which have the
# built-ins' bytes and are parsed only when looked up, keep their own origins.
if [ -f "$srcdir/src/core/preset.c" ]; then
    checks=$((checks + 1))
    (cd "$srcdir" && "$VRAMLAB" presets --format json) > "$tmp/src.json" 2> "$tmp/err" &&
        grep -q '"name": "gpt2", .*"origin": "presets/models/gpt2.yaml"' "$tmp/src.json" &&
        [ ! -s "$tmp/err" ] || fail "from the source tree, ./presets wins: $(cat "$tmp/err")"
fi

# presets/presets.am lists every preset file: what build-aux/list-presets writes.
checks=$((checks + 1))
sh "$srcdir/build-aux/list-presets" "$srcdir" > "$tmp/presets.am" &&
    diff -u "$srcdir/presets/presets.am" "$tmp/presets.am" > "$tmp/diff" ||
    fail "presets/presets.am is stale; run build-aux/list-presets > presets/presets.am
$(cat "$tmp/diff")"

# presets: the table has every kind; bad usage.
checks=$((checks + 1))
"$VRAMLAB" presets > "$tmp/t.txt" && grep -q '^scenario ' "$tmp/t.txt" && grep -q '^gpu ' "$tmp/t.txt" ||
    fail "presets table"
checks=$((checks + 1))
"$VRAMLAB" presets --format yaml > /dev/null 2> "$tmp/err"
[ "$(cat "$tmp/err")" = "vramlab: presets --format: unknown value 'yaml' (expected table or json)" ] ||
    fail "presets --format yaml: $(cat "$tmp/err")"

# VRAMLAB_PRESETS: folders past the 64 searched, or named with 4,096 characters or more, are
# said in a warning, not dropped silently; the run goes on.
checks=$((checks + 1))
many=$(i=0; while [ $i -lt 70 ]; do printf '%s/many/%d:' "$tmp" $i; i=$((i + 1)); done)
long=$(printf '%05000d' 0)
VRAMLAB_PRESETS="${many}/$long" "$VRAMLAB" estimate --format csv > /dev/null 2> "$tmp/err" ||
    fail "many VRAMLAB_PRESETS folders: the run failed"
grep -q "^vramlab: warning: VRAMLAB_PRESETS: [0-9]* folders not searched (at most 64 folders" \
    "$tmp/err" || fail "many VRAMLAB_PRESETS folders: $(cat "$tmp/err")"

finish
