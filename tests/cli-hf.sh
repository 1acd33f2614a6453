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
# and the preset of the same model ("-" when none ships).  One model at least of each
# model_type.  Where no preset ships, the count is the Hub's safetensors total (granite,
# granitemoe: ibm-granite/granite-3.1-2b and -3b-a800m, as granite-guardian-3.1-2b and
# -3.2-3b-a800m; olmoe: allenai/OLMoE-1B-7B-0924; stablelm: stabilityai/stablelm-2-1_6b;
# smollm3: HuggingFaceTB/SmolLM3-3B; ernie4_5: baidu/ERNIE-4.5-0.3B-PT; qwen2_moe:
# Qwen/Qwen1.5-MoE-A2.7B, also keras-hub's qwen1.5_moe_2.7b_en), keras-hub's
# preset (distilbert: distil_bert_base_en_uncased), or what transformers' model classes
# count (num_parameters(): RobertaModel of roberta-base and roberta-large, keras-hub's
# roberta_base_en and roberta_large_en with the pooler, 1 token type and 2 more position
# rows; XLMRobertaModel of xlm-roberta-base, GPTNeoForCausalLM of EleutherAI/gpt-neo-125M).
# Code Llama 7B: togethercomputer/together-python's count; 34B's and TinyLlama's as their
# presets say (codellama/CodeLlama-34b-hf's config.json has 32000 rows where mlc-llm's
# copy has 32016: the file here follows the repository's).  gemma3: the language
# model of google/gemma-3-4b-pt (text_config), keras-hub's gemma3_4b_text count
# 3,880,099,328 of 262,144 embedding rows plus config.json's 64 more of 2560 (the preset
# gemma-3-4b says so).
while read -r file published preset; do
    checks=$((checks + 1))
    got=$(field params --hf-config "$hf/$file")
    if [ "$got" != "$published" ]; then
        fail "$file: $got parameters, published $published ($(cat "$tmp/err"))"
        continue
    fi
    [ "$preset" = - ] && continue
    checks=$((checks + 1))
    for key in params active_params layers hidden heads kv_heads head_dim ffn vocab largest_matrix \
        activations; do
        a=$(field "$key" --hf-config "$hf/$file")
        b=$(field "$key" --preset "$preset")
        [ "$a" = "$b" ] || fail "$file: $key $a, but preset $preset has $b"
    done
done <<'TABLE'
llama-2-7b.json 6738415616 llama-2-7b
llama-3-8b.json 8030261248 llama-3-8b
mistral-7b.json 7241732096 mistral-7b
mixtral-8x7b.json 46702792704 mixtral-8x7b
qwen2.5-0.5b.json 494032768 qwen2.5-0.5b
gemma-2b.json 2506172416 gemma-2b
phi-3-mini.json 3821079552 phi-3-mini
phi-2.json 2779683840 phi-2
gpt-j-6b.json 6050882784 gpt-j-6b
gpt2.json 124439808 gpt2
opt-13b.json 12853473280 opt-13b
falcon-7b.json 6921720704 falcon-7b
bloom.json 176247271424 bloom-176b
gpt-neox-20b.json 20554567680 -
bert-base-uncased.json 109482240 bert-base-uncased
deepseek-v3.json 671026419200 deepseek-v3
deepseek-v2-lite.json 15706484224 deepseek-v2-lite
qwen3-0.6b.json 596049920 qwen3-0.6b
qwen3-30b-a3b.json 30532122624 qwen3-30b-a3b
gemma-2-2b.json 2614341888 gemma-2-2b
gemma-3-1b.json 999885952 gemma-3-1b
gemma-3-4b.json 3880263168 gemma-3-4b
olmo-2-7b.json 7298617344 olmo-2-7b
olmoe-1b-7b.json 6919161856 -
granite-3.1-2b.json 2533531648 -
granite-3.1-3b-a800m.json 3298793472 -
roberta-base.json 124645632 roberta-base
roberta-large.json 355359744 roberta-large
xlm-roberta-base.json 278043648 -
distilbert-base-uncased.json 66362880 distilbert-base-uncased
codellama-7b.json 6738546688 codellama-7b
codellama-34b.json 33743970304 codellama-34b
tinyllama-1.1b.json 1100048384 tinyllama-1.1b
gpt-neo-125m.json 125198592 -
stablelm-2-1.6b.json 1644515328 -
smollm3-3b.json 3075098624 -
ernie-4.5-0.3b.json 360748032 -
qwen1.5-moe-a2.7b.json 14315784192 -
TABLE

