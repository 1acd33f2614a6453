/* report.c: an estimate rendered as table, JSON, CSV or Markdown. */
#include "report.h"

#include <config.h>
#include <inttypes.h>
#include <string.h>

#include "core/explain.h"

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
    snprintf(buf, len,
             "%s params%s: %" PRIu64 " layers, hidden %" PRIu64 ", %" PRIu64 " heads (%" PRIu64
             " KV, head dim %" PRIu64 "), FFN %" PRIu64 " %s%s, vocab %" PRIu64 "%s",
             vl_fmt_int(b->P, p, sizeof p), act, a->layers, a->hidden, a->heads, a->kv_heads,
             a->head_dim, a->ffn, a->mlp == VL_MLP_GATED ? "gated" : "standard",
             a->experts > 1 ? " x experts" : "", a->vocab, own);
}

static void settings_line(const report *r, char *buf, size_t len)
{
    const vl_settings *s = r->settings;
    char ov[32];
    snprintf(buf, len,
             "%s, %s%s, ZeRO-%u, %" PRIu64 " GPU%s, micro-batch %" PRIu64 ", sequence %" PRIu64
             ", recompute %s, flash attention %s, overhead %s",
             vl_precision_names[s->precision], vl_optimizer_names[s->optimizer],
             s->fp32_grads ? ", fp32 gradients" : "", s->zero, s->gpus, s->gpus == 1 ? "" : "s",
             s->batch, s->seq, vl_recompute_names[s->recompute], s->flash_attn ? "on" : "off",
             vl_fmt_bytes(s->overhead, r->units, ov, sizeof ov));
}

static void bpp_line(const report *r, char *buf, size_t len)
{
    const vl_bpp *b = &r->breakdown->bpp;
    snprintf(buf, len, "weights %u + gradients %u + optimizer states %u = %u B/param", b->weights,
             b->gradients, b->optimizer, b->weights + b->gradients + b->optimizer);
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

/* ---- table ------------------------------------------------------------------------- */

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
    char line[1024], bytes[32], f[512];

    fprintf(out, "%s (%s): training memory per GPU\n", r->model->display, r->model->name);
    model_line(r, line, sizeof line);
    fprintf(out, "  model       %s\n", line);
    settings_line(r, line, sizeof line);
    fprintf(out, "  settings    %s\n", line);
    bpp_line(r, line, sizeof line);
    fprintf(out, "  bytes       %s\n", line);
    fprintf(out, "  convention  %s\n\n", vl_convention(r->settings));

    fprintf(out, "  %-20s %10s %22s %7s\n", "component", un, "bytes", "share");
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        fprintf(out, "  %-20s %10.2f %22s %6.1f%%\n", vl_component_labels[c],
                vl_in_units(b->bytes[c], r->units), vl_fmt_int(b->bytes[c], bytes, sizeof bytes),
                share(r, (vl_component)c));
    fprintf(out, "  %-20s %10.2f %22s %6.1f%%\n\n", "total", vl_in_units(b->total, r->units),
            vl_fmt_int(b->total, bytes, sizeof bytes), 100.0);

    fprintf(out, "  how each is computed\n");
    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        vl_explain(r->settings, b, (vl_component)c, r->units, f, sizeof f);
        fprintf(out, "  %-20s = %s\n", vl_component_labels[c], f);
    }
    if (r->explain) {
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
    char line[1024], f[512];

    fprintf(out, "## %s (`%s`): training memory per GPU\n\n", r->model->display, r->model->name);
    model_line(r, line, sizeof line);
    fprintf(out, "- **Model:** %s\n", line);
    settings_line(r, line, sizeof line);
    fprintf(out, "- **Settings:** %s\n", line);
    bpp_line(r, line, sizeof line);
    fprintf(out, "- **Bytes per parameter:** %s\n", line);
    fprintf(out, "- **Convention:** %s\n\n", vl_convention(r->settings));

    fprintf(out, "| component | %s | bytes | share |\n|---|---:|---:|---:|\n",
            vl_units_name(r->units));
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        fprintf(out, "| %s | %.2f | %" PRIu64 " | %.1f%% |\n", vl_component_labels[c],
                vl_in_units(b->bytes[c], r->units), b->bytes[c], share(r, (vl_component)c));
    fprintf(out, "| **total** | **%.2f** | **%" PRIu64 "** | 100.0%% |\n\n",
            vl_in_units(b->total, r->units), b->total);

    fit_line(r, line, sizeof line);
    fprintf(out, "**GPU:** %s\n\n**How each is computed:**\n\n", line);
    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        vl_explain(r->settings, b, (vl_component)c, r->units, f, sizeof f);
        fprintf(out, "- %s = %s\n", vl_component_labels[c], f);
    }
    if (r->explain) {
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
}

/* ---- JSON (DESIGN §2: stable keys, exact integer bytes) ------------------------------ */

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

static void write_json(FILE *out, const report *r)
{
    const vl_model *m = r->model;
    const vl_arch *a = &m->arch;
    const vl_settings *s = r->settings;
    const vl_breakdown *b = r->breakdown;

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
            "              \"weight_dtype\": \"%s\", \"kv_dtype\": \"%s\", \"overhead\": %" PRIu64
            "},\n",
            vl_mode_names[s->mode], vl_precision_names[s->precision],
            vl_optimizer_names[s->optimizer], s->zero, s->gpus, s->batch, s->seq, s->gen,
            vl_recompute_names[s->recompute], jbool(s->flash_attn), jbool(s->fp32_grads),
            jbool(s->fp32_grad_copy), vl_dtype_names[s->weight_dtype], vl_dtype_names[s->kv_dtype],
            s->overhead);
    fprintf(out, " \"bytes_per_param\": {\"weights\": %u, \"gradients\": %u, \"optimizer\": %u},\n",
            b->bpp.weights, b->bpp.gradients, b->bpp.optimizer);
    fprintf(out, " \"per_gpu\": {");
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        fprintf(out, "\"%s\": %" PRIu64 ",%s", vl_component_keys[c], b->bytes[c],
                c == VL_C_ACTIVATIONS ? "\n             " : " ");
    fprintf(out, "\"total\": %" PRIu64 "},\n", b->total);
    bool fits = report_fits(r);
    uint64_t diff = fits ? r->gpu->memory - b->total : b->total - r->gpu->memory;
    int64_t headroom = diff > (uint64_t)INT64_MAX ? (fits ? INT64_MAX : -INT64_MAX)
                       : fits                     ? (int64_t)diff
                                                  : -(int64_t)diff;
    fprintf(out, " \"gpu\": {\"name\": ");
    json_string(out, r->gpu->name);
    fprintf(out, ", \"capacity\": %" PRIu64 ", \"fits\": %s, \"headroom\": %" PRId64 "}}\n",
            r->gpu->memory, jbool(fits), headroom);
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
