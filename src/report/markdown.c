/* markdown.c: the report as Markdown, for notes and tickets; every text from a file is
 * escaped for the terminal it may be printed on. */
#include <ctype.h>
#include <inttypes.h>

#include "core/explain.h"
#include "report.h"

static void write_cpu(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    char flag[64];
    fprintf(out, "**CPU memory per node** (%" PRIu64 " GPU%s, `%s`):\n\n"
                 "| component | %s | bytes |\n|---|---:|---:|\n",
            b->cpu.gpus_per_node, b->cpu.gpus_per_node == 1 ? "" : "s",
            report_offload_flag(r, flag, sizeof flag), vl_units_name(r->units));
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        if (b->cpu.per_node[c])
            fprintf(out, "| %s | %.2f | %" PRIu64 " |\n", vl_component_labels[c],
                    vl_in_units(b->cpu.per_node[c], r->units), b->cpu.per_node[c]);
    fprintf(out, "| **total** | **%.2f** | **%" PRIu64 "** |\n\n",
            vl_in_units(b->cpu.node_total, r->units), b->cpu.node_total);
}

static void write_activations(FILE *out, const vl_breakdown *b)
{
    fprintf(out, "\n**Activations saved for backward:**\n\n| kept | tensor | bytes |\n"
                 "|---|---|---:|\n");
    for (int i = 0; i < b->act.n_layer; i++)
        fprintf(out, "| per layer | %s | %" PRIu64 " |\n", b->act.layer[i].name,
                b->act.layer[i].bytes);
    for (int i = 0; i < b->act.n_outside; i++)
        fprintf(out, "| once | %s | %" PRIu64 " |\n", b->act.outside[i].name,
                b->act.outside[i].bytes);
}

void report_write_markdown(FILE *out, const report *r)
{
    const vl_breakdown *b = r->breakdown;
    char line[1024], f[1024];
    report_fact facts[REPORT_MAX_FACTS];

    snprintf(line, sizeof line, "## %s (`%s`): %s memory per GPU", r->model->display,
             r->model->name, report_mode(r));
    text_write(out, line, TEXT_TERMINAL);
    fputs("\n\n", out);
    int n = report_facts(r, facts);
    for (int i = 0; i < n; i++) {
        fprintf(out, "- **%c%s:** ", toupper((unsigned char)facts[i].label[0]),
                facts[i].label + 1);
        text_write(out, facts[i].text, TEXT_TERMINAL);
        fputc('\n', out);
    }
    fputc('\n', out);

    fprintf(out, "| component | %s | bytes | share |\n|---|---:|---:|---:|\n",
            vl_units_name(r->units));
    for (int c = 0; c < VL_N_COMPONENTS; c++)
        fprintf(out, "| %s | %.2f | %" PRIu64 " | %.1f%% |\n", vl_component_labels[c],
                vl_in_units(b->bytes[c], r->units), b->bytes[c],
                report_share(b->bytes[c], b->total));
    fprintf(out, "| **total** | **%.2f** | **%" PRIu64 "** | 100.0%% |\n\n",
            vl_in_units(b->total, r->units), b->total);
    if (report_offloaded(r))
        write_cpu(out, r);

    report_fit_line(r, line, sizeof line);
    fputs("**GPU:** ", out);
    text_write(out, line, TEXT_TERMINAL);
    fputs("\n\n**How each is computed:**\n\n", out);
    for (int c = 0; c < VL_N_COMPONENTS; c++) {
        vl_explain(r->settings, b, (vl_component)c, r->units, f, sizeof f);
        fprintf(out, "- %s = %s\n", vl_component_labels[c], f);
    }
    if (r->explain && r->settings->mode == VL_MODE_TRAIN)
        write_activations(out, b);
    if (r->events && r->timeline) {
        fprintf(out, "\n**The step, tensor by tensor** (the peak after event %zu):\n\n```\n",
                r->timeline->peak.event);
        for (size_t i = 0; i < r->timeline->n_events; i++) {
            report_event_line(r, i, f, sizeof f);
            fprintf(out, "%s\n", f);
        }
        fputs("```\n", out);
    }
}
