#!/usr/bin/env python3
"""train_numpy.py: `vramlab probe train` against an independent NumPy implementation of the
same network (src/core/train.h): the same data and initial weights from splitmix64, the
same operations in the same order in float32 (each matrix product summed over k from 0
up, column sums over rows from 0 up, exp and log by the same polynomials), fp16 rounding by
NumPy's float16, bf16 by rounding the float32 bits to nearest even, and fp8 E4M3 and E5M2
(with their per-tensor power-of-two scales) by rounding in float64 at the format's quantum.

The tolerance is zero, for every regime, step by step and for the final loss: NumPy's
float32 +, *, / and sqrt are IEEE operations as vramlab's are (-ffp-contract=off: none
fused), both round to nearest even in every format, and the order of every sum is the
same, so there is no rounding left to differ; the float64 means are summed in the same
order too.  Any difference is a bug in one of the two.  Every regime runs with sums in
fp32 (STEPS steps) and with sums in the products' format (a third as many: slower here).

usage: train_numpy.py VRAMLAB [STEPS]"""
import json
import math
import subprocess
import sys

import numpy as np

D, H, C, B, ROWS, TH = 16, 32, 4, 64, 512, 32
GLOBAL = 2 ** 24
f32 = np.float32
M64 = (1 << 64) - 1


class SplitMix:
    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def fill(self, n, bound):
        out = np.empty(n, dtype=np.float32)
        for i in range(n):
            u = (self.next() >> 11) * 2.0 ** -53
            out[i] = f32((2.0 * u - 1.0) * bound)
        return out


def rounder(man_bits, min_exp, max_value, has_inf):
    """Round float32 values to nearest even in a format with man_bits stored mantissa bits,
    smallest normal exponent min_exp (gradual underflow below it) and largest finite value
    max_value; past it inf, or NaN for a format without inf (fp8 E4M3, not saturating)."""
    def rnd(x):
        x = np.asarray(x, dtype=np.float32)
        a = np.abs(x.astype(np.float64))
        with np.errstate(invalid="ignore", divide="ignore"):
            _, e = np.frexp(np.where(np.isfinite(a) & (a > 0), a, 1.0))
            q = np.ldexp(1.0, np.maximum(e - 1, min_exp) - man_bits)
            r = np.round(a / q) * q
            over = np.inf if has_inf else np.nan
            r = np.where(r > max_value, over, r)
            r = np.where(np.isinf(a), over, r)
            r = np.where(np.isnan(a), np.nan, r)
        return (np.copysign(r, x.astype(np.float64))).astype(np.float32)
    return rnd


def r_fp32(x):
    return np.asarray(x, dtype=np.float32)


def r_fp16(x):
    return x.astype(np.float16).astype(np.float32)


def r_bf16(x):
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return b.view(np.float32)


r_e4m3 = rounder(3, -6, 448.0, False)
r_e5m2 = rounder(2, -14, 57344.0, True)
FMT_MAX = {r_e4m3: 448.0, r_e5m2: 57344.0}


def exp_poly(x):
    with np.errstate(invalid="ignore", over="ignore"):
        k = np.floor(x * f32(1.44269504) + f32(0.5))
        r = (x - k * f32(0.693145751953125)) - k * f32(1.42860677e-6)
        p = f32(1) / f32(5040)
        for c in (f32(1) / f32(720), f32(1) / f32(120), f32(1) / f32(24), f32(1) / f32(6),
                  f32(0.5), f32(1), f32(1)):
            p = p * r + c
        kk = np.clip(k, -126, 127).astype(np.int32)
        two_k = ((kk + 127).astype(np.uint32) << 23).view(np.float32)
        out = p * two_k
    return np.where(x >= f32(-87), out, f32(0)).astype(np.float32)


def log_poly(x):
    u = x.astype(np.float32).view(np.uint32)
    e = (u >> 23).astype(np.int32) - 127
    m = ((u & 0x7FFFFF) | 0x3F800000).view(np.float32)
    big = m > f32(1.41421356)
    m = np.where(big, m * f32(0.5), m)
    e = e + big
    s = (m - f32(1)) / (m + f32(1))
    s2 = s * s
    p = f32(1) / f32(11)
    for c in (f32(1) / f32(9), f32(1) / f32(7), f32(1) / f32(5), f32(1) / f32(3), f32(1)):
        p = p * s2 + c
    fe = e.astype(np.float32)
    return fe * f32(0.693145751953125) + (f32(2) * s * p + fe * f32(1.42860677e-6))


