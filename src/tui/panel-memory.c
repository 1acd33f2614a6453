/* panel-memory.c: the Memory panel: the settings' sliders, the stacked bar of the memory per
 * GPU against the GPU's capacity, the same run at ZeRO 0-3 (or inference's two phases), and
 * the formula pane that shows how each number is computed. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "core/explain.h"
#include "core/i18n.h"
#include "core/solve.h"
#include "core/steptime.h"
#include "core/units.h"
#include "panel.h"
#include "report/report.h"

static void draw_sliders(const ui *u)
{
    const explorer *e = &u->ex;
    rect r = u->lay.sliders;
    const int track = 11;
    slider_id ids[EX_MAX_SLIDERS];
    int n = explorer_sliders(e, ids), sel_i = 0, rows = r.h - 1;
    while (sel_i < n && ids[sel_i] != e->selected)
        sel_i++;
    int first = layout_slider_first(&u->lay, n, sel_i < n ? sel_i : 0);
    char head[96];
    snprintf(head, sizeof head, "%s", _(" settings"));
    if (n > rows)
        snprintf(head, sizeof head, _(" settings %d-%d of %d"), first + 1, first + rows, n);
    draw_text(r.y, r.x, r.w, C_HEADING, head);
    for (int i = first; i < n && i < first + rows; i++) {
        slider_id id = ids[i];
        int y = r.y + 1 + i - first;
        bool sel = e->selected == id && u->mode != MODE_PICK_MODEL;
        char v[64];
        if (sel)
            draw_fill(y, r.x, r.w, C_SELECTED);
        /* a setting with no effect now is drawn dim, its value in parentheses (the formula
         * pane says why) */
        bool inert = explorer_inert(e, id) != NULL;
        ui_color c = sel ? C_SELECTED : inert ? C_DIM : C_NORMAL;
        draw_text(y, r.x, 2, c, sel ? u->g->select : " ");
        draw_text(y, r.x + 2, EX_LABEL_COLS, c, slider_label(e, id));
        int knob = (int)(explorer_fraction(e, id) * (track - 1) + 0.5);
        attrset(theme_attr(sel ? C_SELECTED : C_DIM));
        for (int k = 0; k < track; k++)
            mvaddstr(y, r.x + 17 + k, k == knob ? u->g->knob : u->g->track);
        char shown[72];
        explorer_value(e, id, u->units, v, sizeof v);
        snprintf(shown, sizeof shown, inert ? "(%s)" : "%s", v);
        draw_text(y, r.x + 29, r.w - 29, c, shown);
    }
}

/* A stacked bar of the components on rows y..y+h-1, `full` bytes filling w cells. */
static void draw_stack(const ui *u, int y, int x, int w, int h, const vl_breakdown *b,
                       uint64_t full)
{
    int cells[VL_N_COMPONENTS];
    layout_bar(b->bytes, VL_N_COMPONENTS, full, w, cells);
    for (int row = 0; row < h; row++) {
        int cx = x;
        for (int c = 0; c < VL_N_COMPONENTS; c++) {
            attrset(theme_attr((ui_color)(C_SEGMENT + c)) | (theme_color() ? A_REVERSE : 0));
            for (int k = 0; k < cells[c]; k++)
                mvaddstr(y + row, cx++, theme_segment_fill(u->g, (vl_component)c));
        }
        attrset(theme_attr(C_DIM));
        for (; cx < x + w; cx++)
            mvaddstr(y + row, cx, u->g->track);
    }
    attrset(theme_attr(C_NORMAL));
}

/* wide where it fits w columns whole, else narrow, cut with an ellipsis if even that does
 * not fit. */
static void draw_either(int y, int x, int w, ui_color c, const char *wide, const char *narrow)
{
    draw_text(y, x, w, c, draw_width(wide) <= w ? wide : narrow);
}

/* The words the bars end in, "fits" and "over", and the columns the wider takes. */
static const char *verdict(bool fits)
{
    return fits ? _("fits") : _("over");
}

static int verdict_w(void)
{
    int a = draw_width(verdict(true)), b = draw_width(verdict(false));
    return a > b ? a : b;
}

/* A component's name padded to `cols` columns (its display width, not its bytes). */
static const char *padded(vl_component c, int cols, char *buf, size_t len)
{
    const char *name = _(vl_component_labels[c]);
    int pad = cols - draw_width(name);
    snprintf(buf, len, "%s%*s", name, pad > 0 ? pad : 0, "");
    return buf;
}

