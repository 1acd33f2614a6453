/* explorer.c: the explorer's state and its sliders. */
#include "explorer.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/framework.h"
#include "core/i18n.h"
#include "core/lora.h"
#include "core/names.h"
#include "core/releases.h"
#include "core/units.h"
#include "report/report.h"

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

/* A fraction in millionths: the next whole percent, or ten. */
static uint64_t step_percents(uint64_t v, int dir, uint64_t n)
{
    const uint64_t pct = VL_PPM / 100 * n;
    return dir > 0 ? (v / pct + 1) * pct : v % pct ? v / pct * pct : v - (v >= pct ? pct : v);
}

static uint64_t step_percent(uint64_t v, int dir)
{
    return step_percents(v, dir, 1);
}

static uint64_t step_percent10(uint64_t v, int dir)
{
    return step_percents(v, dir, 10);
}

/* Bytes: the next whole GiB (coarse: 8 GiB) above v or below it. */
static uint64_t step_grid(uint64_t v, int dir, uint64_t unit)
{
    return dir > 0 ? (v / unit + 1) * unit : v == 0 ? 0 : (v - 1) / unit * unit;
}

static uint64_t step_gib(uint64_t v, int dir)
{
    return step_grid(v, dir, VL_GIB);
}

static uint64_t step_gib8(uint64_t v, int dir)
{
    return step_grid(v, dir, 8 * VL_GIB);
}

/* The first day of another year on which a release line that matters to s came out
 * (after the newest, current); vl_release_next_day steps a day at a time. */
static uint64_t step_release_year(const vl_settings *s, uint64_t v, int dir)
{
    const uint64_t year = v == VL_DAY_CURRENT ? 9999 : v / 10000;
    uint64_t to = v, next;
    while ((next = vl_release_next_day((uint32_t)to, dir, s)) != to) {
        to = next;
        if ((to == VL_DAY_CURRENT ? 9999 : to / 10000) != year)
            break;
    }
    return to;
}

/* The slider's fine and coarse steps by the settings table's kind (a release day's, which
 * depend on the settings, in next_value). */
static const struct {
    stepper fine, coarse;
} steps_of[] = {
    [VL_STEP_ONE] = {step_one, step_pow2},
    [VL_STEP_POW2] = {step_pow2, step_pow8},
    [VL_STEP_RANK] = {step_rank, step_rank8},
    [VL_STEP_PERCENT] = {step_percent, step_percent10},
    [VL_STEP_E12] = {step_e12, step_decade},
    [VL_STEP_GIB] = {step_gib, step_gib8},
};

/* The order the sliders are listed in; each mode shows those that apply to it. */
static const slider_id order[] = {
    SL_PARAMS, VL_SET_MODE, VL_SET_PRECISION, VL_SET_OPTIMIZER, VL_SET_PAGED_OPTIMIZER,
    VL_SET_WEIGHT_DTYPE, VL_SET_GROUP_SIZE, VL_SET_WEIGHT_FORMAT, VL_SET_EXLLAMA,
    VL_SET_EXLLAMA_VERSION, VL_SET_COMPUTE_DTYPE, VL_SET_KV_DTYPE, VL_SET_GPUS,
    VL_SET_ZERO, VL_SET_BATCH, VL_SET_SEQ, VL_SET_GEN, VL_SET_RECOMPUTE, VL_SET_USE_REENTRANT,
    VL_SET_ATTENTION, SL_GPU,
    VL_SET_FP32_GRAD_COPY, VL_SET_FP32_GRADS, VL_SET_LORA_RANK, VL_SET_LORA_TARGETS,
    VL_SET_QLORA, VL_SET_DOUBLE_QUANT, VL_SET_QUANT_STORAGE, VL_SET_LORA_DROPOUT,
    VL_SET_OFFLOAD,
    VL_SET_FSDP_MIXED_PRECISION, VL_SET_LOOP_KEEPS_LOGITS, VL_SET_NORM_UPCAST,
    VL_SET_USE_CACHE, VL_SET_OUTPUTS_FP32, VL_SET_AUTOCAST, VL_SET_PADDED, VL_SET_TP,
    VL_SET_PP, VL_SET_SP, VL_SET_GRAD_ACCUM,
    VL_SET_ZERO_GRAD, VL_SET_EP, VL_SET_CP, VL_SET_VPP, VL_SET_FRAMEWORK,
    VL_SET_TORCH, VL_SET_TRANSFORMERS, VL_SET_BITSANDBYTES, VL_SET_PEFT, VL_SET_TRL,
    VL_SET_MEGATRON, VL_SET_VLLM,
    VL_SET_SAMPLER, VL_SET_SGLANG, VL_SET_HEAD, VL_SET_LABELS, VL_SET_LOSS_DTYPE, VL_SET_MFU,
    VL_SET_TOKENS,
    VL_SET_GPU_UTIL, VL_SET_KV_BLOCK, VL_SET_PREFILL_CHUNK, VL_SET_PROFILE_SEQS,
    VL_SET_CAPACITY, VL_SET_OVERHEAD, VL_SET_GPUS_PER_NODE, VL_SET_CPU_OFFLOAD,
    VL_SET_INTERCONNECT, VL_SET_CUDA, VL_SET_AS_OF,
};

