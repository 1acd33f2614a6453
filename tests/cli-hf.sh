#!/bin/sh
# cli-hf.sh: --hf-config reads Hugging Face config.json files (written for these tests in
# tests/hf, from the models' published configs).  Each gives the model's published parameter
# count, and the same model as its shipped preset (a round trip: config.json -> model ->
# the preset's numbers).  Bad configs give one line naming file:line:column.
. "$srcdir/tests/lib.sh"
hf=$srcdir/tests/hf

# model FIELD of `vramlab estimate ARGS --format json`
field() {
    name=$1
    shift
    "$VRAMLAB" estimate "$@" --format json 2> "$tmp/err" |
        sed -n "s/.*\"$name\": \\([0-9]*\\).*/\\1/p" | head -1
}

# config.json, published count (Hugging Face safetensors totals, keras-hub presets, papers),
# and the preset of the same model ("-" when none ships).
while read -r file published preset; do
    checks=$((checks + 1))
    got=$(field params --hf-config "$hf/$file")
    if [ "$got" != "$published" ]; then
        fail "$file: $got parameters, published $published ($(cat "$tmp/err"))"
        continue
    fi
    [ "$preset" = - ] && continue
    checks=$((checks + 1))
    for key in params active_params layers hidden heads kv_heads head_dim ffn vocab largest_matrix; do
        a=$(field "$key" --hf-config "$hf/$file")
        b=$(field "$key" --preset "$preset")
        [ "$a" = "$b" ] || fail "$file: $key $a, but preset $preset has $b"
    done
done <<'TABLE'
llama-2-7b.json 6738415616 llama-2-7b
mistral-7b.json 7241732096 mistral-7b
mixtral-8x7b.json 46702792704 mixtral-8x7b
qwen2.5-0.5b.json 494032768 qwen2.5-0.5b
gemma-2b.json 2506172416 gemma-2b
phi-3-mini.json 3821079552 phi-3-mini
gpt2.json 124439808 gpt2
opt-13b.json 12853473280 opt-13b
falcon-7b.json 6921720704 falcon-7b
bloom.json 176247271424 bloom-176b
gpt-neox-20b.json 20554567680 -
bert-base-uncased.json 109482240 bert-base-uncased
deepseek-v3.json 671026419200 deepseek-v3
TABLE

# Mixtral: active parameters too (2 of 8 experts; derived in tests/test_model.c).
checks=$((checks + 1))
[ "$(field active_params --hf-config "$hf/mixtral-8x7b.json")" = 12879925248 ] ||
    fail "mixtral-8x7b.json: active parameters"

expect_error() {
    file=$1
    want="vramlab: $hf/$file$2"
    checks=$((checks + 1))
    "$VRAMLAB" estimate --hf-config "$hf/$file" > "$tmp/out" 2> "$tmp/err"
    status=$?
    got=$(cat "$tmp/err")
    [ "$status" -eq 2 ] && [ "$got" = "$want" ] && [ ! -s "$tmp/out" ] ||
        fail "$file: exit $status
    expected: $want
    got:      $got"
}
supported="bert, bloom, deepseek_v2, deepseek_v3, falcon, gemma, gpt2, gpt_neox, llama, mistral, mixtral, opt, phi3 or qwen2"
expect_error unsupported-t5.json ":6:17: model_type \"t5\" is not supported (supported: $supported)"
expect_error no-model-type.json ":1:1: missing key 'model_type' (supported: $supported)"
expect_error missing-layers.json ":1:1: missing key 'num_hidden_layers'"
expect_error wrong-type.json ":3:18: hidden_size: expected a whole number, got \"big\""
expect_error not-json.json ":1:43: JSON syntax error: string or '}' expected near ','"
expect_error missing.json ": cannot open: No such file or directory"

# config.json is read as Python's json module reads it.  A key given twice: the last value
# is used (Python's dict), with a warning naming the key and its line.
cat > "$tmp/twice.json" << 'EOF'
{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100,
 "num_hidden_layers": 2, "intermediate_size": 128,
 "num_hidden_layers": 3}
EOF
checks=$((checks + 1))
got=$(field layers --hf-config "$tmp/twice.json")
[ "$got" = 3 ] && [ "$(cat "$tmp/err")" = "vramlab: warning: $tmp/twice.json:3: key \"num_hidden_layers\" given twice: the last value is used, as in Python" ] ||
    fail "a key given twice: $got layers, stderr: $(cat "$tmp/err")"
# A surrogate pair (json.dumps writes one for each character outside the BMP) is one
# character: U+1F600 in UTF-8, F0 9F 98 80.
printf '{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 100,\n "n_positions": 128, "_name_or_path": "org/smile-\\ud83d\\ude00"}\n' > "$tmp/smile.json"
checks=$((checks + 1))
"$VRAMLAB" estimate --hf-config "$tmp/smile.json" > "$tmp/out" 2> "$tmp/err" &&
    grep -q "$(printf 'smile-\360\237\230\200')" "$tmp/out" ||
    fail "a surrogate pair: $(cat "$tmp/err")"
# A quoted number is text, for a probability as for a count.
sed 's/"attn_pdrop": 0.1/"attn_pdrop": "0.1"/' "$hf/gpt2.json" > "$tmp/quoted-pdrop.json"
sed 's/"n_layer": 12/"n_layer": "12"/' "$hf/gpt2.json" > "$tmp/quoted-layers.json"
hf=$tmp
# what came from the file is shown as JSON: a control character stays an escape
printf '{"model_type": "\\u001b[2J"}' > "$tmp/escape.json"
expect_error escape.json ":1:16: model_type \"\\u001B[2J\" is not supported (supported: $supported)"
expect_error quoted-pdrop.json ':6:17: attn_pdrop: expected a probability, got "0.1"'
expect_error quoted-layers.json ':16:14: n_layer: expected a whole number, got "12"'
# Deep nesting is refused in time linear in the text: past 64 levels (as for the presets),
# and at jansson's limit of 2048 before that.
{
    printf '{"model_type": "gpt2", "notes": '
    head -c 100 /dev/zero | tr '\0' '['
    head -c 100 /dev/zero | tr '\0' ']'
    echo '}'
} > "$tmp/deep.json"
expect_error deep.json ":1:96: nested more than 64 levels deep"
{
    printf '{"model_type": "gpt2", "notes": '
    head -c 100000 /dev/zero | tr '\0' '['
    head -c 100000 /dev/zero | tr '\0' ']'
    echo '}'
} > "$tmp/deeper.json"
expect_error deeper.json ":1:2080: JSON syntax error: maximum parsing depth reached near '['"
hf=$srcdir/tests/hf

checks=$((checks + 1))
"$VRAMLAB" estimate --hf-config "$hf/gpt2.json" --preset gpt2 > /dev/null 2> "$tmp/err"
[ "$(cat "$tmp/err")" = "vramlab: give only one of --preset, --preset-file, --hf-config, --model and --params" ] ||
    fail "--hf-config with --preset"

finish