static void draw_memory(const ui *u)
{
    const explorer *e = &u->ex;
    const vl_gpu *g = explorer_gpu(e);
    const vl_breakdown *b = &e->b;
    rect r = u->lay.memory;
    char line[256], brief[256], v[32], w[32], n[32];

    const uint64_t cap = report_capacity(&e->s, g); /* --gpu-util in inference */
    const char *typed = e->s.capacity ? _(", typed") : ""; /* not the GPU preset's figure */
    snprintf(line, sizeof line, _(" memory per GPU on %s (%s%s)"), g->display,
             ui_bytes(u, cap, v, sizeof v), typed);
    snprintf(brief, sizeof brief, _(" per GPU on %s (%s)"), g->name, v);
    draw_either(r.y, r.x, r.w, C_HEADING, line, brief);
    if (e->error) {
        draw_wrap(r.y + 2, r.y + r.h - 1, r.x + 1, r.w - 1, C_BAD, e->error);
        return;
    }
    int bw = r.w - 2, bx = r.x + 1;
    uint64_t full = report_bar_full(cap, b, 1);
    int bh = u->lay.bar_h;
    draw_stack(u, r.y + 1, bx, bw, bh, b, full);
    int m = layout_cell(cap, full, bw);
    int mx = bx + (m >= bw ? bw - 1 : m);
    for (int k = 0; k < bh; k++)
        draw_text(r.y + 1 + k, mx, 1, C_MARKER, u->g->marker);
    /* the capacity label starts at the marker, or ends there when it would not fit */
    snprintf(line, sizeof line, _("%s capacity %s"), u->g->marker, v);
    int len = draw_width(line);
    if (mx + len <= bx + bw) {
        draw_text(r.y + 1 + bh, mx, len, C_MARKER, line);
    } else {
        snprintf(line, sizeof line, _("capacity %s %s"), v, u->g->marker);
        draw_text(r.y + 1 + bh, mx - len + 1 < bx ? bx : mx - len + 1, len, C_MARKER, line);
    }

    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        int y = r.y + 2 + bh + c;
        bool focus = c == (u->ex.focus >= 0 ? u->ex.focus
                                            : (int)slider_component(e, e->selected));
        attrset(theme_attr((ui_color)(C_SEGMENT + c)) | (theme_color() ? A_REVERSE : 0));
        for (int k = 0; k < 2; k++)
            mvaddstr(y, r.x + 1 + k, theme_segment_fill(u->g, (vl_component)c));
        char name[96];
        padded((vl_component)c, 19, name, sizeof name);
        snprintf(line, sizeof line, " %s %12s %5.1f%%", name,
                 ui_bytes(u, b->bytes[c], v, sizeof v), report_share(b->bytes[c], b->total));
        snprintf(brief, sizeof brief, " %s %12s", name, v);
        draw_either(y, r.x + 3, r.w - 3, focus ? C_HEADING : C_NORMAL, line, brief);
    }
    snprintf(line, sizeof line, _("    total %s per GPU (%s bytes)"),
             ui_bytes(u, b->total, w, sizeof w), vl_fmt_int(b->total, n, sizeof n));
    if (b->cpu.node_total) /* ZeRO-Offload: where the peak's line has no room for it */
        snprintf(brief, sizeof brief, _(" total %s; node CPU %s"), w,
                 ui_bytes(u, b->cpu.node_total, n, sizeof n));
    else
        snprintf(brief, sizeof brief, _(" total %s per GPU"), w);
    draw_either(r.y + 2 + bh + VL_N_COMPONENTS, r.x, r.w, C_HEADING, line, brief);
    /* the steady-state sum above; the step's peak is what must fit, and a serving engine's
     * KV cache must hold the batch */
    const vl_fit fit = e->fit;
    char pk[32];
    ui_bytes(u, e->peak.device, pk, sizeof pk);
    ui_bytes(u, fit.margin, w, sizeof w);
    char mid[256], phase[128];
    if (b->cpu.node_total) { /* ZeRO-Offload: what moved, per node, instead of the phase */
        ui_bytes(u, b->cpu.node_total, n, sizeof n);
        snprintf(line, sizeof line,
                 fit.fits ? _("    peak %s: fits, spare %s; CPU per node: %s")
                          : _("    peak %s: over by %s; CPU per node: %s"), pk, w, n);
        snprintf(mid, sizeof mid,
                 fit.fits ? _("    peak %s fits; CPU per node: %s")
                          : _("    peak %s over; CPU per node: %s"), pk, n);
    } else {
        char verdict[160];
        snprintf(line, sizeof line, _("    peak %s (%s): %s"), pk,
                 timeline_view_phase_text(e->peak.phase, phase, sizeof phase),
                 ui_fit_text(u, &fit, explorer_settings(e).batch, verdict, sizeof verdict));
        mid[0] = '\0';
    }
    if (fit.by == VL_FIT_PEAK || fit.fits)
        snprintf(brief, sizeof brief, fit.fits ? _(" peak %s: %s spare") : _(" peak %s: %s over"),
                 pk, w);
    else /* the engine's cache decides: how much of it the batch lacks */
        snprintf(brief, sizeof brief, _(" KV cache: %s short"), w);
    draw_either(r.y + 3 + bh + VL_N_COMPONENTS, r.x, r.w, fit.fits ? C_OK : C_BAD, line,
                mid[0] && draw_width(mid) <= r.w ? mid : brief);
}

