/* explorer.c: the explorer's state and its sliders. */
#include "explorer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/names.h"
#include "core/units.h"

/* ---- value grids for the numeric sliders --------------------------------------------- */

typedef uint64_t (*stepper)(uint64_t v, int dir);

static uint64_t step_one(uint64_t v, int dir)
{
    return dir > 0 ? v + 1 : v - (v > 0);
}

/* Next power of two above v (dir > 0) or below it. */
static uint64_t step_pow2(uint64_t v, int dir)
{
    uint64_t p = 1;
    if (dir > 0) {
        while (p <= v)
            p *= 2;
        return p;
    }
    while (p * 2 < v)
        p *= 2;
    return p < v ? p : v;
}

static uint64_t step_pow8(uint64_t v, int dir)
{
    return step_pow2(step_pow2(step_pow2(v, dir), dir), dir);
}

/* The E12 series (1.0, 1.2, 1.5 ... 8.2 per decade): parameter counts people recognise. */
static const unsigned e12[] = {10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82};

static uint64_t step_e12(uint64_t v, int dir)
{
    uint64_t best = v;
    for (uint64_t d = 1; d <= 100000000000000000ULL; d *= 10)
        for (size_t i = 0; i < sizeof e12 / sizeof e12[0]; i++) {
            uint64_t g = e12[i] * d;
            if (dir > 0 ? g > v && (best == v || g < best) : g < v && (best == v || g > best))
                best = g;
        }
    return best;
}

static uint64_t step_decade(uint64_t v, int dir)
{
    for (int i = 0; i < 12; i++)
        v = step_e12(v, dir);
    return v;
}

/* LoRA rank: off (0), then 1, 2, 4, ... */
static uint64_t step_rank(uint64_t v, int dir)
{
    if (dir > 0)
        return v == 0 ? 1 : step_pow2(v, 1);
    return v <= 1 ? 0 : step_pow2(v, -1);
}

static uint64_t step_rank8(uint64_t v, int dir)
{
    return step_rank(step_rank(step_rank(v, dir), dir), dir);
}

typedef struct numeric {
    uint64_t min, max;
    stepper fine, coarse;
} numeric;

static const numeric numerics[N_SLIDERS] = {
    [SL_PARAMS] = {EX_MIN_PARAMS, EX_MAX_PARAMS, step_e12, step_decade},
    [SL_GPUS] = {1, EX_MAX_GPUS, step_one, step_pow2},
    [SL_BATCH] = {1, EX_MAX_BATCH, step_one, step_pow2},
    [SL_SEQ] = {EX_MIN_SEQ, EX_MAX_SEQ, step_pow2, step_pow8},
    [SL_GEN] = {0, EX_MAX_SEQ, step_pow2, step_pow8},
    [SL_LORA_RANK] = {0, EX_MAX_LORA_RANK, step_rank, step_rank8},
    [SL_TP] = {1, EX_MAX_MP, step_pow2, step_pow8},
    [SL_PP] = {1, EX_MAX_MP, step_pow2, step_pow8},
    [SL_GRAD_ACCUM] = {1, EX_MAX_ACCUM, step_pow2, step_pow8},
};

static bool is_numeric(slider_id id)
{
    return numerics[id].max != 0;
}

static const slider_id train_sliders[] = {SL_PARAMS, SL_MODE, SL_PRECISION, SL_OPTIMIZER,
                                          SL_GPUS, SL_ZERO, SL_BATCH, SL_SEQ, SL_RECOMPUTE,
                                          SL_FLASH, SL_GPU, SL_GRAD_COPY, SL_FP32_GRADS,
                                          SL_LORA_RANK, SL_QLORA, SL_OFFLOAD, SL_TP, SL_PP,
                                          SL_SP, SL_GRAD_ACCUM};
static const slider_id infer_sliders[] = {SL_PARAMS, SL_MODE, SL_WEIGHT_DTYPE, SL_KV_DTYPE,
                                          SL_GPUS, SL_BATCH, SL_SEQ, SL_GEN, SL_FLASH, SL_GPU};
_Static_assert(sizeof train_sliders / sizeof *train_sliders == EX_MAX_VISIBLE,
               "EX_MAX_VISIBLE is training's slider count");

int explorer_sliders(const explorer *e, slider_id out[EX_MAX_VISIBLE])
{
    bool infer = e->s.mode == VL_MODE_INFER;
    const slider_id *list = infer ? infer_sliders : train_sliders;
    int n = infer ? (int)(sizeof infer_sliders / sizeof *infer_sliders) : EX_MAX_VISIBLE;
    memcpy(out, list, (size_t)n * sizeof *out);
    return n;
}

