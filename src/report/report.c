/* report.c: an estimate rendered as table, JSON, CSV or Markdown. */
#include "report.h"

#include <config.h>
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "core/explain.h"
#include "core/lora.h"

const char *const report_format_names[N_FORMATS] = {"table", "json", "csv", "markdown", "svg"};

bool report_fits(const report *r)
{
    return r->breakdown->total <= r->gpu->memory;
}

static double share(const report *r, vl_component c)
{
    const vl_breakdown *b = r->breakdown;
    return b->total ? 100.0 * (double)b->bytes[c] / (double)b->total : 0.0;
}

/* ---- lines shared by the table and Markdown ----------------------------------------- */

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

static void settings_line(const report *r, char *buf, size_t len)
{
    const vl_settings *s = r->settings;
    char ov[32], grp[32] = "";
    if (s->mode == VL_MODE_INFER) {
        if (s->weight_dtype == VL_DT_INT4)
            snprintf(grp, sizeof grp, " (groups of %" PRIu64 ")", s->group_size);
        snprintf(buf, len,
                 "inference, weights %s%s, KV cache %s, %" PRIu64 " GPU%s%s, batch %" PRIu64
                 ", prompt %" PRIu64 " + %" PRIu64 " generated tokens, flash attention %s, "
                 "overhead %s",
                 vl_dtype_names[s->weight_dtype], grp, vl_dtype_names[s->kv_dtype], s->gpus,
                 s->gpus == 1 ? "" : "s", s->gpus > 1 ? " (tensor parallel)" : "", s->batch,
                 s->seq, s->gen, s->flash_attn ? "on" : "off",
                 vl_fmt_bytes(s->overhead, r->units, ov, sizeof ov));
        return;
    }
    char lora[96] = "", tg[64];
    if (s->lora_rank)
        snprintf(lora, sizeof lora, "%s rank %" PRIu64 " on %s, ", s->qlora ? "QLoRA" : "LoRA",
                 s->lora_rank, vl_lora_format_targets(s->lora_targets, tg, sizeof tg));
    snprintf(buf, len,
             "%s%s, %s%s, ZeRO-%u, %" PRIu64 " GPU%s, micro-batch %" PRIu64 ", sequence %" PRIu64
             ", recompute %s, flash attention %s, overhead %s",
             lora, vl_precision_names[s->precision], vl_optimizer_names[s->optimizer],
             s->fp32_grads ? ", fp32 gradients" : "", s->zero, s->gpus, s->gpus == 1 ? "" : "s",
             s->batch, s->seq, vl_recompute_names[s->recompute], s->flash_attn ? "on" : "off",
             vl_fmt_bytes(s->overhead, r->units, ov, sizeof ov));
}

/* Model parallelism and gradient accumulation; false for one data-parallel layout of
 * micro-batches without accumulation. */
static bool parallel_line(const report *r, char *buf, size_t len)
{
    const vl_settings *s = r->settings;
    const vl_parallel *p = &r->breakdown->par;
    if (s->mode != VL_MODE_TRAIN || (s->tp == 1 && s->pp == 1 && s->grad_accum == 1))
        return false;
    char stage[160] = "";
    if (s->pp > 1)
        snprintf(stage, sizeof stage, "; the numbers are a first-stage GPU's: %" PRIu64 " of %"
                 PRIu64 " layers, %" PRIu64 " micro-batch%s in flight (1F1B)",
                 p->stage_layers, p->model_layers, p->in_flight, p->in_flight == 1 ? "" : "es");
    snprintf(buf, len,
             "tensor %" PRIu64 "%s x pipeline %" PRIu64 " x data %" PRIu64 " = %" PRIu64
             " GPUs; global batch %" PRIu64 " sequences (micro-batch %" PRIu64
             " x data parallel %" PRIu64 " x accumulation %" PRIu64 ")%s",
             p->tp, s->sp ? " (sequence parallel)" : "", p->pp, p->dp, s->gpus, p->global_batch,
             s->batch, p->dp, s->grad_accum, stage);
    return true;
}