/* Inference: the prefill and decode peaks on one scale, each with its KV cache, what decoding
 * adds to the cache, and the roofline bounds (decode's only when tokens are generated). */
static void draw_phases(const ui *u)
{
    const explorer *e = &u->ex;
    const vl_inference *inf = &e->b.inf;
    const vl_gpu *g = explorer_gpu(e);
    rect r = u->lay.zero;
    char line[256], v[32], kv[32], w[32];
    vl_settings s = explorer_settings(e);
    bool encoder = explorer_encoder(e);
    draw_either(r.y, r.x, r.w, C_HEADING,
                encoder ? _(" an encoder: one forward pass, no decode phase")
                        : _(" the two phases of inference, each with its own peak"),
                encoder ? _(" an encoder: no decode") : _(" inference: prefill, then decode"));
    vl_breakdown ph[2]; /* each phase's own bars, on one scale */
    int n = encoder ? 1 : report_phases(&e->b, &s, ph);
    if (encoder)
        ph[0] = e->b;
    const uint64_t cap = report_capacity(&s, g); /* --gpu-util */
    uint64_t full = report_bar_full(cap, ph, (size_t)n);
    int label = 0; /* " 146.20 GiB fits, KV 1.50 GiB (peak)" */
    for (int i = 0; i < n; i++) {
        snprintf(line, sizeof line, _(" %s %s, KV %s (peak)"),
                 ui_bytes(u, ph[i].total, v, sizeof v), verdict(false),
                 ui_bytes(u, ph[i].bytes[VL_C_KV_CACHE], kv, sizeof kv));
        label = draw_width(line) > label ? draw_width(line) : label;
    }
    bool with_kv = r.w - 9 - label >= 10; /* else the KV figures give way to the bar */
    if (!with_kv)
        label = (int)strlen(" 146.20 GiB ") + verdict_w();
    int bw = r.w - 9 - label;
    int zh = u->lay.zero_bar_h;
    for (int i = 0; i < 2; i++) {
        int y = r.y + 1 + i * zh;
        bool peak = n == 1 || (i == 1) == inf->decode_peak;
        snprintf(line, sizeof line, " %s", _(report_phase_names[i]));
        draw_text(y, r.x, 9, peak ? C_HEADING : C_NORMAL, line);
        if (i >= n) {
            draw_text(y, r.x + 9, r.w - 9, C_DIM,
                      encoder ? _("none: an encoder generates no tokens")
                              : _("none: no tokens generated (generated = 0)"));
            continue;
        }
        draw_stack(u, y, r.x + 9, bw, zh, &ph[i], full);
        int m = layout_cell(cap, full, bw);
        for (int k = 0; k < zh; k++)
            draw_text(y + k, r.x + 9 + (m >= bw ? bw - 1 : m), 1, C_MARKER, u->g->marker);
        bool fits = ph[i].total <= cap;
        ui_bytes(u, ph[i].total, v, sizeof v);
        ui_bytes(u, ph[i].bytes[VL_C_KV_CACHE], kv, sizeof kv);
        if (with_kv && peak && n == 2)
            snprintf(line, sizeof line, _(" %s %s, KV %s (peak)"), v, verdict(fits), kv);
        else if (with_kv)
            snprintf(line, sizeof line, _(" %s %s, KV %s"), v, verdict(fits), kv);
        else
            snprintf(line, sizeof line, " %s %s", v, verdict(fits));
        draw_text(y, r.x + 9 + bw, r.w - 9 - bw, fits ? C_OK : C_BAD, line);
    }
    vl_speed sp = vl_speed_bounds(&e->b, &s, g->bandwidth, g->bf16_flops, g->host_bandwidth);
    if (n == 2) { /* the tokens generated grow the cache the prompt left */
        uint64_t a = ph[0].bytes[VL_C_KV_CACHE], b = ph[1].bytes[VL_C_KV_CACHE];
        char brief[96];
        snprintf(line, sizeof line, _(" decode: %llu tokens grow the KV cache by %s (%s -> %s)"),
                 (unsigned long long)s.gen, ui_bytes(u, b > a ? b - a : 0, w, sizeof w),
                 ui_bytes(u, a, v, sizeof v), ui_bytes(u, b, kv, sizeof kv));
        snprintf(brief, sizeof brief, _(" decode adds %s of KV cache"), w);
        draw_either(r.y + 1 + 2 * zh, r.x, r.w, C_NORMAL, line, brief);
    }
    char dec[160] = "", pre[160] = "", alone[192] = "", both[sizeof dec + 2 + sizeof alone];
    if (n == 2 && sp.decode_tokens_per_s > 0)
        snprintf(dec, sizeof dec, _(" roofline: decode <= %.0f tokens/s (%.2f ms a step)"),
                 sp.decode_tokens_per_s, sp.decode_step_seconds * 1e3);
    if (sp.prefill_seconds > 0) { /* after decode's, or alone */
        snprintf(pre, sizeof pre, _("prefill >= %.3f s at %.0f TFLOP/s bf16"),
                 sp.prefill_seconds, g->bf16_flops / 1e12);
        snprintf(alone, sizeof alone, _(" roofline: %s"), pre);
    }
    snprintf(both, sizeof both, "%s%s%s", dec, dec[0] && pre[0] ? ", " : "",
             dec[0] ? pre : alone);
    draw_either(r.y + 2 + 2 * zh, r.x, r.w, C_NORMAL, both, dec[0] ? dec : alone);
}

