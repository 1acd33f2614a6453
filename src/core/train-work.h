/* train-work.h: what the training kernels of `vramlab probe train` compute, element by
 * element (HACKING §5).  One source for both backends: the CPU emulation (cpu-kernels.c)
 * loops over the items of an operation, the CUDA kernels (cuda/train_kernels.cu) give each
 * item a thread, and both call these functions.  Only the casts differ, on purpose: the
 * includer defines VL_TRAIN_ROUND(f, x) (the software codecs on the CPU, CUDA's conversion
 * instructions on the GPU) and VL_TRAIN_COUNT / VL_TRAIN_MAX (plain or atomic).
 *
 * Bit-identical by construction: every float operation is one IEEE operation written out
 * (the build has -ffp-contract=off and nvcc --fmad=false, so a * b + c is never fused),
 * every sum runs in one fixed order (a matrix product's k from 0 up, a column sum's rows
 * from 0 up), counters are integers, and exp and log are the polynomials below rather than
 * libm's or CUDA's, which differ from each other in the last bit. */
#ifndef VL_TRAIN_WORK_TYPES_H
#define VL_TRAIN_WORK_TYPES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"

/* The operations of a training step.  Offsets are in floats into one arena of tensors
 * (train.c lays it out); counts is the first of VL_N_CLASSES counters, or VL_TOP_NONE. */
typedef enum {
    VL_TOP_CAST,      /* c[i] = x * scale rounded to fmt, x = a[i]; classes counted */
    VL_TOP_MATMUL,    /* c = fmt(relu?(alpha * op(a)[m x k] op(b)[k x n] + bias)) */
    VL_TOP_RELU_BACK, /* c[i] = b[i] > 0 ? a[i] : 0 (b: the layer's output) */
    VL_TOP_COLSUM,    /* c[j] = fmt(alpha * sum over rows i of a[i][j]), a m x n */
    VL_TOP_LOSS,      /* softmax cross-entropy of rows a[m x n], labels b[m]: see below */
    VL_TOP_ADAM,      /* one Adam step of weights a with gradients b, moments c and d */
    VL_TOP_AMAX,      /* counter counts = the largest |a[i]|, as fp32 bits */
    VL_N_TOPS
} vl_top_kind;

#define VL_TOP_NONE UINT32_MAX

typedef struct vl_top {
    int32_t kind;  /* vl_top_kind */
    int32_t fmt;   /* the format of the result (vl_format) */
    int32_t acc;   /* MATMUL: the accumulator's format, VL_FMT_F32 or the inputs' */
    int32_t relu;  /* MATMUL: max(0, .) before the cast */
    int32_t ta, tb; /* MATMUL: a is stored k x m (a transposed), b is stored n x k */
    uint32_t m, n, k;
    uint32_t a, b, c, d, bias; /* offsets; bias VL_TOP_NONE for none */
    uint32_t counts;
    float scale; /* CAST: the factor; LOSS: the factor of the gradients */
    float alpha; /* MATMUL, COLSUM: the factor of the sums (per-tensor scales undone) */
    /* ADAM: lr, beta1, 1 - beta1, beta2, 1 - beta2, eps, 1 - beta1^t, 1 - beta2^t, and the
     * factor that unscales the gradients (1 / loss scale) */
    float lr, b1, c1, b2, c2, eps, bc1, bc2, unscale;
} vl_top;

#endif

/* The functions, for an includer that defined the casts and the counters. */
#if defined(VL_TRAIN_ROUND) && !defined(VL_TRAIN_WORK_H)
#define VL_TRAIN_WORK_H
#if !defined(VL_TRAIN_COUNT) || !defined(VL_TRAIN_MAX)
#error "define VL_TRAIN_COUNT and VL_TRAIN_MAX with VL_TRAIN_ROUND"
#endif

/* The number of items (threads) of an operation. */
static inline VL_HD uint32_t vl_tw_items(const vl_top *op)
{
    switch (op->kind) {
    case VL_TOP_MATMUL: return op->m * op->n;
    case VL_TOP_COLSUM: return op->n;
    case VL_TOP_LOSS: return op->m;
    default: return op->n;
    }
}

static inline VL_HD float vl_tw_min_normal(int f)
{
    switch (f) {
    case VL_FMT_F16: return 0x1p-14f;
    case VL_FMT_E4M3: return 0x1p-6f;
    case VL_FMT_E5M2: return 0x1p-14f;
    default: return 0x1p-126f; /* fp32, bf16 */
    }
}