/* The formula the slider changes most directly, in each mode. */
static const struct {
    vl_component train, infer;
} formula_of[N_SLIDERS] = {
    [SL_PARAMS] = {VL_C_WEIGHTS, VL_C_WEIGHTS}, [VL_SET_MODE] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_PRECISION] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_OPTIMIZER] = {VL_C_OPTIMIZER, VL_C_OPTIMIZER},
    [VL_SET_PAGED_OPTIMIZER] = {VL_C_OPTIMIZER, VL_C_OPTIMIZER},
    [VL_SET_GROUP_SIZE] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_WEIGHT_FORMAT] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_EXLLAMA] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_EXLLAMA_VERSION] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_WEIGHT_DTYPE] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_KV_DTYPE] = {VL_C_KV_CACHE, VL_C_KV_CACHE}, [VL_SET_GEN] = {VL_C_KV_CACHE, VL_C_KV_CACHE},
    [VL_SET_GPUS] = {VL_C_OPTIMIZER, VL_C_WEIGHTS}, [VL_SET_ZERO] = {VL_C_OPTIMIZER, VL_C_OPTIMIZER},
    [VL_SET_BATCH] = {VL_C_ACTIVATIONS, VL_C_KV_CACHE}, [VL_SET_SEQ] = {VL_C_ACTIVATIONS, VL_C_KV_CACHE},
    [VL_SET_RECOMPUTE] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_USE_REENTRANT] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_ATTENTION] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS}, [SL_GPU] = {VL_C_OVERHEAD, VL_C_OVERHEAD},
    [VL_SET_FP32_GRAD_COPY] = {VL_C_OPTIMIZER, VL_C_OPTIMIZER},
    [VL_SET_FP32_GRADS] = {VL_C_GRADIENTS, VL_C_GRADIENTS},
    [VL_SET_LORA_RANK] = {VL_C_WEIGHTS, VL_C_WEIGHTS}, [VL_SET_QLORA] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_LORA_TARGETS] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_DOUBLE_QUANT] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_QUANT_STORAGE] = {VL_C_OPTIMIZER, VL_C_OPTIMIZER},
    [VL_SET_LORA_DROPOUT] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_OFFLOAD] = {VL_C_OPTIMIZER, VL_C_OPTIMIZER},
    [VL_SET_FSDP_MIXED_PRECISION] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_LOOP_KEEPS_LOGITS] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_NORM_UPCAST] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_USE_CACHE] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_OUTPUTS_FP32] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_AUTOCAST] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_PADDED] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_TP] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_PP] = {VL_C_WEIGHTS, VL_C_WEIGHTS}, [VL_SET_SP] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_GRAD_ACCUM] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_ZERO_GRAD] = {VL_C_GRADIENTS, VL_C_GRADIENTS},
    [VL_SET_FRAMEWORK] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_AS_OF] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_TORCH] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_TRANSFORMERS] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_BITSANDBYTES] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_PEFT] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_TRL] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_MEGATRON] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_VLLM] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_SAMPLER] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_SGLANG] = {VL_C_KV_CACHE, VL_C_KV_CACHE},
    [VL_SET_HEAD] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_LABELS] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_LOSS_DTYPE] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_EP] = {VL_C_WEIGHTS, VL_C_WEIGHTS}, [VL_SET_KV_BLOCK] = {VL_C_KV_CACHE, VL_C_KV_CACHE},
    [VL_SET_PREFILL_CHUNK] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_PROFILE_SEQS] = {VL_C_KV_CACHE, VL_C_KV_CACHE},
    [VL_SET_CP] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    [VL_SET_VPP] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
    /* the step time and the usable memory are no component: the GPU's line, as for the GPU */
    [VL_SET_MFU] = {VL_C_OVERHEAD, VL_C_OVERHEAD}, [VL_SET_TOKENS] = {VL_C_OVERHEAD, VL_C_OVERHEAD},
    [VL_SET_GPU_UTIL] = {VL_C_OVERHEAD, VL_C_OVERHEAD},
    [VL_SET_CAPACITY] = {VL_C_OVERHEAD, VL_C_OVERHEAD},
    [VL_SET_INTERCONNECT] = {VL_C_OVERHEAD, VL_C_OVERHEAD},
    [VL_SET_CUDA] = {VL_C_OVERHEAD, VL_C_OVERHEAD},
    [VL_SET_OVERHEAD] = {VL_C_OVERHEAD, VL_C_OVERHEAD},
    [VL_SET_GPUS_PER_NODE] = {VL_C_OPTIMIZER, VL_C_OPTIMIZER},
    [VL_SET_CPU_OFFLOAD] = {VL_C_WEIGHTS, VL_C_WEIGHTS},
    [VL_SET_COMPUTE_DTYPE] = {VL_C_ACTIVATIONS, VL_C_ACTIVATIONS},
};

static const vl_setting_desc *desc(slider_id id)
{
    return id < VL_N_SETTINGS ? &vl_setting_table[id] : NULL;
}

/* A numeric slider steps through a range (the parameter count, the counts the table gives
 * steps); the others are choices. */