static void draw_zero(const ui *u)
{
    const explorer *e = &u->ex;
    rect r = u->lay.zero;
    if (r.h == 0 || e->error)
        return;
    if (e->s.mode == VL_MODE_INFER) {
        draw_phases(u);
        return;
    }
    char line[256], v[32];
    const uint64_t capacity = vl_gpu_capacity(explorer_gpu(e));
    /* every component, activations and overhead too: the paper's model states alone are
     * the formula pane's "ZeRO paper" rows */
    char brief[128];
    snprintf(line, sizeof line,
             P_(" the same run at ZeRO 0-3 on %llu GPU, everything counted",
                " the same run at ZeRO 0-3 on %llu GPUs, everything counted", e->s.gpus),
             (unsigned long long)e->s.gpus);
    snprintf(brief, sizeof brief,
             P_(" at ZeRO 0-3 on %llu GPU", " at ZeRO 0-3 on %llu GPUs", e->s.gpus),
             (unsigned long long)e->s.gpus);
    draw_either(r.y, r.x, r.w, C_HEADING, line, brief);
    uint64_t full = report_bar_full(capacity, e->zero, REPORT_ZERO_STAGES);
    /* "ZeRO-n " + bar + " 142.82 GiB over" */
    int bw = r.w - 8 - 13 - verdict_w(), tail = 2 + verdict_w();
    for (int z = 0; z < 4; z++)
        if (r.w - 8 - tail - (int)strlen(ui_bytes(u, e->zero[z].total, v, sizeof v)) < bw)
            bw = r.w - 8 - tail - (int)strlen(v);
    int zh = u->lay.zero_bar_h;
    for (int z = 0; z < 4; z++) {
        int y = r.y + 1 + z * zh;
        const vl_breakdown *b = &e->zero[z];
        bool cur = (unsigned)z == e->s.zero;
        snprintf(line, sizeof line, "%sZeRO-%d", cur ? u->g->select : " ", z);
        draw_text(y, r.x, 8, cur ? C_HEADING : C_NORMAL, line);
        draw_stack(u, y, r.x + 8, bw, zh, b, full);
        int m = layout_cell(capacity, full, bw);
        for (int k = 0; k < zh; k++)
            draw_text(y + k, r.x + 8 + (m >= bw ? bw - 1 : m), 1, C_MARKER, u->g->marker);
        bool fits = b->total <= capacity;
        snprintf(line, sizeof line, " %s %s", ui_bytes(u, b->total, v, sizeof v), verdict(fits));
        draw_text(y, r.x + 8 + bw, r.w - 8 - bw, fits ? C_OK : C_BAD, line);
    }
}

/* The bytes of training for the class: bytes per parameter, the parallel degrees and the
 * global batch, and the ZeRO paper's view (Fig. 1: the model states alone, in GB). */
static int draw_training_facts(const ui *u, int y, int last)
{
    const explorer *e = &u->ex;
    const vl_bpp *p = &e->b.bpp;
    const vl_parallel *par = &e->b.par;
    rect r = u->lay.formula;
    char line[512], n[32];
    /* model states = weights + gradients + optimizer states, as the paper counts them */
    int o = snprintf(line, sizeof line,
                     _(" ZeRO paper view (Fig. 1: model states only, K = %u, GB):"), p->optimizer);
    for (int z = 0; z < REPORT_ZERO_STAGES && o < (int)sizeof line; z++) {
        const uint64_t *b = e->zero[z].bytes;
        o += snprintf(line + o, sizeof line - (size_t)o, " ZeRO-%d %.1f", z,
                      (double)(b[VL_C_WEIGHTS] + b[VL_C_GRADIENTS] + b[VL_C_OPTIMIZER]) / 1e9);
    }
    y = draw_wrap(y, last, r.x, r.w, C_NORMAL, line);
    snprintf(line, sizeof line,
             _(" bytes per parameter: weights %u + gradients %u + optimizer %u (fp32 master %u + "
               "grad copy %u + moments %u) = %u B x %s params"),
             p->weights, p->gradients, p->optimizer, p->master, p->grad_copy, p->moments,
             p->weights + p->gradients + p->optimizer, vl_fmt_count(e->b.P, n, sizeof n));
    if (y <= last)
        y = draw_wrap(y, last, r.x, r.w, C_NORMAL, line);
    char gpus[48], seqs[64];
    snprintf(gpus, sizeof gpus, P_("%llu GPU", "%llu GPUs", e->s.gpus),
             (unsigned long long)e->s.gpus);
    snprintf(seqs, sizeof seqs, P_("%llu sequence a step", "%llu sequences a step",
                                   par->global_batch),
             (unsigned long long)par->global_batch);
    snprintf(line, sizeof line,
             _(" parallel: TP %llu x PP %llu x DP %llu = %s; global batch = micro-batch %llu x DP "
               "%llu x grad accum %llu = %s"),
             (unsigned long long)par->tp, (unsigned long long)par->pp,
             (unsigned long long)par->dp, gpus, (unsigned long long)e->s.batch,
             (unsigned long long)par->dp, (unsigned long long)e->s.grad_accum, seqs);
    if (y <= last)
        y = draw_wrap(y, last, r.x, r.w, C_NORMAL, line);
    return y;
}

