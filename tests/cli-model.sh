#!/bin/sh
# cli-model.sh: --model ORG/NAME from a synthetic local Hugging Face cache made here: the
# architecture from config.json, the exact count and bytes from the safetensors headers
# (GPT-2's 148 tensors as transformers names and shapes them, counted independently here),
# the source the output names, and bad input (exit 2, one line).
. "$srcdir/tests/lib.sh"

cache=$tmp/hub
HF_HUB_CACHE=$cache
export HF_HUB_CACHE
unset HF_HOME HUGGINGFACE_HUB_CACHE XDG_CACHE_HOME

# le8 N: N as 8 little-endian bytes (safetensors' header length)
le8() {
    n=$1 i=0
    while [ $i -lt 8 ]; do
        printf "\\$(printf %03o $((n % 256)))"
        n=$((n / 256)) i=$((i + 1))
    done
}

# tensors: GPT-2 small's names and shapes, "name d0 d1 ..." a line; with extra, the twelve
# causal-mask buffers (attn.bias, 1x1x1024x1024) older checkpoints keep as well
gpt2_tensors() {
    echo "wte.weight 50257 768"
    echo "wpe.weight 1024 768"
    l=0
    while [ $l -lt 12 ]; do
        for t in "ln_1.weight 768" "ln_1.bias 768" "attn.c_attn.weight 768 2304" \
                 "attn.c_attn.bias 2304" "attn.c_proj.weight 768 768" "attn.c_proj.bias 768" \
                 "ln_2.weight 768" "ln_2.bias 768" "mlp.c_fc.weight 768 3072" \
                 "mlp.c_fc.bias 3072" "mlp.c_proj.weight 3072 768" "mlp.c_proj.bias 768"; do
            echo "h.$l.$t"
        done
        [ "$1" = extra ] && echo "h.$l.attn.bias 1 1 1024 1024"
        l=$((l + 1))
    done
    echo "ln_f.weight 768"
    echo "ln_f.bias 768"
}