static bool is_numeric(slider_id id)
{
    return id == SL_PARAMS || (id < VL_N_SETTINGS && vl_setting_table[id].step != VL_STEP_NONE);
}

int explorer_sliders(const explorer *e, slider_id out[EX_MAX_SLIDERS])
{
    int n = 0;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (order[i] >= VL_N_SETTINGS || vl_setting_applies((vl_setting)order[i], &e->s))
            out[n++] = order[i];
    return n;
}

int explorer_longest(void)
{
    int most = 0;
    for (vl_mode m = 0; m < VL_N_MODES; m++) {
        int n = 0;
        for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
            n += order[i] >= VL_N_SETTINGS || (vl_setting_table[order[i]].modes & (1u << m));
        most = n > most ? n : most;
    }
    return most;
}

void explorer_select(explorer *e, int dir)
{
    slider_id ids[EX_MAX_SLIDERS];
    int n = explorer_sliders(e, ids), i = 0;
    while (i < n && ids[i] != e->selected)
        i++;
    i = i == n ? 0 : i + dir;
    e->selected = ids[i < 0 ? 0 : i >= n ? n - 1 : i];
    e->focus = -1;
}

/* s with the other mode's settings at their defaults: they wait for it. */
static vl_settings effective(const vl_settings *in)
{
    vl_settings s = *in, def;
    vl_settings_default_with(&def, in);
    for (int k = 0; k < VL_N_SETTINGS; k++)
        if (!vl_setting_applies((vl_setting)k, &s))
            vl_setting_put((vl_setting)k, &s, vl_setting_get((vl_setting)k, &def));
    return s;
}

vl_settings explorer_settings(const explorer *e)
{
    return effective(&e->s);
}

/* The framework slider steps through the catalog's frameworks as the GPU slider steps
 * through its GPUs: its value is the index of the settings' framework there, by name (the
 * default is the built-in table's profile), or n_frameworks when it is not there. */
static size_t framework_index(const explorer *e)
{
    size_t i = 0;
    while (i < e->cat->n_frameworks &&
           strcmp(e->cat->frameworks[i].name, e->s.framework->name) != 0)
        i++;
    return i;
}

static uint64_t value_of(const explorer *e, slider_id id)
{
    if (id == SL_PARAMS) {
        vl_params p;
        vl_count_params(&e->model.arch, &p);
        return vl_model_params(&e->model, &p);
    }
    if (id == SL_GPU)
        return e->gpu;
    if (id == VL_SET_FRAMEWORK)
        return framework_index(e);
    /* the figures 0 stands for: what a run can use of the GPU, a node's default GPUs */
    if (id == VL_SET_CAPACITY) {
        const vl_gpu card = report_gpu(&e->s, &e->cat->gpus[e->gpu]);
        return vl_gpu_capacity(&card);
    }
    if (id == VL_SET_GPUS_PER_NODE && !e->s.gpus_per_node)
        return VL_DEFAULT_GPUS_PER_NODE;
    return vl_setting_get((vl_setting)id, &e->s);
}

/* The settings that depend on one another follow the one just changed, and e->note says
 * so: QLoRA needs adapters, AWQ's format 4-bit weights, sequence parallel a tensor-parallel
 * degree, an offload its ZeRO stage (as the ZeRO comparison steps it down), the GPUs whole
 * tensor x pipeline groups and fp32 gradients a precision with fp32 master weights or
 * autocast.  What an earlier move of the same slider raised goes back first (e->raised), so
 * Right then Left restores it. */
