#!/bin/sh
# tui.sh: drive the explorer in tmux like a user: the Memory panel's sliders, pickers, keys,
# mouse and layouts, the Probe and Formats panels at a glance, saving and exporting, and the
# totals on screen against the bytes `vramlab estimate` prints for the same settings.
. "$srcdir/tests/tui-lib.sh"

start a --preset llama-2-7b --no-color --ascii
expect_total a --preset llama-2-7b
expect_screen a "Llama 2 7B (llama-2-7b)"

to a "ZeRO stage"
keys a Right Right Right                          # ZeRO stage 0 -> 3
expect_total a --preset llama-2-7b --zero 3
expect_screen a ">ZeRO-3"
to a GPUs
keys a Right Right Right Right Right Right Right   # GPUs 1 -> 8
expect_total a --preset llama-2-7b --zero 3 --gpus 8
to a micro-batch
keys a Right Right Right                           # micro-batch 1 -> 4
expect_total a --preset llama-2-7b --zero 3 --gpus 8 --batch 4
to a precision
keys a Home                                        # precision -> fp32
expect_total a --preset llama-2-7b --zero 3 --gpus 8 --batch 4 --precision fp32
to a context
keys a PPage                                       # context: coarse, 2048 -> 16384
expect_total a --preset llama-2-7b --zero 3 --gpus 8 --batch 4 --precision fp32 --seq 16384
keys a Enter 4 0 9 6 Enter                         # context typed exactly
expect_total a --preset llama-2-7b --zero 3 --gpus 8 --batch 4 --precision fp32 --seq 4096

# a typed value is validated in place, and Esc leaves everything as it was
keys a Enter 7 Q Enter
expect_screen a "context: '7Q' is not a whole number: unknown unit suffix"
keys a Escape
expect_total a --preset llama-2-7b --zero 3 --gpus 8 --batch 4 --precision fp32 --seq 4096

# too small, then back
tm resize-window -t a -x 60 -y 15
sleep 0.3
expect_screen a "terminal too small: 60x15, vramlab needs 80x22"
tm resize-window -t a -x 100 -y 30
wait_for a "how it is computed"
expect_total a --preset llama-2-7b --zero 3 --gpus 8 --batch 4 --precision fp32 --seq 4096

# help overlay, closed by any key; it says what the glyphs mean
keys a '?'
expect_screen a "type an exact value"
expect_screen a "| capacity  > selected  (v) no effect now  [1 Tab] shown  ... cut"
keys a x
expect_no_screen a "type an exact value" "help did not close"

# the preset picker: type to filter, Enter loads; the settings stay
keys a p g p t 2 Enter
expect_screen a "GPT-2 (124M) (gpt2)"
expect_total a --preset gpt2 --zero 3 --gpus 8 --batch 4 --precision fp32 --seq 4096

# the GPU picker
keys a g a 1 0 0 - 4 Enter
expect_screen a "memory per GPU on NVIDIA A100 40GB SXM"
expect_total a --preset gpt2 --zero 3 --gpus 8 --batch 4 --precision fp32 --seq 4096 --gpu a100-40gb

# export: Markdown and SVG in the working directory, named on screen
keys a e
expect_screen a "exported vramlab-gpt2-"
checks=$((checks + 1))
grep -q "training memory per GPU" vramlab-gpt2-*.md && grep -q "^<svg" vramlab-gpt2-*.svg ||
    fail "export did not write the Markdown and the SVG"

# save a scenario; saving again asks before overwriting, and n keeps the file
keys a S Enter
expect_screen a "saved scenario $tmp/cfg/vramlab/presets/gpt2-fp32-zero3-8gpu.yaml"
checks=$((checks + 1))
grep -q "^kind: scenario" "$tmp/cfg/vramlab/presets/gpt2-fp32-zero3-8gpu.yaml" ||
    fail "scenario file"
keys a S Enter
expect_screen a "exists: overwrite? (y/n)"
keys a n
expect_screen a "not saved"

