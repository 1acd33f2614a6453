/* report.c: the report model: what an estimate shows (facts, fit, shares, bar scale, the
 * ZeRO sweep, the inference phases), whatever front end or writer draws it; and the table of
 * writers. */
#include "report.h"

#include "core/framework.h"

#include <inttypes.h>
#include <string.h>

#include "core/explain.h"
#include "core/i18n.h"
#include "core/lora.h"

/* ---- the writers ------------------------------------------------------------------------ */

#define REPORT_WRITER_ROW(id, name) [FMT_##id] = {#name, report_write_##name},
const report_writer report_writers[] = {REPORT_FORMATS(REPORT_WRITER_ROW)};
#undef REPORT_WRITER_ROW
_Static_assert(sizeof report_writers / sizeof report_writers[0] == N_FORMATS,
               "one writer a format");

#define REPORT_FORMAT_NAME(id, name) [FMT_##id] = #name,
const char *const report_format_names[] = {REPORT_FORMATS(REPORT_FORMAT_NAME)};
#undef REPORT_FORMAT_NAME
_Static_assert(sizeof report_format_names / sizeof report_format_names[0] == N_FORMATS,
               "one name a format");

void report_write(FILE *out, report_format f, const report *r)
{
    report_writers[f].write(out, r);
}

/* ---- fit, shares, scale ----------------------------------------------------------------- */


vl_gpu report_gpu(const vl_settings *s, const vl_gpu *g)
{
    vl_gpu card = *g;
    if (s->capacity) /* what the run may use, all of it */
        card.memory = card.cuda_memory = s->capacity;
    return card;
}

uint64_t report_capacity(const vl_settings *s, const vl_gpu *g)
{
    return vl_usable_memory(s, vl_gpu_capacity(g));
}

vl_runtime report_runtime(const report *r)
{
    return r->runtime ? *r->runtime : vl_runtime_on(r->gpu, r->settings, false);
}

vl_framework report_framework(const report *r)
{
    const vl_runtime rt = report_runtime(r);
    vl_framework f;
    vl_framework_of(r->settings, &rt, &f);
    return f;
}

const char *report_kv_budget(const report *r, vl_kv_budget *k)
{
    const vl_runtime rt = report_runtime(r);
    const vl_framework f = report_framework(r);
    return vl_kv_budget_of(r->model, r->settings, &f, &rt, report_capacity(r->settings, r->gpu),
                           k);
}

vl_fit report_judge(const report *r)
{
    vl_kv_budget k;
    report_kv_budget(r, &k); /* sizing none where the engine sizes none */
    return vl_fit_of(r->timeline ? r->timeline->peak.device : r->breakdown->total,
                     report_capacity(r->settings, r->gpu), &k, r->settings->batch);
}

bool report_fits(const report *r)
{
    return report_judge(r).fits;
}

void report_over_text(const vl_fit *f, uint64_t batch, vl_units units, char *buf, size_t len)
{
    char o[40], n[32];
    if (f->margin < (10ULL << 20)) /* too little to show in GiB */
        snprintf(o, sizeof o, "%s bytes", vl_fmt_int(f->margin, n, sizeof n));
    else
        vl_fmt_bytes(f->margin, units, o, sizeof o);
    if (f->by == VL_FIT_SHARE)
        snprintf(buf, len, "the engine would stop before serving, its share %s short of the "
                 "weights, what it keeps and the batch's KV cache", o);
    else if (f->by == VL_FIT_KV_CACHE)
        snprintf(buf, len, "the engine's KV cache holds %" PRIu64 " of the %" PRIu64
                 " sequences at once, %s short", f->held, batch, o);
    else
        snprintf(buf, len, "over by %s", o);
}

double report_share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

uint64_t report_bar_full(uint64_t capacity, const vl_breakdown *bars, size_t n)
{
    uint64_t full = capacity;
    for (size_t i = 0; i < n; i++)
        if (bars[i].total > full)
            full = bars[i].total;
    return full;
}

/* ---- the ZeRO sweep and the inference phases -------------------------------------------- */

bool report_zero_sweep(const vl_model *m, const vl_settings *s,
                       vl_breakdown zero[REPORT_ZERO_STAGES], char *err, size_t errlen)
{
    for (unsigned z = 0; z < REPORT_ZERO_STAGES; z++) {
        vl_settings at = *s;
        vl_settings_at_zero(&at, z);
        const char *why = vl_estimate(m, &at, &zero[z]);
        if (why) {
            snprintf(err, errlen, "%s", why);
            return false;
        }
    }
    return true;
}

const char *const report_phase_names[2] = {N_("prefill"), N_("decode")};

int report_phases(const vl_breakdown *b, const vl_settings *s, vl_breakdown phase[2])
{
    const vl_phase *ph[2] = {&b->inf.prefill, &b->inf.decode};
    int n = s->gen ? 2 : 1;
    for (int i = 0; i < n; i++) {
        phase[i] = *b;
        phase[i].bytes[VL_C_KV_CACHE] = ph[i]->kv_cache;
        phase[i].bytes[VL_C_ACTIVATIONS] = ph[i]->workspace;
        phase[i].total = ph[i]->total;
    }
    return n;
}

/* ---- titles ----------------------------------------------------------------------------- */

const char *report_mode(const report *r)
{
    return r->settings->mode == VL_MODE_INFER ? "inference" : "training";
}

/* What the weight dtype takes besides its name: int4's or GPTQ's group, bnb4's compute
 * dtype. */
static void weight_detail(const vl_settings *s, char *buf, size_t len)
{
    if (vl_weight_groups(s))
        snprintf(buf, len, " (%s, groups of %" PRIu64 ")", vl_weight_format_names[s->weight_format],
                 s->group_size);
    else if (vl_dtype_bnb4(s->weight_dtype))
        snprintf(buf, len, " (computing in %s)", vl_dtype_names[s->compute_dtype]);
    else
        buf[0] = '\0';
}