static void follow(explorer *e, slider_id id)
{
    vl_settings *s = &e->s, was = *s;
    char *n = e->note;
    size_t len = sizeof e->note, o = strlen(n);
#define NOTE(...) (o += (size_t)snprintf(n + o, o < len ? len - o : 0, __VA_ARGS__))
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        struct raised *r = &e->raised[k];
        if (k == id)
            r->set = false; /* moved by hand: the user's value now */
        else if (r->set && r->by == id && vl_setting_get((vl_setting)k, s) == r->to) {
            vl_setting_put((vl_setting)k, s, r->from);
            r->set = false;
        }
    }
    vl_settings before = *s; /* what the rules below start from */
    if (id == VL_SET_FRAMEWORK) /* its choices come with it */
        vl_settings_take_framework(s, s->framework);
    /* the releases of the day, or of the day a release came out where they are current
     * (as a release given dates those not given) */
    const vl_setting_set none = {0},
                         dated = id == VL_SET_AS_OF       ? vl_settings_on_day(s, s->as_of, none)
                                 : id < VL_N_SETTINGS ? vl_settings_on_release(s, (vl_setting)id)
                                                      : none;
    if (id == VL_SET_TRANSFORMERS || vl_set_has(dated, VL_SET_TRANSFORMERS))
        vl_settings_on_transformers(s); /* an old release's attention */
    if (id == VL_SET_VLLM) /* its share of the GPU */
        vl_settings_on_vllm(s);
    if (id == VL_SET_QLORA && s->qlora && !s->lora_rank)
        s->lora_rank = 16;
    if (!s->lora_rank)
        s->qlora = false;
    if (s->weight_dtype == VL_DT_INT8 && s->weight_format == VL_WFMT_AWQ) {
        if (id == VL_SET_WEIGHT_FORMAT)
            s->weight_dtype = VL_DT_INT4;
        else
            s->weight_format = VL_WFMT_SYMMETRIC;
    }
    if (s->tp < 2)
        s->sp = false;
    if (s->pp < 2) /* interleaving splits pipeline stages */
        s->vpp = 1;
    /* a PyTorch before SDPA runs the attention eager (transformers' models choose so
     * themselves: vl_attention_for) */
    if (s->attention == VL_ATTN_SDPA && !s->framework->transformers &&
        !vl_torch_runs_sdpa(s, false))
        s->attention = VL_ATTN_EAGER;
    if (vl_attention_for(s, &e->model.arch) == VL_ATTN_EAGER) /* ring attention never holds
                                                                * the s x s scores */
        s->cp = 1;
    if (id == VL_SET_OFFLOAD && s->offload == VL_OFFLOAD_PARAMS)
        s->zero = 3;
    if (id == VL_SET_OFFLOAD && s->offload == VL_OFFLOAD_OPTIMIZER && s->zero == 0)
        s->zero = 1;
    vl_settings_at_zero(s, s->zero);
    /* training's GPUs are tensor x pipeline x data parallel, serving's tensor x pipeline */
    uint64_t unit = s->mode == VL_MODE_TRAIN ? s->tp * s->pp * s->cp : s->pp;
    if (unit > 1 && s->gpus % unit != 0) {
        uint64_t to = (s->gpus / unit + 1) * unit;
        if (id == VL_SET_GPUS) /* the count typed or stepped to itself */
            NOTE(_("%sGPUs %" PRIu64 " -> %" PRIu64 ": whole groups of tensor x pipeline = %" PRIu64
                   " GPUs"), o ? "; " : "", s->gpus, to, unit);
        s->gpus = to;
    }
    if (s->precision == VL_FP16 || s->precision == VL_BF16)
        s->fp32_grads = false;
    if (vl_autocast_refused(s)) /* a choice against the precision: the framework's */
        s->autocast = VL_CHOICE_AUTO;
    char gib[32];
    if (id == SL_GPU && s->capacity) /* the GPU's memory does not replace it */
        NOTE(_("%scapacity stays %s as typed (0 gives the GPU's)"), o ? "; " : "",
             vl_fmt_bytes(s->capacity, VL_UNITS_GIB, gib, sizeof gib));
    /* inference splits whole heads over the GPUs: to the largest count below that does */
    char why[8];
    for (vl_settings now = effective(s); id == VL_SET_MODE && now.gpus > 1 &&
                                         !vl_settings_valid(&now, &e->model.arch, why, sizeof why);)
        s->gpus = --now.gpus;
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        uint64_t v = vl_setting_get((vl_setting)k, s), from = vl_setting_get((vl_setting)k, &before);
        if (k != id && v != from) {
            struct raised *r = &e->raised[k];
            if (!r->set)
                r->from = from;
            r->set = true;
            r->by = id;
            r->to = v;
        }
        if (k == id || v == vl_setting_get((vl_setting)k, &was))
            continue;
        char text[32];
        vl_setting_format((vl_setting)k, s, text, sizeof text);
        const char *label = vl_setting_table[k].label;
        NOTE("%s%s -> %s", o ? "; " : "", label ? _(label) : vl_setting_keys[k], text);
    }
#undef NOTE
}

static void put_value(explorer *e, slider_id id, uint64_t v)
{
    if (id == SL_PARAMS) {
        vl_model_from_params(&e->model, v);
        e->detached = true;
    } else if (id == SL_GPU) {
        e->gpu = (size_t)v;
    } else if (id == VL_SET_FRAMEWORK) {
        if (v < e->cat->n_frameworks)
            e->s.framework = &e->cat->frameworks[v];
    } else {
        vl_setting_put((vl_setting)id, &e->s, v);
    }
    if (id == VL_SET_OVERHEAD) /* as --overhead: it replaces the modelled CUDA context */
        e->overhead_given = true;
    follow(e, id);
}

/* ---- the choice sliders ------------------------------------------------------------- */

/* LoRA's targets step through the common sets, by how many matrices they adapt: PEFT's
 * default for Llama (q, v), the attention's four, every linear layer (QLoRA's choice), and
 * the output layer too (LitGPT's lora_head); a list typed otherwise lies between them by
 * its count, and the knob shows the count. */
static const unsigned lora_sets[] = {
    1u << VL_LORA_Q | 1u << VL_LORA_V,
    1u << VL_LORA_Q | 1u << VL_LORA_K | 1u << VL_LORA_V | 1u << VL_LORA_O,
    VL_LORA_ALL_LINEAR,
    VL_LORA_ALL_TARGETS,
};
#define N_LORA_SETS (sizeof lora_sets / sizeof lora_sets[0])

static unsigned matrices(uint64_t mask)
{
    unsigned n = 0;
    for (; mask; mask &= mask - 1)
        n++;
    return n;
}

