#!/bin/sh
# probe.sh: vramlab formats, inspect and probe, their JSON read back by Python and checked
# against values worked out by hand (IEEE 754, OCP FP8), and gradient files written here.
. "$srcdir/tests/lib.sh"
command -v python3 > /dev/null || { echo "python3 not found: skipped"; exit 77; }

# check NAME CODE ARGS...: vramlab ARGS exits 0 and CODE (Python, the JSON output in d)
# raises nothing.
check() {
    name=$1
    code=$2
    shift 2
    checks=$((checks + 1))
    if ! "$VRAMLAB" "$@" > "$tmp/out.json" 2> "$tmp/err"; then
        fail "$name: vramlab $* exits $? ($(cat "$tmp/err"))"
        return
    fi
    printf 'import json, sys\nd = json.load(open(sys.argv[1]))\n%s\n' "$code" |
        python3 - "$tmp/out.json" > "$tmp/py" 2>&1 || fail "$name: $(tail -3 "$tmp/py")"
}

check "formats" '
f = {x["name"]: x for x in d["formats"]}
assert [x["bits"] for x in d["formats"]] == [32, 16, 16, 8, 8]
assert f["fp32"]["max"] == (2 - 2**-23) * 2**127 and f["fp32"]["min_subnormal"] == 2**-149
assert f["fp16"]["max"] == 65504 and f["fp16"]["min_normal"] == 2**-14
assert f["fp16"]["min_subnormal"] == 2**-24 and f["fp16"]["epsilon"] == 2**-10
assert f["bf16"]["max"] == (2 - 2**-7) * 2**127 and f["bf16"]["min_subnormal"] == 2**-133
assert f["fp8-e4m3"]["max"] == 448 and not f["fp8-e4m3"]["has_inf"]
assert f["fp8-e4m3"]["min_subnormal"] == 2**-9 and f["fp8-e4m3"]["bias"] == 7
assert f["fp8-e5m2"]["max"] == 57344 and f["fp8-e5m2"]["min_subnormal"] == 2**-16
assert f["fp16"]["min_normal_log2"] == -14 and f["bf16"]["epsilon_log2"] == -7
' formats --format json

# 0.1 = 1.6 x 2^-4: fp16 0 01011 1001100110, bf16 the top half of fp32 0x3dcccccd rounded,
# E4M3 0 0011 101 (0.6 x 8 = 4.8 -> 5), E5M2 0 01011 10 (0.6 x 4 = 2.4 -> 2).
check "inspect 0.1" '
v = d["values"][0]["formats"]
assert v["fp32"]["hex"] == "0x3dcccccd" and v["fp16"]["hex"] == "0x2e66"
assert v["bf16"]["hex"] == "0x3dcd" and v["fp8-e4m3"]["hex"] == "0x1d"
assert v["fp8-e5m2"]["hex"] == "0x2e" and v["fp8-e5m2"]["value"] == 0.09375
assert v["fp16"]["bits"] == "0 01011 1001100110" and v["fp16"]["exponent"] == 11
assert v["fp16"]["value"] == 0.0999755859375 and v["fp8-e4m3"]["value"] == 0.1015625
assert abs(v["fp16"]["abs_error"] - 2.44140625e-05) < 1e-12
assert all(x["class"] == "normal" for x in v.values())
' inspect 0.1 --format json

# 65520 is halfway between fp16's 65504 and 65536 (not a value): the tie goes to the even
# 65536, which overflows; saturating, it is 65504.  E4M3 overflows past 464 to NaN.
check "inspect 65520" '
v = d["values"][0]["formats"]
assert v["fp16"]["hex"] == "0x7c00" and v["fp16"]["class"] == "inf"
assert v["fp16"]["value"] == "inf" and v["bf16"]["value"] == 65536
assert v["fp8-e4m3"]["hex"] == "0x7f" and v["fp8-e4m3"]["value"] == "nan"
' inspect 65520 --format json
check "inspect --saturate" '
assert d["saturate"]
v = d["values"][0]["formats"]
assert v["fp16"]["hex"] == "0x7bff" and v["fp16"]["class"] == "saturated"
assert v["fp8-e4m3"]["hex"] == "0x7e" and v["fp8-e5m2"]["hex"] == "0x7b"
n = d["values"][1]["formats"]
assert n["fp8-e4m3"]["hex"] == "0xfe" and n["fp8-e4m3"]["value"] == -448
' inspect --saturate 65520 -1e6 --format json