void explorer_select(explorer *e, int dir)
{
    slider_id ids[EX_MAX_VISIBLE];
    int n = explorer_sliders(e, ids), i = 0;
    while (i < n && ids[i] != e->selected)
        i++;
    i = i == n ? 0 : i + dir;
    e->selected = ids[i < 0 ? 0 : i >= n ? n - 1 : i];
    e->focus = -1;
}

vl_settings explorer_settings(const explorer *e)
{
    vl_settings s = e->s;
    if (s.mode == VL_MODE_INFER) { /* the training-only settings wait for training */
        s.zero = 0;
        s.recompute = VL_RECOMPUTE_NONE;
        s.fp32_grads = false;
        s.lora_rank = 0;
        s.qlora = false;
        s.offload = VL_OFFLOAD_NONE;
        s.tp = s.pp = s.grad_accum = 1;
        s.sp = false;
    } else {
        s.gen = 0;
    }
    return s;
}

static uint64_t numeric_value(const explorer *e, slider_id id)
{
    switch (id) {
    case SL_PARAMS: {
        vl_params p;
        vl_count_params(&e->model.arch, &p);
        return vl_model_params(&e->model, &p);
    }
    case SL_GPUS: return e->s.gpus;
    case SL_BATCH: return e->s.batch;
    case SL_SEQ: return e->s.seq;
    case SL_GEN: return e->s.gen;
    case SL_LORA_RANK: return e->s.lora_rank;
    case SL_TP: return e->s.tp;
    case SL_PP: return e->s.pp;
    case SL_GRAD_ACCUM: return e->s.grad_accum;
    default: return 0;
    }
}

/* The training settings that depend on one another follow the one just changed: QLoRA
 * needs adapters, sequence parallel a tensor-parallel degree, an offload its ZeRO stage
 * (as the ZeRO comparison steps it down), and the GPUs whole tensor x pipeline groups. */
static void follow(explorer *e, slider_id id)
{
    vl_settings *s = &e->s;
    if (id == SL_QLORA && s->qlora && !s->lora_rank)
        s->lora_rank = 16;
    if (!s->lora_rank)
        s->qlora = false;
    if (s->tp < 2)
        s->sp = false;
    if (id == SL_OFFLOAD && s->offload == VL_OFFLOAD_PARAMS)
        s->zero = 3;
    if (id == SL_OFFLOAD && s->offload == VL_OFFLOAD_OPTIMIZER && s->zero == 0)
        s->zero = 1;
    vl_settings_at_zero(s, s->zero);
    uint64_t unit = s->tp * s->pp;
    if (s->mode == VL_MODE_TRAIN && unit > 1 && s->gpus % unit != 0)
        s->gpus = (s->gpus / unit + 1) * unit;
}

static void set_numeric(explorer *e, slider_id id, uint64_t v)
{
    switch (id) {
    case SL_PARAMS:
        vl_model_from_params(&e->model, v);
        e->detached = true;
        break;
    case SL_GPUS: e->s.gpus = v; break;
    case SL_BATCH: e->s.batch = v; break;
    case SL_SEQ: e->s.seq = v; break;
    case SL_GEN: e->s.gen = v; break;
    case SL_LORA_RANK: e->s.lora_rank = v; break;
    case SL_TP: e->s.tp = v; break;
    case SL_PP: e->s.pp = v; break;
    case SL_GRAD_ACCUM: e->s.grad_accum = v; break;
    default: break;
    }
    follow(e, id);
}

/* ---- the choice sliders ------------------------------------------------------------- */

static const char *const on_off[] = {"off", "on"};
static const char *const zero_names[] = {"0", "1", "2", "3"};

static int choice_count(const explorer *e, slider_id id)
{
    switch (id) {
    case SL_MODE: return VL_N_MODES;
    case SL_WEIGHT_DTYPE: return VL_N_DTYPES;
    case SL_KV_DTYPE: return VL_N_DTYPES - 1; /* no int4 KV cache */
    case SL_PRECISION: return VL_N_PRECISIONS;
    case SL_OPTIMIZER: return VL_N_OPTIMIZERS;
    case SL_ZERO: return 4;
    case SL_RECOMPUTE: return VL_N_RECOMPUTES;
    case SL_GPU: return (int)e->cat->n_gpus;
    case SL_OFFLOAD: return VL_N_OFFLOADS;
    default: return 2; /* the on/off switches */
    }
}

