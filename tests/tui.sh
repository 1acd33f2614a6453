#!/bin/sh
# tui.sh: drive the explorer in tmux like a user (after tmux's regress/): send keys, read the
# screen with capture-pane, and check that the totals on screen are the bytes that
# `vramlab estimate` prints for the same settings.  Skips (77) without tmux.
. "$srcdir/tests/lib.sh"
command -v tmux > /dev/null || { echo "tmux not found: skipped"; exit 77; }

sock=vramlab-test-$$
TMUX_TMPDIR=$tmp # the server's socket goes with the test's files
export TMUX_TMPDIR
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99

# The explorer's catalogue is the build's (po/), never an installed one: VRAMLAB_LOCALEDIR
# (HACKING §7).  Without NLS (configure --disable-nls) the explorer's own text is English in
# every language, and the lessons' text is still theirs.
nls=${USE_NLS:-yes}
mkdir -p "$tmp/locale/zh_CN/LC_MESSAGES"
if [ "$nls" = yes ]; then
    cp "$srcdir/po/zh_CN.gmo" "$tmp/locale/zh_CN/LC_MESSAGES/vramlab.mo" ||
        fail "no po/zh_CN.gmo to test the Chinese explorer with"
fi
VRAMLAB_LOCALEDIR=$tmp/locale
export VRAMLAB_LOCALEDIR
unset LANGUAGE # the language is each test's choice, not the developer's
zh() { # zh ENGLISH CHINESE: the explorer's text in Chinese, where it is translated
    if [ "$nls" = yes ]; then printf '%s' "$2"; else printf '%s' "$1"; fi
}

start() { # start NAME ARGS...: the explorer at 100x30 (or $cols x $rows) in session NAME,
    # with the variables $envs too, waiting for $ready (the formula pane's heading);
    # NAME.pid holds its pid and NAME.status, once it exits, its exit status (tmux's own
    # record of it is racy)
    name=$1
    shift
    tm new-session -d -s "$name" -x "${cols:-100}" -y "${rows:-30}" \
        "env LANG=C.UTF-8 ${envs:-} XDG_CONFIG_HOME=$tmp/cfg $VRAMLAB tui $* < /dev/tty & echo \$! > $name.pid; wait \$!; echo \$? > $name.status"
    tm set-option -t "$name" remain-on-exit on
    wait_for "$name" "${ready:-how it is computed}"
}

# exited NAME STATUS: the explorer in NAME ended with STATUS and left the alternate screen.
exited() {
    i=0
    while [ ! -s "$1.status" ] && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    checks=$((checks + 1))
    [ "$(cat "$1.status" 2>/dev/null)" = "$2" ] || fail "$1: exit status '$(cat "$1.status" 2>/dev/null)', expected $2"
    checks=$((checks + 1))
    [ "$(tm display -p -t "$1" '#{alternate_on}')" = "0" ] || fail "$1: still on the alternate screen"
}

screen() { tm capture-pane -p -t "$1"; }

# wait_for NAME TEXT: up to 5 s for TEXT to appear on the screen.
wait_for() {
    i=0
    while [ $i -lt 50 ]; do
        screen "$1" | grep -qF -- "$2" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    fail "timed out waiting for '$2'; the screen was:"
    screen "$1"
    return 1
}

keys() { # keys NAME KEY...: send keys, then give the frame a moment
    name=$1
    shift
    tm send-keys -t "$name" "$@"
    sleep 0.3
}

selected() { screen "$1" | grep -E '^(>|▶) '; } # the selected slider's row
shown_selected() { # shown_selected NAME: the selected row once the frame shows one (2 s)
    sel_w=0
    until sel_row=$(selected "$1") && [ -n "$sel_row" ] || [ $sel_w -ge 40 ]; do
        sleep 0.05
        sel_w=$((sel_w + 1))
    done
    printf '%s\n' "$sel_row"
}

