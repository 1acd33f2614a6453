#!/bin/sh
# bench-startup.sh VRAMLAB SRCDIR: the instructions that `vramlab estimate --preset
# llama-2-7b` executes (valgrind's callgrind), run outside the source tree and inside it
# (where ./presets is on the search path too), next to /bin/true's.  No user presets.
# Figures, not a test: make bench-startup.
set -eu
vramlab=$1
srcdir=$2
if ! command -v valgrind > /dev/null 2>&1; then
    echo "make bench-startup: needs valgrind (Debian: apt-get install valgrind)" >&2
    exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/away"
unset VRAMLAB_PRESETS XDG_CONFIG_HOME
HOME=/nonexistent
export HOME

# DIR COMMAND...: the instructions that COMMAND executes, run in DIR
instructions() {
    dir=$1
    shift
    if ! (cd "$dir" && valgrind --tool=callgrind --callgrind-out-file=/dev/null \
            --log-file="$work/log" "$@" > /dev/null 2> "$work/err"); then
        echo "bench-startup: $* failed under valgrind:" >&2
        cat "$work/err" "$work/log" >&2
        exit 1
    fi
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$work/log"
}

estimate_away=$(instructions "$work/away" "$vramlab" estimate --preset llama-2-7b)
estimate_src=$(instructions "$srcdir" "$vramlab" estimate --preset llama-2-7b)
true_away=$(instructions "$work/away" /bin/true)
path=$(cd "$work/away" && "$vramlab" presets | sed -n 's/^searched, later wins: //p')
echo "instructions executed (valgrind --tool=callgrind), search path: $path"
awk -v a="$estimate_away" -v s="$estimate_src" -v t="$true_away" 'BEGIN {
    printf "  %-56s %11d  %5.1f x /bin/true\n", "vramlab estimate --preset llama-2-7b", a, a / t
    printf "  %-56s %11d  %5.1f x /bin/true\n", "the same, in the source tree (./presets searched too)", s, s / t
    printf "  %-56s %11d\n", "/bin/true", t
}'