/* Serving under an engine that sizes its KV cache itself: what vLLM's profile run leaves
 * of its share (to 0.33), what warmup and CUDA graph capture leave of the free memory (0.34),
 * or what SGLang's static share of the memory free before the weights leaves beside them,
 * term by term, or by how much it falls short; in r's rows from y to last. */
static int draw_serving_facts(const ui *u, rect r, int y, int last)
{
    const vl_kv_budget *k = &u->ex.kv;
    const vl_settings s = explorer_settings(&u->ex);
    if (k->sizing == VL_KV_NONE || y > last || u->ex.error)
        return y;
    char cap[32], w[32], p[32], n[32], cm[32], ss[32], ge[32], got[32], tok[32], fr[32];
    char comm[256] = "", rest[160], line[640];
    const uint64_t seqs = k->per_sequence ? k->available / k->per_sequence : 0;
    size_t o = 0;
    if (k->communicators)
        o += (size_t)snprintf(comm + o, sizeof comm - o,
                              k->sizing == VL_KV_STATIC ? _(" and %s of communicators")
                                                        : _(" - %s communicators"),
                              ui_bytes(u, k->communicators, cm, sizeof cm));
    if (k->comm_made && k->sizing == VL_KV_PROFILE) { /* made before the engine measured */
        char made[32];
        o += (size_t)snprintf(comm + o, sizeof comm - o,
                              _(" (the %s more they took as they were made, before the engine "
                                "measured its memory, are outside its share)"),
                              ui_bytes(u, k->comm_made, made, sizeof made));
    }
    if (k->sampler_state)
        o += (size_t)snprintf(comm + o, sizeof comm - o, _(" - %s sampler state"),
                              ui_bytes(u, k->sampler_state, ss, sizeof ss));
    if (k->graph_estimate) /* measured after capture from 0.34, estimated before */
        snprintf(comm + o, sizeof comm - o,
                 k->sizing == VL_KV_EXTENSIBLE ? _(" - %s CUDA graphs")
                                               : _(" - %s CUDA graphs (its estimate)"),
                 ui_bytes(u, k->graph_estimate, ge, sizeof ge));
    if (k->shortfall || !k->available)
        snprintf(rest, sizeof rest, _("none, %s short: the engine stops before serving"),
                 ui_bytes(u, k->shortfall, got, sizeof got));
    else
        snprintf(rest, sizeof rest,
                 P_("%s, %s tokens: %llu sequence of %llu at once",
                    "%s, %s tokens: %llu sequences of %llu at once", seqs),
                 ui_bytes(u, k->available, got, sizeof got), vl_fmt_int(k->tokens, tok, sizeof tok),
                 (unsigned long long)seqs, (unsigned long long)(s.seq + s.gen));
    ui_bytes(u, k->capacity, cap, sizeof cap);
    ui_bytes(u, k->weights, w, sizeof w);
    if (k->sizing == VL_KV_STATIC)
        snprintf(line, sizeof line,
                 _(" the engine's KV pool: %s (%g x %s free before the weights load, after "
                   "CUDA's context%s, = %s - %s weights)"),
                 rest, (double)k->share / (double)VL_PPM,
                 ui_bytes(u, k->free_at_load, fr, sizeof fr), comm, cap, w);
    else if (k->sizing == VL_KV_EXTENSIBLE) /* measured after warmup and capture */
        snprintf(line, sizeof line,
                 _(" the engine's KV cache: %s (what warmup and CUDA graph capture leave: %s "
                   "- %s weights - %s transient peak - %s outside PyTorch%s, where %s is the "
                   "GPU's free memory less a margin of %s, or the engine's share)"),
                 rest, cap, w, ui_bytes(u, k->profile_peak, p, sizeof p),
                 ui_bytes(u, k->non_torch, n, sizeof n), comm, cap,
                 ui_bytes(u, k->margin, fr, sizeof fr));
    else
        snprintf(line, sizeof line,
                 _(" the engine's KV cache: %s (what its profile run leaves: %s of the GPU - %s "
                   "weights - %s profile run - %s outside PyTorch%s)"),
                 rest, cap, w, ui_bytes(u, k->profile_peak, p, sizeof p),
                 ui_bytes(u, k->non_torch, n, sizeof n), comm);
    return draw_wrap(y, last, r.x, r.w, seqs ? C_NORMAL : C_BAD, line); /* none fits: bad */
}