# row_of NAME LABEL [MARK]: the screen row of the slider LABEL (its label whole, then the
# track), the selected one's where MARK is "selected"; nothing where it is not shown
row_of() {
    screen "$1" | awk -v l="$2" -v sel="${3:-}" '{
        for (m = sel == "" ? 1 : 2; m <= 3; m++) {
            p = (m == 1 ? " " : m == 2 ? ">" : "▶") " " l
            if (index($0, p) == 1 && substr($0, length(p) + 1) ~ /^ *(-|O|─|●)/) { print NR; exit }
        } }'
}

# to NAME LABEL: select the slider LABEL as a user does, with Up where it is shown above the
# selection, else with Down (and Up once Down stops at the end of the list), each key
# waiting for the frame to show the selection moved
to() {
    to_key=j
    to_n=0
    shown_selected "$1" > /dev/null
    to_at=$(row_of "$1" "$2")
    to_sel=$(screen "$1" | grep -nE '^(>|▶) ' | head -n 1 | cut -d: -f1)
    [ -n "$to_at" ] && [ -n "$to_sel" ] && [ "$to_at" -lt "$to_sel" ] && to_key=k
    while :; do
        to_was=$(shown_selected "$1")
        [ -n "$(row_of "$1" "$2" selected)" ] && return 0
        tm send-keys -t "$1" $to_key
        to_i=0
        while [ "$(shown_selected "$1")" = "$to_was" ] && [ $to_i -lt 20 ]; do
            sleep 0.05
            to_i=$((to_i + 1))
        done
        to_n=$((to_n + 1))
        if [ $to_i -eq 20 ] || [ $to_n -gt 100 ]; then # at an end of the list
            [ $to_key = j ] && [ $to_n -le 100 ] && to_key=k && continue
            fail "no slider '$2' to select; the screen was:"
            screen "$1"
            return 1
        fi
    done
}

shown_total() { # the exact bytes in "total ... GiB per GPU (N bytes)", in either language
    screen "$1" | sed -n -e 's/.*per GPU (\([0-9,]*\) bytes).*/\1/p' \
        -e 's/.*合计 [0-9.]* [GT]i*B（\([0-9,]*\) 字节）.*/\1/p' | tr -d ,
}
shown_gib() { # where the pane is too narrow for the bytes: "total N.NN GiB per GPU", or with
    # an offload "total N.NN GiB; node CPU ..."
    screen "$1" | sed -n -e 's/.* total \([0-9.]* GiB\) per GPU$/\1/p' \
        -e 's/.* total \([0-9.]* GiB\); node CPU .*/\1/p' \
        -e 's/.* 每 GPU 合计 \([0-9.]* GiB\)$/\1/p'
}

# expect_total NAME ESTIMATE-ARGS...: the screen's total equals vramlab estimate's.
expect_total() {
    name=$1
    shift
    checks=$((checks + 1))
    want=$("$VRAMLAB" estimate "$@" --format csv | awk -F, '$1 == "total" { print $2 }')
    got=$(shown_total "$name")
    if [ -z "$got" ] && [ -n "$(shown_gib "$name")" ]; then # GiB to 2 decimals at 80 columns
        got=$(shown_gib "$name")
        want=$(awk -v b="$want" 'BEGIN { if (b != "") printf "%.2f GiB", b / 2^30 }')
    fi
    [ -n "$want" ] && [ "$got" = "$want" ] ||
        { fail "screen total '$got' != estimate $* ($want)"; screen "$name"; }
}

expect_screen() { # expect_screen NAME TEXT
    checks=$((checks + 1))
    screen "$1" | grep -qF -- "$2" || { fail "'$2' not on screen"; screen "$1"; }
}

expect_no_screen() { # expect_no_screen NAME TEXT WHY: TEXT is not on the screen, else WHY fails
    checks=$((checks + 1))
    ! screen "$1" | grep -qF -- "$2" || fail "$3"
}

