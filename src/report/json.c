/* json.c: the report as JSON (HACKING §2: stable keys, exact integer bytes); every string
 * is escaped (text.c), every number finite. */
#include <config.h>
#include <inttypes.h>
#include <math.h>

#include "core/explain.h"
#include "core/lora.h"
#include "report.h"

static const char *jbool(bool b)
{
    return b ? "true" : "false";
}

static void json_phase(FILE *out, const char *name, const vl_phase *p)
{
    fprintf(out, "\"%s\": {\"kv_cache\": %" PRIu64 ", \"workspace\": %" PRIu64 ", \"total\": %" PRIu64 "}",
            name, p->kv_cache, p->workspace, p->total);
}

/* A time or a rate, or null when the GPU's figure is unknown: never inf or nan, which JSON
 * cannot write (RFC 8259 §6). */
static void json_number(FILE *out, const char *name, double v)
{
    if (v > 0 && isfinite(v))
        fprintf(out, "\"%s\": %.6g", name, v);
    else
        fprintf(out, "\"%s\": null", name);
}

/* "speed" in training: the step time at --mfu (FLOPs as numbers, times null when the GPU
 * has no peak for the precision). */
static void write_json_train_speed(FILE *out, const report *r)
{
    vl_train_speed v = report_train_speed(r);
    fprintf(out, " \"speed\": {\"bound\": \"mfu\", \"mfu\": %g, ",
            (double)r->settings->mfu / (double)VL_PPM);
    json_number(out, "peak_flops", v.peak_flops);
    fprintf(out, ", \"matmul_params\": %" PRIu64 ", \"context\": %" PRIu64
            ",\n           \"model_flops_per_token\": %.6g, \"hardware_flops_per_token\": %.6g"
            ", \"tokens_per_step\": %" PRIu64 ",\n           ",
            v.matmul_params, v.context, v.model_flops_per_token, v.hardware_flops_per_token,
            v.tokens_per_step);
    json_number(out, "step_seconds", v.step_seconds);
    fprintf(out, ", ");
    json_number(out, "tokens_per_s", v.tokens_per_s);
    fprintf(out, ", ");
    json_number(out, "tokens_per_s_per_gpu", v.tokens_per_s_per_gpu);
    if (r->settings->tokens) {
        fprintf(out, ",\n           \"tokens\": %" PRIu64 ", ", r->settings->tokens);
        json_number(out, "days", v.days);
        fprintf(out, ", ");
        json_number(out, "gpu_hours", v.gpu_hours);
    } else {
        fprintf(out, ",\n           \"tokens\": null, \"days\": null, \"gpu_hours\": null");
    }
    fprintf(out, "},\n");
}

/* "inference" and "speed": objects in inference; in training, null and the step time. */
static void write_json_inference(FILE *out, const report *r)
{
    const vl_inference *inf = &r->breakdown->inf;
    if (r->settings->mode != VL_MODE_INFER) {
        fprintf(out, " \"inference\": null,\n");
        write_json_train_speed(out, r);
        return;
    }
    fprintf(out,
            " \"inference\": {\"linear_params\": %" PRIu64 ", \"embedding_params\": %" PRIu64
            ", \"other_params\": %" PRIu64 ",\n               \"scale_bytes\": %" PRIu64
            ", \"replicated_bytes\": %" PRIu64 ", \"kv_bytes_per_token\": %" PRIu64
            ", \"kv_heads_per_gpu\": %" PRIu64 ",\n               \"prompt_tokens\": %" PRIu64
            ", \"cached_tokens\": %" PRIu64 ", \"offloaded_bytes\": %" PRIu64
            ", \"offload_copy_bytes\": %" PRIu64 ", \"rope_cache_bytes\": %" PRIu64
            ", \"dq_buffer_bytes\": %" PRIu64 ",\n               ",
            inf->linear_params, inf->embedding_params, inf->other_params, inf->scale_bytes,
            inf->replicated_bytes, inf->kv_bytes_per_token, inf->kv_heads_per_gpu,
            inf->prompt_tokens, inf->cached_tokens, inf->offloaded_bytes, inf->offload_copy,
            inf->rope_cache_bytes, inf->dq_buffer_bytes);
    json_phase(out, "prefill", &inf->prefill);
    fprintf(out, ",\n               ");
    json_phase(out, "decode", &inf->decode);
    fprintf(out, ",\n               \"peak\": \"%s\"", inf->decode_peak ? "decode" : "prefill");
    if (inf->pp > 1) /* --pp: the fullest stage, whose bytes per_gpu shows */
        fprintf(out,
                ",\n               \"pipeline\": {\"pp\": %" PRIu64 ", \"stage\": \"%s\", "
                "\"stage_layers\": %" PRIu64 ", \"linear_params\": %" PRIu64
                ", \"embedding_params\": %" PRIu64 ", \"other_params\": %" PRIu64 "}},\n",
                inf->pp, inf->logits ? "last" : "first", inf->stage_layers, inf->stage_linear,
                inf->stage_embedding, inf->stage_other);
    else
        fprintf(out, ",\n               \"pipeline\": null},\n");
    vl_speed v = report_speed(r);
    fprintf(out, " \"speed\": {\"bound\": \"roofline\", ");
    json_number(out, "decode_tokens_per_s", v.decode_tokens_per_s);
    fprintf(out, ", ");
    json_number(out, "decode_step_seconds", v.decode_step_seconds);
    fprintf(out, ", ");
    json_number(out, "prefill_seconds", v.prefill_seconds);
    fprintf(out, ", ");
    json_number(out, "host_seconds", v.host_seconds);
    fprintf(out, "},\n");
}

