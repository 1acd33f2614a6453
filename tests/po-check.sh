#!/bin/sh
# po-check.sh: every catalogue in po/LINGUAS is complete (HACKING §7): it compiles under
# msgfmt --check (each translation keeps its msgid's format directives), it has no fuzzy or
# untranslated entry, and it translates every string that xgettext finds in the sources of
# po/POTFILES.in today, with the keywords of po/Makevars, so a string marked and not yet
# translated fails here; and so does the compiled po/LANG.gmo.  Skips (77) without
# gettext's tools.
. "$srcdir/tests/lib.sh"
for tool in msgfmt msgcmp msgunfmt xgettext; do
    command -v $tool > /dev/null || { echo "$tool not found (Debian: gettext): skipped"; exit 77; }
done

po="$srcdir/po"
# the keywords and options of po/Makevars (its continuation lines joined), the pot's own
options=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$po/Makevars" | sed -n 's/^XGETTEXT_OPTIONS *= *//p')
[ -n "$options" ] || fail "no XGETTEXT_OPTIONS in po/Makevars"
grep -v '^#' "$po/POTFILES.in" | grep . > "$tmp/files"
# shellcheck disable=SC2086 # the options are words
(cd "$srcdir" && xgettext $options --language=C --files-from="$tmp/files" \
    --output="$tmp/fresh.pot") || fail "xgettext failed"

for lang in $(grep -v '^#' "$po/LINGUAS"); do
    checks=$((checks + 1))
    stats=$(LC_ALL=C msgfmt --check --statistics -o /dev/null "$po/$lang.po" 2>&1) ||
        { fail "$lang.po: msgfmt --check: $stats"; continue; }
    case $stats in
    *fuzzy* | *untranslated*) fail "$lang.po is incomplete: $stats" ;;
    esac
    # the compiled catalogue, which tests/tui.sh uses, translates them too (po/Makefile
    # compiles it once: after a change of the strings, make -C po update-po)
    if [ -f "$po/$lang.gmo" ]; then
        checks=$((checks + 1))
        msgunfmt -o "$tmp/$lang.gmo.po" "$po/$lang.gmo" &&
            msgcmp "$tmp/$lang.gmo.po" "$tmp/fresh.pot" > "$tmp/cmp" 2>&1 ||
            { fail "po/$lang.gmo is stale (make -C po update-po):"; cat "$tmp/cmp"; }
    fi
    checks=$((checks + 1))
    # every msgid of the sources, translated (msgcmp counts an untranslated one as missing)
    msgcmp "$po/$lang.po" "$tmp/fresh.pot" > "$tmp/cmp" 2>&1 ||
        { fail "$lang.po lacks strings the sources mark:"; cat "$tmp/cmp"; }
done
finish
