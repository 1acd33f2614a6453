/* table.c: the report as text for a terminal; every text from a file is escaped. */
#include <inttypes.h>

#include "core/explain.h"
#include "report.h"

/* A line of text that may hold what a file said, then a newline. */
static void text_line(FILE *out, const char *text)
{
    text_write(out, text, TEXT_TERMINAL);
    fputc('\n', out);
}

static void write_terms(FILE *out, const char *bullet, const vl_term *t, int n, vl_units u)
{
    char v[32], bytes[32];
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%-44s %12s %20s\n", bullet, t[i].name, vl_fmt_bytes(t[i].bytes, u, v, sizeof v),
                vl_fmt_int(t[i].bytes, bytes, sizeof bytes));
}

static void write_cpu(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    char bytes[32], flag[64];
    fprintf(out, "  CPU memory per node (%" PRIu64 " GPU%s, %s)\n", b->cpu.gpus_per_node,
            b->cpu.gpus_per_node == 1 ? "" : "s", report_offload_flag(r, flag, sizeof flag));
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        if (b->cpu.per_node[c])
            fprintf(out, "  %-20s %10.2f %22s\n", vl_component_labels[c],
                    vl_in_units(b->cpu.per_node[c], r->units),
                    vl_fmt_int(b->cpu.per_node[c], bytes, sizeof bytes));
    fprintf(out, "  %-20s %10.2f %22s\n\n", "total", vl_in_units(b->cpu.node_total, r->units),
            vl_fmt_int(b->cpu.node_total, bytes, sizeof bytes));
}

void report_write_table(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    const char *un = vl_units_name(r->units);
    char line[1024], bytes[32], f[1024];
    report_fact facts[REPORT_MAX_FACTS];

    snprintf(line, sizeof line, "%s (%s): %s memory per GPU", r->model->display, r->model->name,
             report_mode(r));
    text_line(out, line);
    int n = report_facts(r, facts);
    for (int i = 0; i < n; i++) {
        fprintf(out, "  %-11s ", facts[i].label);
        text_line(out, facts[i].text);
    }
    fputc('\n', out);

    fprintf(out, "  %-20s %10s %22s %7s\n", "component", un, "bytes", "share");
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        fprintf(out, "  %-20s %10.2f %22s %6.1f%%\n", vl_component_labels[c],
                vl_in_units(b->bytes[c], r->units), vl_fmt_int(b->bytes[c], bytes, sizeof bytes),
                report_share(b->bytes[c], b->total));
    fprintf(out, "  %-20s %10.2f %22s %6.1f%%\n\n", "total", vl_in_units(b->total, r->units),
            vl_fmt_int(b->total, bytes, sizeof bytes), 100.0);
    if (report_offloaded(r))
        write_cpu(out, r);

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
    if (r->events && r->timeline) {
        fprintf(out, "\n  the step, tensor by tensor (the peak after event %zu)\n", r->timeline->peak.event);
        fprintf(out, "  %5s %-5s %-28s %-36s %16s %12s %12s\n", "event", "", "phase", "tensor",
                "bytes", "allocated", "reserved");
        for (size_t i = 0; i < r->timeline->n_events; i++) {
            report_event_line(r, i, line, sizeof line);
            fprintf(out, "  %s\n", line);
        }
    }
    report_fit_line(r, line, sizeof line);
    fprintf(out, "\n  GPU  ");
    text_line(out, line);
}