# inference: the mode slider swaps the sliders; the training settings wait
to a mode
keys a Right                                       # mode: infer
expect_screen a "gpt2) | inference"                 # the title gives way to the tabs
expect_screen a "GPUs -> 6"                        # 8 GPUs do not split 12 heads: 6 do
expect_screen a "the two phases of inference"
to a GPUs
expect_total a --preset gpt2 --mode infer --gpus 6 --batch 4 --seq 4096 --gpu a100-40gb
to a "weight dtype"
keys a End                                         # the last GGUF type
expect_total a --preset gpt2 --mode infer --gpus 6 --batch 4 --seq 4096 --gpu a100-40gb \
    --weight-dtype iq1_m
keys a Left Left Left Left Left Left Left Left Left Left Left Left Left Left Left Left Left \
    Left Left Left Left Left Left Left Left Left Left  # 27 back: bnb8, the last plain dtype
expect_total a --preset gpt2 --mode infer --gpus 6 --batch 4 --seq 4096 --gpu a100-40gb \
    --weight-dtype bnb8
to a generated
keys a Enter 5 1 2 Enter                           # generated tokens
expect_total a --preset gpt2 --mode infer --gpus 6 --batch 4 --seq 4096 --gpu a100-40gb \
    --weight-dtype bnb8 --gen 512
to a mode
keys a Left                                        # back to training, as it was: the GPUs
expect_screen a "GPUs -> 8"                        # inference took come back
expect_total a --preset gpt2 --zero 3 --gpus 8 --batch 4 --precision fp32 --seq 4096 --gpu a100-40gb

# q quits with status 0 and leaves the alternate screen
keys a q
exited a 0

# the fine-tuning and parallelism sliders, below the others; at 22 lines the list scrolls
start d --preset llama-2-7b --no-color --ascii
to d "LoRA rank"
keys d Enter 8 Enter                               # LoRA rank 8
expect_total d --preset llama-2-7b --lora-rank 8
to d "QLoRA (NF4)"
keys d Right                                       # QLoRA on
expect_total d --preset llama-2-7b --lora-rank 8 --qlora
to d "LoRA dropout"
keys d Right                                       # LoRA dropout 0 -> 0.1
expect_total d --preset llama-2-7b --lora-rank 8 --qlora --lora-dropout 0.1
keys d Left                                        # and back to 0
expect_total d --preset llama-2-7b --lora-rank 8 --qlora
to d offload
keys d Right                                       # offload optimizer (brings ZeRO-1)
expect_total d --preset llama-2-7b --lora-rank 8 --qlora --offload optimizer --zero 1
expect_screen d "in CPU memory (--offload optimizer)"
tm resize-window -t d -x 100 -y 22
sleep 0.3
to d "grad accum"
keys d Right                                       # grad accum 2
expect_screen d "settings 18-33 of 55"
expect_total d --preset llama-2-7b --lora-rank 8 --qlora --offload optimizer --zero 1 --grad-accum 2
keys d q
exited d 0

# a slider stops at the last value the model takes, keeps the memory pane and says why
start f --preset llama-2-7b --no-color --ascii
to f "tensor par."
keys f End                                         # 32 (64 does not split 32 heads)
expect_screen f "tensor par. stopped at 32: --tp 64 must divide the model's 32 attention"
expect_screen f "GPUs -> 32"
expect_total f --preset llama-2-7b --tp 32 --gpus 32
to f "pipeline par."
keys f End                                         # 32 (one layer a stage)
expect_screen f "pipeline par. stopped at 32: --pp 64 must be at most the model's 32"
expect_total f --preset llama-2-7b --tp 32 --pp 32 --gpus 1024
keys f q
exited f 0
start g --preset llama-2-7b --mode infer --no-color --ascii
to g GPUs
keys g End                                         # inference GPUs -> 32 (32 heads)
expect_screen g "GPUs stopped at 32: --gpus: tensor parallelism needs the GPU count"
expect_total g --preset llama-2-7b --mode infer --gpus 32
keys g Right                                       # no further: stays, and says why
expect_screen g "GPUs stays at 32"
expect_total g --preset llama-2-7b --mode infer --gpus 32
keys g q
exited g 0

