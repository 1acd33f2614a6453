/* csv.c: the report as CSV, one component a row, for spreadsheets. */
#include <inttypes.h>

#include "report.h"

static void write_row(FILE *out, const char *name, uint64_t bytes, uint64_t whole, vl_units u)
{
    fprintf(out, "%s,%" PRIu64 ",%.4f,%.2f\n", name, bytes, vl_in_units(bytes, u),
            report_share(bytes, whole));
}

void report_write_csv(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    fprintf(out, "component,bytes,%s,percent\n", r->units == VL_UNITS_GB ? "gb" : "gib");
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        write_row(out, vl_component_keys[c], b->bytes[c], b->total, r->units);
    fprintf(out, "total,%" PRIu64 ",%.4f,100.00\n", b->total, vl_in_units(b->total, r->units));
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
        return;
    }
    if (!report_offloaded(r))
        return;
    char name[64];
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        if (b->cpu.per_node[c]) {
            snprintf(name, sizeof name, "cpu_per_node_%s", vl_component_keys[c]);
            write_row(out, name, b->cpu.per_node[c], b->cpu.node_total, r->units);
        }
    fprintf(out, "cpu_per_node_total,%" PRIu64 ",%.4f,100.00\n", b->cpu.node_total,
            vl_in_units(b->cpu.node_total, r->units));
}
