/* train.c: the network of `vramlab probe train`, step by step on a backend (train.h).
 *
 * A step is a list of operations (train-work.h) on one arena of tensors; the host keeps
 * only the scalars: the per-tensor scales (powers of two from the tensors' largest values),
 * the loss scale and GradScaler's state, Adam's step count.  What it reads back per step
 * is small: 2 x VL_TRAIN_BATCH loss values and the class counters. */
#include "train.h"
#include "probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const vl_scaling_names[3] = {"none", "static", "dynamic"};

/* name, precision, forward products' inputs, backward products' inputs, stored
 * activations and gradients, weights, loss scaling, per-tensor scaling.  fp8: E4M3 for the
 * forward products and E5M2 for the gradients, each tensor scaled by a power of two so that
 * its largest value lands near the format's largest, and the products written in bf16, as
 * Transformer Engine does (its fp8 recipes; the products' outputs in higher precision). */
const vl_train_regime vl_train_regimes[VL_N_REGIMES] = {
    {"fp32", "fp32", VL_FMT_F32, VL_FMT_F32, VL_FMT_F32, VL_FMT_F32, VL_SCALING_NONE, false},
    {"fp16", "fp16 weights and gradients", VL_FMT_F16, VL_FMT_F16, VL_FMT_F16, VL_FMT_F16,
     VL_SCALING_NONE, false},
    {"fp16-static", "fp16 compute, fp32 master weights", VL_FMT_F16, VL_FMT_F16, VL_FMT_F16,
     VL_FMT_F32, VL_SCALING_STATIC, false},
    {"fp16-dynamic", "fp16 compute, fp32 master weights", VL_FMT_F16, VL_FMT_F16, VL_FMT_F16,
     VL_FMT_F32, VL_SCALING_DYNAMIC, false},
    {"bf16", "bf16 compute, fp32 master weights", VL_FMT_BF16, VL_FMT_BF16, VL_FMT_BF16,
     VL_FMT_F32, VL_SCALING_NONE, false},
    {"bf16-pure", "bf16 weights and gradients", VL_FMT_BF16, VL_FMT_BF16, VL_FMT_BF16,
     VL_FMT_BF16, VL_SCALING_NONE, false},
    {"fp8", "fp8 E4M3 forward, E5M2 gradients, per-tensor scales, fp32 master weights",
     VL_FMT_E4M3, VL_FMT_E5M2, VL_FMT_BF16, VL_FMT_F32, VL_SCALING_NONE, true},
};

const char *const vl_train_regime_names[VL_N_REGIMES] = {
    "fp32", "fp16", "fp16-static", "fp16-dynamic", "bf16", "bf16-pure", "fp8"};

void vl_train_opts_default(vl_train_opts *o)
{
    *o = (vl_train_opts){
        .steps = VL_TRAIN_STEPS,
        .lr = VL_TRAIN_LR,
        .seed = 1,
        .static_scale = VL_TRAIN_STATIC_SCALE,
        /* torch.amp.GradScaler's defaults */
        .scaler = {65536.0f, 2.0, 0.5, 2000},
    };
}

/* torch.optim.Adam's defaults */
#define BETA1 0.9f
#define BETA2 0.999f
#define EPS 1e-8f

#define TEACHER_HIDDEN 32

enum { D = VL_TRAIN_IN, H = VL_TRAIN_HIDDEN, C = VL_TRAIN_CLASSES, B = VL_TRAIN_BATCH };
/* the parameters, one block: W1 (D x H), b1, W2 (H x C), b2 */
enum { P_W1 = 0, P_B1 = D * H, P_W2 = P_B1 + H, P_B2 = P_W2 + H * C, NP = P_B2 + C };
/* counters: the gradient casts' classes, then one per largest-value reduction */
enum { CNT_GRAD = 0, CNT_AMAX = VL_N_CLASSES, N_CNT = VL_N_CLASSES + 1 };

struct vl_train_state {
    vl_backend *backend;
    vl_train_opts opts;
    size_t rows;
    float *x, *y; /* the data set, on the host, for replays */
    vl_train_mem m;
    /* offsets into the arena */
    uint32_t X, Y, P, PC, G, M, V, XC, A1, A1C, LOGITS, DL, G2, DH, DZ, DZC, LR;
    vl_scaler_state scaler;
    uint32_t adam_t;
    float b1t, b2t; /* beta^t, by repeated products (powf differs across libms) */
};

/* ---- the data and the initial weights: splitmix64 and the seed -------------------------- */

