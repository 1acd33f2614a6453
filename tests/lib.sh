# lib.sh: helpers for the shell tests.  The harness exports VRAMLAB (the built program)
# and srcdir (the source tree's root), so the tests run from any build directory.
: "${VRAMLAB:?run through make check}"
: "${srcdir:?run through make check}"
export LC_ALL=C
failures=0
checks=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
# No preset folders but the ones a test sets up: a user's own presets must not leak in.
HOME=$tmp/home
export HOME
unset XDG_CONFIG_HOME VRAMLAB_PRESETS

fail() {
    printf 'FAIL: %s\n' "$*"
    failures=$((failures + 1))
}

ok() {
    checks=$((checks + 1))
}

# expect STATUS MESSAGE ARGS...: vramlab ARGS exits STATUS with exactly MESSAGE on stderr
# and nothing on stdout.
expect() {
    want_status=$1
    want=$2
    shift 2
    checks=$((checks + 1))
    "$VRAMLAB" "$@" > "$tmp/out" 2> "$tmp/err"
    status=$?
    got=$(cat "$tmp/err")
    if [ "$status" -ne "$want_status" ]; then
        fail "vramlab $*: exit $status, expected $want_status ($got)"
    elif [ "$got" != "$want" ]; then
        fail "vramlab $*: stderr
    expected: $want
    got:      $got"
    elif [ -s "$tmp/out" ]; then
        fail "vramlab $*: printed on stdout as well"
    fi
}

finish() {
    printf '%d passed, %d failed\n' $((checks - failures)) "$failures"
    [ "$failures" -eq 0 ]
}
