#!/bin/sh
# cli-hostile-text.sh: text that came from a file (a preset's display and notes, a
# config.json's _name_or_path, a preset folder's path) reaches no output raw: the table,
# Markdown and `presets` show control characters as escapes (\x1b), the SVG is well-formed
# XML, the JSON parses (strictly: no NaN or Infinity) and keeps the text exactly, with
# U+FFFD for a byte that is not UTF-8.  Every number in JSON is finite.
. "$srcdir/tests/lib.sh"

if ! command -v python3 > /dev/null; then
    echo "python3 not found: skipped"
    exit 77
fi

# ESC [2J (clear the screen), BEL, DEL, a C1 CSI (U+009B), XML's specials, a tab.
cat > "$tmp/evil.yaml" <<'EOF'
kind: model
name: evil
display: "Evil \e[2J\e[31m<model> & \"co\"\x9b"
notes: "beep \a, delete \x7f, tab\there"
architecture:
  hidden_size: 64
  num_layers: 2
  num_heads: 2
  intermediate_size: 256
  vocab_size: 100
  max_position_embeddings: 128
EOF
# a GPU in a preset folder whose name is not UTF-8 (byte 0xff)
bad_dir=$tmp/presets-$(printf '\377')
mkdir -p "$bad_dir"
cat > "$bad_dir/gpu.yaml" <<'EOF'
kind: gpu
name: evil-gpu
display: "Evil \e]0;title\a GPU"
memory: 24GiB
bandwidth: 1e9
bf16_flops: 1e9
EOF
sed 's/"_name_or_path": *"[^"]*"/"_name_or_path": "org\/\\u001b[2Jname"/' \
    "$srcdir/tests/hf/llama-2-7b.json" > "$tmp/config.json"
grep -q 'u001b' "$tmp/config.json" || fail "the test's config.json has no _name_or_path to change"

# check KIND FILE: the python checks below, one kind of output each
check() {
    checks=$((checks + 1))
    python3 - "$@" <<'PY' || fail "$1 output of: $3"
import json, re, sys, xml.dom.minidom
kind, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
text = data.decode("utf-8")  # raises when a byte is not UTF-8
if kind == "terminal":
    bad = re.findall("[\x00-\x09\x0b-\x1f\x7f\x80-\x9f]", text)
    assert not bad, "raw control characters: %r" % bad
    for shown in sys.argv[4:]:
        assert shown in text, "%r not shown in %r" % (shown, text[:400])
elif kind == "svg":
    doc = xml.dom.minidom.parseString(data)
    title = doc.getElementsByTagName("text")[0].firstChild.data
    assert title == sys.argv[4], "title %r" % title
elif kind == "json":
    def refuse(name):
        raise ValueError("JSON has " + name)
    d = json.loads(text, parse_constant=refuse)
    for key, want in zip(sys.argv[4::2], sys.argv[5::2]):
        got = d
        for k in key.split("."):  # "name=x" picks the list's entry of that name
            got = ([e for e in got if e["name"] == k[5:]][0] if k.startswith("name=")
                   else got[k])
        assert got == json.loads(want), "%s: %r, expected %r" % (key, got, json.loads(want))
PY
}

# run FILE ARGS: vramlab ARGS into $tmp/FILE, which must exit 0
run() {
    out=$tmp/$1
    shift
    VRAMLAB_PRESETS=$bad_dir "$VRAMLAB" "$@" > "$out" 2> "$tmp/err" ||
        fail "exit $? for vramlab $*: $(cat "$tmp/err")"
}

title='Evil \x1b[2J\x1b[31m<model> & "co"\u009b'
for f in table markdown; do
    run out.$f estimate --preset-file "$tmp/evil.yaml" --gpu evil-gpu --explain --format $f
    check terminal "$tmp/out.$f" "estimate --format $f" "$title" 'beep \x07, delete \x7f, tab\x09here' \
        'Evil \x1b]0;title\x07 GPU'
done
run out.svg estimate --preset-file "$tmp/evil.yaml" --gpu evil-gpu --format svg
check svg "$tmp/out.svg" "estimate --format svg" "$title: training memory per GPU"
run out.svg estimate --preset-file "$tmp/evil.yaml" --gpu evil-gpu --mode infer --format svg
check svg "$tmp/out.svg" "estimate --mode infer --format svg" "$title: inference memory per GPU"

run out.hf estimate --hf-config "$tmp/config.json"
check terminal "$tmp/out.hf" "estimate --hf-config" 'org/\x1b[2Jname (--2jname): training'

# presets: the table escapes; the JSON keeps the text exactly and writes U+FFFD for 0xff
run presets.txt presets
check terminal "$tmp/presets.txt" "presets" 'Evil \x1b]0;title\x07 GPU' 'presets-\xff/gpu.yaml' \
    ', '"$tmp"'/presets-\xff'
run presets.json presets --format json
check json "$tmp/presets.json" "presets --format json" \
    name=evil-gpu.display '"Evil \u001b]0;title\u0007 GPU"' \
    name=evil-gpu.origin "\"$tmp/presets-\\ufffd/gpu.yaml\""

# a GPU at the floors of bandwidth and FLOP/s serving a large model: finite numbers
run slow.json estimate --preset llama-3.1-405b --gpu evil-gpu --mode infer --batch 64 \
    --seq 131072 --gen 8192 --format json
check json "$tmp/slow.json" "estimate on a slow GPU --format json" \
    speed.bound '"roofline"'
grep -q '"decode_step_seconds": [0-9]' "$tmp/slow.json" ||
    fail "decode_step_seconds is not a number: $(grep speed "$tmp/slow.json")"

finish