void report_brief_settings(const report *r, char *buf, size_t len)
{
    const vl_settings *s = r->settings;
    char flash[48];
    snprintf(flash, sizeof flash, ", %s attention", vl_attention_names[r->breakdown->attention]);
    if (s->mode == VL_MODE_INFER) {
        char grp[32];
        weight_detail(s, grp, sizeof grp);
        snprintf(buf, len,
                 "weights %s%s, KV cache %s, %" PRIu64 " GPU%s, batch %" PRIu64 ", %" PRIu64
                 " prompt + %" PRIu64 " generated tokens%s",
                 vl_dtype_names[s->weight_dtype], grp, vl_dtype_names[s->kv_dtype], s->gpus,
                 s->gpus == 1 ? "" : "s", s->batch, s->seq, s->gen, flash);
        return;
    }
    snprintf(buf, len,
             "%s, %s, ZeRO-%u, %" PRIu64 " GPU%s, micro-batch %" PRIu64 ", sequence %" PRIu64
             ", recompute %s%s",
             vl_precision_names[s->precision], vl_optimizer_names[s->optimizer], s->zero, s->gpus,
             s->gpus == 1 ? "" : "s", s->batch, s->seq, vl_recompute_names[s->recompute], flash);
}

bool report_offloaded(const report *r)
{
    if (r->settings->mode == VL_MODE_INFER)
        return r->breakdown->inf.offloaded_bytes > 0;
    return r->settings->offload != VL_OFFLOAD_NONE;
}

const char *report_offload_flag(const report *r, char *buf, size_t len)
{
    char v[32];
    if (r->settings->mode == VL_MODE_INFER)
        snprintf(buf, len, "--cpu-offload %s",
                 vl_fmt_bytes(r->settings->cpu_offload, r->units, v, sizeof v));
    else
        snprintf(buf, len, "--offload %s", vl_offload_names[r->settings->offload]);
    return buf;
}

/* ---- the facts, one a line (the table and Markdown show them) ---------------------------- */

static void model_line(const report *r, char *buf, size_t len)
{
    const vl_model *m = r->model;
    const vl_arch *a = &m->arch;
    const vl_breakdown *b = r->breakdown;
    char p[32], act[64] = "", own[96] = "";

    if (b->params.active != b->params.total && !m->free_params) {
        char ap[32];
        snprintf(act, sizeof act, " (%s active per token)",
                 vl_fmt_int(b->params.active, ap, sizeof ap));
    }
    if (m->free_params) {
        char t[32];
        snprintf(own, sizeof own, "; GPT-3-like shape derived (Brown et al. 2020, Table 2.1), "
                                  "which itself has %s",
                 vl_fmt_int(b->params.total, t, sizeof t));
    }
    char ffn[160];
    const char *kind = a->mlp == VL_MLP_GATED ? "gated" : "standard";
    if (a->experts > 1)
        snprintf(ffn, sizeof ffn, "%" PRIu64 " experts of FFN %" PRIu64 " %s (%" PRIu64
                 " per token%s%s)", a->experts, a->moe_ffn, kind, a->experts_per_token,
                 a->shared_experts ? ", plus shared" : "",
                 a->dense_layers ? "; dense layers first" : "");
    else
        snprintf(ffn, sizeof ffn, "FFN %" PRIu64 " %s", a->ffn, kind);
    snprintf(buf, len,
             "%s params%s: %" PRIu64 " layers, hidden %" PRIu64 ", %" PRIu64 " heads (%" PRIu64
             " KV, head dim %" PRIu64 "%s), %s, vocab %" PRIu64 "%s",
             vl_fmt_int(b->P, p, sizeof p), act, a->layers, a->hidden, a->heads, a->kv_heads,
             a->head_dim, a->kv_lora_rank ? ", latent attention" : "", ffn, a->vocab, own);
}

/* Whether s names setting k away from `plain` where k takes effect (its own inert rule):
 * what the settings line says beside the framework. */
static bool named(const vl_settings *s, vl_setting k, uint64_t plain)
{
    return vl_setting_get(k, s) != plain && !vl_setting_table[k].inert(s);
}