/* Offload: what moved to CPU memory, per GPU and per node; false without. */
static bool offload_line(const report *r, char *buf, size_t len)
{
    const vl_cpu *c = &r->breakdown->cpu;
    char o[32], w[32], n[32], weights[64] = "";
    if (r->settings->mode != VL_MODE_TRAIN || r->settings->offload == VL_OFFLOAD_NONE)
        return false;
    if (c->moved[VL_C_WEIGHTS])
        snprintf(weights, sizeof weights, " and %s of weights",
                 vl_fmt_bytes(c->moved[VL_C_WEIGHTS], r->units, w, sizeof w));
    snprintf(buf, len,
             "--offload %s: %s of optimizer states%s per GPU in CPU memory; %" PRIu64
             " GPU%s a node: %s of CPU memory per node (%" PRIu64 " node%s)",
             vl_offload_names[r->settings->offload],
             vl_fmt_bytes(c->moved[VL_C_OPTIMIZER], r->units, o, sizeof o), weights,
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
    snprintf(buf, len, "weights %u + gradients %u + optimizer states %u = %u B/param%s", b->weights,
             b->gradients, b->optimizer, b->weights + b->gradients + b->optimizer,
             r->breakdown->lora.on ? " of the adapters (the frozen base: weights only)" : "");
}

static void fit_line(const report *r, char *buf, size_t len)
{
    const vl_breakdown *b = r->breakdown;
    const vl_gpu *g = r->gpu;
    char cap[32], d[32];
    bool fits = report_fits(r);
    uint64_t diff = fits ? g->memory - b->total : b->total - g->memory;
    snprintf(buf, len, "%s (%s): %s per GPU; %s %s", g->display, g->name,
             vl_fmt_bytes(g->memory, r->units, cap, sizeof cap),
             fits ? "fits, with" : "does not fit: over by",
             vl_fmt_bytes(diff, r->units, d, sizeof d));
    if (fits)
        strncat(buf, " to spare", len - strlen(buf) - 1);
}

static const char *mode_title(const report *r)
{
    return r->settings->mode == VL_MODE_INFER ? "inference" : "training";
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

static vl_speed speed(const report *r)
{
    return vl_speed_bounds(r->breakdown, r->settings, r->gpu->bandwidth, r->gpu->bf16_flops);
}

/* Inference: the roofline bounds; false in training or when the GPU's figures are unknown. */
static bool speed_line(const report *r, char *buf, size_t len)
{
    vl_speed v = speed(r);
    if (r->settings->mode != VL_MODE_INFER || (!v.decode_step_seconds && !v.prefill_seconds))
        return false;
    snprintf(buf, len,
             "roofline bounds on %s: decode at most %.1f tokens/s (%.2f ms a step, reading the "
             "weights and KV cache once); prefill at least %.3f s (2 x active params x %" PRIu64
             " tokens at %.0f TFLOP/s bf16)",
             r->gpu->name, v.decode_tokens_per_s, v.decode_step_seconds * 1e3, v.prefill_seconds,
             r->settings->batch * r->settings->seq, r->gpu->bf16_flops / 1e12);
    return true;
}

/* --solve: the answer and what the next value would need. */
static bool solve_line(const report *r, char *buf, size_t len)
{
    const vl_solution *sol = r->solution;
    char t[32], o[32];
    if (!sol)
        return false;
    int n = snprintf(buf, len, "%s = %" PRIu64 " on %s", vl_solve_names[r->solved], sol->answer,
                     r->gpu->name);
    if (sol->next && sol->next_total && n > 0 && (size_t)n < len) {
        uint64_t over = sol->next_total - r->gpu->memory;
        if (over < (10ULL << 20)) /* too little to show in GiB */
            snprintf(o, sizeof o, "%s bytes", vl_fmt_int(over, t, sizeof t));
        else
            vl_fmt_bytes(over, r->units, o, sizeof o);
        snprintf(buf + n, len - (size_t)n, " (%" PRIu64 " would need %s, over by %s)", sol->next,
                 vl_fmt_bytes(sol->next_total, r->units, t, sizeof t), o);
    }
    return true;
}

/* The facts above the numbers, one a line: "  label       text" in the table,
 * "- **Label:** text" in Markdown. */
static void fact(FILE *out, bool markdown, const char *label, const char *text)
{
    if (markdown)
        fprintf(out, "- **%c%s:** %s\n", toupper((unsigned char)label[0]), label + 1, text);
    else
        fprintf(out, "  %-11s %s\n", label, text);
}

/* The facts that only some runs have, each with its label: a line, or false. */
typedef bool (*fact_line)(const report *r, char *buf, size_t len);
typedef struct optional_fact {
    const char *label;
    fact_line line;
} optional_fact;

static void optional_facts(FILE *out, const report *r, bool markdown, const optional_fact *f,
                           size_t n)
{
    char line[1024];
    for (size_t i = 0; i < n; i++)
        if (f[i].line(r, line, sizeof line))
            fact(out, markdown, f[i].label, line);
}

static void write_facts(FILE *out, const report *r, bool markdown)
{
    static const optional_fact training[] = {
        {"lora", lora_line}, {"offload", offload_line}, {"parallel", parallel_line}};
    static const optional_fact results[] = {
        {"phases", phases_line}, {"speed", speed_line}, {"solved", solve_line}};
    char line[1024], notes[VL_MAX_NOTES][VL_NOTE_LEN];
    model_line(r, line, sizeof line);
    fact(out, markdown, "model", line);
    if (r->model->notes[0])
        fact(out, markdown, "note", r->model->notes);
    settings_line(r, line, sizeof line);
    fact(out, markdown, "settings", line);
    optional_facts(out, r, markdown, training, sizeof training / sizeof *training);
    bpp_line(r, line, sizeof line);
    fact(out, markdown, "bytes", line);
    fact(out, markdown, "convention", vl_convention(r->settings));
    optional_facts(out, r, markdown, results, sizeof results / sizeof *results);
    int n = vl_notes(r->settings, r->model, r->breakdown, notes, VL_MAX_NOTES);
    for (int i = 0; i < n; i++)
        fact(out, markdown, "note", notes[i]);
}

/* ---- table ------------------------------------------------------------------------- */

static bool offloaded(const report *r)
{
    return r->settings->mode == VL_MODE_TRAIN && r->settings->offload != VL_OFFLOAD_NONE;
}

static void write_terms(FILE *out, const char *bullet, const vl_term *t, int n, vl_units u)
{
    char v[32], bytes[32];
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%-44s %12s %20s\n", bullet, t[i].name, vl_fmt_bytes(t[i].bytes, u, v, sizeof v),
                vl_fmt_int(t[i].bytes, bytes, sizeof bytes));
}

static void write_table(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    const char *un = vl_units_name(r->units);
    char line[1024], bytes[32], f[1024];

    fprintf(out, "%s (%s): %s memory per GPU\n", r->model->display, r->model->name,
            mode_title(r));
    write_facts(out, r, false);
    fputc('\n', out);

    fprintf(out, "  %-20s %10s %22s %7s\n", "component", un, "bytes", "share");
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        fprintf(out, "  %-20s %10.2f %22s %6.1f%%\n", vl_component_labels[c],
                vl_in_units(b->bytes[c], r->units), vl_fmt_int(b->bytes[c], bytes, sizeof bytes),
                share(r, (vl_component)c));
    fprintf(out, "  %-20s %10.2f %22s %6.1f%%\n\n", "total", vl_in_units(b->total, r->units),
            vl_fmt_int(b->total, bytes, sizeof bytes), 100.0);
    if (offloaded(r)) {
        fprintf(out, "  CPU memory per node (%" PRIu64 " GPU%s, --offload %s)\n",
                b->cpu.gpus_per_node, b->cpu.gpus_per_node == 1 ? "" : "s",
                vl_offload_names[r->settings->offload]);
        for (int c = 0; c < VL_N_COMPONENTS; c++)
            if (b->cpu.per_node[c])
                fprintf(out, "  %-20s %10.2f %22s\n", vl_component_labels[c],
                        vl_in_units(b->cpu.per_node[c], r->units),
                        vl_fmt_int(b->cpu.per_node[c], bytes, sizeof bytes));
        fprintf(out, "  %-20s %10.2f %22s\n\n", "total", vl_in_units(b->cpu.node_total, r->units),
                vl_fmt_int(b->cpu.node_total, bytes, sizeof bytes));
    }

    fprintf(out, "  how each is computed\n");
    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        vl_explain(r->settings, b, (vl_component)c, r->units, f, sizeof f);
        fprintf(out, "  %-20s = %s\n", vl_component_labels[c], f);
    }
    if (r->explain && r->settings->mode == VL_MODE_TRAIN) {
        fprintf(out, "\n  activations saved for backward, one layer:\n");
        write_terms(out, "    ", b->act.layer, b->act.n_layer, r->units);
        fprintf(out, "  outside the layers:\n");
        write_terms(out, "    ", b->act.outside, b->act.n_outside, r->units);
    }
    fit_line(r, line, sizeof line);
    fprintf(out, "\n  GPU  %s\n", line);
}

