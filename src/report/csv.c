/* csv.c: the report as CSV, one component a row, for spreadsheets. */
#include <inttypes.h>

#include "report.h"

static void write_row(FILE *out, const char *name, uint64_t bytes, uint64_t whole, vl_units u)
{
    fprintf(out, "%s,%" PRIu64 ",%.4f,%.2f\n", name, bytes, vl_in_units(bytes, u),
            report_share(bytes, whole));
}

/* --timeline: after a blank line, the events as a table of their own. */
static void write_events(FILE *out, const report *r)
{
    const vl_timeline *t = r->timeline;
    if (!r->events || !t)
        return;
    fprintf(out, "\nevent,kind,component,bytes,allocated,reserved,phase,tensor\n");
    for (size_t i = 0; i < t->n_events; i++) {
        const vl_event *e = &t->events[i];
        fprintf(out, "%zu,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",\"%s\",\"%s\"\n", i,
                e->kind == VL_EV_ALLOC ? "alloc" : "free", vl_tl_component_keys[e->component],
                e->bytes, e->allocated, e->reserved, vl_timeline_phase(t, i), e->what);
    }
}

void report_write_csv(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    fprintf(out, "component,bytes,%s,percent\n", r->units == VL_UNITS_GB ? "gb" : "gib");
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        write_row(out, vl_component_keys[c], b->bytes[c], b->total, r->units);
    fprintf(out, "total,%" PRIu64 ",%.4f,100.00\n", b->total, vl_in_units(b->total, r->units));
    if (r->timeline) { /* the step's peak, as a share of the steady-state sum */
        write_row(out, "peak_allocated", r->timeline->peak.allocated, b->total, r->units);
        write_row(out, "peak_reserved", r->timeline->peak.reserved, b->total, r->units);
        write_row(out, "peak_device", r->timeline->peak.device, b->total, r->units);
    }
    if (r->model->checkpoint_bytes) /* --model: the bytes the checkpoint's headers give */
        write_row(out, "checkpoint_bytes", r->model->checkpoint_bytes, b->total, r->units);
    if (r->settings->mode == VL_MODE_INFER) {
        /* inference: each phase's peak and the cache per token, as a share of the total */
        const vl_inference *inf = &b->inf;
        write_row(out, "prefill_total", inf->prefill.total, b->total, r->units);
        write_row(out, "decode_total", inf->decode.total, b->total, r->units);
        write_row(out, "kv_bytes_per_token", inf->kv_bytes_per_token, b->total, r->units);
        if (inf->gguf_on) /* a GGUF file type: its tensor data, all GPUs together */
            write_row(out, "gguf_tensor_bytes", inf->gguf.bytes, b->total, r->units);
    }
    if (!report_offloaded(r)) {
        write_events(out, r);
        return;
    }
    char name[64];
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        if (b->cpu.per_node[c]) {
            snprintf(name, sizeof name, "cpu_per_node_%s", vl_component_keys[c]);
            write_row(out, name, b->cpu.per_node[c], b->cpu.node_total, r->units);
        }
    fprintf(out, "cpu_per_node_total,%" PRIu64 ",%.4f,100.00\n", b->cpu.node_total,
            vl_in_units(b->cpu.node_total, r->units));
    write_events(out, r);
}