static void settings_line(const report *r, char *buf, size_t len)
{
    const vl_settings *s = r->settings;
    char ov[32], grp[32];
    if (s->mode == VL_MODE_INFER) {
        weight_detail(s, grp, sizeof grp);
        char par[96] = "";
        if (s->pp > 1)
            snprintf(par, sizeof par, " (%" PRIu64 " pipeline stages of %" PRIu64 " layers at "
                     "most, %" PRIu64 "-way tensor parallel in each)", s->pp,
                     r->breakdown->inf.stage_layers, vl_infer_tp(s));
        else if (s->gpus > 1)
            snprintf(par, sizeof par, " (tensor parallel)");
        char release[64] = "";
        if (named(s, VL_SET_VLLM, VL_VLLM_CURRENT))
            snprintf(release, sizeof release, ", vLLM %s", vl_vllm_names[s->vllm]);
        if (named(s, VL_SET_SAMPLER, VL_SAMPLER_AUTO))
            snprintf(release + strlen(release), sizeof release - strlen(release),
                     ", %s sampler", vl_sampler_names[s->sampler]);
        if (named(s, VL_SET_SGLANG, VL_SGL_CURRENT))
            snprintf(release + strlen(release), sizeof release - strlen(release),
                     ", SGLang %s", vl_sglang_names[s->sglang]);
        snprintf(buf, len,
                 "inference, weights %s%s, KV cache %s, %" PRIu64 " GPU%s%s, batch %" PRIu64
                 ", prompt %" PRIu64 " + %" PRIu64 " generated tokens, %s attention, %s%s, "
                 "overhead %s",
                 vl_dtype_names[s->weight_dtype], grp, vl_dtype_names[s->kv_dtype], s->gpus,
                 s->gpus == 1 ? "" : "s", par, s->batch,
                 s->seq, s->gen, vl_attention_names[r->breakdown->attention],
                 s->framework->display, release,
                 vl_fmt_bytes(s->overhead, r->units, ov, sizeof ov));
        return;
    }
    char lora[96] = "", tg[64], head[64] = "", torch[32] = "", tf[128] = "";
    if (s->torch != VL_TORCH_CURRENT)
        snprintf(torch, sizeof torch, " on PyTorch %s", vl_torch_names[s->torch]);
    /* the libraries' releases where they apply (the settings' own rules): " with
     * transformers 4.40 and bitsandbytes 0.43.1" */
    if (named(s, VL_SET_TRANSFORMERS, VL_TF_CURRENT))
        snprintf(tf, sizeof tf, " with transformers %s", vl_transformers_names[s->transformers]);
    if (named(s, VL_SET_BITSANDBYTES, VL_BNB_CURRENT))
        snprintf(tf + strlen(tf), sizeof tf - strlen(tf), "%s bitsandbytes %s",
                 tf[0] ? " and" : " with", vl_bitsandbytes_names[s->bitsandbytes]);
    if (named(s, VL_SET_TRL, VL_TRL_CURRENT))
        snprintf(tf + strlen(tf), sizeof tf - strlen(tf), "%s trl %s", tf[0] ? " and" : " with",
                 vl_trl_names[s->trl]);
    if (named(s, VL_SET_MEGATRON, VL_MEG_CURRENT))
        snprintf(tf + strlen(tf), sizeof tf - strlen(tf), "%s Megatron-Core %s",
                 tf[0] ? " and" : " with", vl_megatron_names[s->megatron]);
    const bool loss16 = s->loss_dtype == VL_LOSS_BF16 || s->loss_dtype == VL_LOSS_FP16;
    if (s->head != VL_HEAD_LM || loss16)
        snprintf(head, sizeof head, ", %s head%s%s", vl_head_names[s->head],
                 loss16 ? ", loss in " : "", loss16 ? vl_loss_dtype_names[s->loss_dtype] : "");
    if (s->lora_rank)
        snprintf(lora, sizeof lora, "%s rank %" PRIu64 " on %s, ", s->qlora ? "QLoRA" : "LoRA",
                 s->lora_rank, vl_lora_format_targets(s->lora_targets, tg, sizeof tg));
    const bool ckpt = named(s, VL_SET_USE_REENTRANT, VL_CHOICE_AUTO);
    const bool mp = named(s, VL_SET_FSDP_MIXED_PRECISION, VL_CHOICE_AUTO);
    const bool zg = named(s, VL_SET_ZERO_GRAD, VL_ZERO_GRAD_STEP);
    snprintf(buf, len,
             "%s%s, %s%s, ZeRO-%u%s%s, %" PRIu64 " GPU%s, micro-batch %" PRIu64
             ", sequence %" PRIu64 ", recompute %s%s%s%s, %s attention, %s%s%s%s, overhead %s",
             lora, vl_precision_names[s->precision], vl_optimizer_names[s->optimizer],
             s->fp32_grads ? ", fp32 gradients" : "", s->zero,
             mp ? " with fsdp_mixed_precision " : "",
             mp ? vl_choice_names[s->fsdp_mixed_precision] : "", s->gpus, s->gpus == 1 ? "" : "s",
             s->batch, s->seq, vl_recompute_names[s->recompute],
             ckpt ? " with use_reentrant " : "", ckpt ? vl_choice_names[s->use_reentrant] : "",
             zg ? ", zero_grad before backward" : "", vl_attention_names[r->breakdown->attention],
             s->framework->display, tf, torch, head,
             vl_fmt_bytes(s->overhead, r->units, ov, sizeof ov));
}

/* Model parallelism and gradient accumulation; false for one data-parallel layout of
 * micro-batches without accumulation. */
static bool parallel_line(const report *r, char *buf, size_t len)
{
    const vl_settings *s = r->settings;
    const vl_parallel *p = &r->breakdown->par;
    if (s->mode != VL_MODE_TRAIN ||
        (s->tp == 1 && s->pp == 1 && s->cp == 1 && s->grad_accum == 1))
        return false;
    char stage[256] = "", context[96] = "";
    if (s->cp > 1)
        snprintf(context, sizeof context, " x context %" PRIu64 " (%" PRIu64 " tokens a GPU)",
                 p->cp, r->breakdown->act.local_seq);
    const vl_activations *act = &r->breakdown->act;
    if (s->pp > 1 && s->vpp > 1)
        snprintf(stage, sizeof stage, "; the numbers are a first-stage GPU's: %" PRIu64 " of %"
                 PRIu64 " layers in %" PRIu64 " chunks of %" PRIu64 ", %" PRIu64 " chunk "
                 "micro-batches in flight (interleaved 1F1B), %" PRIu64 " with the embedding",
                 p->stage_layers, p->model_layers, p->vpp, act->chunk_layers,
                 act->chunks_in_flight, p->in_flight);
    else if (s->pp > 1)
        snprintf(stage, sizeof stage, "; the numbers are a first-stage GPU's: %" PRIu64 " of %"
                 PRIu64 " layers, %" PRIu64 " micro-batch%s in flight (1F1B)",
                 p->stage_layers, p->model_layers, p->in_flight, p->in_flight == 1 ? "" : "es");
    snprintf(buf, len,
             "tensor %" PRIu64 "%s x pipeline %" PRIu64 "%s x data %" PRIu64 " = %" PRIu64
             " GPUs; global batch %" PRIu64 " sequences (micro-batch %" PRIu64
             " x data parallel %" PRIu64 " x accumulation %" PRIu64 ")%s",
             p->tp, s->sp ? " (sequence parallel)" : "", p->pp, context, p->dp, s->gpus,
             p->global_batch,
             s->batch, p->dp, s->grad_accum, stage);
    return true;
}

/* Expert parallelism: how the routed experts are split; false without --ep. */
static bool experts_line(const report *r, char *buf, size_t len)
{
    const vl_parallel *p = &r->breakdown->par;
    const vl_arch *a = &r->model->arch;
    if (r->settings->mode != VL_MODE_TRAIN || p->ep <= 1)
        return false;
    char x[32], g[32], t[32];
    snprintf(buf, len,
             "expert parallel %" PRIu64 ": %" PRIu64 " routed experts a layer, %" PRIu64
             " on each GPU; their %s params, %s on each GPU; their gradients and optimizer "
             "states shard (ZeRO) over the %" PRIu64 " GPU%s holding the same experts; "
             "all-to-all dispatch and combine buffers %s (in the activations)",
             p->ep, a->experts, a->experts / p->ep, vl_fmt_int(p->expert_params, x, sizeof x),
             vl_fmt_int(p->expert_params_per_gpu, g, sizeof g), p->expert_dp,
             p->expert_dp == 1 ? "" : "s",
             vl_fmt_bytes(r->breakdown->act.a2a_bytes, r->units, t, sizeof t));
    return true;
}