/* Uniform in [-bound, bound), from a multiple of 2^-53, rounded to float. */
static float symmetric(uint64_t *s, double bound)
{
    return (float)((2.0 * vl_uniform(s) - 1.0) * bound);
}

static void fill(uint64_t *s, float *w, size_t n, double bound)
{
    for (size_t i = 0; i < n; i++)
        w[i] = symmetric(s, bound);
}

/* Draws, in order: the teacher's W1 (D x 32, He-uniform: sqrt(6 / fan_in), as
 * torch.nn.init.kaiming_uniform_ for ReLU), b1 (uniform in [-1/2, 1/2)), W2 (32 x C, the
 * same bound as W1's); the student's W1 (He-uniform) and W2 (Glorot-uniform: sqrt(6 /
 * (fan_in + fan_out))); then, without --input, the rows' features (uniform in [-1, 1)).
 * The labels: the teacher's largest logit (the first of equals), in double. */
static void make_data(vl_train_state *st, float *params)
{
    uint64_t s = st->opts.seed;
    float tw1[D * TEACHER_HIDDEN], tb1[TEACHER_HIDDEN], tw2[TEACHER_HIDDEN * C];

    fill(&s, tw1, D * TEACHER_HIDDEN, sqrt(6.0 / D));
    fill(&s, tb1, TEACHER_HIDDEN, 0.5);
    fill(&s, tw2, TEACHER_HIDDEN * C, sqrt(6.0 / TEACHER_HIDDEN));
    memset(params, 0, NP * sizeof *params);
    fill(&s, params + P_W1, D * H, sqrt(6.0 / D));
    fill(&s, params + P_W2, H * C, sqrt(6.0 / (H + C)));
    if (st->opts.features)
        memcpy(st->x, st->opts.features, st->rows * D * sizeof *st->x);
    else
        fill(&s, st->x, st->rows * D, 1.0);
    for (size_t r = 0; r < st->rows; r++) {
        double logit[C] = {0};
        for (int h = 0; h < TEACHER_HIDDEN; h++) {
            double z = tb1[h];
            for (int i = 0; i < D; i++)
                z += (double)st->x[r * D + i] * tw1[i * TEACHER_HIDDEN + h];
            if (z > 0)
                for (int j = 0; j < C; j++)
                    logit[j] += z * tw2[h * C + j];
        }
        int best = 0;
        for (int j = 1; j < C; j++)
            if (logit[j] > logit[best])
                best = j;
        st->y[r] = (float)best;
    }
}

/* ---- the step ------------------------------------------------------------------------------ */

static void op(vl_train_state *st, vl_top o)
{
    vl_run_train_op(st->backend, &st->m, &o);
}

static vl_top cast(uint32_t src, uint32_t dst, uint32_t n, vl_format f, float scale, bool counted)
{
    return (vl_top){.kind = VL_TOP_CAST, .fmt = f, .a = src, .c = dst, .n = n, .scale = scale,
                    .counts = counted ? CNT_GRAD : VL_TOP_NONE, .bias = VL_TOP_NONE};
}

/* The power of two that takes the largest |value| of t[0..n) to at most the largest finite
 * value of f, for per-tensor scaling; 1 for a tensor of zeros or with an inf or NaN (the
 * step reports those).  The exponent is clamped to +-60 so that products of two scales
 * and their inverses stay normal floats. */
static float tensor_scale(vl_train_state *st, uint32_t t, uint32_t n, vl_format f)
{
    uint32_t bits;
    op(st, (vl_top){.kind = VL_TOP_AMAX, .a = t, .n = n, .counts = CNT_AMAX, .bias = VL_TOP_NONE});
    vl_run_train_counts(st->backend, &st->m, CNT_AMAX, 1, &bits);
    float amax = vl_f32_from_bits(bits);
    if (amax == 0 || !isfinite(amax))
        return 1.0f;
    int e;
    frexp(vl_formats[f].max / amax, &e); /* ratio = m 2^e, m in [0.5, 1): floor(log2) = e - 1 */
    e = e - 1 < -60 ? -60 : e - 1 > 60 ? 60 : e - 1;
    return ldexpf(1.0f, e);
}

/* The scale of t cast to f: per-tensor in a regime that has it, else 1. */
static float scale_of(vl_train_state *st, const vl_train_regime *g, uint32_t t, uint32_t n,
                      vl_format f)
{
    return g->per_tensor ? tensor_scale(st, t, n, f) : 1.0f;
}