# what a move raised, the move back gives back: offload Right, Right, Left, Left restores
# ZeRO 0 (146.20 GiB, not ZeRO-3's 146.68); tensor par. back to 1 gives the GPUs back
cols=200 rows=60
start give-back --preset llama-2-7b --no-color --ascii
unset cols rows
to give-back offload
keys give-back Right                               # optimizer (brings ZeRO-1)
expect_screen give-back "ZeRO stage -> 1"
keys give-back Right                               # params (brings ZeRO-3)
expect_total give-back --preset llama-2-7b --offload params --zero 3
keys give-back Left
expect_screen give-back "ZeRO stage -> 1"
expect_total give-back --preset llama-2-7b --offload optimizer --zero 1
keys give-back Left
expect_screen give-back "ZeRO stage -> 0"
expect_total give-back --preset llama-2-7b
to give-back "tensor par."
keys give-back End                                 # 32 brings 32 GPUs
expect_total give-back --preset llama-2-7b --tp 32 --gpus 32
keys give-back Home
expect_screen give-back "GPUs -> 1"
expect_total give-back --preset llama-2-7b
# a count typed that is no whole tensor x pipeline group is rounded up, and says so
keys give-back Right                               # tensor par. 2, GPUs 2
to give-back GPUs
keys give-back Enter 3 Enter                       # GPUs 3
expect_screen give-back "GPUs 3 -> 4: whole groups of tensor x pipeline = 2 GPUs"
expect_total give-back --preset llama-2-7b --tp 2 --gpus 4
# a typed value off the slider's steps snaps to the next step in the direction pressed; one
# above its range stays on Right and comes back to the top on Left
to give-back context
keys give-back Enter 3 0 0 0 Enter Right           # context 3000 -> 4096
expect_total give-back --preset llama-2-7b --tp 2 --gpus 4 --seq 4096
keys give-back Enter 3 0 0 0 Enter Left            # 3000 -> 2048
expect_total give-back --preset llama-2-7b --tp 2 --gpus 4 --seq 2048
keys give-back Enter 1 6 7 7 7 2 1 6 Enter Right   # 16,777,216: Right stays
expect_screen give-back "context: at the end of its range"
expect_total give-back --preset llama-2-7b --tp 2 --gpus 4 --seq 16777216
keys give-back Left                                # down to the slider's top, 1,048,576
expect_total give-back --preset llama-2-7b --tp 2 --gpus 4 --seq 1048576
keys give-back q
exited give-back 0

# the screen follows --units, and a number GiB would need 7 digits for is in TiB; at 80
# columns every line of the memory pane ends on a whole word, at 120 the formula pane
# wraps each formula to its end
cols=80 rows=24
start units --preset llama-2-7b --seq 16777216 --attention eager --no-color --ascii
unset cols rows
bytes=$("$VRAMLAB" estimate --preset llama-2-7b --seq 16777216 --attention eager --format csv | awk -F, '$1 == "total" { print $2 }')
expect_screen units "$(awk -v b="$bytes" 'BEGIN { printf " total %.2f TiB per GPU", b / 2^40 }')"
expect_screen units "weights                12.55 GiB"
checks=$((checks + 1))
screen units | sed -n '2,19p' | awk 'length($0) == 80 && !/(\.\.\.|over|fits| [GT]iB|[-|@#=%~+:])$/' |
    grep . && fail "a line of the memory pane cut without an ellipsis"
checks=$((checks + 1))
screen units | grep -E 'NVIDIA H100 80GB S$|TiB ov$|\(576,$' && fail "cut without an ellipsis"
tm resize-window -t units -x 120 -y 50
sleep 0.3
expect_screen units "fp32 logits) = "
keys units q
exited units 0
start units-gb --preset llama-2-7b --units gb --no-color --ascii
bytes=$("$VRAMLAB" estimate --preset llama-2-7b --format csv | awk -F, '$1 == "total" { print $2 }')
expect_screen units-gb "$(awk -v b="$bytes" 'BEGIN { printf "total %.2f GB per GPU", b / 1e9 }')"
expect_screen units-gb "memory per GPU on NVIDIA H100 80GB SXM (85.03 GB)"
expect_screen units-gb "weights = 2 B/param x 6.74e9 params = 13.48 GB"
expect_total units-gb --preset llama-2-7b
keys units-gb q
exited units-gb 0

