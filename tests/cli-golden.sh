#!/bin/sh
# cli-golden.sh: `vramlab estimate` in every format against reviewed golden files.
# The numbers in them were checked by hand (see the comments in tests/test_memory.c);
# regenerate with VRAMLAB_REGOLDEN=1 only after reviewing a change line by line.
. "$srcdir/tests/lib.sh"

golden() {
    name=$1
    shift
    checks=$((checks + 1))
    if ! "$VRAMLAB" "$@" > "$tmp/out" 2> "$tmp/err"; then
        fail "$name: exit $? for vramlab $*: $(cat "$tmp/err")"
        return
    fi
    if [ -n "${VRAMLAB_REGOLDEN:-}" ]; then
        cp "$tmp/out" "$srcdir/tests/golden/$name"
    elif ! diff -u "$srcdir/tests/golden/$name" "$tmp/out"; then
        fail "$name: output differs from tests/golden/$name (vramlab $*)"
    fi
}

golden default.txt estimate
golden llama-2-7b-zero3-8gpu.json estimate --preset llama-2-7b --zero 3 --gpus 8 --format json
golden gpt2-batch8.csv estimate --preset gpt2 --batch 8 --seq 1024 --format csv --units gb
golden free-7b.md estimate --params 7B --recompute selective --flash-attn --format markdown --explain
golden mistral-infer-int4-tp2.txt estimate --preset mistral-7b --mode infer --weight-dtype int4 \
    --gpus 2 --batch 4 --seq 8192 --gen 1024 --flash-attn
golden llama-2-7b-infer.json estimate --mode infer --gen 512 --format json
golden llama-2-7b-infer.csv estimate --mode infer --gen 512 --batch 8 --format csv
golden llama-2-7b-infer-solve.md estimate --mode infer --gen 2048 --solve max-batch --format markdown
golden llama-2-7b-zero3-8gpu.svg estimate --zero 3 --gpus 8 --format svg
golden mistral-infer-int4-tp2.svg estimate --preset mistral-7b --mode infer --weight-dtype int4 \
    --gpus 2 --batch 4 --seq 8192 --gen 1024 --flash-attn --format svg
golden falcon-fp32.txt estimate --preset falcon-7b --precision fp32 --optimizer sgd-momentum \
    --gpu a100-40gb --overhead 0 --explain
golden gpt2-amp-full.txt estimate --preset gpt2 --precision bf16-amp --recompute full --batch 4 \
    --seq 1024 --explain
golden llama-2-7b-lora.txt estimate --lora-rank 8 --zero 3 --gpus 2
golden mistral-qlora.json estimate --preset mistral-7b --lora-rank 16 --lora-targets all-linear \
    --qlora --optimizer adam-8bit --flash-attn --format json
golden llama-2-70b-offload.md estimate --preset llama-2-70b --zero 3 --gpus 16 --offload params \
    --recompute full --flash-attn --format markdown
golden llama-2-7b-offload.csv estimate --zero 2 --offload optimizer --gpus 4 --format csv
golden gpt3-175b-tp8-pp8.txt estimate --preset gpt3-175b --tp 8 --pp 8 --sp --gpus 1024 --zero 1 \
    --grad-accum 16 --recompute selective --explain
golden llama-2-70b-tp8.json estimate --preset llama-2-70b --tp 8 --gpus 64 --zero 1 --grad-accum 4 \
    --flash-attn --format json
golden llama-2-7b-q4km-int4kv.md estimate --mode infer --weight-dtype q4_k_m --kv-dtype int4 \
    --gen 512 --format markdown
golden llama-2-7b-q4km.csv estimate --mode infer --weight-dtype q4_k_m --format csv
golden llama-2-7b-serving.md estimate --mode infer --gen 512 --gpu-util 0.9 --kv-block 16 \
    --solve max-concurrency --format markdown

# The JSON parses, with exact integer bytes, and total is the sum of the components.
if command -v python3 > /dev/null; then
    checks=$((checks + 1))
    "$VRAMLAB" estimate --preset mistral-7b --zero 2 --gpus 4 --format json > "$tmp/m.json"
    python3 - "$tmp/m.json" <<'PY' || fail "JSON schema check"
import json, sys
d = json.load(open(sys.argv[1]))
keys = {"vramlab", "model", "settings", "bytes_per_param", "per_gpu", "peak", "gpu",
        "inference", "speed", "lora", "cpu_per_node", "parallel", "solve", "notes", "checkpoint",
        "gguf", "experts", "serving"}
