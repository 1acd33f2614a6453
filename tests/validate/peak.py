#!/usr/bin/python3
"""The real peak of one training step on the CPU, phase by phase, against vramlab's timeline.

Each case runs in a fresh process whose glibc hands every block of 16 KiB or more to mmap
(MALLOC_MMAP_THRESHOLD_), so that a freed tensor leaves the resident set at once.  The
process takes one step first (AdamW creates its state), frees the gradients, then measures
the second step: at every phase boundary (a layer's forward, the loss, the gradient reaching
a layer, the optimizer step) it reads the resident set's high-water mark since the previous
boundary (VmHWM) and resets it (/proc/self/clear_refs, 5).  The peak is the weights and the
optimizer state plus the largest rise over the resident set at the step's start; its phase
is the one where it happened (a layer run again in backward, full recomputation, is part of
that layer's backward).  vramlab's figure is the timeline's peak of the same step
(a framework preset over `pytorch`: exact allocator, AdamW's single-tensor loop, or its
foreach path with the installed PyTorch's temporaries; --overhead 0: no CUDA context, no
cuBLAS workspace), from tests/validate/predict --one.
Target: within 1% (the issue asked for 5%; every case is within 0.5%), and the same phase.
A 16-bit product is made but not computed (uncomputed_products); CHECKS show it changes
nothing measured.

Then what the caching allocator reserves for those tensors: the same process runs with
alloc-trace.so preloaded, which writes down every storage PyTorch's CPU allocator makes and
frees (its table of live storages is half a MiB, beside peaks of a GiB and more), and
`predict --replay` replays that trace through vramlab's model of the CUDA caching allocator,
less the storages freed before any other is made or freed: a CPU kernel's scratch, such as
oneDNN's fp32 product of a 16-bit matmul on a CPU without bf16 instructions, which a GPU's
kernel does not take.  The model as built on the CPU (in fp32 first) is left out: the case
writes LOADED, then copies every parameter and buffer a tensor at a time, as a load onto a
GPU makes them (before the first step: no measured phase sees the copies).  The replay's
reserved bytes, the first step's segments included, are set against the timeline's (the same
framework preset with the caching allocator).  What the allocator reserves beyond what it
hands out depends on the order of every allocation, which the timeline lays out per layer,
not per kernel: target within 10%.
"""
import argparse
import concurrent.futures
import gc
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