static void draw_formula(const ui *u)
{
    const explorer *e = &u->ex;
    rect r = u->lay.formula;
    if (r.h <= 0 || e->error)
        return;
    int last = r.y + r.h - 1;
    vl_component focus = u->ex.focus >= 0 ? (vl_component)u->ex.focus
                                          : slider_component(e, e->selected);
    char f[1024], line[1280];
    snprintf(line, sizeof line, _(" how it is computed: %s"), _(vl_component_labels[focus]));
    draw_text(r.y, r.x, r.w, C_HEADING, line);
    int y = r.y + 1;
    vl_settings s = explorer_settings(e);
    vl_explain(&s, &e->b, focus, u->units, f, sizeof f);
    snprintf(line, sizeof line, " %s = %s", _(vl_component_labels[focus]), f);
    y = draw_wrap(y, last, r.x, r.w, C_NORMAL, line);
    const char *inert = explorer_inert(e, e->selected);
    if (inert && y <= last) {
        char said[512]; /* the words of the status line's note (explorer.c) */
        snprintf(said, sizeof said, _("%s has no effect now: %s"), slider_label(e, e->selected),
                 inert);
        snprintf(line, sizeof line, " %s", said);
        y = draw_wrap(y, last, r.x, r.w, C_DIM, line);
    }
    /* the MFU and the token budget change no byte: what they change, the step time */
    if (!inert && s.mode == VL_MODE_TRAIN &&
        (e->selected == VL_SET_MFU || e->selected == VL_SET_TOKENS) && y <= last) {
        vl_train_speed v = vl_train_speed_of(&e->model, &e->b, &s, explorer_gpu(e));
        char tg[32], budget[96] = "";
        if (s.tokens)
            snprintf(budget, sizeof budget, "; %s tokens in %.1f days",
                     vl_fmt_count(s.tokens, tg, sizeof tg), v.days);
        snprintf(line, sizeof line, " step time at %g%% MFU: %.3g s a step, %s tokens/s a GPU%s",
                 100.0 * (double)s.mfu / (double)VL_PPM, v.step_seconds,
                 vl_fmt_int((uint64_t)(v.tokens_per_s_per_gpu + 0.5), tg, sizeof tg), budget);
        y = draw_wrap(y, last, r.x, r.w, C_NORMAL, line);
    }
    /* --cpu-offload: the weights' formula goes on to what the host link costs a forward */
    if (focus == VL_C_WEIGHTS && e->b.inf.offloaded_bytes && y <= last) {
        const vl_gpu *g = explorer_gpu(e);
        vl_speed v = vl_speed_bounds(&e->b, &s, g->bandwidth, g->bf16_flops, g->host_bandwidth);
        if (v.host_seconds > 0) {
            line[0] = ' ';
            vl_explain_host_link(&e->b, &v, g->bandwidth, g->host_bandwidth, u->units, line + 1,
                                 sizeof line - 1);
            y = draw_wrap(y, last, r.x, r.w, C_NORMAL, line);
        }
    }
    if (s.mode == VL_MODE_TRAIN)
        y = draw_training_facts(u, y, last);
    else if (!u->lay.aside.h) /* else beside the settings, above this pane */
        y = draw_serving_facts(u, r, y, last);
    if (u->scenario.name[0] && y <= last) { /* what the class is looking at, and where from */
        snprintf(line, sizeof line, _(" scenario %s: %s%s%s"), u->scenario.name, u->scenario.notes,
                 u->scenario.source[0] ? _(" Source: ") : "", u->scenario.source);
        y = draw_wrap(y, last, r.x, r.w, C_KEY, line);
    }
    if (e->detached && e->selected == SL_PARAMS && y <= last) {
        const vl_arch *a = &e->model.arch;
        snprintf(line, sizeof line,
                 _(" shape: %llu layers, hidden %llu, %llu heads, FFN %llu, vocab %llu "
                   "(GPT-3-like, Brown et al. 2020 Table 2.1, interpolated)"),
                 (unsigned long long)a->layers, (unsigned long long)a->hidden,
                 (unsigned long long)a->heads, (unsigned long long)a->ffn,
                 (unsigned long long)a->vocab);
        y = draw_wrap(y, last, r.x, r.w, C_NORMAL, line);
    }
    snprintf(line, sizeof line, _(" convention: %s"), vl_convention(&s));
    y = draw_wrap(y, last, r.x, r.w, C_DIM, line);
    char notes[VL_MAX_NOTES][VL_NOTE_LEN];
    int n = vl_notes(&s, &e->model, &e->b, notes, VL_MAX_NOTES);
    for (int i = 0; i < n && y <= last; i++) {
        snprintf(line, sizeof line, _(" note: %s"), notes[i]);
        y = draw_wrap(y, last, r.x, r.w, C_KEY, line);
    }
    for (int c = 0; c < VL_N_COMPONENTS && y <= last; c++) {
        if (c == (int)focus)
            continue;
        vl_explain(&s, &e->b, (vl_component)c, u->units, f, sizeof f);
        snprintf(line, sizeof line, " %s = %s", _(vl_component_labels[c]), f);
        y = draw_wrap(y, last, r.x, r.w, C_DIM, line);
    }
}