/* Offload: what moved to CPU memory, per GPU and per node; false without. */
static bool offload_line(const report *r, char *buf, size_t len)
{
    const vl_cpu *c = &r->breakdown->cpu;
    char o[32], w[32], n[32], flag[64], what[128];
    if (!report_offloaded(r))
        return false;
    vl_fmt_bytes(c->moved[VL_C_WEIGHTS], r->units, w, sizeof w);
    if (r->settings->mode == VL_MODE_INFER) /* weights only, read over the host link */
        snprintf(what, sizeof what, "%s of weights", w);
    else
        snprintf(what, sizeof what, "%s of optimizer states%s%s%s",
                 vl_fmt_bytes(c->moved[VL_C_OPTIMIZER], r->units, o, sizeof o),
                 c->moved[VL_C_WEIGHTS] ? " and " : "", c->moved[VL_C_WEIGHTS] ? w : "",
                 c->moved[VL_C_WEIGHTS] ? " of weights" : "");
    snprintf(buf, len,
             "%s: %s per GPU in CPU memory; %" PRIu64
             " GPU%s a node: %s of CPU memory per node (%" PRIu64 " node%s)",
             report_offload_flag(r, flag, sizeof flag), what,
             c->gpus_per_node, c->gpus_per_node == 1 ? "" : "s",
             vl_fmt_bytes(c->node_total, r->units, n, sizeof n), c->nodes,
             c->nodes == 1 ? "" : "s");
    return true;
}

/* LoRA: what trains and what is frozen; false without adapters. */
static bool lora_line(const report *r, char *buf, size_t len)
{
    const vl_lora_split *l = &r->breakdown->lora;
    char t[32], f[32], fb[32], n[32], nb[32];
    if (r->settings->mode != VL_MODE_TRAIN || !l->on)
        return false;
    int k = snprintf(buf, len,
                     "%s trainable adapter params (%.3f%% of the model); %s frozen base params, "
                     "%s frozen bytes",
                     vl_fmt_int(l->trainable_params, t, sizeof t),
                     l->frozen_params ? 100.0 * (double)l->trainable_params / (double)l->frozen_params
                                      : 0.0,
                     vl_fmt_int(l->frozen_params, f, sizeof f),
                     vl_fmt_bytes(l->frozen_bytes, r->units, fb, sizeof fb));
    if (r->settings->qlora && k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, " (%s layer-matrix params in NF4: %s)",
                 vl_fmt_int(l->nf4_params, n, sizeof n),
                 vl_fmt_bytes(l->nf4_bytes, r->units, nb, sizeof nb));
    return true;
}

static void bpp_line(const report *r, char *buf, size_t len)
{
    const vl_bpp *b = &r->breakdown->bpp;
    if (r->settings->mode == VL_MODE_INFER) {
        const vl_inference *inf = &r->breakdown->inf;
        char t[32];
        snprintf(buf, len, "KV cache %s B per token per sequence (the whole model's)",
                 vl_fmt_int(inf->kv_bytes_per_token, t, sizeof t));
        return;
    }
    char shaped[160] = "", sb[32];
    if (b->shaped) /* Adafactor, Muon: a part that follows the matrices' shapes */
        snprintf(shaped, sizeof shaped, ", + %s for the model (%s)",
                 vl_fmt_bytes(b->shaped_bytes, r->units, sb, sizeof sb), b->shaped);
    snprintf(buf, len, "weights %u + gradients %u + optimizer states %u = %u B/param%s%s",
             b->weights, b->gradients, b->optimizer, b->weights + b->gradients + b->optimizer,
             !r->breakdown->lora.on ? ""
             : !r->breakdown->lora.fp32 ? " of the adapters (the frozen base: weights only)"
             : r->settings->qlora
                 ? " of the adapters, fp32 on the 4-bit layers (the frozen base: weights only)"
                 : " of the adapters, fp32 as PEFT 0.12 makes them (--peft; the frozen base: "
                   "weights only)",
             shaped);
}

void report_verdict(const report *r, char *buf, size_t len)
{
    const vl_fit f = report_judge(r);
    char d[32], over[160];
    if (!f.fits) {
        report_over_text(&f, r->settings->batch, r->units, over, sizeof over);
        snprintf(buf, len, "%sdoes not fit: %s",
                 r->timeline && f.by == VL_FIT_PEAK ? "at its peak, " : "", over);
    } else if (f.by == VL_FIT_KV_CACHE) {
        snprintf(buf, len, "fits: the engine's KV cache holds %" PRIu64 " sequences at once, "
                 "the %" PRIu64 " with %s to spare", f.held, r->settings->batch,
                 vl_fmt_bytes(f.margin, r->units, d, sizeof d));
    } else {
        snprintf(buf, len, "%sfits, with %s to spare", r->timeline ? "at its peak, " : "",
                 vl_fmt_bytes(f.margin, r->units, d, sizeof d));
    }
}

void report_fit_line(const report *r, char *buf, size_t len)
{
    const vl_gpu *g = r->gpu;
    char cap[32], verdict[256], notes[192] = "", u[32], t[32];
    report_verdict(r, verdict, sizeof verdict);
    /* where the figure comes from and the engine's share of it, in one parenthesis */
    size_t n = 0;
    if (r->settings->capacity)
        n += (size_t)snprintf(notes + n, sizeof notes - n, "--capacity");
    else if (vl_gpu_capacity(g) != g->memory)
        n += (size_t)snprintf(notes + n, sizeof notes - n, "as CUDA reports it; nvidia-smi: %s",
                              vl_fmt_bytes(g->memory, r->units, t, sizeof t));
    const uint64_t usable = report_capacity(r->settings, g);
    if (usable < vl_gpu_capacity(g))
        snprintf(notes + n, sizeof notes - n, "%sthe engine may use %g%%: %s", n ? "; " : "",
                 100.0 * (double)vl_settings_share(r->settings) / (double)VL_PPM,
                 vl_fmt_bytes(usable, r->units, u, sizeof u));
    snprintf(buf, len, "%s (%s): %s per GPU%s%s%s; %s", g->display, g->name,
             vl_fmt_bytes(vl_gpu_capacity(g), r->units, cap, sizeof cap), *notes ? " (" : "",
             notes, *notes ? ")" : "", verdict);
}