# for the class: the ZeRO paper's Fig. 1 (7.5B, 64 GPUs, K = 12: 120, 31.4, 16.6, 1.9 GB of
# model states), the loaded scenario's name in the title and its notes and source; the bytes
# per parameter (2 + 2 + 16 = 20 for the article's mixed AdamW) and the parallel line
# (8 GPUs / TP 2 = DP 4; global batch 1 x 4 x 4 = 16)
rows=40
start paper --no-color --ascii
unset rows
keys paper p z e r o - p a p e r Enter
expect_screen paper " vramlab | scenario zero-paper-7.5b-64gpus | GPT-3-like"
expect_screen paper "ZeRO paper view (Fig. 1: model states only, K = 12, GB): ZeRO-0 120.0 ZeRO-1 31.4 ZeRO-2 16.6"
expect_screen paper "   ZeRO-3 1.9"
tm resize-window -t paper -x 200 -y 60
sleep 0.3
expect_screen paper "scenario zero-paper-7.5b-64gpus: Model states per GPU are 120 GB at ZeRO-0"
expect_screen paper "Source: Rajbhandari et al. 2019, ZeRO, Figure 1"
keys paper p l l a m a - 2 - 7 b Enter             # a model: no scenario any more
expect_no_screen paper "scenario zero-paper" "the scenario stayed after loading a model"
keys paper q
exited paper 0
cols=200 rows=60
start facts --preset llama-2-7b --gpus 8 --tp 2 --zero 3 --grad-accum 4 --no-color --ascii
unset cols rows
expect_screen facts " bytes per parameter: weights 2 + gradients 2 + optimizer 16 (fp32 master 4 + grad copy 4 + moments 8) = 20 B x 6.74e9 params"
expect_screen facts " parallel: TP 2 x PP 1 x DP 4 = 8 GPUs; global batch = micro-batch 1 x DP 4 x grad accum 4 = 16 sequences a step"
expect_total facts --preset llama-2-7b --gpus 8 --tp 2 --zero 3 --grad-accum 4
keys facts q
exited facts 0
for size in 80x44 200x60; do                       # one sequence, not "1 sequences"
    cols=${size%x*} rows=${size#*x}
    start facts-$size --preset llama-2-7b --no-color --ascii
    unset cols rows
    expect_screen facts-$size "grad accum 1 = 1 sequence a step"
    keys facts-$size q
    exited facts-$size 0
done

# monochrome carries every cue colour does: the active tab in brackets, the picker's row
# with the select glyph, the histogram by fp16's fate in glyphs with their legend, the
# Formats header naming no colours, and t saying why there is no theme to switch
for size in 80x24 200x60; do
    cols=${size%x*} rows=${size#*x}
    start mono-$size --no-color --ascii
    unset cols rows
    # the active tab in brackets; at 80 columns the others are their digits alone
    if [ "$size" = 80x24 ]; then tabs="[1 Memory] 2 3 4 5"; else tabs="[1 Memory] 2 Probe  3 Formats"; fi
    expect_screen mono-$size "$tabs"
    keys mono-$size t
    expect_screen mono-$size "no colour here (--no-color, NO_COLOR or the terminal)"
    keys mono-$size p
    checks=$((checks + 1))
    [ "$(screen mono-$size | grep -c '^.\{6\}>[a-z]')" -eq 1 ] || fail "$size: picker cursor"
    first=$(screen mono-$size | grep '^.\{6\}>' | cut -c8-20)
    keys mono-$size Down
    checks=$((checks + 1))
    [ "$(screen mono-$size | grep '^.\{6\}>' | cut -c8-20)" != "$first" ] ||
        fail "$size: the picker cursor did not move"
    keys mono-$size Escape 2
    wait_for mono-$size "loss scale 2^16"
    expect_screen mono-$size ". flushed + subnormal # normal ^ overflow"
    checks=$((checks + 1))                     # subnormal octaves drawn as such in the bars
    screen mono-$size | sed -n '3,$p' | grep -vE '^ (fp|bf)|flushed' | grep -F '#' | grep -qF '+' ||
        fail "$size: histogram in one glyph"
    keys mono-$size 3
    expect_screen mono-$size "[3 Formats]"
    expect_screen mono-$size "sign (underlined) | exponent | mantissa"
    keys mono-$size q
    exited mono-$size 0
done

# the mouse acts where the pointer is: the wheel over a slider moves that one and nowhere
# else anything; tabs, picker rows and ZeRO rows take clicks
for size in 80x24 200x60; do
    cols=${size%x*} rows=${size#*x}
    name=mouse-$size
    start $name --preset llama-2-7b --no-color --ascii
    unset cols rows
    mouse $name 64 8 60                            # the wheel over the memory pane
    expect_total $name --preset llama-2-7b
    y=$(screen $name | grep -n '^  GPUs  ' | cut -d: -f1)
    mouse $name 64 $((y - 1)) 5                    # over the GPUs row: 1 -> 2
    expect_total $name --preset llama-2-7b --gpus 2
    expect_screen $name "> GPUs"
    y=$(screen $name | grep -n ' ZeRO-2 ' | head -n 1 | cut -d: -f1)
    mouse $name 0 $((y - 1)) 50                    # click ZeRO-2's row
    expect_total $name --preset llama-2-7b --gpus 2 --zero 2
    mouse $name 0 0 "$(tab_col $name 2 Probe)"    # the Probe tab
    wait_for $name "loss scale 2^16"
    expect_screen $name "[2 Probe]"
    mouse $name 0 0 "$(tab_col $name 1 Memory)"   # the Memory tab
    expect_screen $name "[1 Memory]"
    keys $name p                                   # at the model in use
    at=$(screen $name | grep -n '^.\{6\}>llama-2-7b ' | cut -d: -f1)
    row=$(screen $name | sed -n "$((at - 1))p" | cut -c8- | awk '{ print $1 }')
    mouse $name 64 6 20                            # the wheel moves the picker's cursor up
    expect_screen $name ">$row "
    row=$(screen $name | sed -n "$((at - 2))p" | cut -c8- | awk '{ print $1 }')
    mouse $name 0 $((at - 3)) 20                   # a click a row above it: loaded
    expect_screen $name "($row) |"
    keys $name q
    exited $name 0
done

# the pickers open at the entry in use and list by size (models by parameters, GPUs by
# memory, each GPU marked where this run fits); PgDn/End page; a scenario saved with S is
# listed at once; u undoes the last change, r goes back to the preset as loaded
cols=80 rows=24
start pickers --preset llama-2-7b --zero 3 --gpus 8 --no-color --ascii
unset cols rows
keys pickers p
expect_screen pickers ">llama-2-7b "
checks=$((checks + 1))
screen pickers | sed -n '6,19p' | cut -c7-74 |
    awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "params") print $i }' |
    awk '{ split($1, m, "e"); v = m[1] * 10 ^ m[2]; if (NR > 1 && v < last) bad = 1; last = v }
         END { exit bad }' || fail "the models are not listed by size"
keys pickers End
expect_screen pickers "scenario"                   # the scenarios after the models
keys pickers Home Escape g
expect_screen pickers ">h100-80gb "
checks=$((checks + 1))
screen pickers | sed -n '6,19p' | cut -c7-74 |
    awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "GiB") print $i }' |
    awk 'NR > 1 && $1 < last { bad = 1 } { last = $1 } END { exit bad }' ||
    fail "the GPUs are not listed by memory"
