#!/bin/sh
# tui-settings.sh: the explorer's later sliders (parallelism, speed, planning, serving,
# the finer choices), a terminal it cannot use, and the explorer in Chinese, driven in tmux
# like a user, each number against vramlab estimate's.
. "$srcdir/tests/tui-lib.sh"

# slider NAME LABEL: the value slider LABEL shows (its field of 15, the bar, the value)
slider() {
    screen "$1" | cut -c3-43 | awk -v l="$2" 'index($0, l) == 1 {
        v = substr($0, 16); sub(/^[-O]+ /, "", v); sub(/ +$/, "", v); print v; exit }'
}
expect_slider() { # expect_slider NAME LABEL VALUE
    checks=$((checks + 1))
    got=$(slider "$1" "$2")
    [ "$got" = "$3" ] || { fail "$2 shows '$got', expected '$3'"; screen "$1"; }
}
# step NAME ESTIMATE-ARGS...: the step time `vramlab estimate` gives, as the explorer shows it
step() {
    "$VRAMLAB" estimate "$@" | sed -n 's/.* MFU of [0-9]* TFLOP\/s: \([0-9.e+-]*\) s a step of.*/\1/p'
}

# The sliders of context parallelism, interleaving, the MFU and the token budget (training)
# and of the memory fraction a server may use, at both layout sizes: each moves and the
# number changes on screen, to what `vramlab estimate` gives for the same settings; one with
# no effect is drawn disabled, with its reason, and does not move.
for size in 80x24 200x60; do
    cols=${size%x*} rows=${size#*x}
    name=speed-$size
    start $name --preset llama-2-7b --no-color --ascii
    to $name "token budget"
    expect_slider $name "token budget" off
    keys $name Right
    expect_slider $name "token budget" 1e9
    expect_screen $name "step time at 40% MFU: $(step --preset llama-2-7b --tokens 1e9) s a step"
    if [ $size = 200x60 ]; then
        days=$("$VRAMLAB" estimate --preset llama-2-7b --tokens 1e9 | sed -n 's/.*1e9 tokens: \([0-9.]*\) days.*/\1/p')
        expect_screen $name "; 1e9 tokens in $days days"
    fi
    to $name MFU
    keys $name Right                                   # MFU 40% -> 41%
    expect_slider $name MFU 41%
    expect_screen $name "step time at 41% MFU: $(step --preset llama-2-7b --mfu 0.41 --tokens 1e9) s a step"
    keys $name PgDn                                    # coarse: to whole tens
    expect_slider $name MFU 40%
    keys $name PgDn
    expect_slider $name MFU 30%
    keys $name PgUp
    expect_slider $name MFU 40%
    to $name "virtual stages"                          # with one stage: inert
    expect_slider $name "virtual stages" "(1)"
    keys $name Right
    expect_slider $name "virtual stages" "(1)"
    expect_screen $name "virtual stages has no effect now: interleaving needs pipeline par. 2 or more"
    to $name "context par."
    keys $name Right                                   # context parallel 2, on 2 GPUs
    expect_slider $name "context par." 2
    expect_total $name --preset llama-2-7b --cp 2 --gpus 2 --tokens 1e9
    keys $name q
    exited $name 0

    name=vpp-$size                                     # two stages: virtual stages move
    start $name --preset llama-2-7b --pp 2 --gpus 2 --grad-accum 2 --no-color --ascii
    to $name "virtual stages"
    expect_slider $name "virtual stages" 1
    keys $name Right
    expect_slider $name "virtual stages" 2
    expect_total $name --preset llama-2-7b --pp 2 --gpus 2 --grad-accum 2 --vpp 2
    keys $name q
    exited $name 0

    name=serve-$size
    start $name --preset llama-2-7b --mode infer --no-color --ascii
    to $name "GPU mem. util."
    expect_slider $name "GPU mem. util." 100%
    keys $name PgDn                                    # 90%: vLLM's default
    expect_slider $name "GPU mem. util." 90%
    usable=$("$VRAMLAB" estimate --preset llama-2-7b --mode infer --gpu-util 0.9 --format json |
        sed -n 's/.*"usable": \([0-9]*\).*/\1/p')
    expect_screen $name "capacity $(awk -v b="$usable" 'BEGIN { printf "%.2f", b / 2^30 }') GiB"
    keys $name Right
    expect_slider $name "GPU mem. util." 91%
    expect_total $name --preset llama-2-7b --mode infer --gpu-util 0.91
    keys $name q
    exited $name 0
    unset cols rows
done

# Planning: capacity (the GPU's memory until a value is typed, --capacity), overhead
# (--overhead) and GPUs per node (--gpus-per-node), last in the list; the verdict, the
# capacity on the bar and the peak's spare or excess are those of vramlab estimate with the
# same flags, at 80x24 and at 200x60
expect_peak() { # expect_peak NAME ESTIMATE-ARGS...: the peak line says estimate's peak and headroom
    name=$1
    shift
    json=$("$VRAMLAB" estimate "$@" --format json)
    peak=$(printf '%s\n' "$json" | sed -n 's/.*"peak": {[^}]*"device": \([0-9]*\).*/\1/p')
    room=$(printf '%s\n' "$json" | sed -n 's/.*"headroom": \(-\{0,1\}[0-9]*\).*/\1/p')
    p=$(awk -v b="$peak" 'BEGIN { printf "%.2f GiB", b / 2^30 }')
    m=$(awk -v b="$room" 'BEGIN { printf "%.2f GiB", (b < 0 ? -b : b) / 2^30 }')
    line=$(screen "$name" | grep -F " peak $p")
    checks=$((checks + 1))
    case "$room:$line" in
    -*"$m over"* | -*"over by $m"* | -*"$m short"*) ;;
    [0-9]*"$m spare"* | [0-9]*"spare $m"*) ;;
    *) fail "$name: peak line '$line', estimate $*: peak $p, headroom $room"; screen "$name" ;;
    esac
}
expect_kv() { # expect_kv NAME ESTIMATE-ARGS...: the serving line says estimate's KV cache
    name=$1
    shift
    kv=$("$VRAMLAB" estimate "$@" --format json |
        sed -n 's/.*"kv_cache": {"sizing": "\([a-z]*\)", "free_at_load": [0-9]*, "bytes": \([0-9]*\), "tokens": \([0-9]*\),.*"shortfall": \([0-9]*\)}.*/\1 \2 \3 \4/p')
    set -- $kv
    what="KV cache" # SGLang's is a pool
    [ "$1" = static ] && what="KV pool"
    if [ "${2:-0}" -gt 0 ]; then
        want="$what: $(awk -v b="$2" 'BEGIN { printf "%.2f GiB", b / 2^30 }'), $(echo "$3" |
            sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') tokens"
    else
        want="$what: none, $(awk -v b="${4:-0}" 'BEGIN { printf "%.2f GiB", b / 2^30 }') short"
    fi
    expect_screen "$name" "$want"
}
for size in 80x24 200x60; do
    cols=${size%x*} rows=${size#*x}
    name=plan-$size
    start $name --preset llama-2-7b --no-color --ascii
    to $name capacity                               # the GPU's until typed
    checks=$((checks + 1))
    screen $name | grep -qE '^> capacity +[-O]+ 79\.19 GiB' || { fail "$name: capacity row"; screen $name; }
    expect_peak $name --preset llama-2-7b
    keys $name Enter 2 0 0 Enter                    # a bare number is in GiB: now it fits
    expect_screen $name "(200.00 GiB"
    expect_screen $name "capacity 200.00 GiB"
    expect_total $name --preset llama-2-7b --capacity 200GiB
    expect_peak $name --preset llama-2-7b --capacity 200GiB
    keys $name Right                                # a GiB more
    expect_peak $name --preset llama-2-7b --capacity 201GiB
    keys $name Enter 9 9 9 9 9 9 Enter              # absurd: said, the prompt stays open
    expect_screen $name "capacity (GiB) = 999999_"
    expect_screen $name "capacity: '999999GiB' is outside 1 GiB .. 64 TiB"
    keys $name Escape
    expect_peak $name --preset llama-2-7b --capacity 201GiB
    keys $name g a 1 0 0 - 4 Enter                  # another GPU: the typed capacity stays, said
    expect_screen $name "capacity stays 201.00 GiB as typed"
    expect_peak $name --preset llama-2-7b --capacity 201GiB --gpu a100-40gb
    keys $name r                                    # back to the GPU's figure
    expect_screen $name "(79.19 GiB)"
    expect_peak $name --preset llama-2-7b
    keys $name j Enter - 1 Enter                    # overhead: no negative sizes
    expect_screen $name "overhead: '-1GiB' is not a size: must not be negative"
    keys $name Escape Enter 4 Enter                 # 4 GiB replaces the modelled CUDA context
    expect_total $name --preset llama-2-7b --overhead 4GiB
    expect_peak $name --preset llama-2-7b --overhead 4GiB
    keys $name Left
    expect_peak $name --preset llama-2-7b --overhead 3GiB
    keys $name j Left                               # GPUs per node: offload or NVLS only
    expect_screen $name "GPUs per node has no effect now: only offload and NVLink SHARP use it"
    keys $name q
    exited $name 0
    name=plan-node-$size
    start $name --preset llama-2-7b --zero 2 --gpus 8 --offload optimizer --no-color --ascii
    to $name "GPUs per node"
    keys $name Left                                 # GPUs per node 8 -> 4: half a node's CPU
    checks=$((checks + 1))
    screen $name | grep -qE '^> GPUs per node +[-O]+ 4( |$)' || { fail "$name: GPUs per node row"; screen $name; }
    node=$("$VRAMLAB" estimate --preset llama-2-7b --zero 2 --gpus 8 --offload optimizer \
        --gpus-per-node 4 --format json | sed -n 's/.*"cpu_per_node": {[^}]*"total": \([0-9]*\).*/\1/p')
    node=$(awk -v b="$node" 'BEGIN { printf "%.2f GiB", b / 2^30 }')
    checks=$((checks + 1))
    screen $name | grep -qE "(CPU per node: |node CPU )$node" || { fail "$name: CPU per node not $node"; screen $name; }
    expect_peak $name --preset llama-2-7b --zero 2 --gpus 8 --offload optimizer --gpus-per-node 4
    keys $name q
    exited $name 0
    unset cols rows
done

# TERM unset, unknown, or a terminal that cannot move the cursor: one line pointing to
# vramlab estimate, exit 2, instead of curses' "Error opening terminal" or a blank screen
for term in unset dumb no-such-terminal; do
    name=term-$term
    set -- "TERM=$term"
    [ "$term" = unset ] && set -- -u TERM
    tm new-session -d -s "$name" -x 100 -y 30 \
        "env $* $VRAMLAB tui < /dev/tty 2> $name.err; echo \$? > $name.status" \; \
        set-option -t "$name" remain-on-exit on
    exited "$name" 2
    checks=$((checks + 1))
    [ "$(wc -l < "$name.err")" -eq 1 ] &&
        grep -q "^vramlab: .*TERM.*; vramlab estimate prints the same numbers as text\$" \
            "$name.err" ||
        fail "TERM=$term: '$(cat "$name.err")'"
done

# SIGTERM restores the terminal too
start b
expect_total b
kill -TERM "$(cat b.pid)"
exited b 143

# not a terminal: a clear message, exit 2
checks=$((checks + 1))
msg=$("$VRAMLAB" < /dev/null 2>&1 > /dev/null)
[ $? -eq 2 ] && [ "$msg" = "vramlab: the explorer needs a terminal; vramlab estimate prints the same numbers as text" ] ||
    fail "no terminal: '$msg'"


# The explorer in Chinese (po/zh_CN.po) at 80x24 and at 200x60, chosen with --lang zh under
# the C locale that lib.sh sets (the explorer takes C.UTF-8 for it): the labels, the tabs,
# the footer and the help screen are Chinese; every number on the Memory panel is the
# English screen's (the rows an ellipsis ends are left out: a cut may take numbers); and
# the screen holds whole characters only: valid UTF-8, no row wider than the terminal.
numbers() { # numbers NAME: the numbers on the screen below the title, sorted (a language
    # has its own word order)
    screen "$1" | sed 1d | grep -v -e '\.\.\.$' -e '…$' | grep -oE '[0-9]+([.,][0-9]+)*' | sort
}
whole_chars() { # whole_chars NAME COLS
    checks=$((checks + 1))
    screen "$1" > "$1.txt"
    iconv -f UTF-8 -t UTF-8 "$1.txt" > /dev/null 2>&1 || fail "$1: the screen is not valid UTF-8"
    checks=$((checks + 1))
    w=$(LC_ALL=C.UTF-8 wc -L < "$1.txt")
    [ "$w" -le "$2" ] || { fail "$1: a row $w columns wide in $2"; cat "$1.txt"; }
}
for size in 80x24 200x60; do
    c=${size%x*} r=${size#*x}
    for what in train infer; do
        set -- --preset llama-2-7b # estimate's options
        [ $what = infer ] && set -- "$@" --mode infer --gen 1024
        en=i18n-en-$what-$size zh=i18n-zh-$what-$size
        cols=$c rows=$r start "$en" "$@" --no-color --lang en
        cols=$c rows=$r ready=$(zh "how it is computed" "计算方法") start "$zh" "$@" --no-color \
            --lang zh
        expect_total "$zh" "$@"
        numbers "$en" > "$en.numbers"
        numbers "$zh" > "$zh.numbers"
        checks=$((checks + 1))
        [ -s "$en.numbers" ] && cmp -s "$en.numbers" "$zh.numbers" ||
            { fail "$zh: the numbers differ from English's"; diff "$en.numbers" "$zh.numbers";
              screen "$en"; screen "$zh"; }
        whole_chars "$zh" "$c"
        keys "$en" q
        exited "$en" 0
        [ $what = infer ] && { keys "$zh" q; exited "$zh" 0; continue; }
        [ "$nls" = yes ] || { keys "$zh" q; exited "$zh" 0; continue; }
        expect_screen "$zh" "参数量 " # the labels
        expect_screen "$zh" "上下文长度"
        expect_screen "$zh" "[1 显存]" # the tabs
        expect_screen "$zh" " ? 帮助  q 退出  Up/Down 选择" # the footer, shortened whole
        expect_screen "$zh" "计算方法：权重" # the formula pane, its formula as in English
        expect_screen "$zh" " 权重 = 2 B/param x 6.74e9 params = 12.55 GiB"
        keys "$zh" '?'
        wait_for "$zh" "按键（按任意键关闭）"
        expect_screen "$zh" "显存面板"
        expect_screen "$zh" "所有面板"
        expect_screen "$zh" "选择一项设置"
        whole_chars "$zh" "$c"
        keys "$zh" Escape
        to "$zh" "$(zh "ZeRO stage" "ZeRO 阶段")"
        keys "$zh" Right Right Right Right             # ZeRO 0 -> 3, and past it
        expect_screen "$zh" "ZeRO 阶段：已到取值范围的尽头" # a status message
        expect_total "$zh" --preset llama-2-7b --zero 3
        whole_chars "$zh" "$c"
        keys "$zh" q
        exited "$zh" 0
    done
done

# --cpu-offload in serving: the CPU offload row (the last) moves by GiB, and the
# total, the weights, the CPU memory per node and the roofline decode bound are those of
# vramlab estimate with the same flags, at 80x24 and at 200x60; at 200x60 the formula pane
# goes on from the weights to the host link's time, as estimate's speed line substitutes it
if command -v python3 > /dev/null; then
    for size in 80x24 200x60; do
        cols=${size%x*} rows=${size#*x}
        name=cpu-offload-$size
        start $name --preset llama-2-7b --mode infer --gen 100 --no-color --ascii
        unset cols rows
        to $name "CPU offload"
        expect_slider $name "CPU offload" "0.00 GiB"
        keys $name Right Right Right Right                 # 4 GiB of each GPU's weights
        expect_slider $name "CPU offload" "4.00 GiB"
        expect_total $name --preset llama-2-7b --mode infer --gen 100 --cpu-offload 4GiB
        "$VRAMLAB" estimate --preset llama-2-7b --mode infer --gen 100 --cpu-offload 4GiB \
            --format json > "$tmp/co.json"
        "$VRAMLAB" estimate --preset llama-2-7b --mode infer --gen 100 --cpu-offload 4GiB |
            sed -n 's/.* = \([0-9.]* ms + [0-9.]* ms = [0-9.]* ms\), the prefill.*/\1/p' \
            > "$tmp/co.txt"
        eval "$(python3 - "$tmp/co.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("weights='%.2f GiB' node='%.2f GiB' decode='%.0f tokens/s'" % (
    d["per_gpu"]["weights"] / 2**30, d["cpu_per_node"]["total"] / 2**30,
    d["speed"]["decode_tokens_per_s"]))
PY
)"
        expect_screen $name "## weights                 $weights"
        expect_screen $name "$node"
        expect_screen $name "roofline: decode <= $decode"
        if [ $size = 200x60 ]; then
            expect_screen $name "- 4.00 GiB in CPU memory (--cpu-offload) = $weights"
            expect_screen $name "$(cat "$tmp/co.txt")"
        fi
        keys $name q
        exited $name 0
    done
fi

# the weights' format after their group: symmetric by default, a step to gptq brings int4's
# zero points and exllama's buffer into the total and the peak vramlab estimate gives, and
# a step of the exllama kernel to 2 its scratch; inert for bf16
name=weight-format
start $name --preset llama-2-7b --mode infer --weight-dtype int4 --seq 512 --no-color --ascii
to $name "exllama kernel"
keys $name Right
expect_screen $name "exllama kernel has no effect now: exllama runs int4 GPTQ weights under transformers"
to $name "weight format"
expect_slider $name "weight format" symmetric
keys $name Right
expect_slider $name "weight format" gptq
expect_total $name --preset llama-2-7b --mode infer --weight-dtype int4 --weight-format gptq --seq 512
expect_peak $name --preset llama-2-7b --mode infer --weight-dtype int4 --weight-format gptq --seq 512
to $name "exllama kernel"
expect_slider $name "exllama kernel" 1
keys $name Right
expect_slider $name "exllama kernel" 2
expect_total $name --preset llama-2-7b --mode infer --weight-dtype int4 --weight-format gptq --seq 512 \
    --exllama-version 2
expect_peak $name --preset llama-2-7b --mode infer --weight-dtype int4 --weight-format gptq --seq 512 \
    --exllama-version 2
keys $name q
exited $name 0
name=weight-format-bf16
start $name --preset llama-2-7b --mode infer --no-color --ascii
to $name "weight format"
keys $name Right
expect_screen $name "weight format has no effect now: the format applies to int4 and int8 weights"
keys $name q
exited $name 0

# bitsandbytes' compute dtype in serving, after the weight dtype: the framework's
# (transformers' fp32, LitGPT's bf16), and a step to fp16 gives the total vramlab estimate
# gives for it
name=compute-dtype
start $name --preset llama-2-7b --mode infer --weight-dtype bnb4 --seq 512 --no-color --ascii
to $name "compute dtype"
expect_slider $name "compute dtype" fp32
keys $name Right
expect_slider $name "compute dtype" fp16
expect_total $name --preset llama-2-7b --mode infer --weight-dtype bnb4 --seq 512 --compute-dtype fp16
keys $name q
exited $name 0
name=compute-dtype-litgpt
start $name --preset llama-2-7b --mode infer --weight-dtype bnb4 --framework litgpt --no-color --ascii
to $name "compute dtype"
expect_slider $name "compute dtype" bf16
expect_total $name --preset llama-2-7b --mode infer --weight-dtype bnb4 --framework litgpt
keys $name q
exited $name 0

# A serving engine's framework brings its share of the GPU and its KV block (vLLM: all of it
# from 0.34, 90% in 0.8; blocks of 16), and the peak is vramlab estimate's under it; an
# option given wins
name=engine-defaults
start $name --preset llama-2-7b --mode infer --no-color --ascii
to $name "GPU mem. util."
expect_slider $name "GPU mem. util." 100%
to $name framework
keys $name End                                # the last of the catalog
expect_slider $name framework vllm
expect_slider $name "GPU mem. util." 100%
expect_slider $name "KV block" 16
expect_peak $name --preset llama-2-7b --mode infer --framework vllm
expect_kv $name --preset llama-2-7b --mode infer --framework vllm # 0.34's, after warmup
expect_screen $name "transient peak"
to $name "vLLM release"
keys $name Right
expect_slider $name "vLLM release" 0.8
expect_slider $name "GPU mem. util." 90%
keys $name q
exited $name 0
name=engine-given
start $name --preset llama-2-7b --mode infer --framework vllm --gpu-util 0.95 --no-color --ascii
expect_slider $name "GPU mem. util." 95%
expect_peak $name --preset llama-2-7b --mode infer --framework vllm --gpu-util 0.95
keys $name q
exited $name 0
# vLLM's prefill budget and profile sequences by GPU: 8192 over 1024 on an H100, 2048 over
# 256 on an L40S, named as the framework's; a value stepped to is the run's
name=engine-h100
start $name --preset llama-2-7b --mode infer --framework vllm --gpu h100-80gb --no-color --ascii
to $name "prefill chunk"
expect_slider $name "prefill chunk" "auto 8,192"
to $name "profile seqs"
expect_slider $name "profile seqs" "auto 1,024"
keys $name q
exited $name 0
name=engine-l40s
start $name --preset llama-2-7b --mode infer --framework vllm --gpu l40s --seq 4096 --no-color \
    --ascii
to $name "prefill chunk"
expect_slider $name "prefill chunk" "auto 2,048"
to $name "profile seqs"
expect_slider $name "profile seqs" "auto 256"
expect_peak $name --preset llama-2-7b --mode infer --framework vllm --gpu l40s --seq 4096
to $name "prefill chunk"
keys $name Right
expect_slider $name "prefill chunk" 256
expect_peak $name --preset llama-2-7b --mode infer --framework vllm --gpu l40s --seq 4096 \
    --prefill-chunk 256
keys $name q
exited $name 0
# the GPUs' link: an H100 SXM's is NVLink, where vLLM's communicators take 2.82 GiB of each
# GPU; over PCIe 0.16 GiB; on one GPU the setting is drawn disabled and says why
name=engine-link
start $name --preset llama-2-7b --mode infer --framework vllm --gpu h100-80gb --gpus 2 \
    --no-color --ascii
to $name interconnect                             # the last rows: scrolled into view
expect_slider $name interconnect "auto nvlink"
expect_peak $name --preset llama-2-7b --mode infer --framework vllm --gpu h100-80gb --gpus 2
keys $name Right
expect_slider $name interconnect pcie
expect_peak $name --preset llama-2-7b --mode infer --framework vllm --gpu h100-80gb --gpus 2 \
    --interconnect pcie
to $name GPUs
keys $name Left
to $name interconnect
keys $name Right
expect_screen $name "interconnect has no effect now: one GPU: no link between GPUs"
keys $name q
exited $name 0
# the KV cache vLLM gives itself, beside the settings: vramlab estimate's serving.kv_cache,
# its bytes and tokens, or what the weights and the profile run take beyond the engine's
# share (Qwen2.5 72B on two H100s at vLLM's 0.9, which vLLM refuses), and the cache once the
# share grows to 95%
name=engine-kv
start $name --preset qwen2.5-72b --mode infer --framework vllm --vllm 0.19 --gpu h100-80gb \
    --gpus 2 --seq 8192 --no-color --ascii
expect_screen $name "KV cache: none, 0.81 GiB short: the engine"
expect_screen $name "communicators (the 1.00 GiB more they took as they"  # made before it measured
expect_kv $name --preset qwen2.5-72b --mode infer --framework vllm --vllm 0.19 --gpu h100-80gb \
    --gpus 2 --seq 8192
to $name "GPU mem. util."
keys $name Enter 0 . 9 5 Enter
expect_slider $name "GPU mem. util." 95%
expect_kv $name --preset qwen2.5-72b --mode infer --framework vllm --vllm 0.19 --gpu h100-80gb \
    --gpus 2 --seq 8192 --gpu-util 0.95
keys $name q
exited $name 0
# SGLang: the share is its own rule for the GPU until given, and the pool follows it
name=engine-sglang
start $name --preset llama-3.1-8b --mode infer --framework sglang --gpu h100-80gb --seq 8192 \
    --no-color --ascii
expect_slider $name "GPU mem. util." "auto 83%"
expect_screen $name "(0.83 x 78.80 GiB free"
expect_kv $name --preset llama-3.1-8b --mode infer --framework sglang --gpu h100-80gb --seq 8192
to $name "GPU mem. util."
keys $name Enter 0 . 8 8 Enter
expect_slider $name "GPU mem. util." 88%
expect_kv $name --preset llama-3.1-8b --mode infer --framework sglang --gpu h100-80gb --seq 8192 \
    --gpu-util 0.88
expect_peak $name --preset llama-3.1-8b --mode infer --framework sglang --gpu h100-80gb \
    --seq 8192 --gpu-util 0.88
keys $name q
exited $name 0
# The fit under an engine: Llama 3.1 70B under SGLang on two H100s peaks within the GPU but
# the engine would not start (its share is short of the weights): the Memory panel, the
# Timeline panel and the GPU picker say so, as estimate does; four GPUs fit.  Under vLLM the
# engine's cache holds 97 sequences of 5,120 tokens: a batch of 98 does not fit, though its
# peak does.
name=engine-fit
cols=200 rows=60
s70="--preset llama-3.1-70b --mode infer --framework sglang --gpu h100-80gb"
start $name $s70 --gpus 2 --no-color --ascii
expect_screen $name "): the engine stops before serving, 2.43 GiB short"
expect_peak $name $s70 --gpus 2
keys $name 5                                       # the Timeline panel
expect_screen $name "; on 79.19 GiB, the engine stops before serving"
keys $name 1 g                                     # the GPU picker: H100 over, H200 fits
checks=$((checks + 1))
screen $name | grep -qE '[ >]h100-80gb +79\.19 GiB  over ' || { fail "$name: picker's H100"; screen $name; }
checks=$((checks + 1))
screen $name | grep -qE '[ >]h200 +[0-9.]+ GiB  fits ' || { fail "$name: picker's H200"; screen $name; }
keys $name Escape
to $name GPUs
keys $name Right
expect_slider $name GPUs 4
expect_peak $name $s70 --gpus 4
keys $name q
exited $name 0
name=engine-fit-vllm
v8="--preset llama-3.1-8b --mode infer --framework vllm --gpu h100-80gb --seq 4096 --gen 1024"
start $name $v8 --batch 98 --no-color --ascii
expect_screen $name "its KV cache holds 97 of the 98 sequences, 0.36 GiB short"
expect_peak $name $v8 --batch 98
to $name batch
keys $name Left
expect_screen $name "fits; its KV cache holds 97 sequences, spare "
expect_peak $name $v8 --batch 97
keys $name f                                       # max-batch: what the cache holds
expect_screen $name " --solve max-batch on h100-80gb: 97; 98: its KV cache is 0.36 GiB short"
keys $name q
exited $name 0
unset cols rows

# the vLLM release: 0.8 sorts the vocabulary in the profile's sampler, and the peak is
# estimate's (V0's releases before it are skipped); under the V0 profile it steps through V0's
# releases, 0.6.4's KV cache estimate's, and the sampler, V1's alone, is drawn disabled
name=engine-release
start $name --preset qwen3-8b --mode infer --framework vllm --gpu l40s --seq 1024 --no-color \
    --ascii
expect_slider $name "vLLM release" current
to $name "vLLM release"
keys $name Right
expect_slider $name "vLLM release" 0.8
expect_peak $name --preset qwen3-8b --mode infer --framework vllm --gpu l40s --seq 1024 \
    --vllm 0.8
# the sampler names the release's choice until moved; FlashInfer's is estimate's too
expect_slider $name sampler "auto sort"
to $name sampler
keys $name Right Right Right
expect_slider $name sampler flashinfer
expect_peak $name --preset qwen3-8b --mode infer --framework vllm --gpu l40s --seq 1024 \
    --vllm 0.8 --sampler flashinfer
to $name framework
keys $name Left                                    # vllm-v0, before vllm in the list
expect_slider $name framework vllm-v0
to $name "vLLM release"
keys $name Left Left Left                          # 0.7.1, 0.6.5, 0.6.4
expect_slider $name "vLLM release" 0.6.4
expect_kv $name --preset qwen3-8b --mode infer --framework vllm-v0 --gpu l40s --seq 1024 \
    --vllm 0.6.4
to $name sampler
keys $name Right
expect_screen $name "sampler has no effect now: the framework is not vLLM's V1 engine"
keys $name q
exited $name 0

# FSDP's MixedPrecision names the hf profile's choice until moved; false (fp32 gathers and
# autocast's copies) gives estimate's peak; under bf16-mixed the slider is drawn disabled and
# says why
name=fsdp-mp
fsdp_run="--preset llama-2-7b --precision bf16-amp --zero 3 --gpus 8 --lora-rank 8 --recompute full"
start $name $fsdp_run --no-color --ascii
expect_slider $name "FSDP MixedPrec" "auto true"
expect_peak $name $fsdp_run
to $name "FSDP MixedPrec"
keys $name Right Right
expect_slider $name "FSDP MixedPrec" false
expect_peak $name $fsdp_run --fsdp-mixed-precision false
to $name precision
keys $name Left Left                                # bf16-amp -> fp16-amp -> bf16-mixed
expect_slider $name precision bf16-mixed
to $name "FSDP MixedPrec"
keys $name Left
expect_screen $name "FSDP MixedPrec has no effect now: MixedPrecision casts autocast's fp32 weights"
keys $name q
exited $name 0

# The releases under the framework: transformers 4.45 steps from current (reentrant
# checkpointing, the loss's shifted copy, fp32 logits from the model, foreach AdamW), and the
# peak is vramlab estimate's; under LitGPT, whose models are not transformers', the setting
# is drawn disabled, says why, and does not move
name=releases
cols=100 rows=40 # the attention slider in view beside the release's
start $name --preset llama-2-7b --recompute full --no-color --ascii
unset cols rows
to $name transformers
expect_slider $name transformers current
keys $name End
expect_slider $name transformers 4.57
expect_peak $name --preset llama-2-7b --recompute full --transformers 4.57
keys $name Left Left Left Left Left Left Left Left Left Left Left Left
expect_slider $name transformers 4.45
expect_peak $name --preset llama-2-7b --recompute full --transformers 4.45
# before 4.36 every model ran eager attention: the release brings it, and takes it back
keys $name Left Left Left Left Left Left Left Left Left Left
expect_slider $name transformers 4.35
expect_screen $name "attention -> eager"
expect_slider $name attention eager
expect_peak $name --preset llama-2-7b --recompute full --transformers 4.35
keys $name Right
expect_slider $name transformers 4.36
expect_slider $name attention sdpa
keys $name q
exited $name 0
# in inference too: generate before 4.45 projects every prompt position to logits, and
# before 4.36 runs eager attention; the peak is vramlab estimate's
name=releases-infer
start $name --preset llama-2-7b --mode infer --seq 2048 --no-color --ascii
to $name transformers
keys $name Right
expect_slider $name transformers 4.0
expect_slider $name attention eager
expect_peak $name --preset llama-2-7b --mode infer --seq 2048 --transformers 4.0
keys $name q
exited $name 0
name=releases-litgpt
start $name --preset llama-2-7b --framework litgpt --no-color --ascii
to $name transformers
keys $name Right
expect_screen $name "transformers has no effect now: the framework's models are not transformers'"
expect_slider $name transformers "(current)"
keys $name q
exited $name 0
# bitsandbytes before 0.43.2 keeps each 4-bit matmul's input: under QLoRA 0.41 steps from
# current and the peak is vramlab estimate's; without QLoRA the setting is disabled
name=releases-qlora
start $name --preset llama-2-7b --lora-rank 16 --qlora --no-color --ascii
to $name bitsandbytes
expect_slider $name bitsandbytes current
keys $name Right
expect_slider $name bitsandbytes 0.41
expect_peak $name --preset llama-2-7b --lora-rank 16 --qlora --bitsandbytes 0.41
keys $name q
exited $name 0
name=releases-full
start $name --preset llama-2-7b --no-color --ascii
to $name bitsandbytes
keys $name Right
expect_screen $name "bitsandbytes has no effect now: the bitsandbytes release applies to QLoRA's 4-bit matmuls"
keys $name q
exited $name 0
# trl's SFTTrainer before 0.22 casts a 4-bit model's embeddings and head to bf16 under bf16
# autocast: 0.8 steps from current and the peak is vramlab estimate's; in pure bf16 the
# setting is disabled and says why
name=releases-trl
start $name --preset llama-2-7b --lora-rank 16 --qlora --precision bf16-amp --no-color --ascii
to $name trl
expect_slider $name trl current
keys $name Right
expect_slider $name trl 0.8
expect_peak $name --preset llama-2-7b --lora-rank 16 --qlora --precision bf16-amp --trl 0.8
keys $name q
exited $name 0
name=releases-trl-bf16
start $name --preset llama-2-7b --lora-rank 16 --qlora --precision bf16 --no-color --ascii
to $name trl
keys $name Right
expect_screen $name "trl has no effect now: the trl release applies to QLoRA under bf16 autocast"
keys $name q
exited $name 0
# Megatron-Core before 0.8 keeps the softmax of its loss in a second fp32 tensor: 0.1 steps
# from current and the peak is vramlab estimate's; under hf the setting says why it does
# nothing
name=releases-megatron
start $name --preset gpt2 --framework megatron --no-color --ascii
to $name Megatron-Core
expect_slider $name Megatron-Core current
keys $name Right
expect_slider $name Megatron-Core 0.1
expect_peak $name --preset gpt2 --framework megatron --megatron 0.1
keys $name q
exited $name 0
name=releases-megatron-hf
start $name --preset gpt2 --no-color --ascii
to $name Megatron-Core
keys $name Right
expect_screen $name "Megatron-Core has no effect now: the framework's loss is not Megatron's"
keys $name q
exited $name 0
# the CUDA release under PyTorch: auto, the PyTorch release's wheel's (12.8 for today's,
# 11.7 for 2.0's), then on a V100 11.2, which loads every kernel with the context (the
# transformers docs' V100); each peak is vramlab estimate's
name=runtime-cuda
start $name --preset bert-large-uncased --gpu v100-16gb --seq 512 --no-color --ascii
to $name CUDA
expect_slider $name CUDA "auto 12.8"
keys $name Left Left Left Left Left Left Left Left Left Left Left Left Left Left Left Left
expect_slider $name CUDA 11.2
expect_peak $name --preset bert-large-uncased --gpu v100-16gb --seq 512 --cuda 11.2
keys $name q
exited $name 0
name=runtime-cuda-torch
start $name --preset bert-large-uncased --gpu v100-16gb --seq 512 --torch 2.0 --no-color --ascii
to $name CUDA
expect_slider $name CUDA "auto 11.7"
expect_peak $name --preset bert-large-uncased --gpu v100-16gb --seq 512 --torch 2.0
keys $name q
exited $name 0

# QLoRA in bf16 under hf: the Trainer's autocast by default; a loop without it casts each
# fp32 adapter's input to fp32 and keeps it (--autocast false); an -amp precision is autocast
name=autocast
start $name --preset llama-2-7b --lora-rank 16 --qlora --precision bf16 --no-color --ascii
to $name autocast
expect_slider $name autocast "auto true"
keys $name Right Right
expect_slider $name autocast false
expect_total $name --preset llama-2-7b --lora-rank 16 --qlora --precision bf16 --autocast false
to $name precision
keys $name Right Right Right
expect_slider $name precision fp16-amp
expect_screen $name "autocast -> auto"
to $name autocast
expect_slider $name autocast "(auto true)"
keys $name q
exited $name 0

# a PyTorch before 2.0 has no SDPA: under LitGPT's profile, stepping down to 1.13 turns the
# attention eager, and stepping back brings SDPA back; under transformers the model chooses
# eager itself below 2.1.1, its attention slider left as it is
name=torch-sdpa
start $name --preset llama-2-7b --framework litgpt --torch 2.0 --no-color --ascii
to $name PyTorch
keys $name Left
expect_slider $name PyTorch 1.13
expect_screen $name "attention -> eager"
expect_peak $name --preset llama-2-7b --framework litgpt --torch 1.13 --attention eager
to $name attention
expect_slider $name attention eager
to $name PyTorch
keys $name Right
expect_slider $name PyTorch 2.0
to $name attention
expect_slider $name attention sdpa
keys $name q
exited $name 0

# PEFT 0.12 and later make a 16-bit layer's adapters fp32: stepping back to 0.11 gives
# them the layer's dtype, and the peak is vramlab estimate's; under QLoRA the release
# changes nothing (its adapters are fp32 in every release)
name=peft
start $name --preset llama-2-7b --lora-rank 16 --precision bf16 --no-color --ascii
to $name PEFT
expect_slider $name PEFT current
keys $name Right
expect_slider $name PEFT 0.11
expect_peak $name --preset llama-2-7b --lora-rank 16 --precision bf16 --peft 0.11
keys $name q
exited $name 0
name=peft-qlora
start $name --preset llama-2-7b --lora-rank 16 --qlora --no-color --ascii
to $name PEFT
keys $name Right
expect_screen $name "PEFT has no effect now: the PEFT release applies to LoRA on 16-bit layers"
keys $name q
exited $name 0

# QLoRA's 4-bit weights stored in bf16 (FSDP's QLoRA): before PEFT 0.12 the adapters take
# that dtype, and the peak is vramlab estimate's; from 0.12 they are fp32 whatever the
# storage
name=quant-storage
start $name --preset llama-2-7b --lora-rank 16 --qlora --precision bf16 --peft 0.11 --no-color --ascii
to $name "4-bit storage"
expect_slider $name "4-bit storage" uint8
keys $name Right
expect_slider $name "4-bit storage" bf16
expect_peak $name --preset llama-2-7b --lora-rank 16 --qlora --precision bf16 --peft 0.11 --quant-storage bf16
keys $name q
exited $name 0
name=quant-storage-peft
start $name --preset llama-2-7b --lora-rank 16 --qlora --no-color --ascii
to $name "4-bit storage"
keys $name Right
expect_screen $name "4-bit storage has no effect now: PEFT 0.12 and later make the adapters fp32"
keys $name q
exited $name 0

# a micro-batch of four padded to its longest: under its mask transformers' SDPA repeats a
# GQA model's K and V (Llama 3 8B: 8 KV heads for 32); packed rows (--padded false) pass
# enable_gqa; LitGPT's models are not transformers', and the setting has no effect there
name=padded
start $name --preset llama-3-8b --lora-rank 16 --batch 4 --seq 1024 --no-color --ascii
to $name "padded batch"
expect_slider $name "padded batch" auto
expect_peak $name --preset llama-3-8b --lora-rank 16 --batch 4 --seq 1024 --padded true
keys $name Right Right
expect_slider $name "padded batch" false
expect_peak $name --preset llama-3-8b --lora-rank 16 --batch 4 --seq 1024 --padded false
keys $name q
exited $name 0
name=padded-litgpt
start $name --preset llama-3-8b --lora-rank 16 --batch 4 --framework litgpt --no-color --ascii
to $name "padded batch"
keys $name Right
expect_screen $name "padded batch has no effect now: the framework's models are not transformers'"
keys $name q
exited $name 0

# the releases of a day: from current, a year at a time (PgDn) back to transformers 4.15's
# day, 2021-12-22, which brings PyTorch 1.10 and bitsandbytes 0.41 with it, as --as-of
# does; a day typed in reads as the command line's
name=as-of
start $name --preset bert-large-uncased --gpu v100-16gb --seq 512 --head cls --no-color --ascii
to $name "releases as of"
expect_slider $name "releases as of" current
keys $name NPage NPage NPage NPage NPage NPage
expect_slider $name "releases as of" 2021-12-22
expect_screen $name "PyTorch -> 1.10"
expect_slider $name transformers 4.15
expect_peak $name --preset bert-large-uncased --gpu v100-16gb --seq 512 --head cls \
    --as-of 2021-12-22
expect_peak $name --preset bert-large-uncased --gpu v100-16gb --seq 512 --head cls \
    --transformers 4.15
keys $name Enter 2 0 2 4 - 0 5 Enter
expect_slider $name "releases as of" 2024-05-01
expect_slider $name transformers 4.40
expect_slider $name PyTorch 2.3
keys $name q
exited $name 0

# The finer choices, at 80x24 where the list scrolls to them: LoRA's targets step from PEFT's
# q,v to the attention's four, every linear layer and the output layer too, QLoRA's scales go without double
# quantization, a cls head takes its classes; each total is vramlab estimate's
cols=80 rows=24
name=finer
start $name --preset llama-2-7b --lora-rank 16 --qlora --no-color --ascii
unset cols rows
to $name "LoRA targets"
expect_slider $name "LoRA targets" "q,v"
keys $name Right
expect_slider $name "LoRA targets" "q,k,v,o"
expect_total $name --preset llama-2-7b --lora-rank 16 --qlora --lora-targets q,k,v,o
keys $name Right
expect_slider $name "LoRA targets" "all-linear"
expect_total $name --preset llama-2-7b --lora-rank 16 --qlora --lora-targets all-linear
keys $name Right                    # the output layer too (cut to the column), and back
expect_slider $name "LoRA targets" "all-linear..."
expect_total $name --preset llama-2-7b --lora-rank 16 --qlora --lora-targets all-linear,head
keys $name Left
expect_slider $name "LoRA targets" "all-linear"
to $name "double quant"
keys $name Left
expect_slider $name "double quant" "off"
expect_total $name --preset llama-2-7b --lora-rank 16 --qlora --lora-targets all-linear \
    --no-double-quant
to $name classes
keys $name Right
expect_slider $name classes "(2)"
expect_screen $name "classes has no effect now: classes apply to the cls head"
to $name head
keys $name Right                                   # lm -> cls
to $name classes
keys $name Enter 1 0 Enter
expect_total $name --preset llama-2-7b --lora-rank 16 --qlora --lora-targets all-linear \
    --no-double-quant --head cls --labels 10
keys $name q
exited $name 0

# The Probe, Formats, Train and Timeline panels in Chinese at 80x24 and at 200x60: their
# tables, results, legends and cursor lines are Chinese and every number on them is the
# English screen's (the rows, row by row, that an ellipsis ends in neither language are
# compared; the footer and status row are left out); a move the model refuses says why in
# Chinese, the reason that comes from the core's validity rules too.
panel_numbers() { # panel_numbers EN ZH: the numbers of both screens' comparable rows, sorted
    screen "$1" > "$1.rows"
    screen "$2" > "$2.rows"
    paste -d '\t' "$1.rows" "$2.rows" | sed '1d;$d' |
        awk -F '\t' '$1 !~ /(\.\.\.|…) *$/ && $2 !~ /(\.\.\.|…) *$/' > "$2.both"
    for k in 1 2; do
        cut -f $k "$2.both" | grep -oE '[0-9]+([.,][0-9]+)*' | sort > "$2.numbers$k"
    done
    checks=$((checks + 1))
    [ -s "$2.numbers1" ] && cmp -s "$2.numbers1" "$2.numbers2" ||
        { fail "$2: the numbers differ from English's"; diff "$2.numbers1" "$2.numbers2";
          cat "$1.rows" "$2.rows"; }
}
for size in 80x24 200x60; do
    c=${size%x*} r=${size#*x}
    en=panels-en-$size zh=panels-zh-$size
    # ASCII glyphs in both: English under the C locale draws them anyway, and the Train
    # panel's curves then mark the same points with their regimes' glyphs (fp8's is a digit)
    cols=$c rows=$r start "$en" $run --no-color --ascii --lang en
    cols=$c rows=$r ready=$(zh "how it is computed" "计算方法") start "$zh" $run \
        --no-color --ascii --lang zh
    for panel in 2 3 4 5; do
        keys "$en" $panel
        keys "$zh" $panel
        case $panel in
        2) wait_for "$en" "cast to"
           wait_for "$zh" "$(zh "cast to" "转换为")"
           [ "$nls" = yes ] && for text in "转换为    下溢为零 x1 -> x2^16" "次正规数 x1 -> x2^16" \
               "个值求和：fp16 " "步起停滞），fp32 "; do
               expect_screen "$zh" "$text"
           done ;;
        3) wait_for "$en" "min normal"
           wait_for "$zh" "$(zh "min normal" "最小正规")"
           [ "$nls" = yes ] && for text in "偏置 127  最大 " " 最小正规 " " 最小次正规 " \
               " 正规数    绝对误差 "; do
               expect_screen "$zh" "$text"
           done ;;
        4) for s in "$en" "$zh"; do # the training, to its end (slow under sanitizers)
               i=0
               until screen "$s" | grep -qF -e "of 300, done" -e "第 300 / 300 步，完成" ||
                   [ $i -ge 600 ]; do
                   sleep 0.1
                   i=$((i + 1))
               done
           done
           [ "$nls" = yes ] && for text in " 第 300 / 300 步，完成 | 最近一遍数据上的损失" \
               "方案            损失    归零 准确率" "下溢为零的梯度" \
               "fp16-static：损失缩放 2^10" "  第 300 步，跳过 " " 后端："; do
               expect_screen "$zh" "$text"
           done ;;
        5) wait_for "$en" " one training step, "
           wait_for "$zh" "$(zh " one training step, " " 一个训练步，")"
           [ "$nls" = yes ] && for text in " 一个训练步，" " 个事件，在 NVIDIA H100 80GB SXM（" \
               " 光标处" "GPU 上合计" " 峰值 " " GiB（GPU 上），在事件 " "，阶段 优化器步：已分配 " \
               "，优化器步（峰值）"; do
               expect_screen "$zh" "$text"
           done
           [ "$nls" = yes ] && [ $c -ge 120 ] && expect_screen "$zh" "优化器步的临时张量" ;;
        esac
        panel_numbers "$en" "$zh"
        whole_chars "$zh" "$c"
    done
    keys "$en" q
    exited "$en" 0
    keys "$zh" 1
    to "$zh" "$(zh "tensor par." "张量并行")"
    keys "$zh" End                                     # tensor par. -> 32, and why not 64
    wait_for "$zh" "$(zh "tensor par. stopped at 32: --tp 64 must divide the model's 32" \
        "张量并行 停在 32：--tp 64 必须整除模型的 32 个注意力头")"
    expect_screen "$zh" "$(zh "tensor par. stopped at 32: --tp 64 must divide the model's 32" \
        "张量并行 停在 32：--tp 64 必须整除模型的 32 个注意力头")"
    expect_total "$zh" --preset llama-2-7b --tp 32 --gpus 32
    whole_chars "$zh" "$c"
    keys "$zh" q
    exited "$zh" 0