/* "peak": the step's peak (allocated ~ torch.cuda.max_memory_allocated, reserved ~
 * max_memory_reserved, device = reserved + context + managed + communicators ~ nvidia-smi,
 * with the GPUs' link), what is alive then by component; with --timeline, "timeline": the
 * events. */
static void write_json_peak(FILE *out, const report *r)
{
    const vl_timeline *t = r->timeline;
    if (!t) {
        fprintf(out, " \"peak\": null,\n");
        return;
    }
    const vl_peak *p = &t->peak;
    fprintf(out, " \"peak\": {\"allocated\": %" PRIu64 ", \"reserved\": %" PRIu64
                 ", \"device\": %" PRIu64 ", \"context\": %" PRIu64 ", \"lazy_kernels\": %" PRIu64
                 ", \"cublas_own\": %" PRIu64 ", \"managed\": %" PRIu64
                 ", \"communicators\": %" PRIu64 ", \"nvls\": %" PRIu64 ", \"released\": %" PRIu64
                 ", \"interconnect\": \"%s\", \"phase\": ",
            p->allocated, p->reserved, p->device, p->context, p->lazy_kernels,
            p->cublas_own, p->managed, p->communicators, p->nvls, p->released,
            vl_link_names[p->link]);
    json_string(out, p->phase);
    fprintf(out, ",\n          \"alive\": {");
    for (int c = 0; c < VL_N_TL_COMPONENTS; c++)
        fprintf(out, "%s\"%s\": %" PRIu64, c ? ", " : "", vl_tl_component_keys[c], p->alive[c]);
    fprintf(out, "}},\n");
    if (!r->events)
        return;
    fprintf(out, " \"timeline\": [");
    for (size_t i = 0; i < t->n_events; i++) {
        const vl_event *e = &t->events[i];
        fprintf(out, "%s\n  {\"event\": \"%s\", \"component\": \"%s\", \"bytes\": %" PRIu64
                     ", \"what\": ", i ? "," : "", e->kind == VL_EV_ALLOC ? "alloc" : "free",
                vl_tl_component_keys[e->component], e->bytes);
        json_string(out, e->what);
        fprintf(out, ", \"phase\": ");
        json_string(out, vl_timeline_phase(t, i));
        fprintf(out, ", \"allocated\": %" PRIu64 ", \"reserved\": %" PRIu64 "}", e->allocated,
                e->reserved);
    }
    fprintf(out, "],\n");
}

/* "gguf": a GGUF file type's tensor data, exact bytes by ggml type, and what llama.cpp keeps
 * of it in CPU memory (the input layer) and loads twice (a tied output layer); null
 * otherwise. */