static void memory_draw(const ui *u)
{
    draw_sliders(u);
    draw_memory(u);
    draw_zero(u);
    const rect a = u->lay.aside;
    draw_serving_facts(u, a, a.y, a.y + a.h - 1);
    draw_formula(u);
}

/* ---- keys ---- */

static int act_select(ui *u, int dir)
{
    explorer_select(&u->ex, dir);
    return UI_REDRAW;
}

static int act_move(ui *u, int steps)
{
    return explorer_move(&u->ex, u->ex.selected, steps, false) ? UI_REDRAW : UI_HANDLED;
}

static int act_coarse(ui *u, int steps)
{
    return explorer_move(&u->ex, u->ex.selected, steps, true) ? UI_REDRAW : UI_HANDLED;
}

static int act_jump(ui *u, int end)
{
    return explorer_jump(&u->ex, u->ex.selected, end) ? UI_REDRAW : UI_HANDLED;
}

static int act_focus(ui *u, int arg)
{
    (void)arg;
    u->ex.focus = (u->ex.focus + 1) % VL_N_COMPONENTS;
    return UI_REDRAW;
}

/* f: --solve on the current settings for this GPU's usable memory, in turn max batch, max
 * context, min GPUs (the solves that set a slider); the answer is applied (u undoes it) and
 * said with what the next value would need at its peak. */
static int act_solve(ui *u, int arg)
{
    (void)arg;
    static const vl_solve turns[] = {VL_SOLVE_MAX_BATCH, VL_SOLVE_MAX_CONTEXT, VL_SOLVE_MIN_GPUS};
    static const slider_id solved[VL_N_SOLVES] = {
        [VL_SOLVE_MAX_BATCH] = VL_SET_BATCH, [VL_SOLVE_MAX_CONTEXT] = VL_SET_SEQ,
        [VL_SOLVE_MIN_GPUS] = VL_SET_GPUS,
    };
    const int n_turns = (int)(sizeof turns / sizeof *turns);
    explorer *e = &u->ex;
    vl_solve what = turns[u->solve % n_turns];
    u->solve = (u->solve + 1) % n_turns;
    vl_settings s = explorer_settings(e);
    vl_solution sol;
    const vl_gpu *g = explorer_gpu(e);
    const vl_runtime rt = explorer_runtime(e);
    const char *why = vl_solve_fit(&e->model, &s, what, report_capacity(&s, g), &rt, &sol);
    char v[24], next[96] = "", n[32];
    if (!why) {
        snprintf(v, sizeof v, "%llu", (unsigned long long)sol.answer);
        why = explorer_set(e, solved[what], v);
    }
    if (why) {
        ui_say(u, true, _(" --solve %s on %s: %s"), vl_solve_names[what], g->name, why);
        return UI_REDRAW;
    }
    e->selected = solved[what];
    e->focus = -1;
    const unsigned long long after = sol.next;
    const vl_fit_by by = sol.next && sol.next_total ? sol.next_fit.by : VL_N_FIT_BY;
    if (by == VL_FIT_SHARE)
        snprintf(next, sizeof next, _("; at %llu the engine stops before serving"), after);
    else if (by == VL_FIT_KV_CACHE)
        snprintf(next, sizeof next, _("; %llu: its KV cache is %s short"), after,
                 ui_bytes(u, sol.next_fit.margin, n, sizeof n));
    else if (by == VL_FIT_PEAK)
        snprintf(next, sizeof next, _("; %llu needs %s per GPU"), after,
                 ui_bytes(u, sol.next_total, n, sizeof n));
    ui_say(u, false, _(" --solve %s on %s: %s%s (u undoes it; f again: %s)"), vl_solve_names[what],
           g->name, v, next, vl_solve_names[turns[u->solve]]);
    e->note[0] = '\0';
    return UI_REDRAW;
}