assert set(d) == keys, set(d) ^ keys
g = d["per_gpu"]
parts = ["weights", "gradients", "optimizer", "activations", "kv_cache", "zero3_live", "overhead"]
assert set(g) == set(parts) | {"total"}
assert all(isinstance(g[k], int) for k in g)
assert g["total"] == sum(g[k] for k in parts)
pk = d["peak"] # the peak: above the sum's model states, reserved over allocated, + context and
# one data-parallel group's communicator over NVLink (an H100 SXM's link), 688 MiB, with
# NCCL's NVLink SHARP buffers: 16 channels x 2 x 1 MiB for each of the 4 GPUs and a 2 MiB
# credit granule (NCCL 2.22 and later)
assert all(isinstance(pk[k], int) for k in ("allocated", "reserved", "device", "context"))
assert pk["nvls"] == 16 * 2 * 2**20 * 4 + 2 * 2**20
assert pk["communicators"] == 721420288 + pk["nvls"] and pk["interconnect"] == "nvlink"
assert pk["allocated"] <= pk["reserved"]
assert pk["device"] == pk["reserved"] + pk["context"] + pk["communicators"]
assert sum(pk["alive"].values()) <= pk["allocated"] and pk["phase"]
assert pk["device"] > g["total"] - g["overhead"]
assert d["gpu"]["headroom"] == d["gpu"]["capacity"] - pk["device"]
assert d["gpu"]["fits"] == (pk["device"] <= d["gpu"]["capacity"])
assert d["model"]["params"] == 7241732096 and d["checkpoint"] is None and d["gguf"] is None
assert d["experts"] is None and d["settings"]["ep"] == 1 and d["serving"] is None
assert d["inference"] is None and d["solve"] is None
sp = d["speed"]  # training: the step time at --mfu
assert sp["bound"] == "mfu" and sp["mfu"] == 0.4 and sp["tokens"] is None
assert sp["tokens_per_step"] == d["parallel"]["global_batch"] * d["settings"]["seq"]
assert abs(sp["tokens_per_s"] * sp["step_seconds"] - sp["tokens_per_step"]) < 1e-3 * sp["tokens_per_step"]
assert d["lora"] is None and d["settings"]["lora_rank"] == 0 and d["settings"]["qlora"] is False
assert d["settings"]["lora_targets"] == "q,v"
assert d["cpu_per_node"] is None and d["settings"]["offload"] == "none"
assert d["settings"]["gpus_per_node"] == 4
p = d["parallel"]
assert (p["tp"], p["pp"], p["dp"], p["stage_layers"], p["in_flight"]) == (1, 1, 4, 32, 1)
assert p["params_per_gpu"] == d["model"]["params"] and p["global_batch"] == 4
PY
    # The communicators under tensor parallelism: vLLM's 2.82 GiB over NVLink (an H100 SXM's
    # link) or 0.16 GiB over PCIe (an H100 PCIe's, or --interconnect pcie), on the device at
    # the peak; off the KV cache, term by term, all of PCIe's and NVLink's less the 1.00 GiB
    # they take as they are made, before the worker measures its memory (1.82 GiB), which
    # the memory free after capture lacks instead: the parts rounded to bytes (x 2^30).
    checks=$((checks + 1))
    tp2="estimate --preset llama-3.1-8b --mode infer --framework vllm --gpus 2 --seq 8192"
    "$VRAMLAB" $tp2 --gpu h100-80gb --format json > "$tmp/nv.json"
    "$VRAMLAB" $tp2 --gpu h100-80gb --interconnect pcie --format json > "$tmp/pc.json"
    "$VRAMLAB" $tp2 --gpu h100-pcie --format json > "$tmp/hp.json"
    python3 - "$tmp/nv.json" "$tmp/pc.json" "$tmp/hp.json" <<'PY' || fail "JSON communicators check"