/* The next common set with more matrices than mask (dir > 0; coarse: the most) or fewer. */
static uint64_t lora_next(uint64_t mask, int dir, bool coarse)
{
    uint64_t to = mask;
    for (size_t i = 0; i < N_LORA_SETS; i++) {
        size_t k = dir > 0 ? i : N_LORA_SETS - 1 - i;
        bool beyond = dir > 0 ? matrices(lora_sets[k]) > matrices(mask)
                              : matrices(lora_sets[k]) < matrices(mask);
        if (beyond && (coarse || to == mask))
            to = lora_sets[k];
    }
    return to;
}

static const char *const on_off[] = {"off", "on"};

/* Choices are 0 .. count-1; a small count (ZeRO's stage) is its own choice from min. */
static int choice_count(const explorer *e, slider_id id)
{
    const vl_setting_desc *d = desc(id);
    if (!d)
        return (int)e->cat->n_gpus;
    if (id == VL_SET_FRAMEWORK)
        return (int)e->cat->n_frameworks;
    return d->type == VL_ST_ENUM ? d->n_names
           : d->type == VL_ST_BOOL ? 2
                                   : (int)(d->max - d->min + 1);
}

static const char *choice_name(const explorer *e, slider_id id, int v, char *buf, size_t len)
{
    const vl_setting_desc *d = desc(id);
    if (!d)
        return e->cat->gpus[v].name;
    if (id == VL_SET_FRAMEWORK)
        return (size_t)v < e->cat->n_frameworks ? e->cat->frameworks[v].name
                                                : e->s.framework->name;
    if (d->type == VL_ST_ENUM)
        return d->names[v];
    if (d->type == VL_ST_BOOL)
        return on_off[v];
    snprintf(buf, len, "%" PRIu64, d->min + (uint64_t)v);
    return buf;
}

/* ---- public ------------------------------------------------------------------------- */

const char *slider_label(const explorer *e, slider_id id)
{
    if (id == SL_PARAMS)
        return _("parameters");
    if (id == SL_GPU)
        return _("GPU model");
    const vl_setting_desc *d = desc(id);
    return _(e->s.mode == VL_MODE_INFER && d->infer_label ? d->infer_label : d->label);
}

vl_component slider_component(const explorer *e, slider_id id)
{
    if (id == VL_SET_ZERO && e->s.zero == 3)
        return VL_C_ZERO3_LIVE;
    return e->s.mode == VL_MODE_INFER ? formula_of[id].infer : formula_of[id].train;
}

bool explorer_encoder(const explorer *e)
{
    return vl_arch_encoder(&e->model.arch);
}

const char *explorer_inert(const explorer *e, slider_id id)
{
    const vl_setting_desc *d = desc(id);
    if (id == VL_SET_GEN && e->s.mode == VL_MODE_INFER && explorer_encoder(e))
        return _("an encoder (post-norm, token types, pooler: BERT) reads its input in one "
                 "pass and generates no tokens");
    const char *why = d && d->inert ? d->inert(&e->s) : NULL;
    return why ? _(why) : NULL;
}

void explorer_recompute(explorer *e)
{
    vl_settings now = explorer_settings(e);
    e->card = report_gpu(&now, &e->cat->gpus[e->gpu]);
    const vl_runtime rt = explorer_runtime(e);
    e->error = vl_estimate_for(&e->model, &now, &rt, &e->b);
    if (!e->error && now.mode == VL_MODE_TRAIN &&
        !report_zero_sweep(&e->model, &now, e->zero, e->why, sizeof e->why))
        e->error = e->why;
    if (e->error)
        return;
    vl_timeline t;
    if (vl_timeline_with_kv(&e->model, &now, &rt, report_capacity(&now, &e->card), &t, &e->kv,
                            e->why, sizeof e->why)) {
        e->peak = t.peak;
        snprintf(e->peak_phase, sizeof e->peak_phase, "%s", t.peak.phase);
        e->peak.phase = e->peak_phase; /* the timeline's own copy goes with it */
    } else {
        e->error = e->why;
        memset(&e->kv, 0, sizeof e->kv);
    }
    vl_timeline_free(&t);
    e->fit = vl_fit_of(e->peak.device, report_capacity(&now, &e->card), &e->kv, now.batch);
}

void explorer_load_model(explorer *e, const vl_model *m)
{
    e->preset = *m;
    e->model = *m;
    e->detached = false;
    memset(e->raised, 0, sizeof e->raised);
    explorer_recompute(e);
}

const char *explorer_load_scenario(explorer *e, const vl_scenario *sc)
{
    vl_model m;
    size_t gpu = e->gpu;
    if (sc->params) {
        vl_model_from_params(&m, sc->params);
    } else if (sc->has_model) { /* the model the scenario was saved with */
        m = sc->model_def;
    } else {
        const vl_model *found = vl_catalog_model(e->cat, sc->model);
        if (!found)
            return _("the scenario's model is not in the catalog");
        m = *found;
    }
    if (sc->gpu[0]) {
        const vl_gpu *g = vl_catalog_gpu(e->cat, sc->gpu);
        if (!g)
            return _("the scenario's GPU is not in the catalog");
        gpu = (size_t)(g - e->cat->gpus);
    }
    vl_settings s = e->s;
    vl_settings_apply(&s, &sc->settings);
    vl_settings now = effective(&s);
    if (!vl_settings_valid(&now, &m.arch, e->why, sizeof e->why))
        return e->why;
    e->gpu = gpu;
    e->s = s;
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
    e->selected = SL_PARAMS;
    e->focus = -1;
    explorer_load_model(e, m);
    e->detached = m->free_params != 0;
}