# The model class's logits rules come with its model_type: GPT-2's config and its preset,
# served under transformers 4.44, hold the prefill's bf16 logits of every position and no
# fp32 copy (GPT2LMHeadModel never cast them), 512 x 50257 x 4 B less at the peak than the
# preset read as Llama's class, whose forward returned logits.float() then; GPT2Attention
# keeps a causal-mask buffer, 12 layers of 1024 x 1024 bools, which Llama's has not.
checks=$((checks + 1))
sed 's/model_type: gpt2/model_type: llama/' "$srcdir/presets/models/gpt2.yaml" > "$tmp/gpt2-llama.yaml"
run="--mode infer --framework hf --transformers 4.44 --seq 512 --gen 4 --batch 1"
a=$(field allocated --hf-config "$hf/gpt2.json" $run)
b=$(field allocated --preset gpt2 $run)
c=$(field allocated --preset-file "$tmp/gpt2-llama.yaml" $run)
[ -n "$a" ] && [ "$a" = "$b" ] && [ $((c - a)) = $((512 * 50257 * 4 - 12 * 1024 * 1024)) ] ||
    fail "gpt2 under 4.44: config $a, preset $b, as Llama's class $c"
# and the report says so, where Llama's class has no such note
checks=$((checks + 1))
note="transformers 4.44's gpt2 class, unlike Llama's: 16-bit logits; the cache as tuples, the step before's held through a decode step"
"$VRAMLAB" estimate --preset gpt2 $run --format json | grep -qF "\"notes\": [\"$note\"]" ||
    fail "gpt2 under 4.44: no note '$note'"
"$VRAMLAB" estimate --preset-file "$tmp/gpt2-llama.yaml" $run --format json | grep -q "unlike Llama" &&
    fail "gpt2 as Llama's class: a note on its class"

# The softmax of transformers' eager attention: BERT's, GPT-2's and Falcon's run in the
# scores' dtype, Llama's upcasts to fp32 (eager_softmax); OPT and Phi-2 drop out no
# attention probabilities (attention_dropout).  A config and its model's preset give the same
# pure-bf16 eager training peak and activations, and BERT's is below Llama's rule: the
# preset's peak with the fp32 softmax forced back (a preset file with eager_softmax: fp32).
for pair in bert-base-uncased.json:bert-base-uncased gpt2.json:gpt2 falcon-7b.json:falcon-7b \
    llama-2-7b.json:llama-2-7b roberta-base.json:roberta-base \
    distilbert-base-uncased.json:distilbert-base-uncased opt-13b.json:opt-13b phi-2.json:phi-2 \
    gpt-j-6b.json:gpt-j-6b; do
    checks=$((checks + 1))
    run="--mode train --precision bf16 --attention eager --framework hf --seq 256 --batch 2"
    for key in allocated activations; do
        a=$(field $key --hf-config "$hf/${pair%%:*}" $run)
        b=$(field $key --preset "${pair#*:}" $run)
        [ -n "$a" ] && [ "$a" = "$b" ] || fail "${pair%%:*}: $key $a, but preset ${pair#*:} has $b"
    done
done
checks=$((checks + 1))
sed 's/eager_softmax: input.*/eager_softmax: fp32/' "$srcdir/presets/models/bert-base-uncased.yaml" \
    > "$tmp/bert-fp32.yaml"
run="--mode train --precision bf16 --attention eager --framework hf --seq 256 --batch 2"
# the activations alive at the peak (the loss's backward, every layer's saves)
alive() {
    "$VRAMLAB" estimate "$@" --format json | tr -d '\n' |
        sed -n 's/.*"alive": {[^}]*"activations": \([0-9]*\).*/\1/p'
}
in16=$(alive --preset bert-base-uncased $run)
up=$(alive --preset-file "$tmp/bert-fp32.yaml" $run)
# 12 layers x 2 x 12 heads x 256^2 scores x (4 - 2) B: the fp32 softmax over the 16-bit
# probabilities (the cast that matmul reads is the dropout's output, kept either way)
[ -n "$in16" ] && [ $((up - in16)) = $((12 * 2 * 12 * 256 * 256 * 2)) ] ||
    fail "BERT's 16-bit softmax: $in16, with an fp32 one $up (expected 37,748,736 B apart)"