/* Inference: each phase's peak; empty in training. */
static bool phases_line(const report *r, char *buf, size_t len)
{
    const vl_inference *inf = &r->breakdown->inf;
    char a[32], b[32], c[32], d[32], e[32], f[32];
    if (r->settings->mode != VL_MODE_INFER)
        return false;
    if (r->settings->gen == 0) {
        snprintf(buf, len, "prefill %s (KV cache %s + workspace %s); no decode (--gen 0)",
                 vl_fmt_bytes(inf->prefill.total, r->units, a, sizeof a),
                 vl_fmt_bytes(inf->prefill.kv_cache, r->units, b, sizeof b),
                 vl_fmt_bytes(inf->prefill.workspace, r->units, c, sizeof c));
        return true;
    }
    snprintf(buf, len,
             "prefill %s (KV cache %s + workspace %s); decode %s (KV cache %s + workspace %s); "
             "the %s phase sets the peak",
             vl_fmt_bytes(inf->prefill.total, r->units, a, sizeof a),
             vl_fmt_bytes(inf->prefill.kv_cache, r->units, b, sizeof b),
             vl_fmt_bytes(inf->prefill.workspace, r->units, c, sizeof c),
             vl_fmt_bytes(inf->decode.total, r->units, d, sizeof d),
             vl_fmt_bytes(inf->decode.kv_cache, r->units, e, sizeof e),
             vl_fmt_bytes(inf->decode.workspace, r->units, f, sizeof f),
             inf->decode_peak ? "decode" : "prefill");
    return true;
}

vl_speed report_speed(const report *r)
{
    return vl_speed_bounds(r->breakdown, r->settings, r->gpu->bandwidth, r->gpu->bf16_flops,
                           r->gpu->host_bandwidth);
}

/* Inference: the roofline bounds; false in training or when the GPU's figures are unknown. */
vl_train_speed report_train_speed(const report *r)
{
    return vl_train_speed_of(r->model, r->breakdown, r->settings, r->gpu);
}

static bool speed_line(const report *r, char *buf, size_t len)
{
    if (r->settings->mode == VL_MODE_TRAIN) {
        vl_train_speed t = report_train_speed(r);
        vl_explain_step_time(r->settings, &r->model->arch, &t, buf, len);
        return true;
    }
    vl_speed v = report_speed(r);
    if (r->settings->mode != VL_MODE_INFER || (!v.decode_step_seconds && !v.prefill_seconds))
        return false;
    snprintf(buf, len,
             "roofline bounds on %s: decode at most %.1f tokens/s (%.2f ms a step, reading the "
             "weights and KV cache once); prefill at least %.3f s (2 x active params x %" PRIu64
             " tokens at %.0f TFLOP/s bf16)",
             r->gpu->name, v.decode_tokens_per_s, v.decode_step_seconds * 1e3, v.prefill_seconds,
             r->settings->batch * r->settings->seq, r->gpu->bf16_flops / 1e12);
    if (v.host_seconds > 0) { /* --cpu-offload: the host link's share, its formula */
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "; ");
        vl_explain_host_link(r->breakdown, &v, r->gpu->bandwidth, r->gpu->host_bandwidth,
                             r->units, buf + n + 2, len - n - 2);
    }
    return true;
}

/* --solve: the answer and what the next value would need. */
static bool solve_line(const report *r, char *buf, size_t len)
{
    const vl_solution *sol = r->solution;
    char t[32], o[192];
    if (!sol)
        return false;
    int n = snprintf(buf, len, "%s = %" PRIu64 " on %s", vl_solve_names[r->solved], sol->answer,
                     r->gpu->name);
    if (sol->next && sol->next_total && n > 0 && (size_t)n < len) {
        const vl_fit *f = &sol->next_fit; /* the sequences there: the batch, or the next */
        const bool seqs = r->solved == VL_SOLVE_MAX_BATCH || r->solved == VL_SOLVE_MAX_CONCURRENCY;
        report_over_text(f, seqs ? sol->next : r->settings->batch, r->units, o, sizeof o);
        if (f->by == VL_FIT_PEAK)
            snprintf(buf + n, len - (size_t)n, " (%" PRIu64 " would need %s, %s)", sol->next,
                     vl_fmt_bytes(sol->next_total, r->units, t, sizeof t), o);
        else
            snprintf(buf + n, len - (size_t)n, " (%" PRIu64 ": %s)", sol->next, o);
    }
    return true;
}

const char *report_peak_extras(const vl_peak *p, vl_units units, char *buf, size_t len)
{
    char mg[32], cm[32], nv[32], sharp[64] = "", paged[96] = "", comm[128] = "";
    if (p->managed)
        snprintf(paged, sizeof paged, " + %s paged optimizer states (CUDA managed memory)",
                 vl_fmt_bytes(p->managed, units, mg, sizeof mg));
    if (p->nvls)
        snprintf(sharp, sizeof sharp, "; %s of them NVLink SHARP",
                 vl_fmt_bytes(p->nvls, units, nv, sizeof nv));
    if (p->communicators)
        snprintf(comm, sizeof comm, " + %s communicators' buffers (%s%s)",
                 vl_fmt_bytes(p->communicators, units, cm, sizeof cm), vl_link_names[p->link],
                 sharp);
    snprintf(buf, len, "%s%s", paged, comm);
    return buf;
}

/* The step's peak beside the steady-state sum; false without a timeline. */
static bool peak_line(const report *r, char *buf, size_t len)
{
    const vl_timeline *t = r->timeline;
    if (!t)
        return false;
    const vl_peak *p = &t->peak;
    char d[32], a[32], rs[32], c[32], sum[32], paged[256], cuda[64] = "";
    report_peak_extras(p, r->units, paged, sizeof paged);
    const vl_settings *s = r->settings;
    const vl_cuda run_cuda = vl_settings_cuda(s);
    if (!report_runtime(r).overhead_given) /* the release the context is modelled for */
        snprintf(cuda, sizeof cuda, " (CUDA %s%s%s)",
                 run_cuda == VL_CUDA_CURRENT ? vl_setting_table[VL_SET_CUDA].current_from
                                             : vl_cuda_names[run_cuda],
                 run_cuda == VL_CUDA_CURRENT ? " and later" : "",
                 s->cuda == VL_CUDA_AUTO ? ", PyTorch's wheel" : "");
    /* an engine's whole KV cache, which the step runs beside (vl_timeline_for) */
    char pool[96] = "", kb[32];
    vl_kv_budget k;
    if (!report_kv_budget(r, &k) && k.available && p->alive[VL_TL_KV_CACHE] == k.available)
        snprintf(pool, sizeof pool, " beside the engine's whole KV cache (%s)",
                 vl_fmt_bytes(k.available, r->units, kb, sizeof kb));
    char freed[112] = "", fb[32];
    if (p->released)
        snprintf(freed, sizeof freed, " (after it freed %s of cached segments as the GPU ran "
                 "short)", vl_fmt_bytes(p->released, r->units, fb, sizeof fb));
    snprintf(buf, len,
             "%s on the GPU at the step's peak (nvidia-smi)%s, in %s%s: %s allocated "
             "(max_memory_allocated), %s reserved by the caching allocator%s, + %s CUDA "
             "context%s%s; the sum above, %s, is the steady state",
             vl_fmt_bytes(p->device, r->units, d, sizeof d),
             t->second_step ? ", the run's second, on the segments the first step left" : "",
             p->phase, pool,
             vl_fmt_bytes(p->allocated, r->units, a, sizeof a),
             vl_fmt_bytes(p->reserved, r->units, rs, sizeof rs), freed,
             vl_fmt_bytes(p->context, r->units, c, sizeof c), cuda, paged,
             vl_fmt_bytes(r->breakdown->total, r->units, sum, sizeof sum));
    return true;
}