TARGET = 0.01
RESERVED_TARGET = 0.10
TIE = 0.001  # two phases' measured peaks closer than 0.1% of the peak are one tie
# (preset, layers kept, width divisor, batch, seq, precision, LoRA: "" or its rank and
# targets as --lora-rank and --lora-targets take them, then "qlora" for a 4-bit base
# (models.Linear4bit), full recomputation, AdamW's foreach
# path, micro-batches a step, the loss's chunk of positions under LitGPT's loop or 0, then
# "dropout" where the model drops out as its preset says, else it does not,
# "softmax-fp32" for transformers' eager softmax in fp32 cast back to 16 bits, and
# "fp32-adapters" for PEFT's adapters on 4-bit layers, fp32 in a bf16 model without autocast)
CASES = [
    ("gpt2", 2, 1, 2, 256, "fp32", "", False, False, 1, 0),
    ("gpt2", 2, 1, 8, 512, "fp32", "", False, False, 1, 0),
    ("mistral-7b", 2, 4, 1, 1024, "fp32", "", False, False, 1, 0),
    ("mistral-7b", 2, 4, 4, 512, "fp32", "", False, False, 1, 0),
    ("gpt2", 2, 1, 4, 256, "bf16", "", False, False, 1, 0),
    ("mistral-7b", 2, 4, 2, 512, "bf16-amp", "", False, False, 1, 0),
    ("mistral-7b", 2, 4, 2, 512, "bf16-amp", "8 q,v", False, False, 1, 0),
    # the peak in a recomputed layer
    ("mistral-7b", 2, 4, 1, 4096, "bf16-amp", "8 q,v", True, False, 1, 0),
    ("mistral-7b", 2, 4, 1, 64, "fp32", "", False, True, 1, 0),  # the peak in the optimizer step
    # the peak where the tied matrix's two gradients are summed (PyTorch 2.1 and later) or in
    # the optimizer step (before 2.1, two lists of temporaries)
    ("gpt2", 2, 1, 1, 64, "fp32", "", False, True, 1, 0),
    # the second micro-batch's sum, beside the head's gradient that waited for it
    ("gpt2", 2, 1, 1, 64, "fp32", "", False, True, 2, 0),
    # LitGPT's LoRA: the logits cast to fp32 and held by the loop, the loss in chunks, the
    # embeddings' output asking for no gradient
    ("mistral-7b", 2, 4, 1, 2048, "bf16", "8 q,v", False, False, 1, 128),
    # an adapter on the output layer too: its output and its scaled copy beside the logits,
    # the logits' gradient scaled in backward; under autocast and in LitGPT's chunks
    ("mistral-7b", 2, 4, 2, 512, "bf16-amp", "8 q,v,head", False, False, 1, 0),
    ("mistral-7b", 2, 4, 1, 2048, "bf16", "8 q,v,head", False, False, 1, 128),
    # QLoRA: bitsandbytes' 4-bit matmul before 0.43.2 keeps every frozen projection's input,
    # its matrix dequantized a layer at a time (models.Linear4bit)
    ("mistral-7b", 2, 4, 2, 512, "bf16", "8 q,v qlora", False, False, 1, 0),
    # PEFT's QLoRA adapters stay fp32 in a bf16 model, and without autocast each casts its
    # input to fp32 and keeps that copy (qlora_adapters_fp32)
    ("mistral-7b", 2, 4, 2, 512, "bf16", "8 q,v qlora", False, False, 1, 0, "fp32-adapters"),
    # BERT fine-tuned to classify (--head cls): post-norm layers, the pooler and classifier
    ("bert-large-uncased", 2, 4, 4, 512, "fp32", "", False, False, 1, 0),
    ("bert-large-uncased", 2, 4, 4, 512, "bf16-amp", "", False, False, 1, 0),
    ("bert-large-uncased", 2, 4, 4, 512, "bf16", "", False, False, 1, 0),
    # dropout as CUDA's fused kernels run it (models.FusedDropout): a bool mask kept
    ("bert-large-uncased", 2, 4, 4, 512, "fp32", "", False, False, 1, 0, "dropout"),
    ("bert-large-uncased", 2, 4, 4, 512, "bf16-amp", "", False, False, 1, 0, "dropout"),
    ("gpt2", 2, 1, 8, 512, "fp32", "", False, False, 1, 0, "dropout"),
    ("mistral-7b", 2, 4, 2, 512, "bf16-amp", "8 q,v", False, False, 1, 0, "dropout"),
    # DistilBERT whole under autocast: the peak in the last layer's attention, where the
    # encoder holds its scores, q, k, v and the dropout's fp32 output until it returns
    ("distilbert-base-uncased", 6, 1, 12, 512, "bf16-amp", "", False, False, 1, 0, "dropout"),
    # transformers' eager attention in pure bf16: the fp32 softmax kept and its bf16 cast
    ("mistral-7b", 2, 4, 2, 512, "bf16", "", False, False, 1, 0, "softmax-fp32"),
    ("mistral-7b", 2, 4, 2, 1024, "bf16", "8 q,v", False, False, 1, 0, "softmax-fp32"),
]
# Cases small enough to compute in 16 bits: each runs with its 16-bit products computed and
# not (uncomputed_products); the two must peak in the same phase (or one within TIE) within
# CHECK_TARGET (the resident set moves by a few pages from run to run) and reserve the same
# bytes.
CHECKS = [
    ("gpt2", 2, 1, 1, 64, "bf16", "", False, False, 1, 0),
    ("mistral-7b", 2, 4, 1, 128, "bf16-amp", "8 q,v", False, False, 1, 0),
]
CHECK_TARGET = 0.001