/* ---- Markdown ----------------------------------------------------------------------- */

static void write_markdown(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    char line[1024], f[1024];

    fprintf(out, "## %s (`%s`): %s memory per GPU\n\n", r->model->display, r->model->name,
            mode_title(r));
    write_facts(out, r, true);
    fputc('\n', out);

    fprintf(out, "| component | %s | bytes | share |\n|---|---:|---:|---:|\n",
            vl_units_name(r->units));
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        fprintf(out, "| %s | %.2f | %" PRIu64 " | %.1f%% |\n", vl_component_labels[c],
                vl_in_units(b->bytes[c], r->units), b->bytes[c], share(r, (vl_component)c));
    fprintf(out, "| **total** | **%.2f** | **%" PRIu64 "** | 100.0%% |\n\n",
            vl_in_units(b->total, r->units), b->total);
    if (offloaded(r)) {
        fprintf(out, "**CPU memory per node** (%" PRIu64 " GPU%s, `--offload %s`):\n\n"
                     "| component | %s | bytes |\n|---|---:|---:|\n",
                b->cpu.gpus_per_node, b->cpu.gpus_per_node == 1 ? "" : "s",
                vl_offload_names[r->settings->offload], vl_units_name(r->units));
        for (int c = 0; c < VL_N_COMPONENTS; c++)
            if (b->cpu.per_node[c])
                fprintf(out, "| %s | %.2f | %" PRIu64 " |\n", vl_component_labels[c],
                        vl_in_units(b->cpu.per_node[c], r->units), b->cpu.per_node[c]);
        fprintf(out, "| **total** | **%.2f** | **%" PRIu64 "** |\n\n",
                vl_in_units(b->cpu.node_total, r->units), b->cpu.node_total);
    }

    fit_line(r, line, sizeof line);
    fprintf(out, "**GPU:** %s\n\n**How each is computed:**\n\n", line);
    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        vl_explain(r->settings, b, (vl_component)c, r->units, f, sizeof f);
        fprintf(out, "- %s = %s\n", vl_component_labels[c], f);
    }
    if (r->explain && r->settings->mode == VL_MODE_TRAIN) {
        fprintf(out, "\n**Activations saved for backward:**\n\n| kept | tensor | bytes |\n"
                     "|---|---|---:|\n");
        for (int i = 0; i < b->act.n_layer; i++)
            fprintf(out, "| per layer | %s | %" PRIu64 " |\n", b->act.layer[i].name,
                    b->act.layer[i].bytes);
        for (int i = 0; i < b->act.n_outside; i++)
            fprintf(out, "| once | %s | %" PRIu64 " |\n", b->act.outside[i].name,
                    b->act.outside[i].bytes);
    }
}