expect_screen pickers "h100-80gb             79.19 GiB  fits"
want=$("$VRAMLAB" estimate --preset llama-2-7b --zero 3 --gpus 8 --gpu t4 --format json |
    sed -n 's/.*"gpu": {.*"fits": \([a-z]*\).*/\1/p')
keys pickers Home                                  # the smallest GPU heads the list
expect_screen pickers "t4                    14.75 GiB  $([ "$want" = true ] && echo fits || echo over)"
keys pickers PPage PPage Home Escape
keys pickers S C-u m y - r u n Enter
keys pickers p m y - r u n
expect_screen pickers ">my-run "
keys pickers Escape
# undo and reset
to pickers "ZeRO stage"
keys pickers Right Right                           # ZeRO 3 at the end: stays
to pickers micro-batch
keys pickers Right Right                           # micro-batch 1 -> 3
expect_total pickers --preset llama-2-7b --zero 3 --gpus 8 --batch 3
keys pickers u
expect_total pickers --preset llama-2-7b --zero 3 --gpus 8 --batch 2
to pickers parameters
keys pickers Right                                 # parameters 6.74e9 -> 6.8e9
keys pickers Left                                  # -> 5.6e9: E12 steps, not the preset
keys pickers u u
expect_screen pickers "Llama 2 7B (llama-2-7b)"
expect_total pickers --preset llama-2-7b --zero 3 --gpus 8 --batch 2
keys pickers r
expect_screen pickers "reset to llama-2-7b as loaded (u undoes it)"
expect_total pickers --preset llama-2-7b --zero 3 --gpus 8
keys pickers u
expect_total pickers --preset llama-2-7b --zero 3 --gpus 8 --batch 2
keys pickers q
exited pickers 0