def matmul(a, b, rnd, acc_rnd, alpha=f32(1), bias=None, relu=False):
    s = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
    for k in range(a.shape[1]):
        s = s + a[:, k, None] * b[None, k, :]
        if acc_rnd is not None:
            s = acc_rnd(s)
    v = s * alpha
    if bias is not None:
        v = v + bias[None, :]
    if relu:
        v = np.where(v < 0, f32(0), v)
    return rnd(v).astype(np.float32)


def colsum(a, rnd):
    s = np.zeros(a.shape[1], dtype=np.float32)
    for r in range(a.shape[0]):
        s = s + a[r]
    return rnd(s)


# forward products' inputs, backward products' inputs, what the products write, the
# weights (fp32: master weights), loss scaling, per-tensor scaling (src/core/train.c)
REGIMES = {
    "fp32": (r_fp32, r_fp32, r_fp32, r_fp32, "none", False),
    "fp16": (r_fp16, r_fp16, r_fp16, r_fp16, "none", False),
    "fp16-static": (r_fp16, r_fp16, r_fp16, r_fp32, "static", False),
    "fp16-dynamic": (r_fp16, r_fp16, r_fp16, r_fp32, "dynamic", False),
    "bf16": (r_bf16, r_bf16, r_bf16, r_fp32, "none", False),
    "bf16-pure": (r_bf16, r_bf16, r_bf16, r_bf16, "none", False),
    "fp8": (r_e4m3, r_e5m2, r_bf16, r_fp32, "none", True),
}


def tensor_scale(t, rnd, per_tensor):
    """The power of two that takes max |t| to at most the format's largest value."""
    if not per_tensor:
        return f32(1)
    amax = float(np.abs(t).max())
    if amax == 0 or not math.isfinite(amax):
        return f32(1)
    e = math.frexp(FMT_MAX[rnd] / amax)[1] - 1
    return f32(2.0 ** max(-60, min(60, e)))


def data(seed):
    s = SplitMix(seed)
    tw1 = s.fill(D * TH, math.sqrt(6.0 / D)).reshape(D, TH)
    tb1 = s.fill(TH, 0.5)
    tw2 = s.fill(TH * C, math.sqrt(6.0 / TH)).reshape(TH, C)
    w1 = s.fill(D * H, math.sqrt(6.0 / D)).reshape(D, H)
    w2 = s.fill(H * C, math.sqrt(6.0 / (H + C))).reshape(H, C)
    x = s.fill(ROWS * D, 1.0).reshape(ROWS, D)
    z = np.broadcast_to(tb1.astype(np.float64), (ROWS, TH)).copy()
    for i in range(D):
        z = z + x[:, i, None].astype(np.float64) * tw1[i, None, :].astype(np.float64)
    logit = np.zeros((ROWS, C))
    for h in range(TH):
        zh = z[:, h:h + 1]
        logit = np.where(zh > 0, logit + zh * tw2[h].astype(np.float64), logit)
    y = np.argmax(logit, axis=1)
    return x, y, [w1, np.zeros(H, np.float32), w2, np.zeros(C, np.float32)]