# -2^-25 is half of fp16's smallest subnormal: a tie, to the even (negative) 0; 2^-24 is it.
check "inspect tiny" '
a, b, c, e = (x["formats"] for x in d["values"])
assert a["fp16"]["hex"] == "0x8000" and a["fp16"]["class"] == "flushed"
assert a["bf16"]["class"] == "normal"
assert b["fp16"]["hex"] == "0x0001" and b["fp16"]["class"] == "subnormal"
assert c["fp32"]["class"] == "flushed" and c["fp16"]["class"] == "flushed"
assert e["fp16"]["class"] == "nan" and e["fp16"]["hex"] == "0x7fff"
' inspect --format json -- -2^-25 2^-24 1e-50 nan

# Gradient files: 0, 1e-8 (below 2^-25: flushed), 1e-6 (subnormal), 1, 70000 (over 65520).
python3 - "$tmp" << 'EOF'
import struct, sys
d = sys.argv[1]
vals = [0.0, 1e-8, 1e-6, 1.0, 70000.0]
def npy(path, descr, fmt):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (5,), }" % descr
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<5" + fmt, *vals))
npy(d + "/g32.npy", "<f4", "f")
npy(d + "/g64.npy", "<f8", "d")
open(d + "/g.raw", "wb").write(struct.pack("<5f", *vals))
EOF
for file in g32.npy g64.npy g.raw; do
    check "underflow --input $file" '
r1, r2 = d["underflow"]["runs"]
assert d["underflow"]["count"] == 5 and d["underflow"]["source"] == "file"
f = r1["classes"]["fp16"]
assert (f["zero"], f["flushed"], f["subnormal"], f["normal"], f["inf"]) == (1, 1, 1, 1, 1)
assert r1["classes"]["bf16"]["normal"] == 4
f = r2["classes"]["fp16"]   # times 2^-10: 1e-6 falls below 2^-25, 70000 fits
assert (f["zero"], f["flushed"], f["subnormal"], f["normal"], f["inf"]) == (1, 2, 0, 2, 0)
assert r1["histogram"]["log2_min"] == -27 and sum(r1["histogram"]["counts"]) == 4
' probe underflow --input "$tmp/$file" --scale 1,2^-10 --format json
done

check "probe, all four" '
assert list(d) == ["vramlab", "backend", "backend_note", "underflow", "scaler", "update", "accumulate"]
u = d["underflow"]
assert u["count"] == 1048576 and [r["scale"] for r in u["runs"]] == [1, 8, 65536]
for r in u["runs"]:
    for f, c in r["classes"].items():
        assert sum(c.values()) == u["count"], f
    c = r["classes"]["fp32"]
    assert sum(r["histogram"]["counts"]) == u["count"] - c["zero"] - c["flushed"] - c["inf"] - c["nan"]
zeros = u["runs"][0]["classes"]["fp16"]["zero"]
assert abs(zeros / u["count"] - 0.67) < 0.003
s = d["scaler"]
assert len(s["scale"]) == s["steps"] == 12000 and s["scale"][0] == 65536
assert 8001 in s["skipped"] and s["scale"][8000] == 2**20
assert d["update"]["buckets"][12 - 2]["lost"]["fp16"] == 1024
assert d["update"]["buckets"][10 - 2]["lost"]["fp16"] == 0
assert d["update"]["repeat"]["final"]["fp32"] == 0.755859375
a = d["accumulate"]
assert a["sum"]["fp16"] == 2048 and a["sum"]["fp32"] == a["sum"]["exact"]
' probe --format json

check "--backend cpu" '
assert d["backend"] == "cpu" and d["backend_note"] == "the CPU backend was asked for: CPU emulation"
assert d["accumulate"]["sum"]["fp16"] == 1024
' probe accumulate --value 0.5 --backend cpu --format json