/* The format of the products' sums: fp32, as tensor cores accumulate, or with
 * accumulate_in_format the format the products write (fp16, bf16; bf16 for fp8, whose
 * tensor cores have no fp8 accumulator). */
static vl_format sum_format(const vl_train_state *st, const vl_train_regime *g)
{
    return st->opts.accumulate_in_format ? g->store : VL_FMT_F32;
}

/* The forward pass of rows [row0, row0 + B): the weights cast to the forward format, the
 * products, the loss with gradient factor gscale.  s[0..2] get the scales of the input,
 * the hidden activations and the second layer's weights (the backward pass needs them). */
static void forward(vl_train_state *st, const vl_train_regime *g, uint32_t row0, float gscale,
                    float s[3])
{
    vl_format fw = g->fwd, acc = sum_format(st, g);
    uint32_t x = st->X + row0 * D;

    float sx = scale_of(st, g, x, B * D, fw), sw1 = scale_of(st, g, st->P + P_W1, D * H, fw);
    op(st, cast(x, st->XC, B * D, fw, sx, false));
    op(st, cast(st->P + P_W1, st->PC + P_W1, D * H, fw, sw1, false));
    op(st, cast(st->P + P_B1, st->PC + P_B1, H, g->store, 1.0f, false));
    op(st, (vl_top){.kind = VL_TOP_MATMUL, .fmt = g->store, .acc = acc, .relu = 1, .m = B, .n = H,
                    .k = D, .a = st->XC, .b = st->PC + P_W1, .c = st->A1, .bias = st->PC + P_B1,
                    .alpha = 1.0f / (sx * sw1), .counts = VL_TOP_NONE});
    float sh = scale_of(st, g, st->A1, B * H, fw), sw2 = scale_of(st, g, st->P + P_W2, H * C, fw);
    op(st, cast(st->A1, st->A1C, B * H, fw, sh, false));
    op(st, cast(st->P + P_W2, st->PC + P_W2, H * C, fw, sw2, false));
    op(st, cast(st->P + P_B2, st->PC + P_B2, C, g->store, 1.0f, false));
    op(st, (vl_top){.kind = VL_TOP_MATMUL, .fmt = g->store, .acc = acc, .m = B, .n = C, .k = H,
                    .a = st->A1C, .b = st->PC + P_W2, .c = st->LOGITS, .bias = st->PC + P_B2,
                    .alpha = 1.0f / (sh * sw2), .counts = VL_TOP_NONE});
    op(st, (vl_top){.kind = VL_TOP_LOSS, .m = B, .n = C, .a = st->LOGITS, .b = st->Y + row0,
                    .c = st->DL, .d = st->LR, .scale = gscale, .bias = VL_TOP_NONE});
    s[0] = sx;
    s[1] = sh;
    s[2] = sw2;
}

/* The backward pass: every gradient cast counted. */
static void backward(vl_train_state *st, const vl_train_regime *g, const float s[3])
{
    vl_format fb = g->bwd, acc = sum_format(st, g);
    float sx = s[0], sh = s[1], sw2 = s[2];

    float sg = scale_of(st, g, st->DL, B * C, fb);
    op(st, cast(st->DL, st->G2, B * C, fb, sg, true));
    op(st, (vl_top){.kind = VL_TOP_MATMUL, .fmt = g->store, .acc = acc, .ta = 1, .m = H, .n = C,
                    .k = B, .a = st->A1C, .b = st->G2, .c = st->G + P_W2, .bias = VL_TOP_NONE,
                    .alpha = 1.0f / (sh * sg), .counts = CNT_GRAD});
    op(st, (vl_top){.kind = VL_TOP_COLSUM, .fmt = g->store, .m = B, .n = C, .a = st->G2,
                    .c = st->G + P_B2, .alpha = 1.0f / sg, .counts = CNT_GRAD,
                    .bias = VL_TOP_NONE});
    op(st, (vl_top){.kind = VL_TOP_MATMUL, .fmt = g->store, .acc = acc, .tb = 1, .m = B, .n = H,
                    .k = C, .a = st->G2, .b = st->PC + P_W2, .c = st->DH, .bias = VL_TOP_NONE,
                    .alpha = 1.0f / (sg * sw2), .counts = CNT_GRAD});
    op(st, (vl_top){.kind = VL_TOP_RELU_BACK, .n = B * H, .a = st->DH, .b = st->A1, .c = st->DZ,
                    .bias = VL_TOP_NONE});
    float sd = 1.0f;
    uint32_t dz = st->DZ;
    if (g->per_tensor) {
        sd = tensor_scale(st, st->DZ, B * H, fb);
        op(st, cast(st->DZ, st->DZC, B * H, fb, sd, true));
        dz = st->DZC;
    }
    op(st, (vl_top){.kind = VL_TOP_MATMUL, .fmt = g->store, .acc = acc, .ta = 1, .m = D, .n = H,
                    .k = B, .a = st->XC, .b = dz, .c = st->G + P_W1, .bias = VL_TOP_NONE,
                    .alpha = 1.0f / (sx * sd), .counts = CNT_GRAD});
    op(st, (vl_top){.kind = VL_TOP_COLSUM, .fmt = g->store, .m = B, .n = H, .a = dz,
                    .c = st->G + P_B1, .alpha = 1.0f / sd, .counts = CNT_GRAD,
                    .bias = VL_TOP_NONE});
}