# starcoder2 and gpt_bigcode: no exact published count was found (neither the Hub's
# safetensors totals nor a paper's), so each is checked against the count derived by hand
# from transformers' modeling code (modeling_starcoder2.py, modeling_gpt_bigcode.py) and
# against the published rounded figure, within half a unit of its last digit.
#   bigcode/starcoder2-3b (Starcoder2ForCausalLM, embeddings tied; h 3072, 30 layers, 24
#   heads of 128, 2 KV heads, f 12288, V 49152, use_bias): a layer is q and o
#   2 x (3072^2 + 3072), k and v 2 x (3072 x 256 + 256), c_fc and c_proj
#   2 x 3072 x 12288 + 12288 + 3072, two LayerNorms 4 x 3072: 95,979,008; x 30 =
#   2,879,370,240, + embeddings 49152 x 3072 = 150,994,944, + final LayerNorm 6144:
#   3,030,371,328.  Published: "3.03B" (the model's Hub page; Lozhkov et al. 2024,
#   StarCoder 2, Table 3: 3B).
#   bigcode/starcoder (GPTBigCodeForCausalLM, multi-query, tied; h 6144, 40 layers, 48
#   heads, f 24576, 8192 learned positions, V 49152): c_attn 6144 x (6144 + 2 x 128) + 6400,
#   c_proj 6144^2 + 6144, c_fc and c_proj 2 x 6144 x 24576 + 24576 + 6144, two LayerNorms
#   4 x 6144: 379,128,064; x 40 = 15,165,122,560, + wte 49152 x 6144 = 301,989,888, + wpe
#   8192 x 6144 = 50,331,648, + ln_f 12288: 15,517,456,384.  Published: "15.5B" (Li et al.
#   2023, StarCoder: may the source be with you!, abstract).
while read -r file derived rounded unit; do
    checks=$((checks + 1))
    got=$(field params --hf-config "$hf/$file")
    [ "$got" = "$derived" ] || fail "$file: $got parameters, derived by hand $derived ($(cat "$tmp/err"))"
    awk -v n="$got" -v r="$rounded" -v u="$unit" 'BEGIN { d = n - r * 1e9; exit !(d <= u / 2 && -d <= u / 2) }' ||
        fail "$file: $got parameters, published ${rounded}B"
done <<'TABLE'
starcoder2-3b.json 3030371328 3.03 10000000
starcoder.json 15517456384 15.5 100000000
TABLE

