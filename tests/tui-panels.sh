#!/bin/sh
# tui-panels.sh: the explorer's Train and Timeline panels and a lesson, driven in tmux like
# a user: probe train's regimes trained live, one step's events against estimate --timeline,
# the lesson's steps in English and Chinese against vramlab estimate with their settings.
. "$srcdir/tests/tui-lib.sh"

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
tl_tab=5 # the Timeline panel is the fifth tab
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
csv=$("$VRAMLAB" estimate $run --format csv --timeline)
n_events=$(printf '%s\n' "$csv" | awk -F, '$1 == "event" { on = 1; next } on && $1 ~ /^[0-9]+$/ { n++ } END { print n }')
peak_event=$("$VRAMLAB" estimate $run --timeline | sed -n 's/.*(the peak after event \([0-9]*\)).*/\1/p')
# the first event of the second phase (the phase is the CSV's 7th field, quoted)
second=$(printf '%s\n' "$csv" | awk -F, '$1 == "event" { on = 1; next }
    on && $1 ~ /^[0-9]+$/ { if (first == "") first = $7; else if ($7 != first) { print $1; exit } }')
cols=80 rows=24
start tl $run --no-color --ascii
unset cols rows
keys tl $tl_tab
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
keys tl $tl_tab
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
        keys "$s" j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j # to the last (and past: it stays): the list scrolls
        checks=$((checks + 1))
        screen "$s" | grep -qE "^(▶|>) $(say "releases as of" "版本截至")" ||
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

finish
