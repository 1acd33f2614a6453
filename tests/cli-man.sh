#!/bin/sh
# cli-man.sh: the man page documents every option the program takes and every value of its
# choices, as `vramlab estimate --help` and `vramlab tui --help` list them (they come from
# the settings table, so a new setting or choice without documentation fails here), and
# every key of the JSON output.
. "$srcdir/tests/lib.sh"

man="$srcdir/man/vramlab.1.in"
{ "$VRAMLAB" estimate --help; "$VRAMLAB" tui --help; } > "$tmp/help" || fail "--help failed"
# the options: "--flag" becomes the man page's "\-\-flag"
for flag in $(grep -o -- '--[a-z0-9][a-z0-9-]*' "$tmp/help" | sort -u); do
    checks=$((checks + 1))
    grep -qF -- "$(printf '%s' "$flag" | sed 's/-/\\-/g')" "$man" ||
        fail "$flag is in --help but not in vramlab(1)"
done
# the choices: "P: a, b or c" under an option, wrapped onto the lines below it
awk '/^ +[A-Z]+: / { sub(/^ +[A-Z]+: /, ""); on = 1; print; next }
     on && /^      +[a-z0-9]/ { print; next } { on = 0 }' "$tmp/help" |
    tr ',' '\n' | sed 's/ or /\n/; s/ or$//; s/^ *or //; s/^ *//; s/ *$//' | sort -u > "$tmp/values"
while read -r v; do
    [ -n "$v" ] || continue
    checks=$((checks + 1))
    grep -qF -- "\\fB$(printf '%s' "$v" | sed 's/-/\\-/g')\\fR" "$man" ||
        fail "the value '$v' is in --help but not in vramlab(1)"
done < "$tmp/values"
# vramlab-presets(5) documents every key of a framework preset (a built-in file gives
# them all)
while IFS=: read -r key rest; do
    case $key in '#'* | kind | '') continue ;; esac
    checks=$((checks + 1))
    grep -Eq "^\.BR? (.*[ \"])?$key([ \"]|\$)" "$srcdir/man/vramlab-presets.5" ||
        fail "the framework key '$key' is not in vramlab-presets(5)"
done < "$srcdir/presets/frameworks/pytorch.yaml"
# the JSON schema under --format json names every key the output has, in runs that between
# them fill every object (training with its timeline, experts, pipeline and offload, QLoRA,
# a solve; serving under vLLM with and without pipeline stages, and a GGUF file type, whose
# ggml type names are TYPE there)
: > "$tmp/json"
while read -r args; do
    checks=$((checks + 1))
    # shellcheck disable=SC2086 # the flags are words
    "$VRAMLAB" estimate $args --format json >> "$tmp/json" ||
        fail "vramlab estimate $args --format json failed"
done <<'RUNS'
--timeline
--preset mixtral-8x7b --gpus 16 --ep 8 --zero 1
--gpus 16 --tp 2 --pp 2 --zero 3 --offload optimizer
--lora-rank 8 --qlora --solve max-batch --gpu h100-80gb
--mode infer --framework vllm --gpus 2 --seq 8192 --gpu h100-80gb --cpu-offload 1GiB
--mode infer --framework vllm --gpus 4 --pp 2 --seq 8192 --gpu h100-80gb
--mode infer --weight-dtype q4_k_m --gpu rtx-3090
RUNS
sed -E 's/"types": \{("[A-Za-z0-9_]+": \{[^}]*\}(, )?)*\}/"types": {}/' "$tmp/json" |
    grep -o '"[a-z_0-9]*":' | tr -d '":' | sort -u > "$tmp/keys"
[ "$(wc -l < "$tmp/keys")" -ge 150 ] || fail "only $(wc -l < "$tmp/keys") JSON keys read"
sed -n '/^{"vramlab": VERSION,/,/"notes": \[STRING/p' "$man" > "$tmp/schema"
while read -r key; do
    checks=$((checks + 1))
    grep -qF "\"$key\"" "$tmp/schema" || fail "the JSON key '$key' is not in vramlab(1)'s schema"
done < "$tmp/keys"
# the releases' example: BERT-large at batch 4 on a V100 with the run's releases and with
# today's, in MiB as the page quotes them (a change to the model that moves them fails here)
for releases in "--transformers 4.15 --torch 1.10" ""; do
    checks=$((checks + 1))
    # shellcheck disable=SC2086 # the releases are separate flags
    mib=$("$VRAMLAB" estimate --preset bert-large-uncased --seq 512 --precision fp32 --batch 4 \
        --framework hf --head cls --gpu v100-16gb $releases --format json |
        sed -n 's/.*"peak": {.*"device": \([0-9]*\),.*/\1/p' |
        awk '{ n = sprintf("%d", $1 / 1048576 + 0.5)
               while (n ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", n)
               print n }')
    [ -n "$mib" ] && grep -qF "$mib MiB" "$man" ||
        fail "vramlab(1)'s release example does not quote ${mib:-no figure} MiB (${releases:-today's releases})"
done
# the sampler's example: Qwen2 7B's KV cache under vLLM 0.10 on an A100 at a quarter of its
# memory, with FlashInfer's sampler and with the release's sort, in GiB to two places
for sampler in flashinfer sort; do
    checks=$((checks + 1))
    gib=$("$VRAMLAB" estimate --preset qwen2.5-7b --mode infer --seq 16384 --framework vllm \
        --vllm 0.10 --gpu a100-80gb --gpu-util 0.25 --sampler "$sampler" --format json |
        sed -n 's/.*"kv_cache": {"sizing": "profile", [^}]*"bytes": \([0-9]*\),.*/\1/p' |
        awk '{ printf "%.2f", $1 / 1073741824 }')
    [ -n "$gib" ] && grep -qF "$gib GiB with" "$man" ||
        fail "vramlab(1)'s sampler example does not quote ${gib:-no figure} GiB ($sampler)"
done
[ "$checks" -ge 60 ] || fail "only $checks options and values checked"
finish