# Every supported model_type has a model in the table above.
checks=$((checks + 1))
for type in $("$VRAMLAB" estimate --hf-config "$hf/unsupported-t5.json" 2>&1 |
    sed 's/.*(supported: \(.*\))$/\1/; s/,//g; s/ or / /'); do
    grep -q "\"model_type\": \"$type\"" "$hf"/*.json || fail "model_type $type: no config.json in tests/hf"
done

# Mixtral: active parameters too (2 of 8 experts; derived in tests/test_model.c).
checks=$((checks + 1))
[ "$(field active_params --hf-config "$hf/mixtral-8x7b.json")" = 12879925248 ] ||
    fail "mixtral-8x7b.json: active parameters"

expect_error() { # expect_error FILE MESSAGE: --hf-config tests/hf/FILE is refused with
    # "vramlab: tests/hf/FILE" and MESSAGE
    expect 2 "vramlab: $hf/$1$2" estimate --hf-config "$hf/$1"
}
supported="bert, bloom, deepseek_v2, deepseek_v3, distilbert, ernie4_5, falcon, gemma, gemma2, gemma3, gemma3_text, gpt2, gpt_bigcode, gpt_neo, gpt_neox, gptj, granite, granitemoe, llama, mistral, mixtral, olmo2, olmoe, opt, phi, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe, roberta, smollm3, stablelm, starcoder2 or xlm-roberta"
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
# Gemma 3's language model is its text_config, whose errors point at it.
printf '{"model_type": "gemma3"}\n' > "$tmp/gemma3-bare.json"
expect_error gemma3-bare.json ":1:1: missing key 'text_config'"
printf '{"model_type": "gemma3", "text_config": {"hidden_size": "big"}}\n' > "$tmp/gemma3-big.json"
expect_error gemma3-big.json ':1:41: hidden_size: expected a whole number, got "big"'
printf '{"model_type": "gemma3", "text_config": [1]}\n' > "$tmp/gemma3-list.json"
expect_error gemma3-list.json ':1:41: text_config: expected an object, got a list'
# What the count cannot follow is refused, naming the key.
sed 's/"decoder_sparse_step": 1/"decoder_sparse_step": 2/' "$srcdir/tests/hf/qwen3-30b-a3b.json" > "$tmp/sparse-step.json"
expect_error sparse-step.json ':8:26: decoder_sparse_step: MoE layers other than every layer are not supported'
sed 's/"mlp_only_layers": \[\]/"mlp_only_layers": [0]/' "$srcdir/tests/hf/qwen3-30b-a3b.json" > "$tmp/mlp-only.json"
expect_error mlp-only.json ':17:22: mlp_only_layers: dense layers among the MoE layers are not supported'
sed 's/"use_qkv_bias": true/"use_qkv_bias": true, "qk_layernorm": true/' "$srcdir/tests/hf/stablelm-2-1.6b.json" > "$tmp/qk-layernorm.json"
expect_error qk-layernorm.json ':25:41: qk_layernorm: a LayerNorm per head on queries and keys is not supported'
expect_error quoted-pdrop.json ':6:17: attn_pdrop: expected a probability, got "0.1"'
expect_error quoted-layers.json ':16:14: n_layer: expected a whole number, got "12"'
# Deep nesting is refused in time linear in the text: past 64 levels (as for the presets),
# and at jansson's limit of 2048 before that.
nested() { # nested N: a config.json whose "notes" are N lists, one in another
    printf '{"model_type": "gpt2", "notes": '
    head -c "$1" /dev/zero | tr '\0' '['
    head -c "$1" /dev/zero | tr '\0' ']'
    echo '}'
}
nested 100 > "$tmp/deep.json"
expect_error deep.json ":1:96: nested more than 64 levels deep"
nested 100000 > "$tmp/deeper.json"
expect_error deeper.json ":1:2080: JSON syntax error: maximum parsing depth reached near '['"
hf=$srcdir/tests/hf

# Eager attention's scores in inference, a prompt of 2,048 tokens, 8 heads (8 x 2048^2
# scores, which dwarf the rest of a layer's workspace): Llama's softmax(..., dtype=float32)
# .to(dtype) holds 10 B a score over bf16 scores (the fp32 copy it reads, then its fp32
# output, beside the scaled scores) and 8 over fp16 ones (CUDA's half-to-float softmax
# writes fp32 from fp16, then the cast); GPTBigCode's fused one (attention_softmax_in_fp32)
# holds what a softmax in the scores' dtype holds.
checks=$((checks + 1))
small='"hidden_size": 256, "num_attention_heads": 8, "num_hidden_layers": 2, "intermediate_size": 512, "vocab_size": 1000, "max_position_embeddings": 4096'
echo "{\"model_type\": \"llama\", $small}" > "$tmp/llama-small.json"
run="--mode infer --attention eager --framework hf --seq 2048 --batch 1 --transformers 4.34"
bf16=$(field activations --hf-config "$tmp/llama-small.json" $run --weight-dtype bf16)
fp16=$(field activations --hf-config "$tmp/llama-small.json" $run --weight-dtype fp16)
[ -n "$bf16" ] && [ $((bf16 - fp16)) = $((8 * 2048 * 2048 * 2)) ] ||
    fail "Llama's eager scores: bf16 $bf16, fp16 $fp16 (expected 67,108,864 B apart)"
checks=$((checks + 1))
bigcode='"n_embd": 256, "n_head": 8, "n_layer": 2, "n_inner": 512, "n_positions": 4096, "vocab_size": 1000'
echo "{\"model_type\": \"gpt_bigcode\", $bigcode}" > "$tmp/bigcode.json"
echo "{\"model_type\": \"gpt_bigcode\", \"attention_softmax_in_fp32\": false, $bigcode}" \
    > "$tmp/bigcode-16.json"
fused=$(field activations --hf-config "$tmp/bigcode.json" $run --weight-dtype bf16)
in16=$(field activations --hf-config "$tmp/bigcode-16.json" $run --weight-dtype bf16)
[ -n "$fused" ] && [ "$fused" = "$in16" ] ||
    fail "GPTBigCode's fused softmax holds $fused, its 16-bit one $in16 (expected the same)"

checks=$((checks + 1))
"$VRAMLAB" estimate --hf-config "$hf/gpt2.json" --preset gpt2 > /dev/null 2> "$tmp/err"
[ "$(cat "$tmp/err")" = "vramlab: give only one of --preset, --preset-file, --hf-config, --model and --params" ] ||
    fail "--hf-config with --preset"

finish