# f runs --solve on the settings on screen, in turn max batch, max context (at that batch)
# and min GPUs, applies the answer and says it; the numbers are vramlab estimate --solve's
if command -v python3 > /dev/null; then
    answer() { "$VRAMLAB" estimate "$@" --format json |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["solve"]["answer"])'; }
    cols=200 rows=60
    start solve --preset llama-2-7b --zero 3 --gpus 8 --no-color --ascii
    unset cols rows
    b=$(answer --preset llama-2-7b --zero 3 --gpus 8 --solve max-batch)
    keys solve f
    expect_screen solve " --solve max-batch on h100-80gb: $b; $((b + 1)) needs"
    expect_total solve --preset llama-2-7b --zero 3 --gpus 8 --batch "$b"
    c=$(answer --preset llama-2-7b --zero 3 --gpus 8 --batch "$b" --solve max-context)
    keys solve f
    expect_screen solve " --solve max-context on h100-80gb: $c;"
    expect_total solve --preset llama-2-7b --zero 3 --gpus 8 --batch "$b" --seq "$c"
    g=$(answer --preset llama-2-7b --zero 3 --batch "$b" --seq "$c" --solve min-gpus)
    keys solve f
    expect_screen solve " --solve min-gpus on h100-80gb: $g"
    keys solve u u u
    expect_total solve --preset llama-2-7b --zero 3 --gpus 8
    keys solve q
    exited solve 0
fi

# inference shows both phases apart, with what decoding adds to the KV cache (SDPA: the
# decode phase is the peak): Llama 2 7B
# keeps 2 (K, V) x 32 layers x 32 heads x 128 x 2 B = 512 KiB a token, so the 2,048-token
# prompt leaves 1.00 GiB and 1,024 generated tokens add 0.50 GiB; no decode bound without
# generated tokens; an encoder (BERT) has no decode phase and no generated tokens
for size in 100x30 200x60; do
    cols=${size%x*} rows=${size#*x}
    name=phases-$size
    start $name --preset llama-2-7b --mode infer --gen 1024 --no-color --ascii
    unset cols rows
    expect_screen $name "14.74 GiB fits, KV 1.00 GiB"
    expect_screen $name "15.05 GiB fits, KV 1.50 GiB (peak)"
    case $size in
    100x30) expect_screen $name "decode adds 0.50 GiB of KV cache" ;;
    *) expect_screen $name "decode: 1024 tokens grow the KV cache by 0.50 GiB (1.00 GiB -> 1.50 GiB)" ;;
    esac
    expect_screen $name "roofline: decode <= "
    expect_total $name --preset llama-2-7b --mode infer --gen 1024
    to $name generated
    keys $name Enter 0 Enter                       # generated -> 0
    expect_screen $name "none: no tokens generated (generated = 0)"
    expect_no_screen $name "decode <=" "$size: a decode bound at gen 0"
    keys $name p b e r t - b a s e Enter
    expect_screen $name "none: an encoder generates no tokens"
    expect_screen $name "generated      O---------- (0)"
    keys $name Right
    expect_screen $name "generated has no effect now: an encoder"
    expect_no_screen $name "decode <=" "$size: a decode bound for an encoder"
    keys $name q
    exited $name 0