/* ---- CSV --------------------------------------------------------------------------- */

static void write_csv(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    fprintf(out, "component,bytes,%s,percent\n", r->units == VL_UNITS_GB ? "gb" : "gib");
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        fprintf(out, "%s,%" PRIu64 ",%.4f,%.2f\n", vl_component_keys[c], b->bytes[c],
                vl_in_units(b->bytes[c], r->units), share(r, (vl_component)c));
    fprintf(out, "total,%" PRIu64 ",%.4f,100.00\n", b->total, vl_in_units(b->total, r->units));
    if (r->settings->mode == VL_MODE_INFER) {
        /* inference: each phase's peak and the cache per token, as a share of the total */
        const vl_inference *inf = &b->inf;
        const struct {
            const char *name;
            uint64_t bytes;
        } rows[] = {{"prefill_total", inf->prefill.total},
                    {"decode_total", inf->decode.total},
                    {"kv_bytes_per_token", inf->kv_bytes_per_token}};
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            fprintf(out, "%s,%" PRIu64 ",%.4f,%.2f\n", rows[i].name, rows[i].bytes,
                    vl_in_units(rows[i].bytes, r->units),
                    b->total ? 100.0 * (double)rows[i].bytes / (double)b->total : 0.0);
        return;
    }
    if (!offloaded(r))
        return;
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        if (b->cpu.per_node[c])
            fprintf(out, "cpu_per_node_%s,%" PRIu64 ",%.4f,%.2f\n", vl_component_keys[c],
                    b->cpu.per_node[c], vl_in_units(b->cpu.per_node[c], r->units),
                    100.0 * (double)b->cpu.per_node[c] / (double)b->cpu.node_total);
    fprintf(out, "cpu_per_node_total,%" PRIu64 ",%.4f,100.00\n", b->cpu.node_total,
            vl_in_units(b->cpu.node_total, r->units));
}