# mouse NAME BUTTON Y X: an X10 mouse report (button 0 a click, 64 wheel up, 65 wheel down)
# at row Y, column X (from 0), typed into the pane as a terminal would send it
# tab_col NAME DIGIT LABEL: the 0-based column of a tab's digit in the title, its name shown
# ("2 Probe") or, where the tabs are compact, the digit alone (" 2")
tab_col() {
    screen "$1" | head -n 1 | awk -v d="$2" -v l="$3" '{
        i = index($0, d " " l); if (i) { print i - 1; exit }
        for (j = length($0); j > 1; j--)
            if (substr($0, j, 1) == d && substr($0, j - 1, 1) ~ /[ \]]/) { print j - 1; exit } }'
}

mouse() {
    for b in $2 $([ "$2" = 0 ] && echo 3); do # a click: press, then release (3)
        tm send-keys -t "$1" -l "$(printf '\033[M%b%b%b' "\\0$(printf %o $((32 + b)))" \
            "\\0$(printf %o $((33 + $4)))" "\\0$(printf %o $((33 + $3)))")"
    done
    sleep 0.3
}

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
    Left Left Left Left Left Left Left Left Left Left  # 27 back: bnb4-dq, the last plain dtype
expect_total a --preset gpt2 --mode infer --gpus 6 --batch 4 --seq 4096 --gpu a100-40gb \
    --weight-dtype bnb4-dq
to a generated
keys a Enter 5 1 2 Enter                           # generated tokens
expect_total a --preset gpt2 --mode infer --gpus 6 --batch 4 --seq 4096 --gpu a100-40gb \
    --weight-dtype bnb4-dq --gen 512
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
expect_screen d "settings 9-24 of 37"
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
expect_screen units-gb "memory per GPU on NVIDIA H100 80GB SXM (85.52 GB)"
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
want=$("$VRAMLAB" estimate --preset llama-2-7b --zero 3 --gpus 8 --gpu t4 --format csv |
    awk -F, '$1 == "fits" { print $2 }')
expect_screen pickers "t4                    15.00 GiB  $([ "$want" = true ] && echo fits || echo over)"
expect_screen pickers "h100-80gb             79.65 GiB  fits"
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
    expect_screen $name "14.71 GiB fits, KV 1.00 GiB"
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

# no_wrap NAME: no row between the title and the footer spills into the next one's column 0
no_wrap() {
    checks=$((checks + 1))
    screen "$1" | sed '1d;$d' | grep -n '^[^ ]' && fail "$1: text wrapped into column 0"
}

# The Train panel (4): probe train's regimes trained live, a slice of steps between frames
train_step() { screen "$1" | sed -n 's/^ step \([0-9]*\) of 300,.*/\1/p'; }
# train_layout NAME: no row spills into the next one's first column; the legend names every
# regime whole; the backend line, wrapped at spaces only, is probe train's
train_layout() {
    no_wrap "$1"
    for regime in fp32 fp16 fp16-static fp16-dynamic bf16 bf16-pure fp8; do
        checks=$((checks + 1))
        screen "$1" | grep -qE " $regime( |\$)" || fail "$1: the legend lacks $regime"
    done
    checks=$((checks + 1))
    want=$("$VRAMLAB" probe train --steps 1 --regimes fp32 | grep '^backend: ')
    got=$(screen "$1" | sed -n '/^ backend: /,$p' | sed '$d' | sed 's/^ *//' | tr '\n' ' ' |
        sed 's/ *$//')
    [ "$got" = "$want" ] || fail "$1: backend line '$got', probe train says '$want'"
}
cols=80 rows=24
start tr --no-color
unset cols rows
keys tr 4
wait_for tr " step "
s1=$(train_step tr)
sleep 0.5
s2=$(train_step tr)
checks=$((checks + 1))                             # it animates
[ -n "$s1" ] && [ "$s2" -gt "$s1" ] || fail "the Train panel stood still: step $s1, then $s2"
keys tr Space                                      # it pauses
wait_for tr "paused (Space)"
s3=$(train_step tr)
sleep 0.6
checks=$((checks + 1))
[ "$(train_step tr)" = "$s3" ] || fail "the Train panel ran on while paused (step $s3)"
keys tr r                                          # it restarts, still paused
expect_screen tr " step 0 of 300, paused"
keys tr Right                                      # fp16-static's loss scale x2
expect_screen tr "fp16-static: loss scale 2^11"
keys tr Left Left
expect_screen tr "fp16-static: loss scale 2^9"
train_layout tr
keys tr Space                                      # on to the end (slow under sanitizers)
i=0
until screen tr | grep -qF "of 300, done" || [ $i -ge 600 ]; do
    sleep 0.1
    i=$((i + 1))
