#!/bin/sh
# tui-readme.sh: the README's five panels at 80x24 are the explorer's own screens for the
# command the README names above them, so the README stays true.  The backend lines, which
# say what this machine has (a GPU, a CUDA build), are left out of the comparison.
# VRAMLAB_REGOLDEN=1 rewrites the README's panels from the screens; read the diff before
# committing it.
. "$srcdir/tests/tui-lib.sh"

args="--preset llama-2-7b --zero 3 --gpus 8 --gpu a100-80gb --no-color"
readme=$srcdir/README
checks=$((checks + 1))
tr '\n' ' ' < "$readme" | grep -qF "for \`vramlab $args\`:" ||
    fail "the README does not name \`vramlab $args\` for its panels"
# the panels: 24 rows each, indented four spaces, one blank line between them
first=$(awk '/^     vramlab │/ { print NR; exit }' "$readme")
[ -n "$first" ] || { fail "the README shows no panel"; finish; }
readme_panel() { # readme_panel K: the README's panel K as the screen's rows
    sed -n "$((first + 25 * ($1 - 1))),$((first + 25 * ($1 - 1) + 23))p" "$readme" |
        sed 's/^    //'
}
# what the comparison leaves out: the Probe panel's backend field, the Train panel's lines
machine_free() {
    sed -e 's/| backend: .*/| backend:/' -e '/^ backend: /,/^ ? help/{/^ ? help/!d;}'
}

cols=80 rows=24
envs="LC_ALL=C.UTF-8" start rd $args
unset cols rows
for k in 1 2 3 4 5; do
    if [ $k -gt 1 ]; then
        keys rd $k
        wait_for rd "[$k "
    fi
    if [ $k -eq 4 ]; then # the Train panel once its 300 steps are done (slow under sanitizers)
        i=0
        until screen rd | grep -qF "of 300, done" || [ $i -ge 600 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    fi
    screen rd > "panel$k.txt"
    checks=$((checks + 1))
    [ "$(wc -l < "panel$k.txt")" -eq 24 ] || fail "panel $k: $(wc -l < "panel$k.txt") rows, not 24"
    readme_panel $k | machine_free > "readme$k.txt"
    machine_free < "panel$k.txt" > "shown$k.txt"
    [ -n "${VRAMLAB_REGOLDEN:-}" ] && continue
    checks=$((checks + 1))
    diff -u "readme$k.txt" "shown$k.txt" || fail "the README's panel $k is not the explorer's"
done
keys rd q
exited rd 0

if [ -n "${VRAMLAB_REGOLDEN:-}" ]; then # the README with these panels, written atomically
    for k in 1 2 3 4 5; do
        sed -e 's/^/    /' -e 's/ *$//' "panel$k.txt"
        [ $k -lt 5 ] && echo
    done > panels.txt
    awk -v from="$first" -v to="$((first + 25 * 5 - 2))" -v p=panels.txt '
        NR == from { while ((getline l < p) > 0) print l }
        NR < from || NR > to' "$readme" > "$readme.tmp$$" && mv "$readme.tmp$$" "$readme"
fi
finish