/* The CUDA context of the peak line, traced: the threads' stacks and the measured base, or a
 * measured whole, then the kernels the run loads lazily; false under --overhead. */
static bool context_line(const report *r, char *buf, size_t len)
{
    const vl_timeline *t = r->timeline;
    const vl_runtime rt = report_runtime(r);
    if (!t || rt.overhead_given)
        return false;
    const vl_peak *p = &t->peak;
    char all[32], start[32], st[32], base[32], lazy[160] = "", part[32], stack[160] = "";
    char own[120] = "", ob[32];
    uint64_t threads;
    const uint64_t stacks = vl_context_stacks(&rt, &threads);
    if (stacks)
        snprintf(stack, sizeof stack,
                 "%" PRIu64 " SMs x %" PRIu64 " threads x 1 KiB of stack, %s, + %s of ", rt.sms,
                 threads, vl_fmt_bytes(stacks, r->units, st, sizeof st),
                 vl_fmt_bytes(p->context - p->lazy_kernels - p->cublas_own - stacks, r->units,
                              base, sizeof base));
    if (p->lazy_kernels) /* whose figure: an engine's measured profile, or PyTorch's */
        snprintf(lazy, sizeof lazy, " + %s of kernels loaded as the run first uses them (%s)",
                 vl_fmt_bytes(p->lazy_kernels, r->units, part, sizeof part),
                 report_framework(r).profile_non_torch
                     ? "what the engine measured its profile forward add outside PyTorch"
                     : "eager loading's context less lazy loading's, pytorch/pytorch#86509");
    if (p->cublas_own)
        snprintf(own, sizeof own, " + %s of workspaces cuBLAS makes itself (PyTorch < 2.0)",
                 vl_fmt_bytes(p->cublas_own, r->units, ob, sizeof ob));
    snprintf(buf, len, "%s = %s at start (%s%s)%s%s",
             vl_fmt_bytes(p->context, r->units, all, sizeof all),
             vl_fmt_bytes(p->context - p->lazy_kernels - p->cublas_own, r->units, start,
                          sizeof start),
             stack, p->context_source, lazy, own);
    return true;
}

void report_event_line(const report *r, size_t i, char *buf, size_t len)
{
    const vl_event *e = &r->timeline->events[i];
    char b[32], a[32], rs[32];
    snprintf(buf, len, "%5zu %-5s %-28.28s %-36.36s %16s %12s %12s", i,
             e->kind == VL_EV_ALLOC ? "alloc" : "free", vl_timeline_phase(r->timeline, i),
             e->what, vl_fmt_int(e->bytes, b, sizeof b),
             vl_fmt_bytes(e->allocated, r->units, a, sizeof a),
             vl_fmt_bytes(e->reserved, r->units, rs, sizeof rs));
}

/* The KV cache an engine sizes itself (vl_kv_budget_of), term by term, for serving_line;
 * cache_left: whether anything is left for it. */