static int choice_get(const explorer *e, slider_id id)
{
    switch (id) {
    case SL_MODE: return (int)e->s.mode;
    case SL_WEIGHT_DTYPE: return (int)e->s.weight_dtype;
    case SL_KV_DTYPE: return (int)e->s.kv_dtype;
    case SL_PRECISION: return (int)e->s.precision;
    case SL_OPTIMIZER: return (int)e->s.optimizer;
    case SL_ZERO: return (int)e->s.zero;
    case SL_RECOMPUTE: return (int)e->s.recompute;
    case SL_FLASH: return e->s.flash_attn;
    case SL_GPU: return (int)e->gpu;
    case SL_GRAD_COPY: return e->s.fp32_grad_copy;
    case SL_FP32_GRADS: return e->s.fp32_grads;
    case SL_QLORA: return e->s.qlora;
    case SL_OFFLOAD: return (int)e->s.offload;
    case SL_SP: return e->s.sp;
    default: return 0;
    }
}

static void choice_set(explorer *e, slider_id id, int v)
{
    switch (id) {
    case SL_MODE: e->s.mode = (vl_mode)v; break;
    case SL_WEIGHT_DTYPE: e->s.weight_dtype = (vl_dtype)v; break;
    case SL_KV_DTYPE: e->s.kv_dtype = (vl_dtype)v; break;
    case SL_PRECISION: e->s.precision = (vl_precision)v; break;
    case SL_OPTIMIZER: e->s.optimizer = (vl_optimizer)v; break;
    case SL_ZERO: e->s.zero = (unsigned)v; break;
    case SL_RECOMPUTE: e->s.recompute = (vl_recompute)v; break;
    case SL_FLASH: e->s.flash_attn = v; break;
    case SL_GPU: e->gpu = (size_t)v; break;
    case SL_GRAD_COPY: e->s.fp32_grad_copy = v; break;
    case SL_FP32_GRADS: e->s.fp32_grads = v; break;
    case SL_QLORA: e->s.qlora = v; break;
    case SL_OFFLOAD: e->s.offload = (vl_offload)v; break;
    case SL_SP: e->s.sp = v; break;
    default: break;
    }
    follow(e, id);
    /* fp32 gradients make no sense with pure 16-bit weights: the switch follows */
    if (e->s.precision == VL_FP16 || e->s.precision == VL_BF16)
        e->s.fp32_grads = false;
}

static const char *choice_name(const explorer *e, slider_id id, int v)
{
    switch (id) {
    case SL_MODE: return vl_mode_names[v];
    case SL_WEIGHT_DTYPE:
    case SL_KV_DTYPE: return vl_dtype_names[v];
    case SL_PRECISION: return vl_precision_names[v];
    case SL_OPTIMIZER: return vl_optimizer_names[v];
    case SL_ZERO: return zero_names[v];
    case SL_RECOMPUTE: return vl_recompute_names[v];
    case SL_GPU: return e->cat->gpus[v].name;
    case SL_OFFLOAD: return vl_offload_names[v];
    default: return on_off[v];
    }
}

/* ---- public ------------------------------------------------------------------------- */

static const char *const labels[N_SLIDERS] = {
    [SL_PARAMS] = "parameters", [SL_MODE] = "mode", [SL_WEIGHT_DTYPE] = "weight dtype",
    [SL_KV_DTYPE] = "KV cache dtype", [SL_GEN] = "generated",
    [SL_PRECISION] = "precision", [SL_OPTIMIZER] = "optimizer",
    [SL_GPUS] = "GPUs", [SL_ZERO] = "ZeRO stage", [SL_BATCH] = "micro-batch",
    [SL_SEQ] = "context", [SL_RECOMPUTE] = "recompute", [SL_FLASH] = "flash attn",
    [SL_GPU] = "GPU model", [SL_GRAD_COPY] = "fp32 grad copy", [SL_FP32_GRADS] = "fp32 grads",
    [SL_LORA_RANK] = "LoRA rank", [SL_QLORA] = "QLoRA (NF4)", [SL_OFFLOAD] = "offload",
    [SL_TP] = "tensor par.", [SL_PP] = "pipeline par.", [SL_SP] = "sequence par.",
    [SL_GRAD_ACCUM] = "grad accum",
};

