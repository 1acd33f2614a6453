# tui-lib.sh: what the tmux tests of the explorer share (tests/tui*.sh, after tmux's
# regress/): a tmux server of the test's own, the explorer started in a session, keys sent
# and the screen read with capture-pane, and the checks that compare the totals on screen
# with the bytes `vramlab estimate` prints for the same settings.  Skips (77) without tmux.
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
# waiting for the frame to show the selection moved; at once a failure where the explorer
# has exited
to() {
    to_key=j
    to_n=0
    shown_selected "$1" > /dev/null
    to_at=$(row_of "$1" "$2")
    to_sel=$(screen "$1" | grep -nE '^(>|▶) ' | head -n 1 | cut -d: -f1)
    [ -n "$to_at" ] && [ -n "$to_sel" ] && [ "$to_at" -lt "$to_sel" ] && to_key=k
    while :; do
        if [ -s "$1.status" ]; then # the explorer is gone: no key will ever move it
            fail "$1: the explorer exited with status $(cat "$1.status"); no slider '$2' to select"
            return 1
        fi
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

# no_wrap NAME: no row between the title and the footer spills into the next one's column 0
no_wrap() {
    checks=$((checks + 1))
    screen "$1" | sed '1d;$d' | grep -n '^[^ ]' && fail "$1: text wrapped into column 0"
}

# The run the Timeline panel is shown with: a Trainer before PyTorch 2.8 (--torch 2.7), whose
# AdamW steps foreach, so the step peaks in the optimizer's temporaries, which the legend
# then names
run="--preset llama-2-7b --torch 2.7"