def status_kib(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


class Phases:
    """Peak resident bytes over a baseline, per phase; where the process is traced
    (alloc-trace.c), the same phases as lines of the trace too, the step measured between
    START and STOP, and LOADED once the model is as a GPU would receive it."""

    def __init__(self, trace=None):
        self.active, self.name, self.peaks, self.base = False, None, [], 0
        self.trace = os.open(trace, os.O_WRONLY | os.O_APPEND | os.O_CREAT) if trace else None

    def mark(self, text):
        if self.trace is not None:
            os.write(self.trace, ("m %s\n" % text).encode())

    def start(self, name):
        self.base = status_kib("VmRSS")
        self.active = True
        self._reset()
        self.name = name
        self.mark("START " + name)

    def _reset(self):
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")

    def begin(self, name):
        if not self.active:
            return
        self.peaks.append((self.name, status_kib("VmHWM") - self.base))
        self._reset()
        self.name = name
        self.mark(name)

    def stop(self):
        self.begin(None)
        self.active = False
        self.mark("STOP")


def uncomputed_products():
    """A dispatch mode under which a matrix product of 16-bit matrices is made but not
    computed: its output is allocated and zero-filled, as the kernel allocates and writes
    it.  Debian's torch 1.13 multiplies bf16 matrices on a CPU without AVX-512 in a scalar
    loop at a few GFLOP/s (over half an hour for these cases), and nothing this script measures (the
    storages, their bytes and order, the resident set) depends on the values.  Only
    operands that addmm_impl_cpu_ takes as they are (row- or column-major) are left
    uncomputed; it copies any others first, and those products run."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    aten = torch.ops.aten

    def taken_as_is(m):
        """addmm_impl_cpu_'s test of an operand that BLAS takes without a copy: row- or
        column-major, its leading dimension at least a row's or a column's length; bmm
        multiplies a batch's matrices in turn, all of one layout."""
        (rows, cols), (s0, s1) = m.shape[-2:], m.stride()[-2:]
        return (s1 == 1 and s0 >= max(1, cols)) or (s0 == 1 and s1 >= max(1, rows))

    class UncomputedProducts(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func in (aten.mm.default, aten.addmm.default, aten.bmm.default):
                m1, m2 = args[-2], args[-1]
                if m1.dtype in (torch.bfloat16, torch.float16) and taken_as_is(m1) and \
                        taken_as_is(m2):
                    return torch.zeros(m1.shape[:-1] + m2.shape[-1:], dtype=m1.dtype)
            return func(*args, **kwargs)
    return UncomputedProducts()


def child(arch, batch, seq, precision, lora, recompute, foreach, accum, chunk):
    import contextlib
    import torch
    import measure
    import models
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = models.build(models.complete(arch), recompute)
    if lora:
        rank, targets = lora.split()[:2]
        models.add_lora(model, int(rank), targets.split(","), input_grad=not chunk)
    if precision == "bf16":  # the adapters too, as pure bf16 training holds them
        model.to(torch.bfloat16)
    if "qlora" in lora.split():  # quantized from the dtype the model is now in
        models.quantize_4bit(model)
    if arch.get("_fp32_adapters"):  # PEFT's on 4-bit layers: fp32, the input cast for each
        for mod in model.modules():
            if isinstance(mod, models.LoRA):
                mod.A.float()
                mod.B.float()
                mod.cast_input = True
    # the model arrives on a GPU as it is now, a tensor at a time: the trace starts here
    meter = Phases(os.environ.get("ALLOC_TRACE"))
    meter.mark("LOADED")
    with torch.no_grad():
        for t in list(model.parameters()) + list(model.buffers()):
            t.data = t.data.clone()
    model.train()
    autocast = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if precision == "bf16-amp" \
        else contextlib.nullcontext
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4,
                            foreach=foreach)
    ids = torch.randint(arch["vocab_size"], (batch, seq))
    targets = model.targets(batch, seq)
    backward = [False]  # a layer run in backward is its recomputation, part of its backward
    tag = [""]  # "micro-batch 2 " under accumulation, as vramlab names its phases
    for i, layer in enumerate(model.layers):
        def pre(mod, inputs, i=i):
            meter.begin("%s%s layer %d" % (tag[0], "backward" if backward[0] else "forward", i))
            if i == 0 and inputs[0].requires_grad and not backward[0]:
                inputs[0].register_hook(lambda g, t=tag[0]: meter.begin(t + "backward embedding"))

        def post(mod, inputs, out, i=i):
            if out.requires_grad:  # not in a checkpointed forward, which keeps no graph
                out.register_hook(lambda g, i=i, t=tag[0]:
                                  meter.begin("%sbackward layer %d" % (t, i)))
        layer.register_forward_pre_hook(pre)
        layer.register_forward_hook(post)
    model.head_entry.register_forward_pre_hook(lambda mod, inputs: meter.begin(tag[0] + "loss"))

    # 16-bit products made, not computed (uncomputed_products), unless the case is CHECK's
    compute = precision == "fp32" or os.environ.get("COMPUTE_PRODUCTS") == "1"
    with contextlib.nullcontext() if compute else uncomputed_products():
        for step in range(2):
            if step == 1:
                gc.collect()
                state = (measure.parameter_bytes(model) +
                         measure.unique_bytes(v for st in opt.state.values() for v in st.values()
                                              if isinstance(v, torch.Tensor)))
            for mb in range(accum):
                tag[0] = "micro-batch %d " % (mb + 1) if accum > 1 else ""
                if step == 1 and mb == 0:
                    meter.start(tag[0] + "forward embedding")
                else:
                    meter.begin(tag[0] + "forward embedding")
                with autocast():
                    if chunk:
                        logits, loss = model.chunked(ids, targets, chunk)
                    else:
                        logits, loss = None, model(ids, targets)
                meter.begin(tag[0] + "loss backward")
                backward[0] = True
                (loss / accum).backward()
                backward[0] = False
                del logits, loss
            meter.begin("optimizer step")
            opt.step()
            meter.begin("zero_grad")
            opt.zero_grad(set_to_none=True)
    meter.stop()
    name, rise = max(meter.peaks, key=lambda p: p[1])
    print(json.dumps({"peak": state + rise, "phase": name, "phases": meter.peaks}))


def measured(predict, trace_lib, arch, batch, seq, precision, lora, recompute, foreach, accum,
             chunk, compute=False):
    """The case's resident peaks, phase by phase, and its storages traced and replayed
    through the caching allocator, (tensors, allocated, reserved); compute: its 16-bit
    products too."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace")
        env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="16384", MALLOC_TRIM_THRESHOLD_="0",
                   MALLOC_TOP_PAD_="0", OMP_NUM_THREADS="1", LD_PRELOAD=trace_lib,
                   ALLOC_TRACE=trace, COMPUTE_PRODUCTS=str(int(compute)))
        out = subprocess.run([sys.executable, "-B", os.path.abspath(__file__), "--child",
                              json.dumps(arch), str(batch), str(seq), precision, lora,
                              str(int(recompute)), str(int(foreach)), str(accum), str(chunk)],
                             env=env, check=True, capture_output=True, text=True).stdout
        replay = subprocess.run([predict, "--replay", trace], check=True, capture_output=True,
                                text=True).stdout
    return json.loads(out.strip().splitlines()[-1]), tuple(int(x) for x in replay.split())


# The framework the CPU runs: plain modules (pytorch), each tensor its own bytes (no caching
# allocator), AdamW's loop over the tensors as torch on the CPU steps it unless a case asks
# for foreach; under LoRA, what autograd saves with frozen weights.  A framework preset over
# the built-in, as a user writes one (vramlab-presets(5)).
CPU_FRAMEWORK = {"kind": "framework", "name": "validate-cpu", "base": "pytorch",
                 "allocator": "exact", "optimizer_impl": "single-tensor",
                 "prune_frozen_saves": True}


def denom_copy(version):
    """Whether foreach AdamW in this PyTorch release keeps denom beside the square roots:
    releases before 2.1 (vramlab-presets(5), foreach_denom_copy)."""
    major, minor = (int(x) for x in version.split("+")[0].split(".")[:2])
    return (major, minor) < (2, 1)


def predicted(predict, allocator, arch, batch, seq, precision, lora, recompute, foreach, accum,
              chunk):
    """The timeline's peak of the same step, by vramlab's flags (--overhead 0: no CUDA
    context, no cuBLAS workspace), under the allocator named: (tensors, allocated,
    reserved, phase)."""
    import models
    import torch
    import yaml
    framework = dict(CPU_FRAMEWORK, allocator=allocator)
    if foreach:
        framework.update(optimizer_impl="foreach", foreach_denom_copy=denom_copy(torch.__version__))
    if "qlora" in lora.split():  # models.Linear4bit computes in the dtype it was quantized from
        framework.update(compute_dtype="bf16" if precision == "bf16" else "fp32")
    if arch.get("_softmax_fp32"):  # transformers' eager softmax in fp32, cast back
        framework.update(softmax_fp32=True)
    if arch.get("_fp32_adapters"):  # PEFT's adapters on 4-bit layers, run without autocast
        framework.update(qlora_adapters_fp32=True)
    arch = {k: v for k, v in arch.items() if not k.startswith("_")}  # the preset's keys
    if chunk:  # the litgpt profile's loop, loss and frozen embeddings; no step before it
        framework.update(loss_chunk=chunk, logits_cast_in_model=True, loss_dtype="fp32",
                         loop_keeps_logits=True, frozen_embeddings_grad=False)
    with tempfile.TemporaryDirectory() as presets:
        model = os.path.join(presets, "validate-peak.yaml")
        with open(model, "w") as f:
            yaml.safe_dump({"kind": "model", "name": "validate-peak", "architecture": arch}, f,
                           sort_keys=False)
        os.mkdir(os.path.join(presets, "frameworks"))
        with open(os.path.join(presets, "frameworks", "validate-cpu.yaml"), "w") as f:
            yaml.safe_dump(framework, f, sort_keys=False)
        adapters = lora.split()
        lora = ["--lora-rank", adapters[0], "--lora-targets", adapters[1]] if adapters else []
        if "qlora" in adapters:  # models.Linear4bit: bitsandbytes 0.42's, no double quantization
            # (its release dates no other: the modules are written out, --as-of current)
            lora += ["--qlora", "--no-double-quant", "--bitsandbytes", "0.42", "--as-of",
                     "current"]
        out = subprocess.run(
            [predict, "--one", "--framework", "validate-cpu", "--preset-file", model,
             "--precision", precision, "--batch", str(batch), "--seq", str(seq),
             "--overhead", "0", "--grad-accum", str(accum)] + lora +
            (["--loop-keeps-logits", "false"] if chunk else []) +
            (["--head", "cls"] if models.encoder(arch) else []) +
            (["--recompute", "full"] if recompute else []),
            env=dict(os.environ, VRAMLAB_PRESETS=os.path.join(presets, "frameworks")),
            check=True, capture_output=True, text=True).stdout.split(maxsplit=3)
    return int(out[0]), int(out[1]), int(out[2]), out[3].strip()


def peaks_in(got, phase):
    """Whether the measured step peaks in phase: the measured peak's, or one whose own
    measured rise is within TIE of it (two phases tie: the resident set cannot tell)."""
    rises = {}
    for p, r in got["phases"]:
        rises[p] = max(rises.get(p, 0), r)
    return phase == got["phase"] or (
        phase in rises and max(rises.values()) - rises[phase] <= TIE * got["peak"])


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5],
              sys.argv[6], sys.argv[7] == "1", sys.argv[8] == "1", int(sys.argv[9]),
              int(sys.argv[10]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--predict", required=True, help="tests/validate/predict")
    ap.add_argument("--presets", required=True, help="the folder of model presets")
    ap.add_argument("--trace-lib", required=True,
                    help="tests/validate/alloc-trace.so, preloaded to trace the storages")
    ap.add_argument("--case", help="run only the cases whose name contains this")
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                    help="cases run at once, each in its own process (default: the CPUs "
                    "this process may use); a case's resident set is its own")
    args = ap.parse_args()
    import models

    def named(table):
        """The table's cases that --case names, as (name, measured()'s arguments)."""
        out = []
        for preset, layers, divisor, batch, seq, precision, lora, recompute, foreach, accum, \
                chunk, *flags in table:
            dropout = "dropout" in flags
            upcast = "softmax-fp32" in flags
            fp32_adapters = "fp32-adapters" in flags
            name = "%s/%d %s b=%d s=%d%s%s%s%s%s" % (
                preset, divisor, precision, batch, seq,
                " %s r=%s %s" % (("QLoRA" if "qlora" in lora else "LoRA",) +
                                 tuple(lora.split()[:2])) if lora else "",
                " recompute" if recompute else "", " foreach" if foreach else "",
                " x%d micro-batches" % accum if accum > 1 else "",
                " LitGPT loss chunks of %d" % chunk if chunk else "")
            name += (" dropout" if dropout else "") + (" softmax in fp32" if upcast else "") + \
                (" fp32 adapters" if fp32_adapters else "")
            if not args.case or args.case in name:
                arch = models.from_preset(args.presets, preset, layers, divisor, dropout)
                if upcast:  # models.Attention's, and the framework's softmax_fp32
                    arch["_softmax_fp32"] = True
                if fp32_adapters:  # child()'s adapters, and the framework's qlora_adapters_fp32
                    arch["_fp32_adapters"] = True
                out.append((name, (arch, batch, seq, precision, lora, recompute, foreach,
                                   accum, chunk)))
        return out
    cases, checks = named(CASES), named(CHECKS)

    def computed(case):
        return (measured(args.predict, args.trace_lib, *case[1]),
                measured(args.predict, args.trace_lib, *case[1], compute=True))

    def run(case):
        got, replay = measured(args.predict, args.trace_lib, *case[1])
        return (got, predicted(args.predict, "exact", *case[1]), replay,
                predicted(args.predict, "caching", *case[1]))
    ok = ok_reserved = True
    reserved_rows = []
    print("%-56s %14s %14s %8s  %-34s %s" % ("case", "measured", "timeline", "error",
                                           "measured phase", "timeline phase"))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        both = [pool.submit(computed, case) for case in checks]
        for (name, _), (got, pred, replay, cached) in zip(cases, pool.map(run, cases)):
            pred, phase = pred[0], pred[3]
            err = (pred - got["peak"]) / got["peak"]
            good = abs(err) <= TARGET and peaks_in(got, phase)
            ok = ok and good
            print("%-56s %14s %14s %+7.2f%%  %-34s %s%s" % (
                name, format(got["peak"], ","),
                format(pred, ","), 100 * err, got["phase"], phase, "" if good else "  MISS"),
                flush=True)
            rerr = (cached[2] - replay[2]) / replay[2]
            ok_reserved = ok_reserved and abs(rerr) <= RESERVED_TARGET
            reserved_rows.append("%-56s %14s %14s %+7.2f%%%s" % (
                name, format(replay[2], ","), format(cached[2], ","), 100 * rerr,
                "" if abs(rerr) <= RESERVED_TARGET else "  MISS"))
    print("\npeak within %g%% and in the same phase: %s" % (100 * TARGET,
                                                          "all cases" if ok else "NOT ALL"))
    print("\n%-56s %14s %14s %8s" % ("reserved by the caching allocator", "replayed",
                                      "timeline", "error"))
    print("\n".join(reserved_rows))
    print("\nreserved within %g%% of the real storages' replay: %s" % (
        100 * RESERVED_TARGET, "all cases" if ok_reserved else "NOT ALL"))

    print("\n%-56s %14s %14s %8s" % ("16-bit products not computed, and computed", "peak",
                                      "computed", "error"))
    ok_products = True
    for (name, _), future in zip(checks, both):
        (got, replay), (real, real_replay) = future.result()
        err = (got["peak"] - real["peak"]) / real["peak"]
        same = abs(err) <= CHECK_TARGET and peaks_in(got, real["phase"]) and \
            replay[2] == real_replay[2]
        ok_products = ok_products and same
        print("%-56s %14s %14s %+7.3f%%  %s, reserved %s%s" % (
            name, format(got["peak"], ","), format(real["peak"], ","), 100 * err,
            got["phase"] if got["phase"] == real["phase"] else "%s against %s" % (
                got["phase"], real["phase"]),
            "the same" if replay[2] == real_replay[2] else "%s against %s" % (
                format(replay[2], ","), format(real_replay[2], ",")), "" if same else "  MISS"))
    print("\nthe same step either way (peak within %g%%, phase, reserved bytes): %s" % (
        100 * CHECK_TARGET, "all cases" if ok_products else "NOT ALL"))
    return 0 if ok and ok_reserved and ok_products else 1


if __name__ == "__main__":
    sys.exit(main())