/* The mean of the B loss values in [LR, LR + B), in double in row order; the correct rows
 * into *correct. */
static double batch_loss(vl_train_state *st, double *correct)
{
    float lr[2 * B];
    double sum = 0, right = 0;
    vl_run_train_read(st->backend, &st->m, st->LR, lr, 2 * B);
    for (int r = 0; r < B; r++) {
        sum += lr[r];
        right += lr[B + r];
    }
    *correct = right;
    return sum / B;
}

static float loss_scale(const vl_train_run *r)
{
    switch (r->regime->scaling) {
    case VL_SCALING_STATIC: return r->state->opts.static_scale;
    case VL_SCALING_DYNAMIC: return r->state->scaler.scale;
    default: return 1.0f;
    }
}

static void one_step(vl_train_run *r, uint32_t t)
{
    vl_train_state *st = r->state;
    const vl_train_regime *g = r->regime;
    float s[3], S = loss_scale(r);
    uint32_t cnt[VL_N_CLASSES];
    double correct;

    /* the gradient of the mean over the micro-batch times its share of the global batch,
     * B / VL_TRAIN_GLOBAL, times the loss scale: S / 2^24, exact */
    forward(st, g, (t % (uint32_t)(st->rows / B)) * B, S * (1.0f / VL_TRAIN_GLOBAL), s);
    r->loss[t] = (float)batch_loss(st, &correct);
    backward(st, g, s);
    vl_run_train_counts(st->backend, &st->m, CNT_GRAD, VL_N_CLASSES, cnt);
    uint64_t all = 0;
    for (int c = 0; c < VL_N_CLASSES; c++)
        all += cnt[c];
    r->grad_values = all;
    r->flushed[t] = all ? (float)((double)cnt[VL_CLS_FLUSHED] / (double)all) : 0.0f;
    r->subnormal[t] = all ? (float)((double)cnt[VL_CLS_SUBNORMAL] / (double)all) : 0.0f;
    r->scale[t] = S;
    bool found_inf = cnt[VL_CLS_INF] + cnt[VL_CLS_NAN] + cnt[VL_CLS_SATURATED] != 0;

    /* GradScaler.step: a step whose gradients overflowed is skipped (also at a static
     * scale: a GradScaler with growth and backoff factors of 1) */
    r->skipped_at[t] = g->scaling != VL_SCALING_NONE && found_inf;
    r->skipped += r->skipped_at[t];
    if (!r->skipped_at[t]) {
        st->adam_t++;
        st->b1t = st->b1t * BETA1;
        st->b2t = st->b2t * BETA2;
        op(st, (vl_top){.kind = VL_TOP_ADAM, .fmt = g->weights, .n = NP, .a = st->P,
                        .b = st->G, .c = st->M, .d = st->V, .lr = st->opts.lr, .b1 = BETA1,
                        .c1 = 1.0f - BETA1, .b2 = BETA2, .c2 = 1.0f - BETA2, .eps = EPS,
                        .bc1 = 1.0f - st->b1t, .bc2 = 1.0f - st->b2t, .unscale = 1.0f / S,
                        .bias = VL_TOP_NONE});
    }
    if (g->scaling == VL_SCALING_DYNAMIC)
        vl_scaler_update(&st->scaler, found_inf, &st->opts.scaler);
}

/* The loss and accuracy over every row, in the regime's forward pass. */
static void evaluate(vl_train_run *r)
{
    vl_train_state *st = r->state;
    double sum = 0, right = 0, correct;
    float s[3];
    for (uint32_t row0 = 0; row0 < st->rows; row0 += B) {
        forward(st, r->regime, row0, 0.0f, s);
        sum += batch_loss(st, &correct) * B;
        right += correct;
    }
    r->final_loss = sum / (double)st->rows;
    r->accuracy = right / (double)st->rows;
}