import json, sys
nv, pc, hp = (json.load(open(f)) for f in sys.argv[1:])
for d, link, comm, off in ((nv, "nvlink", 3027951944, 1954210120), (pc, "pcie", 171798692, 171798692),
                          (hp, "pcie", 171798692, 171798692)):
    pk, k = d["peak"], d["serving"]["kv_cache"]
    assert pk["interconnect"] == link and pk["communicators"] == comm and pk["nvls"] == 0, pk
    assert pk["device"] == pk["reserved"] + pk["context"] + pk["managed"] + comm
    assert k["communicators"] == off and k["communicators_made"] == comm - off
    # vLLM 0.34's extensible cache: what is free after warmup and capture (the GPU less the
    # CUDA context) less a margin of max(1 GiB, 0.75 x the transient peak), within its share
    assert k["sizing"] == "extensible" and k["context"] == pk["context"] - pk["lazy_kernels"], k
    assert k["margin"] == max(2**30, k["profile_peak"] - k["profile_peak"] // 4), k
    room = min(d["serving"]["usable"],
               d["gpu"]["capacity"] - k["context"] - k["communicators_made"] - k["margin"])
    assert k["bytes"] == (room - k["weights"] - k["profile_peak"] - k["non_torch"]
                          - off - k["sampler_state"] - k["cuda_graph_estimate"])
    assert k["sampler_state"] > 0 and k["cuda_graph_estimate"] > 0, k
# what is free after capture lacks all of them: the caches differ by the whole buffers
assert pc["serving"]["kv_cache"]["bytes"] - nv["serving"]["kv_cache"]["bytes"] == 3027951944 - 171798692
assert nv["settings"]["interconnect"] == "auto" and pc["settings"]["interconnect"] == "pcie"
assert nv["serving"]["kv_cache"]["shortfall"] == 0
PY
    # NCCL 2.20 (PyTorch 2.4's wheels) sizes NVLink SHARP by the communicator's channels: 24
    # on eight GPUs of 18 NVLink links (the H100 SXM preset's nvlinks), 16 on the H800's 8:
    # channels x 2 x (4 MiB + 2 MiB) for each of the 8 GPUs, a communicator of each group
    checks=$((checks + 1))
    ds="estimate --preset llama-2-7b --framework hf --gpus 8 --zero 3 --torch 2.4 --format json"
    "$VRAMLAB" $ds --gpu h100-80gb > "$tmp/h100.json"
    "$VRAMLAB" $ds --gpu h800 > "$tmp/h800.json"
    python3 - "$tmp/h100.json" "$tmp/h800.json" <<'PY' || fail "JSON NVLink SHARP channels check"
import json, sys
h100, h800 = (json.load(open(f))["peak"] for f in sys.argv[1:])
assert h100["nvls"] == 24 * 2 * 6 * 2**20 * 8, h100["nvls"]
assert h800["nvls"] == 16 * 2 * 6 * 2**20 * 8, h800["nvls"]
assert h100["communicators"] - h100["nvls"] == h800["communicators"] - h800["nvls"] == 721420288
PY
    # Qwen2.5 72B on two H100s under vLLM 0.19: at its 0.9 its weights and profile run take
    # more than the engine's share, which vLLM refuses ("No available memory for the cache
    # blocks"): the profile's figures stay, the cache is empty and the shortfall is what they
    # take beyond the share; at 0.95 a cache is left (vLLM 0.19.0 logged 3.04 GiB).
    checks=$((checks + 1))
    q72="estimate --preset qwen2.5-72b --mode infer --framework vllm --vllm 0.19 --gpus 2 --seq 8192"
    q72="$q72 --gpu h100-80gb"
    "$VRAMLAB" $q72 --format json > "$tmp/q90.json"
    "$VRAMLAB" $q72 --gpu-util 0.95 --format json > "$tmp/q95.json"
    "$VRAMLAB" $q72 > "$tmp/q90.txt"
    want="1.82 GiB communicators (the 1.00 GiB more they took as they were made, before the"
    want="$want engine measured its memory, are outside its share) = nothing, 0.81 GiB short"
    grep -qF "$want: the engine stops before serving" "$tmp/q90.txt" || fail "no shortfall in the serving line: $(grep serving "$tmp/q90.txt")"
    python3 - "$tmp/q90.json" "$tmp/q95.json" <<'PY' || fail "JSON KV shortfall check"
import json, sys
q90, q95 = (json.load(open(f))["serving"] for f in sys.argv[1:])
k = q90["kv_cache"]
assert k["sampler_state"] == 0 and k["cuda_graph_estimate"] == 0, k
taken = k["weights"] + k["profile_peak"] + k["non_torch"] + k["communicators"]
assert k["bytes"] == 0 and k["tokens"] == 0 and k["shortfall"] == taken - q90["usable"] > 0, k
k = q95["kv_cache"]
assert k["shortfall"] == 0 and k["bytes"] == q95["usable"] - (k["weights"] + k["profile_peak"]
                                                              + k["non_torch"] + k["communicators"])
PY
    # SGLang's pool: mem_fraction_static (its rule on an H100: 0.83, 0.874 under 0.4.8, which
    # 0.4.9 is; --gpu-util's 0.88) of
    # what CUDA leaves once its context (and over NVLink the communicators, 1.96 GiB) are
    # made, less the weights, in one-token pages; the run may use the whole GPU.
    checks=$((checks + 1))
    sgl="estimate --preset llama-3.1-8b --mode infer --framework sglang --gpu h100-80gb"
    "$VRAMLAB" $sgl --format json > "$tmp/s83.json"
    "$VRAMLAB" $sgl --gpu-util 0.88 --format json > "$tmp/s88.json"
    "$VRAMLAB" $sgl --gpus 2 --format json > "$tmp/s2.json"
    "$VRAMLAB" $sgl --sglang 0.4.9 --format json > "$tmp/s049.json"
    "$VRAMLAB" $sgl --gpu-util 0.88 > "$tmp/s88.txt"
    grep -q "its KV pool: 0.88 x 78.80 GiB free before the weights load (after CUDA's context) = 69.35 GiB - 14.99 GiB weights = 54.36 GiB, 445,290 tokens" \
        "$tmp/s88.txt" || fail "no SGLang pool in the serving line: $(grep serving "$tmp/s88.txt")"
    python3 - "$tmp/s83.json" "$tmp/s88.json" "$tmp/s2.json" "$tmp/s049.json" <<'PY' || fail "JSON SGLang check"
import json, sys
s83, s88, s2, s049 = (json.load(open(f)) for f in sys.argv[1:])
cuda = 81090 * 2**20
# two GPUs reserve 128 MiB more: 14,032 of 81,559 MiB, 0.828
for d, share, tp in ((s83, 0.83, 1), (s88, 0.88, 1), (s2, 0.828, 2), (s049, 0.874, 1)):
    v, k, pk = d["serving"], d["serving"]["kv_cache"], d["peak"]
    assert v["gpu_util"] == share and v["usable"] == cuda and k["sizing"] == "static", v
    comm = 2104533893 if tp == 2 else 0
    assert k["communicators"] == comm and pk["communicators"] == comm, k
    assert k["free_at_load"] == cuda - (pk["context"] - pk["lazy_kernels"]) - comm, k
    assert k["bytes"] == k["free_at_load"] * round(share * 10**6) // 10**6 - k["weights"], k
    assert k["tokens"] == k["bytes"] // (131072 // tp), k
    assert k["profile_peak"] == k["non_torch"] == k["profile_seqs"] == k["shortfall"] == 0, k
assert s83["settings"]["gpu_util"] == 0 and s88["settings"]["gpu_util"] == 0.88
assert s049["settings"]["sglang"] == "0.4.8" and s83["settings"]["sglang"] == "current"
PY
    # An engine that sizes its KV cache allocates all of it before it serves: the step's
    # peak holds the whole cache (the JSON's serving.kv_cache.bytes), and says so.
    checks=$((checks + 1))
    for fw in vllm sglang; do
        "$VRAMLAB" estimate --preset llama-3.1-8b --mode infer --framework $fw --gpu h100-80gb \
            --format json > "$tmp/pool.json"
        python3 - "$tmp/pool.json" <<'PY' || fail "JSON $fw: the peak without the engine's KV cache"
import json, sys
d = json.load(open(sys.argv[1]))
pool = d["serving"]["kv_cache"]["bytes"]
assert pool > 0 and d["peak"]["alive"]["kv_cache"] == pool, (pool, d["peak"]["alive"])
assert d["peak"]["allocated"] > pool + d["per_gpu"]["weights"] and d["gpu"]["fits"], d["peak"]
PY
        "$VRAMLAB" estimate --preset llama-3.1-8b --mode infer --framework $fw --gpu h100-80gb |
            grep -q "in prefill beside the engine's whole KV cache (" ||
            fail "$fw: the peak line does not name the engine's KV cache"
    done
    # The fit under a serving engine: Llama 3.1 70B under SGLang on two H100s peaks within
    # the GPU, but 0.828 of the free memory is short of the weights, so it does not fit,
    # short by that and one sequence's cache, and min-gpus passes over 2 to 4 (the next
    # tensor-parallel count); Llama 3.1 8B under vLLM: max-batch is what the engine's cache
    # holds (max-concurrency), one past it short by the cache's remainder, though the peak
    # there fits the GPU.
    checks=$((checks + 1))
    s70="estimate --preset llama-3.1-70b --mode infer --framework sglang --gpu h100-80gb"
    v8="estimate --preset llama-3.1-8b --mode infer --framework vllm --gpu h100-80gb --seq 4096"
    "$VRAMLAB" $s70 --gpus 2 --format json > "$tmp/f70.json"
    "$VRAMLAB" $s70 --solve min-gpus --format json > "$tmp/f70g.json"
    "$VRAMLAB" $s70 --gpus 2 --check-fit > /dev/null && fail "--check-fit: 70B under SGLang on 2"
    "$VRAMLAB" $v8 --gen 1024 --solve max-batch --format json > "$tmp/f8b.json"
    "$VRAMLAB" $v8 --gen 1024 --solve max-concurrency --format json > "$tmp/f8c.json"
    "$VRAMLAB" $v8 --gen 1024 --batch 98 --format json > "$tmp/f8n.json"
    "$VRAMLAB" $v8 --gen 1024 --solve max-concurrency | grep -q \
        "max-concurrency = 97 on h100-80gb (98: the engine's KV cache holds 97 of the 98 sequences" ||
        fail "max-concurrency's next value under vLLM"
    python3 - "$tmp/f70.json" "$tmp/f70g.json" "$tmp/f8b.json" "$tmp/f8c.json" \
        "$tmp/f8n.json" <<'PY' || fail "JSON serving fit check"
import json, sys
f70, f70g, f8b, f8c, f8n = (json.load(open(f)) for f in sys.argv[1:])
g, v, k = f70["gpu"], f70["serving"], f70["serving"]["kv_cache"]
assert f70["peak"]["device"] < g["capacity"] and k["shortfall"] > 0 and k["bytes"] == 0, k
assert k["shortfall"] == k["weights"] - k["free_at_load"] * 828000 // 10**6, k
assert not g["fits"] and g["bound_by"] == "share", g
assert g["headroom"] == -(k["shortfall"] + v["kv_bytes_per_sequence"]), g
sv = f70g["solve"]
assert (sv["answer"], sv["next"], sv["next_bound_by"]) == (4, 2, "share"), sv
assert sv["next_over"] == -g["headroom"] and f70g["gpu"]["fits"], sv
held = f8c["solve"]["answer"]
assert f8b["solve"]["answer"] == held and f8b["solve"]["next"] == held + 1, (f8b["solve"], held)
per, kb = f8b["serving"]["kv_bytes_per_sequence"], f8b["serving"]["kv_cache"]["bytes"]
for sb in (f8b["solve"], f8c["solve"]):
    assert sb["next_bound_by"] == "kv_cache" and sb["next_over"] == (held + 1) * per - kb, sb
assert f8b["gpu"]["fits"] and f8b["gpu"]["headroom"] == min(kb - held * per,
                                                           f8b["gpu"]["capacity"] - f8b["peak"]["device"])
assert f8n["peak"]["device"] <= f8n["gpu"]["capacity"] and not f8n["gpu"]["fits"], f8n["gpu"]
assert f8n["gpu"]["bound_by"] == "kv_cache" and f8n["gpu"]["headroom"] == kb - (held + 1) * per
PY
    # Offload moves bytes without losing any: GPU + CPU = the run without offload.
    checks=$((checks + 1))
    "$VRAMLAB" estimate --zero 3 --gpus 16 --format json > "$tmp/no.json"
    "$VRAMLAB" estimate --zero 3 --gpus 16 --offload params --format json > "$tmp/off.json"
    python3 - "$tmp/no.json" "$tmp/off.json" <<'PY' || fail "JSON offload check"
import json, sys
no, off = (json.load(open(f)) for f in sys.argv[1:])
c, g, n = off["cpu_per_node"], off["per_gpu"], no["per_gpu"]
assert c["gpus_per_node"] == 8 and c["nodes"] == 2
for k in ("weights", "optimizer"):
    assert g[k] == 0 and c["per_gpu"][k] == n[k] and c[k] == 8 * n[k]
assert c["total"] == c["weights"] + c["optimizer"] == 8 * c["per_gpu"]["total"]
assert g["total"] + c["per_gpu"]["total"] == n["total"]
PY
    # --cpu-offload: Llama 2 7B bf16 is 13,476,831,232 bytes of weights on one GPU, and
    # 6,738,681,856 a GPU over 2 (HACKING §4.5); each GPU offloads 4 GiB, exact integers.  The
    # host links, one direction (PCI-SIG): PCIe 5.0 x16 63e9 B/s (H100), 4.0 31.5e9 (A100),
    # 3.0 15.75e9 (T4).
    for g in h100-80gb a100-80gb t4; do
        for n in 1 2; do
            checks=$((checks + 1))
            "$VRAMLAB" estimate --mode infer --gen 16 --gpu "$g" --gpus "$n" --cpu-offload 4GiB \
                --format json > "$tmp/co-$g-$n.json" || fail "--cpu-offload on $g x $n"
            "$VRAMLAB" estimate --mode infer --gen 16 --gpu "$g" --gpus "$n" \
                --format json > "$tmp/nco-$g-$n.json" || fail "no --cpu-offload on $g x $n"
        done
    done
    python3 - "$tmp" <<'PY' || fail "JSON --cpu-offload check"
import json, sys
off = 4 * 2**30
weights = {1: 13476831232, 2: 6738681856}
link = {"h100-80gb": 63e9, "a100-80gb": 31.5e9, "t4": 15.75e9}
for g, h in link.items():
    for n, w in weights.items():
        text = open("%s/co-%s-%d.json" % (sys.argv[1], g, n)).read()
        assert '"weights": %d,' % (w - off) in text, (g, n)  # an exact integer, no exponent
        d = json.loads(text)
        assert d["settings"]["cpu_offload"] == off and d["inference"]["offloaded_bytes"] == off
        assert d["per_gpu"]["weights"] == w - off
        c = d["cpu_per_node"]
        assert c["per_gpu"]["weights"] == off and c["gpus_per_node"] == n and c["total"] == n * off
        # the timeline's serving peak follows: the same run less the offloaded bytes
        no = json.load(open("%s/nco-%s-%d.json" % (sys.argv[1], g, n)))
        assert d["peak"]["alive"]["weights"] == w - off
        # ... but for the offloaded layer its forward copies in: 2 B x 6,476,005,376 layer
        # matrix params / 32 layers, this GPU's share
        copy = 2 * 6476005376 // 32 // n
        assert d["inference"]["offload_copy_bytes"] == copy, (g, n)
        assert d["peak"]["alive"]["transient"] - no["peak"]["alive"]["transient"] == copy, (g, n)
        sp = d["speed"]
        assert abs(sp["host_seconds"] - off / h) < 1e-5 * off / h, (g, sp)
        assert sp["decode_step_seconds"] > sp["host_seconds"]
        assert abs(sp["decode_tokens_per_s"] * sp["decode_step_seconds"] - 1) < 1e-4
PY
    # LoRA: the frozen base and the adapters add up to the weights (1 GPU, no sharding).
    checks=$((checks + 1))
    "$VRAMLAB" estimate --preset mistral-7b --lora-rank 16 --qlora --format json > "$tmp/l.json"
    python3 - "$tmp/l.json" <<'PY' || fail "JSON LoRA check"
import json, sys
d = json.load(open(sys.argv[1]))
l, g, b = d["lora"], d["per_gpu"], d["bytes_per_param"]
assert set(l) == {"trainable_params", "frozen_params", "frozen_bytes", "nf4_params", "nf4_bytes",
                  "dequant_bytes"}
assert l["frozen_params"] == d["model"]["params"]
assert g["weights"] == l["frozen_bytes"] + l["trainable_params"] * b["weights"]
assert g["gradients"] == l["trainable_params"] * b["gradients"]
assert g["optimizer"] == l["trainable_params"] * b["optimizer"]
assert g["total"] == sum(v for k, v in g.items() if k != "total")
PY
fi

# GGUF: the file type's tensor data is within 3% under the published file
# (TheBloke/Llama-2-7B-GGUF, llama-2-7b.Q4_K_M.gguf: 4,081,004,224 bytes with its metadata),
# the types add up to it, and the GPU's weights are all of it but the input layer, which
# llama.cpp keeps in CPU memory (its log for the file: CPU buffer size = 70.31 MiB).
if command -v python3 > /dev/null; then
    checks=$((checks + 1))
    "$VRAMLAB" estimate --mode infer --weight-dtype q4_k_m --format json > "$tmp/g.json"
    python3 - "$tmp/g.json" <<'PY' || fail "JSON GGUF check"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["gguf"]
assert g["ftype"] == "q4_k_m" and g["output_copy_bytes"] == 0
assert d["per_gpu"]["weights"] == g["gpu_bytes"] == g["bytes"] - g["input_bytes"]
assert round(g["input_bytes"] / 2**20, 2) == 70.31
assert 0 <= 4081004224 - g["bytes"] < 0.03 * 4081004224
assert sum(t["bytes"] for t in g["types"].values()) == g["bytes"]
assert sum(t["elements"] for t in g["types"].values()) == g["elements"] == d["model"]["params"]
assert set(g["types"]) == {"f32", "q4_K", "q6_K"}
PY
fi

# Expert parallelism: Mixtral 8x7B's weights per GPU with --ep 8 over 8 GPUs, by hand: the
# 8 x 32 routed experts of 3 x 4096 x 14336 are split 8 ways, the other 1,605,636,096 params
# stay whole: 2 B x (1,605,636,096 + 45,097,156,608 / 8) = 14,485,561,344.
if command -v python3 > /dev/null; then
    checks=$((checks + 1))
    "$VRAMLAB" estimate --preset mixtral-8x7b --gpus 8 --ep 8 --format json > "$tmp/e.json"
    python3 - "$tmp/e.json" <<'PY' || fail "JSON expert-parallel check"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["experts"]
assert d["per_gpu"]["weights"] == 2 * (1605636096 + 45097156608 // 8) == 14485561344
assert (e["ep"], e["experts_per_gpu"], e["expert_dp"]) == (8, 1, 1)
assert e["expert_params"] == 45097156608 and e["expert_params_per_gpu"] == 45097156608 // 8
assert d["parallel"]["params_per_gpu"] == 1605636096 + e["expert_params_per_gpu"]
PY
fi

# Expert parallelism's all-to-all buffers: Mixtral 8x7B, 2048 tokens, k = 2, h = 4096, bf16:
# 2 x 2048 x 2 x 4096 x 2 = 67,108,864 bytes, added to the activations of the run without --ep.
if command -v python3 > /dev/null; then
    checks=$((checks + 1))
    "$VRAMLAB" estimate --preset mixtral-8x7b --gpus 2 --ep 2 --format json > "$tmp/a2.json"
    "$VRAMLAB" estimate --preset mixtral-8x7b --gpus 2 --format json > "$tmp/a1.json"
    python3 - "$tmp/a2.json" "$tmp/a1.json" <<'PY' || fail "JSON all-to-all check"
import json, sys
d, one = (json.load(open(f)) for f in sys.argv[1:3])
assert d["experts"]["a2a_bytes"] == 2 * 2048 * 2 * 4096 * 2 == 67108864
assert d["per_gpu"]["activations"] == one["per_gpu"]["activations"] + 67108864
PY
fi

# Pipeline-parallel serving: Llama 2 7B over --pp 3 --gpus 3, by hand (tests/test_inference.c
# derives it): the last stage's 11 layers of 202,375,168 matrix and 8192 norm params, the
# output layer's 131,072,000 and the final norm's 4096, 2 bytes each; KV 2 x 11 x 32 x 128 x 2
# bytes a token.  Every format shows the stage: JSON's inference.pipeline, the settings line.
if command -v python3 > /dev/null; then
    checks=$((checks + 1))
    "$VRAMLAB" estimate --mode infer --pp 3 --gpus 3 --format json > "$tmp/p.json"
    python3 - "$tmp/p.json" <<'PY' || fail "JSON pipeline-serving check"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["inference"]["pipeline"]
assert (p["pp"], p["stage"], p["stage_layers"]) == (3, "last", 11)
assert p["linear_params"] == 11 * 202375168 and p["embedding_params"] == 131072000
assert p["other_params"] == 11 * 8192 + 4096
assert d["per_gpu"]["weights"] == 2 * (11 * (202375168 + 8192) + 131072000 + 4096) == 4714586112
assert d["per_gpu"]["kv_cache"] == 2 * 11 * 32 * 128 * 2 * 2048
assert d["settings"]["pp"] == 3
PY
    for fmt in table markdown; do
        checks=$((checks + 1))
        "$VRAMLAB" estimate --mode infer --pp 3 --gpus 3 --format $fmt > "$tmp/p.$fmt"
        grep -q '3 GPUs (3 pipeline stages of 11 layers at most, 1-way tensor parallel in each)' "$tmp/p.$fmt" &&
            grep -Eq '4,?714,?586,?112' "$tmp/p.$fmt" || fail "the $fmt names the pipeline stages"
    done
    checks=$((checks + 1))
    "$VRAMLAB" estimate --mode infer --pp 3 --gpus 3 --format csv > "$tmp/p.csv"
    grep -q '^weights,4714586112,' "$tmp/p.csv" || fail "the CSV has the stage's weights"
fi

# Context parallelism: Llama 2 7B at 32768 tokens over --cp 4 of 8 GPUs, by hand: 8192 tokens
# a GPU, 2 data parallel, ring buffers 4 x 2 B x 8192 x (32 x 128) = 268,435,456 bytes; the
# same layer as one GPU's run at 8192 tokens, so the activations are that run's plus the ring.
if command -v python3 > /dev/null; then
    checks=$((checks + 1))
    "$VRAMLAB" estimate --preset llama-2-7b --gpus 8 --cp 4 --seq 32768 --format json > "$tmp/c.json"
    "$VRAMLAB" estimate --preset llama-2-7b --seq 8192 --format json > "$tmp/c1.json"
    python3 - "$tmp/c.json" "$tmp/c1.json" <<'PY' || fail "JSON context-parallel check"
import json, sys
d, one = (json.load(open(f)) for f in sys.argv[1:3])
p = d["parallel"]
assert (p["cp"], p["dp"], p["local_seq"], p["global_batch"]) == (4, 2, 8192, 2)
assert p["ring_bytes"] == 4 * 2 * 8192 * 32 * 128 == 268435456
assert d["per_gpu"]["activations"] == one["per_gpu"]["activations"] + p["ring_bytes"]
assert d["settings"]["cp"] == 4 and d["speed"]["tokens_per_step"] == 2 * 32768
PY
    checks=$((checks + 1))
    "$VRAMLAB" estimate --preset llama-2-7b --gpus 8 --cp 4 --seq 32768 > "$tmp/c.txt"
    grep -q '^  parallel    tensor 1 x pipeline 1 x context 4 (8192 tokens a GPU) x data 2 = 8 GPUs;' "$tmp/c.txt" ||
        fail "the table's parallel line names the context parallelism"
fi

# Interleaved 1F1B: Llama 2 70B over --pp 4 --vpp 2 keeps 11 chunks of 10 layers (Megatron's
# 80 x (1 + 3/8) = 110 layers' worth) and the embedding side of ceil(5.5) = 6 micro-batches.
if command -v python3 > /dev/null; then
    checks=$((checks + 1))
    "$VRAMLAB" estimate --preset llama-2-70b --tp 8 --pp 4 --gpus 32 --grad-accum 8 --format json > "$tmp/v1.json"
    "$VRAMLAB" estimate --preset llama-2-70b --tp 8 --pp 4 --vpp 2 --gpus 32 --grad-accum 8 --format json > "$tmp/v2.json"
    python3 - "$tmp/v1.json" "$tmp/v2.json" <<'PY' || fail "JSON interleaved-1F1B check"
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:3])
p1, p2 = one["parallel"], two["parallel"]
assert (p1["vpp"], p1["chunk_layers"], p1["chunks_in_flight"], p1["in_flight"]) == (1, 20, 4, 4)
assert (p2["vpp"], p2["chunk_layers"], p2["chunks_in_flight"], p2["in_flight"]) == (2, 10, 11, 6)
assert one["per_gpu"]["weights"] == two["per_gpu"]["weights"]
PY
fi