static void write_json_gguf(FILE *out, const report *r)
{
    const vl_inference *inf = &r->breakdown->inf;
    if (r->settings->mode != VL_MODE_INFER || !inf->gguf_on) {
        fprintf(out, " \"gguf\": null,\n");
        return;
    }
    fprintf(out, " \"gguf\": {\"ftype\": \"%s\", \"bytes\": %" PRIu64 ", \"elements\": %" PRIu64
            ", \"bits_per_weight\": %.6g,\n          \"input_bytes\": %" PRIu64
            ", \"output_copy_bytes\": %" PRIu64 ", \"gpu_bytes\": %" PRIu64
            ",\n          \"types\": {",
            vl_dtype_names[r->settings->weight_dtype], inf->gguf.bytes, inf->gguf.elements,
            vl_gguf_bits_per_weight(&inf->gguf), inf->gguf.input_bytes,
            inf->gguf.output_copy_bytes, vl_gguf_gpu_bytes(&inf->gguf));
    const char *sep = "";
    for (int t = 0; t < VL_GGML_N; t++)
        if (inf->gguf.type_elements[t]) {
            fprintf(out, "%s\"%s\": {\"elements\": %" PRIu64 ", \"bytes\": %" PRIu64 "}", sep,
                    vl_ggml_info((vl_ggml_type)t)->name, inf->gguf.type_elements[t],
                    inf->gguf.type_bytes[t]);
            sep = ", ";
        }
    fprintf(out, "}},\n");
}

/* "serving": what a serving engine may use, the KV cache it gives itself where it profiles
 * (null where not) and how many sequences its cache holds; null in training. */
static void write_json_serving(FILE *out, const report *r)
{
    const vl_settings *s = r->settings;
    const vl_inference *inf = &r->breakdown->inf;
    if (s->mode != VL_MODE_INFER) {
        fprintf(out, " \"serving\": null,\n");
        return;
    }
    const uint64_t capacity = report_capacity(s, r->gpu);
    const vl_runtime rt = report_runtime(r);
    vl_solution c;
    vl_settings copy = *s;
    const char *none = vl_solve_fit(r->model, &copy, VL_SOLVE_MAX_CONCURRENCY, capacity, &rt, &c);
    const vl_framework f = report_framework(r); /* its prefill chunk on this GPU */
    fprintf(out, " \"serving\": {\"gpu_util\": %g, \"usable\": %" PRIu64 ", \"kv_block\": %" PRIu64
            ", \"prefill_chunk\": %" PRIu64 ", \"prompt_slots\": %" PRIu64
            ",\n             \"cached_slots\": %" PRIu64 ", \"kv_bytes_per_sequence\": %" PRIu64
            ", \"max_concurrency\": %" PRIu64 ",\n             \"kv_cache\": ",
            (double)f.gpu_util / (double)VL_PPM, capacity, s->kv_block, f.prefill_chunk,
            inf->prompt_slots, inf->cached_slots, inf->kv_gpu_per_token * inf->cached_slots,
            none ? 0 : c.answer);
    vl_kv_budget k;
    if (report_kv_budget(r, &k) && k.sizing == VL_KV_NONE) /* the engine sizes none */
        fprintf(out, "null},\n");
    else
        fprintf(out, "{\"sizing\": \"%s\", \"free_at_load\": %" PRIu64 ", \"bytes\": %" PRIu64
                ", \"tokens\": %" PRIu64 ", \"weights\": %" PRIu64
                ", \"profile_peak\": %" PRIu64 ", \"non_torch\": %" PRIu64
                ", \"communicators\": %" PRIu64 ", \"communicators_made\": %" PRIu64
                ", \"sampler_state\": %" PRIu64
                ", \"cuda_graph_estimate\": %" PRIu64 ", \"context\": %" PRIu64
                ", \"margin\": %" PRIu64 ", \"profile_seqs\": %" PRIu64
                ", \"profile_tokens\": %" PRIu64 ", \"shortfall\": %" PRIu64 "}},\n",
                vl_kv_sizing_names[k.sizing], k.free_at_load, k.available, k.tokens, k.weights,
                k.profile_peak, k.non_torch, k.communicators, k.comm_made,
                k.sampler_state, k.graph_estimate, k.context, k.margin, k.profile_seqs,
                k.profile_tokens,
                k.shortfall);
}