/* The state with slider id at v (and the settings that follow it), if the model takes it:
 * true, or false with the reason in why. */
static bool try_value(const explorer *e, slider_id id, uint64_t v, explorer *out, char *why,
                      size_t len)
{
    *out = *e;
    out->note[0] = '\0';
    put_value(out, id, v);
    vl_settings now = explorer_settings(out);
    return vl_settings_valid(&now, &out->model.arch, why, len);
}

/* GPU i's place when the GPUs are ordered by the memory a run can use (ties by catalog
 * order). */
static bool gpu_before(const vl_catalog *c, size_t a, size_t b)
{
    const uint64_t x = vl_gpu_capacity(&c->gpus[a]), y = vl_gpu_capacity(&c->gpus[b]);
    return x < y || (x == y && a < b);
}

static size_t gpu_rank(const vl_catalog *c, size_t g)
{
    size_t r = 0;
    for (size_t i = 0; i < c->n_gpus; i++)
        r += gpu_before(c, i, g);
    return r;
}

/* The GPU with the next larger memory (dir > 0) or the next smaller; coarse: the last. */
static uint64_t gpu_next(const vl_catalog *c, size_t g, int dir, bool coarse)
{
    size_t best = g;
    for (size_t i = 0; i < c->n_gpus; i++) {
        bool beyond = dir > 0 ? gpu_before(c, g, i) : gpu_before(c, i, g);
        bool nearer = best == g || (dir > 0 ? gpu_before(c, i, best) : gpu_before(c, best, i));
        if (beyond && (nearer != coarse || best == g))
            best = i;
    }
    return best;
}

/* The next value of slider id from v in direction dir (coarse: a big step), or v at the end
 * of its range.  A value outside the slider's range (typed) only moves back into it. */
static uint64_t next_value(const explorer *e, slider_id id, uint64_t v, int dir, bool coarse)
{
    if (id == SL_GPU) /* by memory, as the picker lists them */
        return gpu_next(e->cat, (size_t)v, dir, coarse);
    if (id == VL_SET_LORA_TARGETS)
        return lora_next(v, dir, coarse);
    if (!is_numeric(id)) {
        uint64_t count = (uint64_t)choice_count(e, id), lo = desc(id) && desc(id)->type ==
                         VL_ST_COUNT ? desc(id)->min : 0;
        uint64_t i = v - lo;
        if (dir > 0)
            return coarse ? lo + count - 1 : i + 1 < count ? v + 1 : v;
        return coarse ? lo : i > 0 ? v - 1 : v;
    }
    if (id != SL_PARAMS && desc(id)->step == VL_STEP_RELEASE) /* current after the days */
        return coarse ? step_release_year(&e->s, v, dir)
                      : vl_release_next_day((uint32_t)v, dir, &e->s);
    uint64_t lo = id == SL_PARAMS ? EX_MIN_PARAMS : desc(id)->slider_min;
    uint64_t hi = id == SL_PARAMS ? EX_MAX_PARAMS : desc(id)->slider_max;
    if (id != SL_PARAMS && desc(id)->zero_ok && lo > 0) { /* off (0), just below the range */
        if (v == 0)
            return dir > 0 ? lo : 0;
        if (v <= lo && dir < 0)
            return 0;
    }
    stepper st = id == SL_PARAMS ? (coarse ? step_decade : step_e12)
                 : coarse        ? steps_of[desc(id)->step].coarse
                                 : steps_of[desc(id)->step].fine;
    if (dir > 0) {
        if (v >= hi)
            return v;
        uint64_t to = st(v, 1);
        return to > hi ? hi : to;
    }
    if (v <= lo)
        return v;
    uint64_t to = st(v, -1);
    return to < lo ? lo : to > hi ? hi : to;
}

/* Values of id on the way in direction dir, steps of them (or to the end), skipping those
 * the model refuses; e->note says what stopped it. */
static bool move(explorer *e, slider_id id, int dir, int steps, bool coarse)
{
    const char *inert = explorer_inert(e, id);
    if (inert) {
        snprintf(e->note, sizeof e->note, _("%s has no effect now: %s"), slider_label(e, id),
                 inert);
        return false;
    }
    explorer cand;
    char why[160] = "";
    uint64_t v = value_of(e, id), best = v;
    bool found = false;
    for (int i = 0; steps < 0 || i < steps;) {
        uint64_t to = next_value(e, id, v, dir, coarse);
        if (to == v)
            break;
        v = to;
        if (try_value(e, id, v, &cand, why, sizeof why)) {
            best = v;
            found = true;
            why[0] = '\0';
            i++;
        }
    }
    if (!found) {
        char now[64];
        explorer_value(e, id, VL_UNITS_GIB, now, sizeof now);
        if (why[0])
            snprintf(e->note, sizeof e->note, _("%s stays at %s: %s"), slider_label(e, id), now,
                     why);
        else
            snprintf(e->note, sizeof e->note, _("%s: at the end of its range"),
                     slider_label(e, id));
        return false;
    }
    try_value(e, id, best, &cand, why, sizeof why);
    if (why[0] && steps < 0) { /* Home/End stopped short of the end */
        char v2[32];
        explorer_value(&cand, id, VL_UNITS_GIB, v2, sizeof v2);
        char done[96];
        snprintf(done, sizeof done, "%.95s", cand.note);
        /* the label whole (24 bytes: a translation's characters take three), the rest cut */
        snprintf(cand.note, sizeof cand.note, _("%.24s stopped at %.20s: %.110s%s%.80s"),
                 slider_label(e, id), v2, why, done[0] ? "; " : "", done);
    }
    *e = cand;
    explorer_recompute(e);
    return true;
}