done

# the Probe panel's counts say what their columns are: the nonzero values unscaled and at
# the scale, and how much of the sample is exactly zero (vramlab probe underflow's count)
if command -v python3 > /dev/null; then
    cols=200 rows=60
    start probe-head --no-color --ascii
    unset cols rows
    keys probe-head 2
    wait_for probe-head "loss scale 2^16"
    zeros=$("$VRAMLAB" probe underflow --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)["underflow"]["runs"][0]["classes"]["fp32"]
print("%.0f" % (100.0 * r["zero"] / sum(r.values())))')
    expect_screen probe-head "cast to   flushed x1 -> x2^16       subnormal x1 -> x2^16     overflow x1 -> x2^16"
    expect_screen probe-head "(of the nonzero: $zeros% of the sample is 0)"
    keys probe-head Left
    wait_for probe-head "flushed x1 -> x2^15"
    keys probe-head q
    exited probe-head 0
fi

# the bars grow with the terminal: at 200x60 the memory bar is 6 rows and each ZeRO bar 2
cols=200 rows=60
start tall --preset llama-2-7b --gpus 8 --zero 3 --no-color --ascii
unset cols rows
checks=$((checks + 1))
[ "$(screen tall | sed -n '3,8p' | cut -c45- | grep -c '^#')" -eq 6 ] || fail "memory bar height"
checks=$((checks + 1))
[ "$(screen tall | grep -m 1 -A 1 ' ZeRO-1 ' | tail -n 1 | cut -c45-51)" = "       " ] &&
    screen tall | grep -m 1 -A 1 ' ZeRO-1 ' | tail -n 1 | cut -c52- | grep -q '^#' ||
    fail "ZeRO bars one row high at 60 lines"
expect_total tall --preset llama-2-7b --gpus 8 --zero 3
keys tall q
exited tall 0

# a setting with no effect now is drawn disabled, says why, and does not move
start h --preset llama-2-7b --precision fp32 --no-color --ascii
to h "fp32 grad copy"                              # at fp32
expect_screen h "fp32 grad copy ----------O (on)"
expect_screen h "fp32 grad copy has no effect now: only fp16-mixed and bf16-mixed keep an"
keys h Left
expect_screen h "fp32 grad copy ----------O (on)"
expect_total h --preset llama-2-7b --precision fp32
keys h q
exited h 0