check "scaler by hand" '
s = d["scaler"]
assert s["scale"] == [65536, 65536, 131072, 65536, 65536] and s["skipped"] == [3]
assert s["final_scale"] == 131072 and s["final_growth_tracker"] == 0
' probe scaler --steps 5 --growth-interval 2 --overflow-at 3 --format json

# The same seed gives the same numbers; another seed others.
checks=$((checks + 1))
"$VRAMLAB" probe --format json > "$tmp/a" && "$VRAMLAB" probe --format json > "$tmp/b" &&
    cmp -s "$tmp/a" "$tmp/b" || fail "two runs with the same seed differ"
checks=$((checks + 1))
"$VRAMLAB" probe --format json --seed 2 > "$tmp/b" && ! cmp -s "$tmp/a" "$tmp/b" ||
    fail "--seed 2 gives the numbers of seed 1"

# Every table, and no trailing blanks in them.
for args in "formats" "inspect 0.1 -2^-25" "probe" "probe underflow --saturate" \
    "probe scaler --overflow-prob 0.01" "probe update" "probe accumulate --value 0.75"; do
    checks=$((checks + 1))
    # shellcheck disable=SC2086
    if ! "$VRAMLAB" $args > "$tmp/out" 2> "$tmp/err" || [ ! -s "$tmp/out" ] || [ -s "$tmp/err" ]; then
        fail "vramlab $args: exit status, empty output or stderr ($(cat "$tmp/err"))"
    elif grep -q '[[:space:]]$' "$tmp/out"; then
        fail "vramlab $args: trailing blanks"
    fi
done

# Without a GPU, --backend cuda is refused with the reason, and selftest is skipped.
checks=$((checks + 1))
"$VRAMLAB" probe selftest > "$tmp/self" 2>&1
status=$?
if grep -Eq '^skipped: (no CUDA device|no CUDA driver|CUDA driver too old|built without CUDA|.*: no kernel image for sm_[0-9]+)' "$tmp/self"; then
    [ $status -eq 0 ] || fail "a skipped selftest exits $status"
    "$VRAMLAB" probe accumulate --backend cuda > "$tmp/out" 2> "$tmp/err"
    [ $? -eq 2 ] && grep -q '^vramlab: --backend cuda: ' "$tmp/err" && [ ! -s "$tmp/out" ] ||
        fail "--backend cuda without a GPU: $(cat "$tmp/err")"
fi

# probe train: the JSON contract, --input rows, and bad values: exit 2, one line.
checks=$((checks + 1))
if "$VRAMLAB" probe train --steps 20 --regimes fp32,fp16-dynamic,fp8 --format json > "$tmp/train.json"; then
    python3 - "$tmp/train.json" <<'PY' || fail "probe train --format json: $(head -c 300 "$tmp/train.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["name"] for r in d["runs"]] == ["fp32", "fp16-dynamic", "fp8"]
for r in d["runs"]:
    assert all(len(r[k]) == 20 for k in ("loss", "flushed", "subnormal", "scale"))
    assert r["scaling"] in ("none", "static", "dynamic") and r["master"] in ("fp32", "none")
    assert isinstance(r["skipped"], int) and 0 <= r["accuracy"] <= 1
assert d["runs"][1]["scale"] == [65536] * 20 and d["runs"][1]["scaling"] == "dynamic"
assert d["runs"][0]["flushed"] == [0] * 20
PY
else
    fail "probe train --format json failed"
fi
checks=$((checks + 1))
python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<1024f", *[((i * 37) % 101) / 50.0 - 1 for i in range(1024)]))' > "$tmp/feat.bin"
"$VRAMLAB" probe train --input "$tmp/feat.bin" --steps 5 --regimes fp32 > "$tmp/out" 2> "$tmp/err" &&
    grep -q ' 64 rows in micro-batches of 64' "$tmp/out" || fail "probe train --input: $(cat "$tmp/err")"
for args in "--steps 0" "--lr 0" "--regimes fp17" "--regimes fp32,fp32" "--scale 1,2" \
    "--accumulate-in x" "--count 5" "--input $tmp/nonexistent"; do
    checks=$((checks + 1))
    "$VRAMLAB" probe train $args > "$tmp/out" 2> "$tmp/err"
    status=$?
    [ $status -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] ||
        fail "probe train $args: exit $status, $(cat "$tmp/err")"
done

finish