static void kv_budget_text(const report *r, const vl_kv_budget *k, bool cache_left, char *buf,
                           size_t len)
{
    char a[32], w[32], p[32], n[32], tok[32], cm[32], ss[32], ge[32], cap[32], free[32],
        all[32], comm[224] = "", rest[96];
    size_t o = 0;
    if (k->communicators)
        o += (size_t)snprintf(comm + o, sizeof comm - o,
                              k->sizing == VL_KV_STATIC ? " and %s of communicators"
                                                        : " - %s communicators",
                              vl_fmt_bytes(k->communicators, r->units, cm, sizeof cm));
    if (k->comm_made && k->sizing == VL_KV_PROFILE)
        o += (size_t)snprintf(comm + o, sizeof comm - o,
                              " (the %s more they took as they were made, before the engine "
                              "measured its memory, are outside its share)",
                              vl_fmt_bytes(k->comm_made, r->units, all, sizeof all));
    if (k->sampler_state)
        o += (size_t)snprintf(comm + o, sizeof comm - o, " - %s sampler state",
                              vl_fmt_bytes(k->sampler_state, r->units, ss, sizeof ss));
    if (k->graph_estimate) /* measured after capture from 0.34, estimated before */
        snprintf(comm + o, sizeof comm - o,
                 k->sizing == VL_KV_EXTENSIBLE ? " - %s CUDA graphs" : " - %s CUDA graphs (its "
                                                                       "estimate)",
                 vl_fmt_bytes(k->graph_estimate, r->units, ge, sizeof ge));
    if (cache_left)
        snprintf(rest, sizeof rest, "%s, %s tokens",
                 vl_fmt_bytes(k->available, r->units, a, sizeof a),
                 vl_fmt_int(k->tokens, tok, sizeof tok));
    else /* what vLLM then says: "No available memory for the cache blocks" */
        snprintf(rest, sizeof rest, "nothing, %s short: the engine stops before serving",
                 vl_fmt_bytes(k->shortfall, r->units, a, sizeof a));
    vl_fmt_bytes(k->capacity, r->units, cap, sizeof cap);
    vl_fmt_bytes(k->weights, r->units, w, sizeof w);
    char head[224] = "", made[96] = "";
    if (k->comm_made && k->sizing == VL_KV_EXTENSIBLE) /* on the device before it measures,
                                                          * not among what it keeps */
        snprintf(made, sizeof made, " - %s communicators' first buffers",
                 vl_fmt_bytes(k->comm_made, r->units, all, sizeof all));
    if (k->sizing == VL_KV_EXTENSIBLE) /* the GPU less the context and the margin, or the share */
        snprintf(head, sizeof head, k->capacity + k->context + k->comm_made + k->margin ==
                                        vl_gpu_capacity(r->gpu)
                                        ? " (what is free after warmup and CUDA graph capture: "
                                          "%s - %s CUDA context%s - %s margin)"
                                        : " (its share, less than what is free after warmup and "
                                          "CUDA graph capture)",
                 vl_fmt_bytes(vl_gpu_capacity(r->gpu), r->units, free, sizeof free),
                 vl_fmt_bytes(k->context, r->units, n, sizeof n), made,
                 vl_fmt_bytes(k->margin, r->units, p, sizeof p));
    if (k->sizing == VL_KV_STATIC)
        snprintf(buf, len, "; its KV pool: %g x %s free before the weights load (after CUDA's "
                 "context%s) = %s - %s weights = %s",
                 (double)k->share / (double)VL_PPM,
                 vl_fmt_bytes(k->free_at_load, r->units, free, sizeof free), comm, cap, w, rest);
    else if (k->sizing == VL_KV_EXTENSIBLE)
        snprintf(buf, len, "; its KV cache: %s%s - %s weights - %s transient peak (its profile "
                 "run's, %" PRIu64 " %s of %" PRIu64 " tokens) - %s outside PyTorch%s = %s", cap,
                 head, w, vl_fmt_bytes(k->profile_peak, r->units, p, sizeof p), k->profile_seqs,
                 k->profile_seqs == 1 ? "sequence" : "sequences", k->profile_tokens,
                 vl_fmt_bytes(k->non_torch, r->units, n, sizeof n), comm, rest);
    else
        snprintf(buf, len, "; its KV cache (what its profile run leaves): %s - %s weights - %s "
                 "profile run peak (%" PRIu64 " %s of %" PRIu64 " tokens) - %s outside "
                 "PyTorch%s = %s", cap, w,
                 vl_fmt_bytes(k->profile_peak, r->units, p, sizeof p), k->profile_seqs,
                 k->profile_seqs == 1 ? "sequence" : "sequences", k->profile_tokens,
                 vl_fmt_bytes(k->non_torch, r->units, n, sizeof n), comm, rest);
}

/* The facts that only some runs have, each with its label: a line, or false. */
typedef bool (*fact_line)(const report *r, char *buf, size_t len);
/* Serving capacity: what the engine may use, the paged cache, the cache an engine gives
 * itself (vl_kv_budget_of) and the sequences it holds at once; false unless the engine takes
 * a share, --kv-block is in force or max-concurrency solved. */
static bool serving_line(const report *r, char *buf, size_t len)
{
    const vl_settings *s = r->settings;
    const vl_inference *inf = &r->breakdown->inf;
    if (s->mode != VL_MODE_INFER ||
        (vl_settings_share(s) == VL_PPM && !s->kv_block &&
         !(r->solution && r->solved == VL_SOLVE_MAX_CONCURRENCY)))
        return false;
    char u[32], blocks[128] = "", cache[640] = "", seq[96] = "", head[160];
    if (s->kv_block)
        snprintf(blocks, sizeof blocks, "; the KV cache paged in blocks of %" PRIu64
                 " %s: %" PRIu64 " slots for a sequence of %" PRIu64, s->kv_block,
                 s->kv_block == 1 ? "token" : "tokens", inf->cached_slots, inf->cached_tokens);
    const uint64_t capacity = report_capacity(s, r->gpu);
    vl_kv_budget k;
    const bool cache_left = !report_kv_budget(r, &k);
    if (k.sizing != VL_KV_NONE)
        kv_budget_text(r, &k, cache_left, cache, sizeof cache);
    vl_solution c;
    vl_settings copy = *s;
    const vl_runtime rt = report_runtime(r);
    const vl_framework f = report_framework(r); /* its share, the engine's rule resolved */
    if (!vl_solve_fit(r->model, &copy, VL_SOLVE_MAX_CONCURRENCY, capacity, &rt, &c))
        snprintf(seq, sizeof seq, "; room for %" PRIu64 " %s of %" PRIu64 " tokens at once",
                 c.answer, c.answer == 1 ? "sequence" : "sequences", s->seq + s->gen);
    if (s->framework->kv_sizing == VL_KV_STATIC)
        snprintf(head, sizeof head, "the engine keeps its weights and KV pool in %g of the "
                 "memory free before the weights load (mem_fraction_static), the rest for its "
                 "runtime", (double)f.gpu_util / (double)VL_PPM);
    else
        snprintf(head, sizeof head, "the engine may use %g%% of each GPU, %s",
                 100.0 * (double)f.gpu_util / (double)VL_PPM,
                 vl_fmt_bytes(capacity, r->units, u, sizeof u));
    snprintf(buf, len, "%s%s%s%s", head, blocks, cache, seq);
    return true;
}

/* A GGUF file type: its tensor data and the types in it. */
static bool gguf_line(const report *r, char *buf, size_t len)
{
    const vl_inference *inf = &r->breakdown->inf;
    if (r->settings->mode != VL_MODE_INFER || !inf->gguf_on)
        return false;
    char by[32], mix[512], in[32];
    vl_explain_gguf_mix(&inf->gguf, mix, sizeof mix);
    const char *cp = inf->gguf.output_copy_bytes
                         ? ", and its output layer loads token_embd again on the GPU"
                         : "";
    snprintf(buf, len, "%s: %s bytes of tensor data, %.3f bits a weight (%s; ggml's block "
             "layouts, llama-quantize's tensor mix); the file adds its metadata; llama.cpp "
             "keeps the input layer (token_embd and any position embeddings, %s bytes) in CPU "
             "memory%s",
             vl_dtype_names[r->settings->weight_dtype],
             vl_fmt_int(inf->gguf.bytes, by, sizeof by), vl_gguf_bits_per_weight(&inf->gguf), mix,
             vl_fmt_int(inf->gguf.input_bytes, in, sizeof in), cp);
    return true;
}

/* --model: where the count came from (config.json, or the checkpoint's safetensors
 * headers), and how the architecture's own count compares. */