# a scenario from the picker: its model, GPU and settings
start c --no-color
keys c p z e r o - p a p e r Enter
expect_screen c "loaded scenario zero-paper-7.5b-64gpus"
expect_total c --preset zero-paper-7.5b-64gpus
# the Probe panel: the default sample's fp16 casts are vramlab probe underflow's
keys c 2
wait_for c "loss scale 2^16 = 65536"
if command -v python3 > /dev/null; then
    want=$("$VRAMLAB" probe underflow --format json | python3 -c '
import json, sys
runs = json.load(sys.stdin)["underflow"]["runs"]
pct = lambda r: 100.0 * r["flushed"] / (sum(r.values()) - r["zero"])
a, b = [r["classes"]["fp16"] for r in runs if r["scale"] in (1, 65536)]
print("fp16 %14.1f%% -> %6.1f%%" % (pct(a), pct(b)))')
    expect_screen c "$want"
fi
keys c Left                                        # the loss scale halves (a new cast of
checks=$((checks + 1))                             # 2^20 values: slow under sanitizers)
wait_for c "loss scale 2^15 = 32768"
# the Formats panel: a value in every format
keys c 3 Enter 6 5 5 2 0 Enter
expect_screen c "fp16      0x7c00     0 11111 0000000000 = inf"
keys c 1
expect_total c --preset zero-paper-7.5b-64gpus
keys c q
exited c 0

# a refused name, or a folder that cannot take the file, is said while the prompt stays open;
# Ctrl-U and Ctrl-W clear the field as in a shell
cols=200 rows=60
start save-err --preset llama-2-7b --no-color --ascii
unset cols rows
keys save-err S C-u M y Space S Enter
expect_screen save-err "save scenario as: My S_   'My S' is not a valid name"
keys save-err C-w
expect_screen save-err "save scenario as: My _  (Enter save  Esc cancel)"
mkdir -p "$tmp/cfg/vramlab/presets/onto-a-folder.yaml"          # the name is a folder
keys save-err C-u o n t o - a - f o l d e r Enter
expect_screen save-err "onto-a-folder.yaml: not a file"
expect_screen save-err "save scenario as: onto-a-folder_"
# a folder that refuses writing (read-only; chattr +i where root ignores the mode): y says
# why and goes back to the name instead of asking again
ro=$tmp/cfg/vramlab/presets
keys save-err C-u r o Enter                                    # ro.yaml, then lock the folder
chmod a-w "$ro"
touch "$ro/probe" 2> /dev/null && { rm -f "$ro/probe"; chattr +i "$ro" 2> /dev/null; }
if touch "$ro/probe" 2> /dev/null; then
    rm -f "$ro/probe"
    echo "the folder stays writable here: the read-only check skipped"
else
    keys save-err S C-u r o Enter
    expect_screen save-err "exists: overwrite? (y/n)"
    keys save-err y
    expect_screen save-err "save scenario as: ro_"
    expect_screen save-err "cannot create a file there"
    keys save-err Escape
    expect_no_screen save-err "overwrite?" "the overwrite question came back"
fi
chattr -i "$ro" 2> /dev/null
chmod u+w "$ro"
keys save-err q
exited save-err 0

# ZeRO-Offload: the node's CPU memory beside the GPU's; the 8 GPUs of a node hold all the
# optimizer states, 16 B x 6,738,415,616 = 107,814,649,856 B = 100.41 GiB
start e --zero 2 --gpus 8 --offload optimizer --no-color
expect_screen e "CPU per node: 100.41 GiB"
expect_total e --zero 2 --gpus 8 --offload optimizer
keys e q
exited e 0

# at 80x24 the footer leads with help and quit and holds only whole items (those of the
# 200-column footer); the title gives way to the tabs, so "1 Memory" stays
cols=80 rows=24
start w --no-color
unset cols rows
footer=$(screen w | tail -n 1)
title=$(screen w | head -n 1)
case "$footer" in
" ? help  q quit  "*) ok ;;
*) fail "footer at 80 columns: '$footer'" ;;
esac
case "$title" in
*" [1 Memory] 2 3 4 5") ok ;;
*) fail "tabs at 80 columns: '$title'" ;;
esac
tm resize-window -t w -x 200 -y 60
sleep 0.3
wide=$(screen w | tail -n 1)
printf '%s\n' "${footer# }" | awk -F '  ' '{ for (i = 1; i <= NF; i++) print $i }' > items.txt
while read -r item; do
    checks=$((checks + 1))
    case "$wide" in
    *" $item  "* | *" $item") ;;
    *) fail "footer item '$item' cut (of '$wide')" ;;
    esac
done < items.txt
tm resize-window -t w -x 80 -y 24
# F1 opens the help, from the same key table as the footer; any key closes it
keys w F1
expect_screen w "type an exact value"
expect_screen w "?/F1"
keys w x
# Ctrl-L repaints every cell: text that reached the terminal behind curses' back goes
printf '\033[12;30HSTRAY-TEXT' > "$(tm display -p -t w '#{pane_tty}')"
wait_for w "STRAY-TEXT"
keys w C-l
expect_no_screen w "STRAY-TEXT" "Ctrl-L left the stray text"
expect_screen w "how it is computed: weights"
# the help follows the panel: the Probe panel's keys
keys w 2
wait_for w "loss scale 2^16"
keys w '?'
expect_screen w "the loss scale /2 or x2"
keys w x
# no row spills into the next one's first column (" fp16", not "cfp16")
checks=$((checks + 1))
screen w | grep -E '^[^ ](fp16|bf16|fp8|w - u)' && fail "text wrapped into column 0"
keys w 1
# F10 quits
keys w F10
exited w 0

finish