# write_st FILE < tensors: an F32 safetensors file of those tensors (the data sparse);
# prints the elements it holds
write_st() {
    off=0 header="{" elems=0
    while read -r name dims; do
        n=1 shape=""
        for d in $dims; do n=$((n * d)) shape="$shape${shape:+,}$d"; done
        header="$header\"$name\":{\"dtype\":\"F32\",\"shape\":[$shape],\"data_offsets\":[$off,$((off + 4 * n))]},"
        off=$((off + 4 * n)) elems=$((elems + n))
    done
    header="${header%,}}"
    { le8 ${#header}; printf '%s' "$header"; } > "$1"
    truncate -s $((8 + ${#header} + off)) "$1"
    echo $elems
}

commit=0123456789abcdef0123456789abcdef01234567
snap() { # snap ORG NAME: the snapshot folder, with refs/main naming it
    d=$cache/models--$1--$2
    mkdir -p "$d/snapshots/$commit" "$d/refs"
    printf '%s' $commit > "$d/refs/main"
    cp "$srcdir/tests/hf/gpt2.json" "$d/snapshots/$commit/config.json"
    echo "$d/snapshots/$commit"
}

# json KEY: the integer after "KEY": in $tmp/out
json() {
    sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$tmp/out" | head -1
}
check() { # check WHAT GOT WANT
    ok
    [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

# 1. one safetensors file: the count and bytes are the headers', the architecture agrees
s=$(snap openai-community gpt2)
want=$(gpt2_tensors | write_st "$s/model.safetensors")
check "GPT-2's tensors counted here" "$want" 124439808
"$VRAMLAB" estimate --model openai-community/gpt2 --format json > "$tmp/out" 2> "$tmp/err" ||
    fail "--model gpt2: exit $? ($(cat "$tmp/err"))"
check "params" "$(json params)" "$want"
check "checkpoint params" "$(sed -n 's/.*"checkpoint": {"count_source": "safetensors", "params": \([0-9]*\).*/\1/p' "$tmp/out")" "$want"
check "checkpoint bytes" "$(json bytes)" $((4 * want))
check "architecture_params" "$(json architecture_params)" 124439808
ok; grep -q '"checkpoint": {"count_source": "safetensors"' "$tmp/out" || fail "count_source is not safetensors"
ok; grep -q '"source": "openai-community/gpt2 (revision 0123456789ab): config.json, model_type gpt2; parameters and weight bytes from the headers of 1 safetensors file"' "$tmp/out" ||
    fail "the JSON does not say the source: $(grep source "$tmp/out")"
# fp32 weights, gradients, AdamW's two moments: 16 bytes a parameter, from the headers' count
"$VRAMLAB" estimate --model openai-community/gpt2 --precision fp32 --format json > "$tmp/out"
check "fp32 weights" "$(sed -n 's/.*"per_gpu": {"weights": \([0-9]*\).*/\1/p' "$tmp/out")" \
    $((4 * want))
"$VRAMLAB" estimate --model openai-community/gpt2 > "$tmp/out"
ok; grep -q '^  source      openai-community/gpt2 (revision 0123456789ab): config.json, model_type gpt2; parameters and weight bytes from the headers of 1 safetensors file: 124,439,808 params, 497,759,232 bytes stored; the architecture from config.json counts the same$' "$tmp/out" ||
    fail "the table does not say the source: $(grep source "$tmp/out")"
for f in markdown csv; do
    "$VRAMLAB" estimate --model openai-community/gpt2 --format $f > "$tmp/out"
    ok; grep -q '497759232\|497,759,232' "$tmp/out" || fail "--format $f: no checkpoint bytes"
done

# 2. sharded with an index, and the causal-mask buffers: the checkpoint's count is used
s=$(snap gpt2-org gpt2-masks)
gpt2_tensors extra > "$tmp/all"
head -n 80 "$tmp/all" > "$tmp/a"
tail -n +81 "$tmp/all" > "$tmp/b"
na=$(write_st "$s/model-00001-of-00002.safetensors" < "$tmp/a")
nb=$(write_st "$s/model-00002-of-00002.safetensors" < "$tmp/b")
check "GPT-2 and 12 masks counted here" $((na + nb)) $((124439808 + 12 * 1048576))
{
    printf '{"metadata": {"total_size": %d}, "weight_map": {' $((4 * (na + nb)))
    awk 'NR <= 80 {printf "%s\"%s\": \"model-00001-of-00002.safetensors\"", (NR > 1 ? "," : ""), $1}
         NR > 80 {printf ",\"%s\": \"model-00002-of-00002.safetensors\"", $1}' "$tmp/all"
    printf '}}'
} > "$s/model.safetensors.index.json"
"$VRAMLAB" estimate --model gpt2-org/gpt2-masks --mode infer --format json > "$tmp/out" ||
    fail "--model gpt2-masks: exit $?"
check "sharded params" "$(json params)" $((na + nb))
check "sharded architecture" "$(json architecture_params)" 124439808
ok; grep -q 'the headers of 2 safetensors files (model.safetensors.index.json)' "$tmp/out" ||
    fail "the sharded source is not named"

# 3. config.json only: the architecture's count, and the output says so
s=$(snap org-only config-only)
"$VRAMLAB" estimate --model org-only/config-only --format json > "$tmp/out"
check "config-only params" "$(json params)" 124439808
ok; grep -q '"checkpoint": {"count_source": "architecture"' "$tmp/out" || fail "config-only: count_source"
ok; grep -q 'no safetensors weights in the snapshot' "$tmp/out" || fail "config-only: source"

# config.json of the other model types, through the same reader as --hf-config: their
# published counts (tests/cli-hf.sh names the sources)
while read -r file org name want; do
    s=$(snap "$org" "$name")
    cp "$srcdir/tests/hf/$file" "$s/config.json"
    "$VRAMLAB" estimate --model "$org/$name" --format json > "$tmp/out"
    check "$org/$name params" "$(json params)" "$want"
done <<'TABLE'
qwen3-30b-a3b.json Qwen Qwen3-30B-A3B 30532122624
gemma-3-4b.json google gemma-3-4b-pt 3880263168
distilbert-base-uncased.json distilbert distilbert-base-uncased 66362880
olmoe-1b-7b.json allenai OLMoE-1B-7B-0924 6919161856
TABLE

# 4. a repository not in the cache whose config.json a preset was read from: the preset
# stands for it, with a warning; --preset takes the repository's id too, in any case
ok
"$VRAMLAB" estimate --model meta-llama/Llama-2-7b-hf --format json > "$tmp/out" 2> "$tmp/err" ||
    fail "--model of a preset's repository: $(cat "$tmp/err")"
grep -q '"name": "llama-2-7b"' "$tmp/out" || fail "--model meta-llama/Llama-2-7b-hf is not llama-2-7b"
grep -q "^vramlab: warning: --model: meta-llama/Llama-2-7b-hf is not in the local Hugging Face cache.*; the preset llama-2-7b, read from its config.json, stands for it\$" "$tmp/err" ||
    fail "--model of a preset's repository: the warning: $(cat "$tmp/err")"
ok
"$VRAMLAB" estimate --preset META-LLAMA/llama-2-7b-hf --format json > "$tmp/out" 2> "$tmp/err" &&
    [ ! -s "$tmp/err" ] && grep -q '"name": "llama-2-7b"' "$tmp/out" ||
    fail "--preset of a repository's id: $(cat "$tmp/err")"

# 5. bad input: exit 2, one line naming --model
bad() { # bad MESSAGE-PATTERN ARGS...
    pat=$1
    shift
    ok
    "$VRAMLAB" estimate "$@" > "$tmp/out" 2> "$tmp/err"
    st=$?
    if [ $st -ne 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] || ! grep -q "$pat" "$tmp/err" ||
        [ -s "$tmp/out" ]; then
        fail "vramlab estimate $*: exit $st, stderr: $(cat "$tmp/err")"
    fi
}
bad "^vramlab: --model: nobody/nothing is not in the local Hugging Face cache" --model nobody/nothing
bad "^vramlab: --model: 'a/b/c' is not a Hugging Face model name" --model a/b/c
bad "^vramlab: --model: Qwen/Qwen2.5-7B-Instruct is not in the local Hugging Face cache .*; the preset qwen2.5-7b may be its architecture (--preset qwen2.5-7b)\$" \
    --model Qwen/Qwen2.5-7B-Instruct
bad "^vramlab: give only one of --preset, --preset-file, --hf-config, --model and --params" \
    --model openai-community/gpt2 --preset gpt2
s=$(snap broken header)
printf 'garbage' > "$s/model.safetensors"
bad "^vramlab: --model: .*model.safetensors: truncated" --model broken/header
s=$(snap broken config)
printf '{"model_type": "gpt2"' > "$s/config.json"
bad "^vramlab: --model: .*config.json" --model broken/config
finish