const char *slider_label(const explorer *e, slider_id id)
{
    return id == SL_SEQ && e->s.mode == VL_MODE_INFER ? "prompt" : labels[id];
}

vl_component slider_component(const explorer *e, slider_id id)
{
    bool infer = e->s.mode == VL_MODE_INFER;
    switch (id) {
    case SL_PARAMS:
    case SL_MODE:
    case SL_WEIGHT_DTYPE:
    case SL_PRECISION: return VL_C_WEIGHTS;
    case SL_KV_DTYPE:
    case SL_GEN: return VL_C_KV_CACHE;
    case SL_GPUS: return infer ? VL_C_WEIGHTS : VL_C_OPTIMIZER;
    case SL_FP32_GRADS: return VL_C_GRADIENTS;
    case SL_ZERO: return e->s.zero == 3 ? VL_C_ZERO3_LIVE : VL_C_OPTIMIZER;
    case SL_BATCH:
    case SL_SEQ: return infer ? VL_C_KV_CACHE : VL_C_ACTIVATIONS;
    case SL_RECOMPUTE:
    case SL_FLASH: return VL_C_ACTIVATIONS;
    case SL_GPU: return VL_C_OVERHEAD;
    case SL_LORA_RANK:
    case SL_QLORA:
    case SL_TP:
    case SL_PP: return VL_C_WEIGHTS;
    case SL_SP:
    case SL_GRAD_ACCUM: return VL_C_ACTIVATIONS;
    default: return VL_C_OPTIMIZER;
    }
}

void explorer_recompute(explorer *e)
{
    vl_settings now = explorer_settings(e);
    e->error = vl_estimate(&e->model, &now, &e->b);
    for (unsigned z = 0; z < 4 && !e->error && now.mode == VL_MODE_TRAIN; z++) {
        vl_settings s = now;
        vl_settings_at_zero(&s, z);
        e->error = vl_estimate(&e->model, &s, &e->zero[z]);
    }
}

void explorer_load_model(explorer *e, const vl_model *m)
{
    e->preset = *m;
    e->model = *m;
    e->detached = false;
    explorer_recompute(e);
}

const char *explorer_load_scenario(explorer *e, const vl_scenario *sc)
{
    vl_model m;
    size_t gpu = e->gpu;
    if (sc->params) {
        vl_model_from_params(&m, sc->params);
    } else {
        const vl_model *found = vl_catalog_model(e->cat, sc->model);
        if (!found)
            return "the scenario's model is not in the catalog";
        m = *found;
    }
    if (sc->gpu[0]) {
        const vl_gpu *g = vl_catalog_gpu(e->cat, sc->gpu);
        if (!g)
            return "the scenario's GPU is not in the catalog";
        gpu = (size_t)(g - e->cat->gpus);
    }
    e->gpu = gpu;
    vl_settings_apply(&e->s, &sc->settings);
    explorer_load_model(e, &m);
    e->detached = sc->params != 0;
    return NULL;
}

void explorer_init(explorer *e, const vl_catalog *cat, const vl_model *m, size_t gpu,
                   const vl_settings *s)
{
    memset(e, 0, sizeof *e);
    e->cat = cat;
    e->s = *s;
    e->gpu = gpu;
    e->focus = -1;
    explorer_load_model(e, m);
    e->detached = m->free_params != 0;
}

static bool tp_valid(const explorer *e, uint64_t gpus)
{
    const vl_arch *a = &e->model.arch;
    return a->heads % gpus == 0 && (a->kv_heads % gpus == 0 || gpus % a->kv_heads == 0);
}

static uint64_t clamp(uint64_t v, const numeric *n)
{
    return v < n->min ? n->min : v > n->max ? n->max : v;
}