done
tm resize-window -t tr -x 200 -y 60
sleep 0.3
train_layout tr
expect_screen tr " step 300 of 300, done | loss over the last pass, log scale | 16-32-4 ReLU"
# the final loss and accuracy of every regime are probe train's at the same loss scale
"$VRAMLAB" probe train --scale 512 > train.txt
for regime in fp32 fp16 fp16-static fp16-dynamic bf16 bf16-pure fp8; do
    checks=$((checks + 1))
    want=$(awk -v r="$regime" '$1 == r && NF >= 6 { print $4, $5; exit }' train.txt)
    got=$(screen tr | awk -v r="$regime" '{ for (i = 1; i < NF; i++) if ($i == r) { print $(i + 1), $(i + 3); exit } }')
    [ -n "$want" ] && [ "$got" = "$want" ] || fail "Train panel $regime: '$got', probe train '$want'"
done
tm resize-window -t tr -x 80 -y 24                 # the finished curves at 80x24
sleep 0.3
train_layout tr
expect_screen tr "fp16-static: loss scale 2^9"
keys tr q
exited tr 0
# The Timeline panel: one step's events as columns against the GPU.  Its key is its tab's;
# the peak is estimate's peak.device, the cursor's events are estimate --timeline's.
tl_key() { echo 5; } # the Timeline panel is the fifth
peak_gib() { # estimate ARGS's peak.device in GiB, 2 decimals, as the screen writes it
    "$VRAMLAB" estimate "$@" --format json |
        sed -n 's/.*"peak": {[^}]*"device": \([0-9]*\).*/\1/p' |
        awk '{ printf "%.2f GiB\n", $1 / 1073741824 }'
}
cursor_event() { screen "$1" | sed -n 's/^ \^ event \([0-9]*\) of .*/\1/p'; }
expect_event() { # expect_event NAME N: the cursor is on event N
    checks=$((checks + 1))
    [ "$(cursor_event "$1")" = "$2" ] || { fail "$1: cursor on event '$(cursor_event "$1")', expected $2"; screen "$1"; }
}
# tl_layout NAME: no row spills into the next one's first column; the legend's total whole;
# the time axis carries the cursor's and the peak's marks
tl_layout() {
    no_wrap "$1"
    checks=$((checks + 1))
    screen "$1" | grep -qE ' on the GPU +[0-9]+\.[0-9][0-9]$' || { fail "$1: legend cut"; screen "$1"; }
    checks=$((checks + 1))
    screen "$1" | grep -qE '^        [-*^]*\^[-*^]*$' || { fail "$1: no cursor on the axis"; screen "$1"; }
}
# A Trainer before PyTorch 2.8 (--torch 2.7): AdamW foreach, so the step peaks in the
# optimizer's temporaries, which the legend then names
run="--preset llama-2-7b --torch 2.7"
csv=$("$VRAMLAB" estimate $run --format csv --timeline)
n_events=$(printf '%s\n' "$csv" | awk -F, '$1 == "event" { on = 1; next } on && $1 ~ /^[0-9]+$/ { n++ } END { print n }')
peak_event=$("$VRAMLAB" estimate $run --timeline | sed -n 's/.*(the peak after event \([0-9]*\)).*/\1/p')
# the first event of the second phase (the phase is the CSV's 7th field, quoted)
second=$(printf '%s\n' "$csv" | awk -F, '$1 == "event" { on = 1; next }
    on && $1 ~ /^[0-9]+$/ { if (first == "") first = $7; else if ($7 != first) { print $1; exit } }')
cols=80 rows=24
start tl $run --no-color --ascii
unset cols rows
key=$(tl_key tl)
keys tl "$key"
wait_for tl "peak $(peak_gib $run) on the GPU after event $peak_event"
expect_screen tl "events, on NVIDIA H100 80GB SXM"
expect_event tl "$peak_event"                      # it opens on the peak
expect_screen tl "of $n_events, optimizer step (the peak)"
tl_layout tl
keys tl Right
expect_event tl $((peak_event + 1))
keys tl Left Left
expect_event tl $((peak_event - 1))
keys tl Home
expect_event tl 0
expect_screen tl "   alloc weights (weights) 13,476,831,232 B = 12.55 GiB"
checks=$((checks + 1))                             # the peak's mark apart from the cursor's
screen tl | grep -qE '^        -*\^-*\*-*$' || { fail "tl: the peak's mark"; screen tl; }
keys tl NPage
expect_event tl "$second"
keys tl PPage
expect_event tl 0
keys tl End
expect_event tl $((n_events - 1))
keys tl p
expect_event tl "$peak_event"
tm resize-window -t tl -x 200 -y 60
sleep 0.3
tl_layout tl
expect_screen tl "optimizer step temporaries"
expect_screen tl "peak $(peak_gib $run) on the GPU"
# a change on the Memory panel: the timeline follows it
keys tl 1
to tl "ZeRO stage"
keys tl Right Right Right
to tl GPUs
keys tl Right Right Right Right Right Right Right
expect_total tl --preset llama-2-7b --zero 3 --gpus 8
keys tl "$key"
wait_for tl "peak $(peak_gib $run --zero 3 --gpus 8) on the GPU"
tl_layout tl
tm resize-window -t tl -x 80 -y 24
sleep 0.3
tl_layout tl
expect_screen tl "peak $(peak_gib $run --zero 3 --gpus 8) on the GPU"
keys tl q
exited tl 0

# A lesson (--lesson, presets/lessons/mixed-precision.yaml) from its first step to its last,
# in English and in Chinese, at 80x24 and at 200x60: each step's box, and on the Memory
# panel the total of `vramlab estimate` with the step's settings, written out here from the
# lesson's file.  Then N back, n past the end, L's list, and --lesson N.
lesson_args() { # lesson_args N: estimate's options for step N
    case $1 in
    1) echo --preset llama-2-7b --precision fp32 --gpu h100-80gb ;;
    2 | 3 | 4) echo --preset llama-2-7b --precision fp16-mixed --gpu h100-80gb ;;
    5) echo --preset llama-2-7b --optimizer adamw --no-fp32-grad-copy --batch 1 --seq 2048 ;;
    6) echo --preset gpt2 --batch 8 --seq 1024 --recompute none --gpu rtx-4090 ;;
    7) echo --preset gpt2 --batch 8 --seq 1024 --recompute full --gpu rtx-4090 ;;
    8) echo --preset zero-paper-7.5b-64gpus --zero 0 ;;
    9) echo --preset llama-2-7b --mode infer --batch 1 --seq 4096 --gen 1024 ;;
    10) echo --preset llama-3.1-70b-serve-128k --gpus 4 ;;
    esac
}
start_lesson() { # start_lesson NAME ARGS...: start in a UTF-8 locale (for the Chinese:
    # LC_ALL, which lib.sh sets to C, wins over LANG), waiting for the lesson's box
    envs=LC_ALL=C.UTF-8 ready=/10] start "$@"
}
say() { # say ENGLISH CHINESE: the explorer's text in the lesson's language $lang
    if [ "$lang" = zh ]; then zh "$1" "$2"; else printf '%s' "$1"; fi
}
# lesson_layout NAME: the lesson's box leaves the memory pane's total and peak, the selected
# slider and the footer in view
lesson_layout() {
    checks=$((checks + 1))
    screen "$1" | grep -qE " $(say peak 峰值) [0-9.]+ [GT]iB" || { fail "$1: the peak is hidden"; screen "$1"; }
    checks=$((checks + 1))
    screen "$1" | grep -qE '^(▶|>) ' || { fail "$1: the selected slider is hidden"; screen "$1"; }
    checks=$((checks + 1))
    screen "$1" | tail -n 1 | grep -qF " ? $(say help 帮助)  q $(say quit 退出)" || { fail "$1: no footer"; screen "$1"; }
}
# panel_keys STEP: the key rows of the panel that the lesson's step STEP shows, one pattern a
# line (Formats: fp16's row of the ranges; Probe: fp16's row of the counts; Train: the
# legend's fp32 row and the flushed plot's 0% row; Timeline: its peak line; Memory: the peak)
panel_keys() {
    case $1 in
    1) echo '^ fp16 +1\+5\+10 ' ;;
    2 | 3) echo '^ fp16 +[0-9.]+% +-> +[0-9.]+%' ;;
    4) printf '%s\n' '[*] fp32 ' '^ +0%│' ;;
    7) echo "^ [^ ]+ .*$(peak_gib $(lesson_args 7))" ;;
    *) echo " $(say peak 峰值) [0-9.]+ [GT]iB" ;;
    esac
}
# lesson_panel NAME STEP: the panel that step STEP shows draws only above the lesson's box:
# its key rows are in view above the box's title, and the box's rows, down to its keys above
# the footer, hold the lesson's text alone (each starts with the box's margin, no axis of a
# chart, no key row); the box's keys and the footer are whole
lesson_panel() {
    panel_keys "$2" > "$1.keys"
    i=0 # the Probe panel computes its sample first
    while [ $i -lt 50 ] && ! screen "$1" | grep -qE -f "$1.keys"; do
        sleep 0.1
        i=$((i + 1))
    done
    screen "$1" > "$1.screen"
    top=$(grep -nF "[$2/10]" "$1.screen" | head -n 1 | cut -d: -f1)
    n=$(wc -l < "$1.screen")
    sed -n "2,$((top - 1))p" "$1.screen" > "$1.above"
    while read -r key; do
        checks=$((checks + 1))
        grep -qE -- "$key" "$1.above" ||
            { fail "$1: step $2's panel has its key row ('$key') under the box"; cat "$1.screen"; }
    done < "$1.keys"
    checks=$((checks + 1))
    ! sed -n "$top,$((n - 1))p" "$1.screen" | grep -vE '^(  |$)' | grep . &&
        ! sed -n "$top,$((n - 1))p" "$1.screen" | grep -E -e '│' -f "$1.keys" ||
        { fail "$1: step $2's panel drawn inside the box's rows"; cat "$1.screen"; }
    checks=$((checks + 1))
    sed -n "$((n - 1))p" "$1.screen" |
        grep -qF "$(say 'n next  N back  L steps  ? help' 'n 下一步  N 上一步  L 步骤  ? 帮助')" &&
        tail -n 1 "$1.screen" | grep -qF " ? $(say help 帮助)  q $(say quit 退出)" ||
        { fail "$1: step $2: the box's keys or the footer cut"; cat "$1.screen"; }
}
for lang in en zh; do
    for size in 80x24 200x60; do
        s=lesson-$lang-$size
        cols=${size%x*} rows=${size#*x} start_lesson "$s" --lesson --lang "$lang" --no-color
        step=1
        while [ $step -le 10 ]; do
            expect_screen "$s" "[$step/10]"
            lesson_panel "$s" $step
            keys "$s" 1 # the Memory panel, where the total is
            wait_for "$s" "$(say "per GPU" "每 GPU")"
            expect_total "$s" $(lesson_args $step)
            lesson_layout "$s"
            [ $step -lt 10 ] && keys "$s" n
            step=$((step + 1))
        done
        if [ "$lang" = zh ]; then
            expect_screen "$s" "让部署放得下"
            expect_screen "$s" "问题："
        else
            expect_screen "$s" "Fitting a deployment"
            expect_screen "$s" "Question: "
        fi
        keys "$s" n
        expect_screen "$s" "$(say "the last step" "最后一步")"
        keys "$s" N
        expect_screen "$s" "[9/10]"
        expect_total "$s" $(lesson_args 9)
        keys "$s" L
        expect_screen "$s" "$(say "the lesson's steps" "课程的步骤")"
        keys "$s" Home Enter
        expect_screen "$s" "[1/10]"
        expect_screen "$s" "$(say "the formats, bit by bit" "逐位看格式")" # step 1: Formats
        keys "$s" 1
        expect_total "$s" $(lesson_args 1)
        keys "$s" j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j # to the last: the list scrolls
        checks=$((checks + 1))
        screen "$s" | grep -qE "^(▶|>) $(say 'GPUs per node' '每节点 GPU 数')" ||
            fail "$s: the last slider not in view"
        lesson_layout "$s"
        keys "$s" q
        exited "$s" 0
    done
done
cols=80 rows=24 start_lesson lesson-at --lesson 8 --no-color
expect_screen lesson-at "8. ZeRO 1, 2 and 3  [8/10]"
expect_total lesson-at $(lesson_args 8)
keys lesson-at Right # the step's slider is selected: ZeRO 0 -> 1
expect_total lesson-at --preset zero-paper-7.5b-64gpus --zero 1
keys lesson-at r # back to the step as it began
expect_total lesson-at $(lesson_args 8)
keys lesson-at q
exited lesson-at 0
tm new-session -d -s lesson-bad -x 100 -y 30 \
    "env LANG=C.UTF-8 $VRAMLAB tui --lesson 11 < /dev/tty 2> lesson-bad.err; echo \$? > lesson-bad.status" \; \
    set-option -t lesson-bad remain-on-exit on
exited lesson-bad 2
checks=$((checks + 1))
[ "$(cat lesson-bad.err)" = "vramlab: --lesson: mixed-precision has 10 steps, not 11" ] ||
    fail "--lesson 11: '$(cat lesson-bad.err)'"

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
    -*"$m over"* | -*"over by $m"*) ;;
    [0-9]*"$m spare"* | [0-9]*"spare $m"*) ;;
    *) fail "$name: peak line '$line', estimate $*: peak $p, headroom $room"; screen "$name" ;;
    esac
}
for size in 80x24 200x60; do
    cols=${size%x*} rows=${size#*x}
    name=plan-$size
    start $name --preset llama-2-7b --no-color --ascii
    to $name capacity                               # the GPU's until typed
    checks=$((checks + 1))
    screen $name | grep -qE '^> capacity +[-O]+ 79\.65 GiB' || { fail "$name: capacity row"; screen $name; }
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
    expect_screen $name "(79.65 GiB)"
    expect_peak $name --preset llama-2-7b
    keys $name j Enter - 1 Enter                    # overhead: no negative sizes
    expect_screen $name "overhead: '-1GiB' is not a size: must not be negative"
    keys $name Escape Enter 4 Enter                 # 4 GiB replaces the modelled CUDA context
    expect_total $name --preset llama-2-7b --overhead 4GiB
    expect_peak $name --preset llama-2-7b --overhead 4GiB
    keys $name Left
    expect_peak $name --preset llama-2-7b --overhead 3GiB
    keys $name j Left                               # GPUs per node: only with offload
    expect_screen $name "GPUs per node has no effect now: CPU memory per node applies to offload"
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

# The finer choices, at 80x24 where the list scrolls to them: LoRA's targets step from PEFT's
# q,v to the attention's four and every linear layer, QLoRA's scales go without double
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