def train(name, seed, steps, lr, in_format=False, static_scale=1024.0):
    fw, bw, st, rw, scaling, pt = REGIMES[name]
    fa = ba = st if in_format else None  # the sums rounded after each addition
    x, y, params = data(seed)
    params = [rw(p) for p in params]
    mom = [np.zeros_like(p) for p in params]
    vel = [np.zeros_like(p) for p in params]
    scale, tracker = f32(65536), 0
    b1, b2, eps = f32(0.9), f32(0.999), f32(1e-8)
    b1t = b2t = f32(1)
    losses = []

    def forward(rows, gscale):
        w1, bb1, w2, bb2 = params
        sx, sw1 = tensor_scale(x[rows], fw, pt), tensor_scale(w1, fw, pt)
        xc, w1c, b1c = fw(x[rows] * sx), fw(w1 * sw1), st(bb1)
        a1 = matmul(xc, w1c, st, fa, alpha=f32(1) / (sx * sw1), bias=b1c, relu=True)
        sh, sw2 = tensor_scale(a1, fw, pt), tensor_scale(w2, fw, pt)
        a1c, w2c, b2c = fw(a1 * sh), fw(w2 * sw2), st(bb2)
        logits = matmul(a1c, w2c, st, fa, alpha=f32(1) / (sh * sw2), bias=b2c)
        mx = logits.max(axis=1)
        e = exp_poly(logits - mx[:, None])
        tot = np.zeros(len(rows), np.float32)
        for j in range(C):
            tot = tot + e[:, j]
        zy = logits[np.arange(len(rows)), y[rows]]
        loss = log_poly(tot) - (zy - mx)
        onehot = (np.arange(C)[None, :] == y[rows][:, None]).astype(np.float32)
        g = (e / tot[:, None] - onehot) * gscale
        return (xc, sx, a1, a1c, sh, w2c, sw2), loss, g

    for t in range(steps):
        S = {"none": f32(1), "static": f32(static_scale), "dynamic": scale}[scaling]
        row0 = (t % (ROWS // B)) * B
        rows = np.arange(row0, row0 + B)
        (xc, sx, a1, a1c, sh, w2c, sw2), loss, dl = forward(rows, S * f32(2.0 ** -24))
        losses.append(float(f32(sum(float(v) for v in loss) / B)))
        sg = tensor_scale(dl, bw, pt)
        g2 = bw(dl * sg)
        dw2 = matmul(a1c.T.copy(), g2, st, ba, alpha=f32(1) / (sh * sg))
        db2 = st(colsum(g2, r_fp32) * (f32(1) / sg))
        dh = matmul(g2, w2c.T.copy(), st, ba, alpha=f32(1) / (sg * sw2))
        dz = np.where(a1 > 0, dh, f32(0)).astype(np.float32)
        sd = f32(1)
        if pt:
            sd = tensor_scale(dz, bw, pt)
            dz = bw(dz * sd)
        dw1 = matmul(xc.T.copy(), dz, st, ba, alpha=f32(1) / (sx * sd))
        db1 = st(colsum(dz, r_fp32) * (f32(1) / sd))
        grads = [dw1, db1, dw2, db2]
        found_inf = not all(np.isfinite(g).all() for g in [g2] + grads)
        if not (scaling != "none" and found_inf):
            b1t, b2t = b1t * b1, b2t * b2
            unscale = f32(1) / S
            for i, g in enumerate(grads):
                g = g * unscale
                mom[i] = b1 * mom[i] + (f32(1) - b1) * g
                vel[i] = b2 * vel[i] + (f32(1) - b2) * (g * g)
                step = f32(lr) * (mom[i] / (f32(1) - b1t)) / (
                    np.sqrt(vel[i] / (f32(1) - b2t)) + eps)
                params[i] = rw(params[i] - step)
        if scaling == "dynamic":
            if found_inf:
                scale, tracker = f32(scale * 0.5), 0
            elif tracker + 1 == 2000:
                scale, tracker = f32(scale * 2.0), 0
            else:
                tracker += 1
    total = 0.0
    for row0 in range(0, ROWS, B):
        loss = forward(np.arange(row0, row0 + B), f32(0))[1]
        total += sum(float(v) for v in loss) / B * B
    return losses, total / ROWS


def main():
    vramlab = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    failures = 0
    # sums in the format round after every addition: slower in NumPy, so fewer steps
    for accumulate, n in (("fp32", steps), ("format", max(1, steps // 3))):
        out = subprocess.run([vramlab, "probe", "train", "--backend", "cpu", "--format", "json",
                              "--steps", str(n), "--accumulate-in", accumulate],
                             check=True, capture_output=True, text=True).stdout
        doc = json.loads(out)
        seed, lr = doc["task"]["seed"], doc["task"]["lr"]
        for run in doc["runs"]:
            name = run["name"]
            losses, final = train(name, seed, n, lr, accumulate == "format")
            same = [f32(a) == f32(b) or (math.isnan(a) and math.isnan(b))
                    for a, b in zip(losses, run["loss"])]
            ok = all(same) and len(same) == n and final == run["final_loss"]
            where = "" if ok else " (first difference at step %s)" % (
                same.index(False) + 1 if not all(same) else "final")
            print("%s  %s, sums in %s: %d steps, every loss and the final loss (%.9g) "
                  "identical to NumPy's%s" % ("ok  " if ok else "FAIL", name, accumulate, n,
                                              final, where))
            failures += not ok
    print("train_numpy: %s" % ("all agree" if not failures else "%d FAILED" % failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
