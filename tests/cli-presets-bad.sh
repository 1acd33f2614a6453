#!/bin/sh
# cli-presets-bad.sh: each malformed preset in tests/presets-bad is refused by
# `vramlab estimate --preset-file` with exit status 2 and exactly the message its first line
# announces ("# expect: FILE:line:column: message"), and nothing on stdout.
. "$srcdir/tests/lib.sh"

for f in "$srcdir"/tests/presets-bad/*.yaml; do
    want="vramlab: $(sed -n '1s/^# expect: FILE/'"$(printf '%s' "$f" | sed 's/[\/&]/\\&/g')"'/p' "$f")"
    expect 2 "$want" estimate --preset-file "$f"
done
[ "$checks" -ge 25 ] || fail "only $checks malformed presets (at least 25 expected)"

finish