# The SVGs are well-formed XML, and each is titled for its mode.
# The SVGs are well-formed XML, and each is titled for its mode.  Their timeline names the
# peak that estimate's JSON gives, its areas stay inside the plot, the highest of them where
# the peak's dot is, and the areas at each column add up to no more than the peak.
if command -v python3 > /dev/null; then
    checks=$((checks + 1))
    "$VRAMLAB" estimate --zero 3 --gpus 8 --format json > "$tmp/zero3.json" &&
        "$VRAMLAB" estimate --preset mistral-7b --mode infer --weight-dtype int4 --gpus 2 \
            --batch 4 --seq 8192 --gen 1024 --flash-attn --format json > "$tmp/infer.json" ||
        fail "the SVGs' runs as JSON"
    python3 - "$srcdir/tests/golden" "$tmp" <<'PY' || fail "a golden SVG is not well-formed or mistitled"
import json, sys, xml.dom.minidom
for name, mode, js in [("llama-2-7b-zero3-8gpu.svg", "training", "zero3.json"),
                       ("mistral-infer-int4-tp2.svg", "inference", "infer.json")]:
    doc = xml.dom.minidom.parse(sys.argv[1] + "/" + name)
    texts = [t.firstChild.data for t in doc.getElementsByTagName("text")]
    assert texts[0].endswith(": %s memory per GPU" % mode), texts[0]
    stages = [t for t in texts if t in ("ZeRO-0", "ZeRO-1", "ZeRO-2", "ZeRO-3")]
    assert len(stages) == (4 if mode == "training" else 0), name
    peak = json.load(open(sys.argv[2] + "/" + js))["peak"]
    gib = "%.2f GiB" % (peak["device"] / 2**30)
    step = "training step" if mode == "training" else "serving run"
    head = [t for t in texts if t.startswith("One %s, " % step)]
    assert len(head) == 1 and head[0].endswith(": the peak in " + peak["phase"]), head
    assert "peak: " + gib in texts, name
    assert [t for t in texts if t.startswith("at the peak: %s on the GPU = " % gib)], name
    dot = doc.getElementsByTagName("circle")[0]
    heading = [t for t in doc.getElementsByTagName("text") if t.firstChild.data == head[0]][0]
    axis = [l for l in doc.getElementsByTagName("line") if l.getAttribute("stroke") == "#555"][0]
    low, high = float(heading.getAttribute("y")), float(axis.getAttribute("y1"))
    edges = {}  # each band's upper edge, column by column
    for p in doc.getElementsByTagName("polygon"):
        pts = [tuple(map(float, q.split(","))) for q in p.getAttribute("points").split()]
        assert all(low < y <= high and 20 <= x <= 780 for x, y in pts), name
        edges[p.getElementsByTagName("title")[0].firstChild.data] = dict(pts[:len(pts) // 2])
    # the top of what the process holds, under the cache: the last band drawn before it
    held = edges[[b for b in ("CUDA context", "paged optimizer states",
                              "communicators' buffers") if b in edges][-1]]
    assert abs(min(held.values()) - float(dot.getAttribute("cy"))) < 0.11, name
    assert abs(held[float(dot.getAttribute("cx"))] - min(held.values())) < 0.11, name
PY
fi

# The README's sample outputs are these golden files, so the README stays true.
if command -v python3 > /dev/null; then
    checks=$((checks + 1))
    python3 - "$srcdir" <<'PY' || fail "README sample output differs from tests/golden"
import sys
top = sys.argv[1]
readme = open(top + "/README").read()
for name in ["default.txt", "llama-2-7b-zero3-8gpu.json", "mistral-infer-int4-tp2.txt"]:
    text = open(top + "/tests/golden/" + name).read().rstrip("\n").split("\n")
    block = "\n".join(("    " + l).rstrip() for l in text)
    if block not in readme:
        sys.exit("README lacks tests/golden/" + name)
PY
fi

# The context line traces the peak's CUDA context: an H100's 132 SMs x 2048 threads x 1 KiB
# of stack and CUDA 12's base, then the kernels a step loads; --overhead replaces it all.
checks=$((checks + 1))
"$VRAMLAB" estimate --gpu h100-80gb > "$tmp/ctx.txt"
grep -q "^  context     0.74 GiB = 0.39 GiB at start (132 SMs x 2048 threads x 1 KiB of stack, 0.26 GiB, + 0.13 GiB of CUDA 12's lazy context" "$tmp/ctx.txt" ||
    fail "no context line: $(grep '^  context' "$tmp/ctx.txt")"
checks=$((checks + 1))
! "$VRAMLAB" estimate --overhead 1GiB | grep -q "^  context " || fail "a context line under --overhead"

# A step that leaves the next its gradients, or whose optimizer makes its moments at the
# first step (optimizer_state_lazy), is measured as the run's second (first_step); the
# peak line says so, and only then.
checks=$((checks + 1))
"$VRAMLAB" estimate --preset gpt2 --torch 1.13 | grep -q "^  peak .*(nvidia-smi), the run's second, on the segments the first step left, in " ||
    fail "no second step on the peak line under --torch 1.13"
checks=$((checks + 1))
"$VRAMLAB" estimate --preset gpt2 | grep -q "^  peak .*(nvidia-smi), the run's second, on the segments the first step left, in " ||
    fail "no second step on the peak line where AdamW makes its moments at the first step"
for leaves_nothing in "--optimizer sgd" "--framework deepspeed"; do
    checks=$((checks + 1))
    # shellcheck disable=SC2086 # two words, split on purpose
    ! "$VRAMLAB" estimate --preset gpt2 $leaves_nothing | grep -q "the run's second" ||
        fail "a second step on the peak line of a step that leaves nothing ($leaves_nothing)"
done

# --check-fit: exit 1 when it does not fit, 0 when it does.
checks=$((checks + 1))
"$VRAMLAB" estimate --check-fit > /dev/null
[ $? -eq 1 ] || fail "--check-fit on a run that does not fit should exit 1"
checks=$((checks + 1))
"$VRAMLAB" estimate --check-fit --preset gpt2 > /dev/null || fail "--check-fit on gpt2 should exit 0"

finish