static bool source_line(const report *r, char *buf, size_t len)
{
    const vl_model *m = r->model;
    const vl_breakdown *b = r->breakdown;
    if (!m->hf_cache)
        return false;
    if (!m->checkpoint_params) {
        snprintf(buf, len, "%s", m->source);
        return true;
    }
    char p[32], by[32], arch[32];
    vl_fmt_int(m->checkpoint_params, p, sizeof p);
    vl_fmt_int(m->checkpoint_bytes, by, sizeof by);
    if (b->params.total == m->checkpoint_params)
        snprintf(arch, sizeof arch, "the same");
    else
        vl_fmt_int(b->params.total, arch, sizeof arch);
    snprintf(buf, len, "%s: %s params, %s bytes stored; the architecture from config.json "
                       "counts %s", m->source, p, by, arch);
    return true;
}

typedef struct optional_fact {
    const char *label;
    fact_line line;
} optional_fact;

static int optional_facts(const report *r, const optional_fact *f, size_t n, report_fact *out)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        if (f[i].line(r, out[k].text, sizeof out[k].text))
            out[k++].label = f[i].label;
    return k;
}

static int fact(report_fact *out, const char *label, const char *text)
{
    out->label = label;
    snprintf(out->text, sizeof out->text, "%s", text);
    return 1;
}

int report_facts(const report *r, report_fact facts[REPORT_MAX_FACTS])
{
    static const optional_fact origin[] = {{"source", source_line}};
    static const optional_fact training[] = {
        {"LoRA", lora_line}, {"offload", offload_line}, {"parallel", parallel_line},
        {"experts", experts_line}};
    static const optional_fact results[] = {
        {"peak", peak_line}, {"context", context_line}, {"GGUF", gguf_line},
        {"serving", serving_line}, {"phases", phases_line}, {"speed", speed_line},
        {"solved", solve_line}};
    char notes[VL_MAX_NOTES][VL_NOTE_LEN];
    int n = 0;
    model_line(r, facts[n].text, sizeof facts[n].text);
    facts[n++].label = "model";
    n += optional_facts(r, origin, 1, &facts[n]);
    if (r->model->notes[0])
        n += fact(&facts[n], "note", r->model->notes);
    settings_line(r, facts[n].text, sizeof facts[n].text);
    facts[n++].label = "settings";
    n += optional_facts(r, training, sizeof training / sizeof *training, &facts[n]);
    bpp_line(r, facts[n].text, sizeof facts[n].text);
    facts[n++].label = "bytes";
    n += fact(&facts[n], "convention", vl_convention(r->settings));
    n += optional_facts(r, results, sizeof results / sizeof *results, &facts[n]);
    int k = vl_notes(r->settings, r->model, r->breakdown, notes, VL_MAX_NOTES);
    for (int i = 0; i < k; i++)
        n += fact(&facts[n], "note", notes[i]);
    return n;
}

/* ---- the timeline as columns ------------------------------------------------------------ */

#define TL_BAND_KEY(id, key, label) key,
#define TL_BAND_LABEL(id, key, label) label,
const char *const report_tl_band_keys[REPORT_TL_BANDS] = {
    VL_TL_COMPONENTS(TL_BAND_KEY) "rounding", "context", "managed", "communicators", "cached"};
const char *const report_tl_band_labels[REPORT_TL_BANDS] = {
    VL_TL_COMPONENTS(TL_BAND_LABEL) N_("allocator rounding"), N_("CUDA context"),
    N_("paged optimizer states"), N_("communicators' buffers"), N_("allocator cache")};

/* The bands after event ev, with live the tensors alive then by component. */
static void tl_fill(const vl_timeline *t, const vl_event *ev, const uint64_t *live,
                    uint64_t band[REPORT_TL_BANDS])
{
    memcpy(band, live, VL_N_TL_COMPONENTS * sizeof *band);
    band[REPORT_TL_ROUNDING] = ev->allocated - ev->tensors;
    band[REPORT_TL_CONTEXT] = t->peak.context;
    band[REPORT_TL_MANAGED] = t->peak.managed;
    band[REPORT_TL_COMM] = t->peak.communicators;
    band[REPORT_TL_CACHED] = ev->reserved - ev->allocated;
}

void report_tl_bands(const vl_timeline *t, size_t i, uint64_t band[REPORT_TL_BANDS])
{
    uint64_t live[VL_N_TL_COMPONENTS];
    vl_timeline_alive(t, i, live);
    if (i < t->n_events)
        tl_fill(t, &t->events[i], live, band);
    else
        memset(band, 0, REPORT_TL_BANDS * sizeof *band);
}

/* Column c of width: its first and last event. */
static void tl_range(size_t n, int width, int c, size_t *first, size_t *last)
{
    *first = (size_t)c * n / (size_t)width;
    size_t end = ((size_t)c + 1) * n / (size_t)width;
    *last = end > *first ? end - 1 : *first;
}

int report_tl_columns(const vl_timeline *t, int width, report_tl_column *out)
{
    if (t->n_events == 0 || width <= 0)
        return 0;
    for (int c = 0; c < width; c++) {
        report_tl_column *col = &out[c];
        tl_range(t->n_events, width, c, &col->first, &col->last);
        col->event = col->first;
        for (size_t i = col->first + 1; i <= col->last; i++)
            if (t->events[i].allocated > t->events[col->event].allocated)
                col->event = i;
    }
    /* one pass over the events: what is alive at each column's event (they come in order) */
    uint64_t live[VL_N_TL_COMPONENTS] = {0};
    int c = 0;
    for (size_t i = 0; i < t->n_events && c < width; i++) {
        const vl_event *ev = &t->events[i];
        if (ev->kind == VL_EV_ALLOC)
            live[ev->component] += ev->bytes;
        else
            live[ev->component] -= ev->bytes;
        for (; c < width && out[c].event == i; c++) {
            tl_fill(t, ev, live, out[c].band);
            bool ovf = false; /* no event reserves more than the peak, which fitted */
            out[c].top = vl_peak_on_gpu(&t->peak, ev->reserved, &ovf);
        }
    }
    return width;
}

int report_tl_column_of(const vl_timeline *t, int width, size_t i)
{
    for (int c = 0; c < width; c++) {
        size_t first, last;
        tl_range(t->n_events, width, c, &first, &last);
        if (i >= first && i <= last)
            return c;
    }
    return width > 0 ? width - 1 : 0;
}