bool explorer_move(explorer *e, slider_id id, int steps, bool coarse)
{
    int dir = steps > 0 ? 1 : -1;
    if (is_numeric(id)) {
        const numeric *n = &numerics[id];
        uint64_t v = numeric_value(e, id), to = v;
        uint64_t unit = e->s.tp * e->s.pp;
        for (int i = 0; i < (steps > 0 ? steps : -steps); i++) {
            if (id == SL_GPUS && e->s.mode == VL_MODE_TRAIN && unit > 1) {
                /* training: whole tensor x pipeline groups */
                uint64_t k = (coarse ? n->coarse : n->fine)(to / unit, dir);
                to = k < 1 ? unit : k * unit > n->max ? to : k * unit;
                continue;
            }
            to = clamp((coarse ? n->coarse : n->fine)(to, dir), n);
            /* tensor parallelism: on to the next GPU count that splits the heads */
            while (id == SL_GPUS && e->s.mode == VL_MODE_INFER && !tp_valid(e, to) &&
                   to > n->min && to < n->max)
                to = clamp(n->fine(to, dir), n);
        }
        if (to == v || (id == SL_GPUS && e->s.mode == VL_MODE_INFER && !tp_valid(e, to)))
            return false;
        set_numeric(e, id, to);
    } else {
        int count = choice_count(e, id), v = choice_get(e, id);
        int to = v + (coarse ? dir * count : steps);
        to = to < 0 ? 0 : to >= count ? count - 1 : to;
        if (to == v)
            return false;
        choice_set(e, id, to);
    }
    explorer_recompute(e);
    return true;
}

bool explorer_jump(explorer *e, slider_id id, bool end)
{
    if (is_numeric(id)) {
        uint64_t v = numeric_value(e, id), to = end ? numerics[id].max : numerics[id].min;
        if (v == to)
            return false;
        set_numeric(e, id, to);
        explorer_recompute(e);
        return true;
    }
    return explorer_move(e, id, end ? choice_count(e, id) : -choice_count(e, id), false);
}

const char *explorer_set(explorer *e, slider_id id, const char *text)
{
    static char why[160];
    if (is_numeric(id)) {
        uint64_t v;
        const char *reason;
        if (!vl_parse_count(text, &v, &reason)) {
            snprintf(why, sizeof why, "%s: '%s' is not a whole number: %s", slider_label(e, id),
                     text, reason);
            return why;
        }
        uint64_t lo = id == SL_PARAMS ? 1000000 : id == SL_GEN || id == SL_LORA_RANK ? 0 : 1;
        uint64_t hi = id == SL_PARAMS                     ? 100000000000000ULL
                      : id == SL_GPUS || id == SL_TP || id == SL_PP ? VL_MAX_GPUS
                      : id == SL_BATCH                    ? VL_MAX_BATCH
                      : id == SL_LORA_RANK                ? VL_MAX_LORA_RANK
                      : id == SL_GRAD_ACCUM               ? VL_MAX_GRAD_ACCUM
                                                          : VL_MAX_SEQ;
        if (v < lo || v > hi) {
            char a[32], b[32];
            snprintf(why, sizeof why, "%s: %s is outside %s..%s", slider_label(e, id), text,
                     vl_fmt_count(lo, a, sizeof a), vl_fmt_count(hi, b, sizeof b));
            return why;
        }
        set_numeric(e, id, v);
    } else {
        int count = choice_count(e, id), i;
        for (i = 0; i < count && strcmp(choice_name(e, id, i), text) != 0; i++)
            ;
        if (i == count) {
            snprintf(why, sizeof why, "%s: unknown value '%s'", slider_label(e, id), text);
            return why;
        }
        choice_set(e, id, i);
    }
    explorer_recompute(e);
    return NULL;
}

void explorer_value(const explorer *e, slider_id id, char *buf, size_t len)
{
    char n[32];
    if (id == SL_PARAMS)
        snprintf(buf, len, "%s", vl_fmt_count(numeric_value(e, id), n, sizeof n));
    else if (id == SL_LORA_RANK && e->s.lora_rank == 0)
        snprintf(buf, len, "off (full)");
    else if (is_numeric(id))
        snprintf(buf, len, "%s", vl_fmt_int(numeric_value(e, id), n, sizeof n));
    else
        snprintf(buf, len, "%s", choice_name(e, id, choice_get(e, id)));
}

double explorer_fraction(const explorer *e, slider_id id)
{
    if (is_numeric(id)) {
        const numeric *n = &numerics[id];
        /* a log scale; +1 keeps a range that starts at 0 (generated tokens) finite */
        double v = (double)numeric_value(e, id) + 1, lo = (double)n->min + 1;
        double f = log(v / lo) / log(((double)n->max + 1) / lo);
        return f < 0 ? 0 : f > 1 ? 1 : f;
    }
    int count = choice_count(e, id);
    return count > 1 ? (double)choice_get(e, id) / (count - 1) : 0;
}

const vl_gpu *explorer_gpu(const explorer *e)
{
    return &e->cat->gpus[e->gpu];
}

bool explorer_fits(const explorer *e)
{
    return !e->error && e->b.total <= explorer_gpu(e)->memory;
}