/* y = x * scale rounded to f, its class counted at cnt[counts] (vl_classify_cast of the
 * product, and flushed, not zero, when x is not 0 but the product is). */
static inline VL_HD float vl_tw_cast(int f, float x, float scale, uint32_t *cnt, uint32_t counts)
{
    float y = x * scale, v = VL_TRAIN_ROUND(f, y);
    if (counts != VL_TOP_NONE) {
        int c;
        if (isnan(y))
            c = VL_CLS_NAN;
        else if (x == 0)
            c = VL_CLS_ZERO;
        else if (v == 0)
            c = VL_CLS_FLUSHED;
        else if (isinf(v) || isnan(v)) /* E4M3 overflows to NaN */
            c = VL_CLS_INF;
        else
            c = fabsf(v) < vl_tw_min_normal(f) ? VL_CLS_SUBNORMAL : VL_CLS_NORMAL;
        VL_TRAIN_COUNT(&cnt[counts + (uint32_t)c], 1u);
    }
    return v;
}

/* ---- exp and log: + - * / only, the same on every machine ----------------------------- */

/* e^x for x <= 0 (softmax after the largest logit is subtracted): x = k ln2 + r with
 * ln 2 in two parts (Cody and Waite 1980; k * hi is exact, hi having 14 bits and |k| <=
 * 126), e^r by its Taylor series to r^7 (|r| <= ln2/2: the next term is below 2^-27), then
 * times 2^k built from bits.  Below -87 the result would be subnormal: 0. */
static inline VL_HD float vl_tw_exp(float x)
{
    if (isnan(x))
        return x;
    if (!(x >= -87.0f))
        return 0.0f;
    float k = floorf(x * 1.44269504f + 0.5f);
    float r = (x - k * 0.693145751953125f) - k * 1.42860677e-6f;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    return p * vl_f32_from_bits((uint32_t)((int32_t)k + 127) << 23);
}

/* ln x for a normal x > 0: x = 2^e m with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s),
 * s = (m - 1) / (m + 1) (|s| <= 0.172), by its series to s^11 (the next term is below
 * 2^-30). */
static inline VL_HD float vl_tw_log(float x)
{
    uint32_t u = vl_f32_bits(x);
    int32_t e = (int32_t)(u >> 23) - 127;
    float m = vl_f32_from_bits((u & 0x7FFFFF) | 0x3F800000);
    if (m > 1.41421356f) {
        m = m * 0.5f;
        e++;
    }
    float s = (m - 1.0f) / (m + 1.0f), s2 = s * s;
    float p = 1.0f / 11.0f;
    p = p * s2 + 1.0f / 9.0f;
    p = p * s2 + 1.0f / 7.0f;
    p = p * s2 + 1.0f / 5.0f;
    p = p * s2 + 1.0f / 3.0f;
    p = p * s2 + 1.0f;
    float fe = (float)e;
    return fe * 0.693145751953125f + (2.0f * s * p + fe * 1.42860677e-6f);
}

/* ---- the items ------------------------------------------------------------------------- */

/* Element (i, kk) of op(a) and (kk, j) of op(b). */
static inline VL_HD float vl_tw_mm_a(const vl_top *op, const float *mem, uint32_t i, uint32_t kk)
{
    return op->ta ? mem[op->a + (size_t)kk * op->m + i] : mem[op->a + (size_t)i * op->k + kk];
}

static inline VL_HD float vl_tw_mm_b(const vl_top *op, const float *mem, uint32_t kk, uint32_t j)
{
    return op->tb ? mem[op->b + (size_t)j * op->k + kk] : mem[op->b + (size_t)kk * op->n + j];
}

/* One step of a dot product: the product is exact in fp32 for every narrow format (at
 * most 2 x 11 significant bits); the sum is rounded to the accumulator's format. */
static inline VL_HD float vl_tw_mm_step(int acc, float s, float a, float b)
{
    float p = a * b;
    return acc == VL_FMT_F32 ? s + p : VL_TRAIN_ROUND(acc, s + p);
}

/* The epilogue of element (i, j): scale, bias, relu, cast.  NaN passes relu, as in torch. */
static inline VL_HD void vl_tw_mm_store(const vl_top *op, float *mem, uint32_t *cnt, uint32_t i,
                                        uint32_t j, float s)
{
    float v = s * op->alpha;
    if (op->bias != VL_TOP_NONE)
        v = v + mem[op->bias + j];
    if (op->relu && v < 0)
        v = 0.0f;
    mem[op->c + (size_t)i * op->n + j] = vl_tw_cast(op->fmt, v, 1.0f, cnt, op->counts);
}