done

# The locale chooses the language too, and --lang wins over it: GNU's LANGUAGE (glibc reads
# it under a locale other than C), LANG (its zh_CN locale need not exist: the explorer then
# takes C.UTF-8), and LC_ALL=zh_CN.UTF-8 where this system has that locale.
zh_locale=
locale -a 2> /dev/null | grep -qi '^zh_CN\.utf-\{0,1\}8$' && zh_locale="LC_ALL=zh_CN.UTF-8"
n=0
for how in "LC_ALL=C.UTF-8 LANGUAGE=zh_CN" "LC_ALL= LANG=zh_CN.UTF-8" $zh_locale; do
    n=$((n + 1))
    envs=$how ready=$(zh "how it is computed" "计算方法") start locale-zh-$n --preset gpt2 \
        --no-color
    expect_screen locale-zh-$n "$(zh "[1 Memory]" "[1 显存]")"
    expect_total locale-zh-$n --preset gpt2
    keys locale-zh-$n q
    exited locale-zh-$n 0
done
envs="LC_ALL=C.UTF-8 LANGUAGE=zh_CN" start locale-en --preset gpt2 --no-color --lang en
expect_screen locale-en "[1 Memory]"
expect_screen locale-en " ? help  q quit"
keys locale-en q
exited locale-en 0

finish
