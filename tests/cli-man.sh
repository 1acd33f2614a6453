#!/bin/sh
# cli-man.sh: the man page documents every option the program takes and every value of its
# choices, as `vramlab estimate --help` and `vramlab tui --help` list them (they come from
# the settings table, so a new setting or choice without documentation fails here).
. "$srcdir/tests/lib.sh"

man="$srcdir/man/vramlab.1.in"
{ "$VRAMLAB" estimate --help; "$VRAMLAB" tui --help; } > "$tmp/help" || fail "--help failed"
# the options: "--flag" becomes the man page's "\-\-flag"
for flag in $(grep -o -- '--[a-z0-9][a-z0-9-]*' "$tmp/help" | sort -u); do
    checks=$((checks + 1))
    grep -qF -- "$(printf '%s' "$flag" | sed 's/-/\\-/g')" "$man" ||
        fail "$flag is in --help but not in vramlab(1)"
done
# the choices: "P: a, b or c" under an option, wrapped onto the lines below it
awk '/^ +[A-Z]+: / { sub(/^ +[A-Z]+: /, ""); on = 1; print; next }
     on && /^      +[a-z0-9]/ { print; next } { on = 0 }' "$tmp/help" |
    tr ',' '\n' | sed 's/ or /\n/; s/ or$//; s/^ *or //; s/^ *//; s/ *$//' | sort -u > "$tmp/values"
while read -r v; do
    [ -n "$v" ] || continue
    checks=$((checks + 1))
    grep -qF -- "\\fB$(printf '%s' "$v" | sed 's/-/\\-/g')\\fR" "$man" ||
        fail "the value '$v' is in --help but not in vramlab(1)"
done < "$tmp/values"
# vramlab-presets(5) documents every key of a framework preset (a built-in file gives
# them all)
while IFS=: read -r key rest; do
    case $key in '#'* | kind | '') continue ;; esac
    checks=$((checks + 1))
    grep -Eq "^\.BR? (.*[ \"])?$key([ \"]|\$)" "$srcdir/man/vramlab-presets.5" ||
        fail "the framework key '$key' is not in vramlab-presets(5)"
done < "$srcdir/presets/frameworks/pytorch.yaml"
[ "$checks" -ge 60 ] || fail "only $checks options and values checked"
finish