void report_write_json(FILE *out, const report *r)
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
    /* --model: where the model came from, and the checkpoint's own headers (exact bytes) */
    if (m->hf_cache) {
        fprintf(out, " \"checkpoint\": {\"count_source\": \"%s\"",
                m->checkpoint_params ? "safetensors" : "architecture");
        if (m->checkpoint_params)
            fprintf(out, ", \"params\": %" PRIu64 ", \"bytes\": %" PRIu64
                    ", \"architecture_params\": %" PRIu64, m->checkpoint_params,
                    m->checkpoint_bytes, b->params.total);
        fprintf(out, ",\n                \"source\": ");
        json_string(out, m->source);
        fprintf(out, "},\n");
    } else {
        fprintf(out, " \"checkpoint\": null,\n");
    }
    /* the settings as the table has them; the GPUs per node and the capacity as in force (0
     * is the default) */
    vl_settings shown = *s;
    shown.gpus_per_node = vl_gpus_per_node(s);
    shown.capacity = vl_gpu_capacity(r->gpu);
    fprintf(out, " \"settings\": {");
    for (int k = 0; k < VL_N_SETTINGS; k++) {
        const vl_setting_desc *d = &vl_setting_table[k];
        char v[64];
        bool quote = d->type == VL_ST_ENUM || d->type == VL_ST_LORA ||
                     d->type == VL_ST_FRAMEWORK || d->type == VL_ST_DAY;
        fprintf(out, "\"%s\": %s%s%s%s", vl_setting_keys[k], quote ? "\"" : "",
                vl_setting_format((vl_setting)k, &shown, v, sizeof v), quote ? "\"" : "",
                k == VL_N_SETTINGS - 1 ? "},\n" : d->json_break ? ",\n              " : ", ");
    }
    if (s->mode == VL_MODE_INFER && b->inf.gguf_on) /* the whole file's tensor data */
        fprintf(out, " \"bytes_per_param\": {\"weights\": %.6g, \"gradients\": 0, \"optimizer\": 0},\n",
                vl_gguf_bits_per_weight(&b->inf.gguf) / 8);
    else if (s->mode == VL_MODE_INFER) /* the layers' matrices; int4 takes half a byte */
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
    write_json_peak(out, r);
    if (s->mode == VL_MODE_TRAIN)
        fprintf(out,
                " \"parallel\": {\"tp\": %" PRIu64 ", \"pp\": %" PRIu64 ", \"cp\": %" PRIu64
                ", \"dp\": %" PRIu64 ", \"stage_layers\": %" PRIu64 ", \"in_flight\": %" PRIu64
                ",\n              \"params_per_gpu\": %" PRIu64 ", \"global_batch\": %" PRIu64
                ", \"local_seq\": %" PRIu64 ", \"ring_bytes\": %" PRIu64
                ",\n              \"vpp\": %" PRIu64 ", \"chunk_layers\": %" PRIu64
                ", \"chunks_in_flight\": %" PRIu64 "},\n",
                b->par.tp, b->par.pp, b->par.cp, b->par.dp, b->par.stage_layers,
                b->par.in_flight, b->par.params, b->par.global_batch, b->act.local_seq,
                b->act.ring_bytes, b->par.vpp, b->act.chunk_layers, b->act.chunks_in_flight);
    else
        fprintf(out, " \"parallel\": null,\n");
    if (s->mode == VL_MODE_TRAIN && b->par.ep > 1) /* --ep: the routed experts' split */
        fprintf(out, " \"experts\": {\"ep\": %" PRIu64 ", \"experts_per_gpu\": %" PRIu64
                ", \"expert_params\": %" PRIu64 ", \"expert_params_per_gpu\": %" PRIu64
                ", \"expert_dp\": %" PRIu64 ", \"a2a_bytes\": %" PRIu64 "},\n",
                b->par.ep, a->experts / b->par.ep, b->par.expert_params,
                b->par.expert_params_per_gpu, b->par.expert_dp, b->act.a2a_bytes);
    else
        fprintf(out, " \"experts\": null,\n");
    if (report_offloaded(r))
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
    fprintf(out, " \"gpu\": {\"name\": ");
    json_string(out, r->gpu->name);
    const vl_fit fit = report_judge(r);
    fprintf(out, ", \"capacity\": %" PRIu64 ", \"fits\": %s, \"headroom\": %" PRId64
            ", \"bound_by\": \"%s\"},\n",
            vl_gpu_capacity(r->gpu), jbool(fit.fits), vl_fit_headroom(&fit),
            vl_fit_by_names[fit.by]);
    write_json_inference(out, r);
    write_json_gguf(out, r);
    write_json_serving(out, r);
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
                ", \"next_total\": %" PRIu64 ", \"next_over\": %" PRIu64
                ", \"next_bound_by\": \"%s\"},\n",
                vl_solve_names[r->solved], r->solution->answer, r->solution->next,
                r->solution->next_total, r->solution->next_fit.margin,
                vl_fit_by_names[r->solution->next_fit.by]);
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