bool explorer_move(explorer *e, slider_id id, int steps, bool coarse)
{
    e->note[0] = '\0';
    return move(e, id, steps > 0 ? 1 : -1, steps > 0 ? steps : -steps, coarse);
}

bool explorer_jump(explorer *e, slider_id id, bool end)
{
    e->note[0] = '\0';
    return move(e, id, end ? 1 : -1, -1, false);
}

const char *explorer_set(explorer *e, slider_id id, const char *text)
{
    char why[160];
    uint64_t v = 0;
    const char *label = slider_label(e, id);
    if (id == SL_PARAMS) {
        const char *reason;
        if (!vl_parse_count(text, &v, &reason)) {
            snprintf(e->why, sizeof e->why, _("%s: '%s' is not a whole number: %s"), label, text,
                     reason);
            return e->why;
        }
        if (v < 1000000 || v > 100000000000000ULL) {
            snprintf(e->why, sizeof e->why, _("%s: %s is outside 1M..100T"), label, text);
            return e->why;
        }
    } else if (id == SL_GPU) {
        const vl_gpu *g = vl_catalog_gpu(e->cat, text);
        if (!g) {
            snprintf(e->why, sizeof e->why, _("%s: unknown value '%s'"), label, text);
            return e->why;
        }
        v = (uint64_t)(g - e->cat->gpus);
    } else if (id == VL_SET_FRAMEWORK) {
        const vl_framework *f = vl_catalog_framework(e->cat, text);
        if (!f) {
            snprintf(e->why, sizeof e->why, _("%s: unknown value '%s'"), label, text);
            return e->why;
        }
        v = (uint64_t)(f - e->cat->frameworks);
    } else if (vl_setting_table[id].zero_ok && strcmp(text, "0") == 0) {
        v = 0; /* typed, not given on the command line: a LoRA rank of 0 is "off" */
    } else {
        vl_settings s = e->s;
        char sized[144];
        size_t n = strlen(text);
        if (vl_setting_table[id].type == VL_ST_SIZE && n && isdigit((unsigned char)text[n - 1])) {
            snprintf(sized, sizeof sized, "%.128sGiB", text); /* a bare number is in GiB */
            text = sized;
        }
        if (!vl_setting_parse((vl_setting)id, text, &s, why, sizeof why)) {
            snprintf(e->why, sizeof e->why, "%s: %s", label, why);
            return e->why;
        }
        v = vl_setting_get((vl_setting)id, &s);
    }
    explorer cand;
    if (!try_value(e, id, v, &cand, why, sizeof why)) {
        snprintf(e->why, sizeof e->why, "%s: %s", label, why);
        return e->why;
    }
    *e = cand;
    explorer_recompute(e);
    return NULL;
}

/* A default the framework chooses for the GPU and release, as it is now ("auto 2,048",
 * "auto sort", "auto true"). */
static void framework_default(const explorer *e, slider_id id, char *buf, size_t len)
{
    const vl_runtime rt = explorer_runtime(e);
    vl_framework f;
    vl_framework_of(&e->s, &rt, &f);
    if (id == VL_SET_USE_REENTRANT || id == VL_SET_FSDP_MIXED_PRECISION ||
        id == VL_SET_AUTOCAST) {
        const bool on = id == VL_SET_USE_REENTRANT ? f.checkpoint_reentrant
                        : id == VL_SET_AUTOCAST    ? f.autocast
                                                   : f.fsdp_mixed_precision;
        snprintf(buf, len, "auto %s", vl_choice_names[on ? VL_CHOICE_TRUE : VL_CHOICE_FALSE]);
        return;
    }
    if (id == VL_SET_SAMPLER) {
        snprintf(buf, len, "auto %s",
                 vl_sampler_names[f.sampler_sort     ? VL_SAMPLER_SORT
                                  : f.sampler_triton ? VL_SAMPLER_TRITON
                                                     : VL_SAMPLER_FLASHINFER]);
        return;
    }
    if (id == VL_SET_GPU_UTIL) {
        snprintf(buf, len, "auto %g%%", (double)f.gpu_util * 100 / (double)VL_PPM);
        return;
    }
    const uint64_t v = id == VL_SET_PREFILL_CHUNK ? f.prefill_chunk : f.profile_seqs;
    char n[32];
    if (v)
        snprintf(buf, len, "auto %s", vl_fmt_int(v, n, sizeof n));
    else
        snprintf(buf, len, "%s", id == VL_SET_PREFILL_CHUNK ? "whole prompt" : "no profile");
}