static const binding memory_keys[] = {
    {.keys = "Up/Down", .brief = N_("select"), .help = N_("select a setting"), .action = act_select,
     .on = {{KEY_UP, -1}, {KEY_DOWN, 1}, {'k', -1}, {'j', 1}}},
    {.keys = "Left/Right", .brief = N_("change"), .help = N_("change it (the mouse wheel too)"),
     .action = act_move, .on = {{KEY_LEFT, -1}, {KEY_RIGHT, 1}, {'h', -1}, {'l', 1}}},
    {.keys = "PgUp/PgDn", .brief = N_("coarse"), .help = N_("change it in big steps"),
     .action = act_coarse,
     .on = {{KEY_PPAGE, 1}, {KEY_NPAGE, -1}, {KEY_SLEFT, -1}, {KEY_SRIGHT, 1}, {'H', -1},
            {'L', 1}}},
    {.help = N_("smallest / largest"), .action = act_jump, .on = {{KEY_HOME, 0}, {KEY_END, 1}}},
    {.keys = "Enter", .brief = N_("type"), .help = N_("type an exact value (e.g. 7B, 4096)"),
     .action = ui_begin_edit, .on = {KEYS_ENTER}},
    {.keys = "Tab", .brief = N_("formula"), .help = N_("formula of the next bar segment"),
     .action = act_focus, .on = {{'\t'}}},
    {.keys = "p", .brief = N_("presets"), .help = N_("load a model or scenario (type to filter)"),
     .action = ui_open_picker, .on = {{'p', MODE_PICK_MODEL}}},
    {.keys = "g", .brief = N_("GPU"), .help = N_("pick the GPU"), .action = ui_open_picker,
     .on = {{'g', MODE_PICK_GPU}}},
    {.keys = "S", .brief = N_("save"), .help = N_("save this what-if as a scenario YAML"),
     .action = ui_begin_save, .on = {{'S'}}},
    {.keys = "e", .brief = N_("export"), .help = N_("export Markdown and SVG of this what-if"),
     .action = ui_export, .on = {{'e'}}},
    {.keys = "f", .brief = N_("fit"),
     .help = N_("what fits this GPU: max batch, max context, min GPUs"),
     .action = act_solve, .on = {{'f'}}},
    {.keys = "u", .brief = N_("undo"), .help = N_("undo the last change (again: the one before)"),
     .action = ui_undo, .on = {{'u'}}},
    {.keys = "r", .brief = N_("reset"), .help = N_("back to the preset or scenario as loaded"),
     .action = ui_reset, .on = {{'r'}}},
    {.help = N_("search the models and scenarios (the picker, typing filters)"),
     .action = ui_open_picker, .on = {{'/', MODE_PICK_MODEL}}},
};

/* Where the pointer is: a click selects the slider under it and the wheel moves that one
 * (nowhere else); a click on a ZeRO row sets that stage. */
static int memory_mouse(ui *u, const MEVENT *ev)
{
    slider_id ids[EX_MAX_SLIDERS];
    int n = explorer_sliders(&u->ex, ids), sel = 0;
    while (sel < n && ids[sel] != u->ex.selected)
        sel++;
    int i = layout_slider_at(&u->lay, ev->y, ev->x, n);
    rect z = u->lay.zero;
    int stage = ev->y >= z.y + 1 ? (ev->y - (z.y + 1)) / u->lay.zero_bar_h : -1;
    if (i < 0 && (ev->bstate & BUTTON1_PRESSED) && z.h && u->ex.s.mode == VL_MODE_TRAIN &&
        !u->ex.error && ev->x >= z.x && stage >= 0 && stage < REPORT_ZERO_STAGES) {
        char v[2] = {(char)('0' + stage), '\0'};
        u->ex.selected = VL_SET_ZERO;
        u->ex.focus = -1;
        if (explorer_set(&u->ex, VL_SET_ZERO, v))
            ui_say(u, true, " %s", u->ex.why);
        else if (u->ex.note[0])
            ui_say(u, false, " %s", u->ex.note);
        u->ex.note[0] = '\0';
        return KEY_REFRESH;
    }
    if (i < 0)
        return ERR;
    i += layout_slider_first(&u->lay, n, sel < n ? sel : 0);
    u->ex.selected = ids[i];
    u->ex.focus = -1;
    int key = keys_wheel(ev);
    return key != ERR ? key : KEY_REFRESH;
}

static const char *memory_edit_label(const ui *u)
{
    static char label[64]; /* a size: what a bare number means */
    slider_id id = u->ex.selected;
    bool size = id < VL_N_SETTINGS && vl_setting_table[id].type == VL_ST_SIZE;
    snprintf(label, sizeof label, size ? "%s (GiB)" : "%s", slider_label(&u->ex, id));
    return label;
}

static bool memory_edit(ui *u, const char *text, char *why, size_t len)
{
    const char *refused = explorer_set(&u->ex, u->ex.selected, text);
    if (refused)
        snprintf(why, len, "%s", refused);
    return !refused;
}

UI_PANEL(memory) = {
    .name = N_("Memory"),
    PANEL_KEYS(memory_keys),
    .draw = memory_draw,
    .mouse = memory_mouse,
    .edit_label = memory_edit_label,
    .edit = memory_edit,
};