/* ---- JSON (HACKING §2: stable keys, exact integer bytes) ------------------------------ */

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

static const char *jbool(bool b)
{
    return b ? "true" : "false";
}

static void json_phase(FILE *out, const char *name, const vl_phase *p)
{
    fprintf(out, "\"%s\": {\"kv_cache\": %" PRIu64 ", \"workspace\": %" PRIu64 ", \"total\": %" PRIu64 "}",
            name, p->kv_cache, p->workspace, p->total);
}

/* A time or a rate, or null when the GPU's figure is unknown. */
static void json_number(FILE *out, const char *name, double v)
{
    if (v > 0)
        fprintf(out, "\"%s\": %.6g", name, v);
    else
        fprintf(out, "\"%s\": null", name);
}

/* "inference" and "speed": objects in inference, null in training. */
static void write_json_inference(FILE *out, const report *r)
{
    const vl_inference *inf = &r->breakdown->inf;
    if (r->settings->mode != VL_MODE_INFER) {
        fprintf(out, " \"inference\": null,\n \"speed\": null,\n");
        return;
    }
    fprintf(out,
            " \"inference\": {\"linear_params\": %" PRIu64 ", \"embedding_params\": %" PRIu64
            ", \"other_params\": %" PRIu64 ",\n               \"scale_bytes\": %" PRIu64
            ", \"replicated_bytes\": %" PRIu64 ", \"kv_bytes_per_token\": %" PRIu64
            ", \"kv_heads_per_gpu\": %" PRIu64 ",\n               \"prompt_tokens\": %" PRIu64
            ", \"cached_tokens\": %" PRIu64 ",\n               ",
            inf->linear_params, inf->embedding_params, inf->other_params, inf->scale_bytes,
            inf->replicated_bytes, inf->kv_bytes_per_token, inf->kv_heads_per_gpu,
            inf->prompt_tokens, inf->cached_tokens);
    json_phase(out, "prefill", &inf->prefill);
    fprintf(out, ",\n               ");
    json_phase(out, "decode", &inf->decode);
    fprintf(out, ",\n               \"peak\": \"%s\"},\n", inf->decode_peak ? "decode" : "prefill");
    vl_speed v = speed(r);
    fprintf(out, " \"speed\": {\"bound\": \"roofline\", ");
    json_number(out, "decode_tokens_per_s", v.decode_tokens_per_s);
    fprintf(out, ", ");
    json_number(out, "decode_step_seconds", v.decode_step_seconds);
    fprintf(out, ", ");
    json_number(out, "prefill_seconds", v.prefill_seconds);
    fprintf(out, "},\n");
}