static inline VL_HD void vl_tw_matmul_item(const vl_top *op, float *mem, uint32_t *cnt,
                                           uint32_t item)
{
    uint32_t i = item / op->n, j = item % op->n;
    float s = 0.0f;
    for (uint32_t kk = 0; kk < op->k; kk++)
        s = vl_tw_mm_step(op->acc, s, vl_tw_mm_a(op, mem, i, kk), vl_tw_mm_b(op, mem, kk, j));
    vl_tw_mm_store(op, mem, cnt, i, j, s);
}

/* Row r of the loss: the softmax p of the logits z (fp32), ln(sum e^(z - max)) - (z_y -
 * max) = -ln p_y in d[r], 1 in d[m + r] when the first largest logit is the label's, and
 * the gradient (p_j - [j = y]) * scale in c, in fp32: the cast to the gradients' format
 * is the next operation, as autocast runs the loss in fp32. */
static inline VL_HD void vl_tw_loss_item(const vl_top *op, float *mem, uint32_t r)
{
    const float *z = mem + op->a + (size_t)r * op->n;
    float *g = mem + op->c + (size_t)r * op->n;
    uint32_t y = (uint32_t)mem[op->b + r], top = 0;
    float mx = z[0], sum = 0.0f;
    for (uint32_t j = 1; j < op->n; j++)
        if (z[j] > mx) {
            mx = z[j];
            top = j;
        }
    for (uint32_t j = 0; j < op->n; j++) {
        g[j] = vl_tw_exp(z[j] - mx);
        sum = sum + g[j];
    }
    mem[op->d + r] = vl_tw_log(sum) - (z[y] - mx);
    mem[op->d + op->m + r] = top == y ? 1.0f : 0.0f;
    for (uint32_t j = 0; j < op->n; j++)
        g[j] = (g[j] / sum - (j == y ? 1.0f : 0.0f)) * op->scale;
}

/* Adam (Kingma and Ba 2015, Algorithm 1; torch.optim.Adam without weight decay) on weight
 * i: g unscaled, the moments in fp32, and the new weight rounded to the weights' format
 * (fp32 for master weights, the compute format for weights kept without them). */
static inline VL_HD void vl_tw_adam_item(const vl_top *op, float *mem, uint32_t i)
{
    float g = mem[op->b + i] * op->unscale;
    float m = op->b1 * mem[op->c + i] + op->c1 * g;
    float v = op->b2 * mem[op->d + i] + op->c2 * (g * g);
    float step = op->lr * (m / op->bc1) / (sqrtf(v / op->bc2) + op->eps);
    mem[op->c + i] = m;
    mem[op->d + i] = v;
    mem[op->a + i] = VL_TRAIN_ROUND(op->fmt, mem[op->a + i] - step);
}

/* Item i of any operation but MATMUL, whose CUDA kernel tiles (vl_tw_matmul_item is its
 * untiled form). */
static inline VL_HD void vl_tw_item(const vl_top *op, float *mem, uint32_t *cnt, uint32_t i)
{
    switch (op->kind) {
    case VL_TOP_CAST:
        mem[op->c + i] = vl_tw_cast(op->fmt, mem[op->a + i], op->scale, cnt, op->counts);
        break;
    case VL_TOP_MATMUL: vl_tw_matmul_item(op, mem, cnt, i); break;
    case VL_TOP_RELU_BACK: mem[op->c + i] = mem[op->b + i] > 0 ? mem[op->a + i] : 0.0f; break;
    case VL_TOP_COLSUM: {
        float s = 0.0f;
        for (uint32_t r = 0; r < op->m; r++)
            s = s + mem[op->a + (size_t)r * op->n + i];
        mem[op->c + i] = vl_tw_cast(op->fmt, s * op->alpha, 1.0f, cnt, op->counts);
        break;
    }
    case VL_TOP_LOSS: vl_tw_loss_item(op, mem, i); break;
    case VL_TOP_ADAM: vl_tw_adam_item(op, mem, i); break;
    case VL_TOP_AMAX:
        VL_TRAIN_MAX(&cnt[op->counts], vl_f32_bits(mem[op->a + i]) & 0x7FFFFFFFu);
        break;
    }
}

#endif
