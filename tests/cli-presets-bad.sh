#!/bin/sh
# cli-presets-bad.sh: each malformed preset in tests/presets-bad is refused by
# `vramlab estimate --preset-file` with exit status 2 and exactly the message its first line
# announces ("# expect: FILE:line:column: message"), and nothing on stdout.
. "$srcdir/tests/lib.sh"

for f in "$srcdir"/tests/presets-bad/*.yaml; do
    checks=$((checks + 1))
    want="vramlab: $(sed -n '1s/^# expect: FILE/'"$(printf '%s' "$f" | sed 's/[\/&]/\\&/g')"'/p' "$f")"
    "$VRAMLAB" estimate --preset-file "$f" > "$tmp/out" 2> "$tmp/err"
    status=$?
    got=$(cat "$tmp/err")
    if [ "$status" -ne 2 ]; then
        fail "$f: exit $status, expected 2 ($got)"
    elif [ "$got" != "$want" ]; then
        fail "$f: stderr
    expected: $want
    got:      $got"
    elif [ -s "$tmp/out" ]; then
        fail "$f: printed on stdout as well"
    fi
done
[ "$checks" -ge 25 ] || fail "only $checks malformed presets (at least 25 expected)"

finish