void explorer_value(const explorer *e, slider_id id, vl_units units, char *buf, size_t len)
{
    char n[32];
    uint64_t v = value_of(e, id);
    if (id == SL_PARAMS)
        snprintf(buf, len, "%s", vl_fmt_count(v, n, sizeof n));
    else if (desc(id) && desc(id)->type == VL_ST_SIZE)
        vl_fmt_bytes(v, units, buf, len);
    else if (desc(id) && desc(id)->type == VL_ST_DAY)
        vl_day_format((uint32_t)v, buf, len);
    else if (id == VL_SET_LORA_RANK && v == 0)
        snprintf(buf, len, "off (full)");
    else if ((id == VL_SET_PREFILL_CHUNK || id == VL_SET_PROFILE_SEQS ||
              id == VL_SET_GPU_UTIL || id == VL_SET_SAMPLER || id == VL_SET_USE_REENTRANT ||
              id == VL_SET_FSDP_MIXED_PRECISION || id == VL_SET_AUTOCAST) && v == 0)
        framework_default(e, id, buf, len);
    else if (id == VL_SET_INTERCONNECT && v == VL_LINK_AUTO) /* the GPU's, as it is now */
        snprintf(buf, len, "auto %s", vl_link_names[explorer_runtime(e).interconnect]);
    else if (id == VL_SET_CUDA && v == VL_CUDA_AUTO) /* the PyTorch release's wheel's */
        snprintf(buf, len, "auto %s", vl_cuda_names[vl_settings_cuda(&e->s)]);
    else if (is_numeric(id) && desc(id)->zero_ok && v == 0)
        snprintf(buf, len, "off");
    else if (is_numeric(id) && desc(id)->type == VL_ST_FRACTION)
        snprintf(buf, len, "%g%%", (double)v * 100 / (double)VL_PPM);
    else if (is_numeric(id) && desc(id)->step == VL_STEP_E12)
        snprintf(buf, len, "%s", vl_fmt_count(v, n, sizeof n));
    else if (is_numeric(id))
        snprintf(buf, len, "%s", vl_fmt_int(v, n, sizeof n));
    else if (id == VL_SET_LORA_TARGETS)
        vl_lora_format_targets((unsigned)v, buf, len);
    else
        snprintf(buf, len, "%s", choice_name(e, id, (int)(v - (desc(id) && desc(id)->type ==
                                                               VL_ST_COUNT ? desc(id)->min : 0)),
                                             n, sizeof n));
}

double explorer_fraction(const explorer *e, slider_id id)
{
    if (id != SL_PARAMS && is_numeric(id) && desc(id)->step == VL_STEP_PERCENT) { /* linear */
        const vl_setting_desc *d = desc(id);
        uint64_t v = value_of(e, id);
        return v <= d->slider_min ? 0
               : (double)(v - d->slider_min) / (double)(d->slider_max - d->slider_min);
    }
    if (id != SL_PARAMS && is_numeric(id) && desc(id)->step == VL_STEP_RELEASE) { /* by rank */
        int n, at = vl_release_days_before((uint32_t)value_of(e, id), &n, &e->s);
        return (double)at / n;
    }
    if (is_numeric(id)) {
        uint64_t lo = id == SL_PARAMS ? EX_MIN_PARAMS : desc(id)->slider_min;
        uint64_t hi = id == SL_PARAMS ? EX_MAX_PARAMS : desc(id)->slider_max;
        /* a log scale; +1 keeps a range that starts at 0 (generated tokens) finite */
        double v = (double)value_of(e, id) + 1, l = (double)lo + 1;
        double f = log(v / l) / log(((double)hi + 1) / l);
        return f < 0 ? 0 : f > 1 ? 1 : f;
    }
    if (id == VL_SET_LORA_TARGETS) /* by the matrices adapted, 1 to all of them */
        return (double)(matrices(value_of(e, id)) - 1) / (VL_N_LORA_TARGETS - 1);
    int count = choice_count(e, id);
    uint64_t lo = desc(id) && desc(id)->type == VL_ST_COUNT ? desc(id)->min : 0;
    uint64_t at = id == SL_GPU ? gpu_rank(e->cat, e->gpu) : value_of(e, id) - lo;
    return count > 1 ? (double)at / (count - 1) : 0;
}

const vl_gpu *explorer_gpu(const explorer *e)
{
    return &e->card;
}

vl_runtime explorer_runtime(const explorer *e)
{
    return vl_runtime_on(explorer_gpu(e), &e->s, e->overhead_given);
}

bool explorer_fit_on(const explorer *e, size_t gpu, vl_fit *out, char *why, size_t len)
{
    const vl_settings now = explorer_settings(e);
    const vl_gpu card = report_gpu(&now, &e->cat->gpus[gpu]);
    const vl_runtime rt = vl_runtime_on(&card, &e->s, e->overhead_given);
    return vl_fit_for(&e->model, &now, &rt, report_capacity(&now, &card), out, why, len);
}