/* The arena, laid out and filled: the data, the initial weights (rounded to the weights'
 * format when there are no master weights), zero moments. */
static bool setup(vl_train_run *r)
{
    vl_train_state *st = r->state;
    uint32_t off = 0;
#define TENSOR(name, n) (st->name = off, off += (uint32_t)(n))
    TENSOR(X, st->rows * D);
    TENSOR(Y, st->rows);
    TENSOR(P, NP);
    TENSOR(PC, NP);
    TENSOR(G, NP);
    TENSOR(M, NP);
    TENSOR(V, NP);
    TENSOR(XC, B * D);
    TENSOR(A1, B * H);
    TENSOR(A1C, B * H);
    TENSOR(LOGITS, B * C);
    TENSOR(DL, B * C);
    TENSOR(G2, B * C);
    TENSOR(DH, B * H);
    TENSOR(DZ, B * H);
    TENSOR(DZC, B * H);
    TENSOR(LR, 2 * B);
#undef TENSOR
    float params[NP];
    vl_run_train_close(&st->m);
    if (!vl_run_train_open(st->backend, &st->m, off, N_CNT))
        return false;
    make_data(st, params);
    vl_run_train_write(st->backend, &st->m, st->X, st->x, st->rows * D);
    vl_run_train_write(st->backend, &st->m, st->Y, st->y, st->rows);
    vl_run_train_write(st->backend, &st->m, st->P, params, NP);
    op(st, cast(st->P, st->P, NP, r->regime->weights, 1.0f, false));
    st->scaler = (vl_scaler_state){st->opts.scaler.init_scale, 0};
    st->adam_t = 0;
    st->b1t = st->b2t = 1.0f;
    return true;
}

vl_train_run *vl_train_init(vl_backend *b, const vl_train_opts *o, int regime)
{
    vl_train_run *r = calloc(1, sizeof *r);
    vl_train_state *st = calloc(1, sizeof *st);
    size_t rows = o->features ? o->rows : VL_TRAIN_ROWS;

    if (!r || !st)
        goto fail;
    r->state = st;
    r->regime = &vl_train_regimes[regime];
    r->steps = o->steps;
    st->backend = b;
    st->opts = *o;
    st->rows = rows;
    r->loss = malloc(o->steps * sizeof *r->loss);
    r->flushed = malloc(o->steps * sizeof *r->flushed);
    r->subnormal = malloc(o->steps * sizeof *r->subnormal);
    r->scale = malloc(o->steps * sizeof *r->scale);
    r->skipped_at = malloc(o->steps);
    st->x = malloc(rows * D * sizeof *st->x);
    st->y = malloc(rows * sizeof *st->y);
    if (!r->loss || !r->flushed || !r->subnormal || !r->scale || !r->skipped_at || !st->x ||
        !st->y || !setup(r))
        goto fail;
    return r;
fail:
    vl_train_free(r);
    if (!r)
        free(st);
    return NULL;
}

/* CUDA failed (the backend is on the CPU now, and the device copy of the tensors is
 * lost): the same run again from the start on the CPU, up to the steps done; the results
 * are the same bit for bit.  False when out of memory. */
static bool replay(vl_train_run *r)
{
    uint32_t done = r->done;
    r->restarts++;
    r->done = r->skipped = 0;
    if (!setup(r))
        return false;
    while (r->done < done)
        one_step(r, r->done++);
    return true;
}

uint32_t vl_train_step(vl_train_run *r, uint32_t n)
{
    uint32_t start = r->done, end = n > r->steps - r->done ? r->steps : r->done + n;
    while (r->done < end) {
        one_step(r, r->done++);
        if (r->state->m.lost && !replay(r))
            return r->done;
    }
    if (r->done == r->steps && end > start) {
        evaluate(r);
        if (r->state->m.lost && replay(r))
            evaluate(r);
    }
    return r->done;
}

void vl_train_free(vl_train_run *r)
{
    if (!r)
        return;
    if (r->state) {
        vl_run_train_close(&r->state->m);
        free(r->state->x);
        free(r->state->y);
        free(r->state);
    }
    free(r->loss);
    free(r->flushed);
    free(r->subnormal);
    free(r->scale);
    free(r->skipped_at);
    free(r);
}