static void write_json(FILE *out, const report *r)
{
    const vl_model *m = r->model;
    const vl_arch *a = &m->arch;
    const vl_settings *s = r->settings;
    const vl_breakdown *b = r->breakdown;
    char targets[64];

    fprintf(out, "{\"vramlab\": \"%s\",\n \"model\": {\"name\": ", PACKAGE_VERSION);
    json_string(out, m->name);
    fprintf(out,
            ", \"params\": %" PRIu64 ", \"active_params\": %" PRIu64 ", \"layers\": %" PRIu64
            ", \"hidden\": %" PRIu64 ",\n           \"heads\": %" PRIu64 ", \"kv_heads\": %" PRIu64
            ", \"head_dim\": %" PRIu64 ", \"ffn\": %" PRIu64 ", \"vocab\": %" PRIu64
            ", \"largest_matrix\": %" PRIu64 "},\n",
            b->P, m->free_params ? b->P : b->params.active, a->layers, a->hidden, a->heads,
            a->kv_heads, a->head_dim, a->ffn, a->vocab, b->params.largest_matrix);
    fprintf(out,
            " \"settings\": {\"mode\": \"%s\", \"precision\": \"%s\", \"optimizer\": \"%s\", "
            "\"zero\": %u,\n              \"gpus\": %" PRIu64 ", \"batch\": %" PRIu64
            ", \"seq\": %" PRIu64 ", \"gen\": %" PRIu64 ", \"recompute\": \"%s\",\n"
            "              \"flash_attn\": %s, \"fp32_grads\": %s, \"fp32_grad_copy\": %s,\n"
            "              \"weight_dtype\": \"%s\", \"kv_dtype\": \"%s\", \"group_size\": %" PRIu64
            ", \"overhead\": %" PRIu64 ",\n              \"lora_rank\": %" PRIu64
            ", \"lora_targets\": \"%s\", \"qlora\": %s, \"offload\": \"%s\", \"gpus_per_node\": %" PRIu64
            ",\n              \"tp\": %" PRIu64 ", \"pp\": %" PRIu64 ", \"sp\": %s, \"grad_accum\": %" PRIu64
            "},\n",
            vl_mode_names[s->mode], vl_precision_names[s->precision],
            vl_optimizer_names[s->optimizer], s->zero, s->gpus, s->batch, s->seq, s->gen,
            vl_recompute_names[s->recompute], jbool(s->flash_attn), jbool(s->fp32_grads),
            jbool(s->fp32_grad_copy), vl_dtype_names[s->weight_dtype], vl_dtype_names[s->kv_dtype],
            s->group_size, s->overhead, s->lora_rank,
            vl_lora_format_targets(s->lora_targets, targets, sizeof targets), jbool(s->qlora),
            vl_offload_names[s->offload], vl_gpus_per_node(s), s->tp, s->pp, jbool(s->sp),
            s->grad_accum);
    if (s->mode == VL_MODE_INFER) /* the layers' matrices; int4 takes half a byte */
        fprintf(out, " \"bytes_per_param\": {\"weights\": %g, \"gradients\": 0, \"optimizer\": 0},\n",
                vl_dtype_bits(s->weight_dtype) / 8.0);
    else
        fprintf(out, " \"bytes_per_param\": {\"weights\": %u, \"gradients\": %u, \"optimizer\": %u},\n",
                b->bpp.weights, b->bpp.gradients, b->bpp.optimizer);
    fprintf(out, " \"per_gpu\": {");
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        fprintf(out, "\"%s\": %" PRIu64 ",%s", vl_component_keys[c], b->bytes[c],
                c == VL_C_ACTIVATIONS ? "\n             " : " ");
    fprintf(out, "\"total\": %" PRIu64 "},\n", b->total);
    if (s->mode == VL_MODE_TRAIN)
        fprintf(out,
                " \"parallel\": {\"tp\": %" PRIu64 ", \"pp\": %" PRIu64 ", \"dp\": %" PRIu64
                ", \"stage_layers\": %" PRIu64 ", \"in_flight\": %" PRIu64
                ",\n              \"params_per_gpu\": %" PRIu64 ", \"global_batch\": %" PRIu64
                "},\n",
                b->par.tp, b->par.pp, b->par.dp, b->par.stage_layers, b->par.in_flight,
                b->par.params, b->par.global_batch);
    else
        fprintf(out, " \"parallel\": null,\n");
    if (offloaded(r))
        fprintf(out,
                " \"cpu_per_node\": {\"gpus_per_node\": %" PRIu64 ", \"nodes\": %" PRIu64
                ", \"weights\": %" PRIu64 ", \"optimizer\": %" PRIu64 ", \"total\": %" PRIu64
                ",\n                  \"per_gpu\": {\"weights\": %" PRIu64 ", \"optimizer\": %" PRIu64
                ", \"total\": %" PRIu64 "}},\n",
                b->cpu.gpus_per_node, b->cpu.nodes, b->cpu.per_node[VL_C_WEIGHTS],
                b->cpu.per_node[VL_C_OPTIMIZER], b->cpu.node_total, b->cpu.moved[VL_C_WEIGHTS],
                b->cpu.moved[VL_C_OPTIMIZER], b->cpu.moved_total);
    else
        fprintf(out, " \"cpu_per_node\": null,\n");
    bool fits = report_fits(r);
    uint64_t diff = fits ? r->gpu->memory - b->total : b->total - r->gpu->memory;
    int64_t headroom = diff > (uint64_t)INT64_MAX ? (fits ? INT64_MAX : -INT64_MAX)
                       : fits                     ? (int64_t)diff
                                                  : -(int64_t)diff;
    fprintf(out, " \"gpu\": {\"name\": ");
    json_string(out, r->gpu->name);
    fprintf(out, ", \"capacity\": %" PRIu64 ", \"fits\": %s, \"headroom\": %" PRId64 "},\n",
            r->gpu->memory, jbool(fits), headroom);
    write_json_inference(out, r);
    if (b->lora.on)
        fprintf(out, " \"lora\": {\"trainable_params\": %" PRIu64 ", \"frozen_params\": %" PRIu64
                ", \"frozen_bytes\": %" PRIu64 ",\n          \"nf4_params\": %" PRIu64
                ", \"nf4_bytes\": %" PRIu64 ", \"dequant_bytes\": %" PRIu64 "},\n",
                b->lora.trainable_params, b->lora.frozen_params, b->lora.frozen_bytes,
                b->lora.nf4_params, b->lora.nf4_bytes, b->act.dequant_bytes);
    else
        fprintf(out, " \"lora\": null,\n");
    if (r->solution)
        fprintf(out, " \"solve\": {\"what\": \"%s\", \"answer\": %" PRIu64 ", \"next\": %" PRIu64
                ", \"next_total\": %" PRIu64 "},\n",
                vl_solve_names[r->solved], r->solution->answer, r->solution->next,
                r->solution->next_total);
    else
        fprintf(out, " \"solve\": null,\n");
    char notes[VL_MAX_NOTES][VL_NOTE_LEN];
    int n = vl_notes(s, m, b, notes, VL_MAX_NOTES);
    fprintf(out, " \"notes\": [");
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : "", out);
        json_string(out, notes[i]);
    }
    fprintf(out, "]}\n");
}

void report_write(FILE *out, report_format f, const report *r)
{
    switch (f) {
    case FMT_TABLE: write_table(out, r); break;
    case FMT_JSON: write_json(out, r); break;
    case FMT_CSV: write_csv(out, r); break;
    case FMT_MARKDOWN: write_markdown(out, r); break;
    case FMT_SVG: svg_write(out, r); break;
    case N_FORMATS: break;
    }
}
