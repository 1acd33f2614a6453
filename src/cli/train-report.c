/* train-report.c: `vramlab probe train`'s output, as a table or JSON (probe-report.h). */
#include <inttypes.h>
#include <math.h>

#include "probe-report.h"
#include "report/report.h"

/* The table shows every step up to this many, else every k-th step and the last. */
#define TABLE_ROWS 30

static void json_floats(FILE *out, const float *v, uint32_t n)
{
    fputc('[', out);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", out);
        json_real(out, v[i]);
    }
    fputc(']', out);
}

static const char *master_name(const vl_train_regime *g)
{
    return g->weights == VL_FMT_F32 ? "fp32" : "none";
}

static void train_json(FILE *out, const train_report *t)
{
    const vl_train_opts *o = t->opts;
    json_probe_head(out, t->backend);
    fprintf(out,
            ",\n \"task\": {\"inputs\": %d, \"hidden\": %d, \"classes\": %d, \"rows\": %zu, "
            "\"batch\": %d, \"global_batch\": %u, \"optimizer\": \"adam\", \"steps\": %" PRIu32
            ", \"lr\": ",
            VL_TRAIN_IN, VL_TRAIN_HIDDEN, VL_TRAIN_CLASSES, t->rows, VL_TRAIN_BATCH,
            VL_TRAIN_GLOBAL, o->steps);
    json_real(out, o->lr);
    fprintf(out, ", \"seed\": %" PRIu64 ", \"accumulate\": \"%s\", \"input\": ", o->seed,
            o->accumulate_in_format ? "format" : "fp32");
    if (t->input)
        json_string(out, t->input);
    else
        fputs("null", out);
    fprintf(out, "},\n \"runs\": [");
    for (int i = 0; i < t->n; i++) {
        const vl_train_run *r = t->runs[i];
        const vl_train_regime *g = r->regime;
        fprintf(out, "%s\n  {\"name\": \"%s\", \"precision\": \"%s\", \"scaling\": \"%s\", "
                     "\"master\": \"%s\", \"per_tensor_scaling\": %s,\n   \"loss\": ",
                i ? "," : "", g->name, g->precision, vl_scaling_names[g->scaling],
                master_name(g), g->per_tensor ? "true" : "false");
        json_floats(out, r->loss, r->done);
        fputs(",\n   \"flushed\": ", out);
        json_floats(out, r->flushed, r->done);
        fputs(",\n   \"subnormal\": ", out);
        json_floats(out, r->subnormal, r->done);
        fputs(",\n   \"scale\": ", out);
        json_floats(out, r->scale, r->done);
        fprintf(out, ",\n   \"skipped\": %" PRIu32 ", \"gradient_values_per_step\": %" PRIu64
                     ", \"final_loss\": ",
                r->skipped, r->grad_values);
        json_real(out, r->final_loss);
        fputs(", \"accuracy\": ", out);
        json_real(out, r->accuracy);
        fputc('}', out);
    }
    fprintf(out, "]}\n");
}

/* The step tables' header row after "step": one column a regime. */
static void step_header(FILE *out, const train_report *t)
{
    for (int i = 0; i < t->n; i++)
        fprintf(out, " %13s", t->runs[i]->regime->name);
    fputc('\n', out);
}

/* Whether the step tables show step s (0-based): the first, every k-th and the last. */
static int step_shown(uint32_t s, uint32_t steps, uint32_t every)
{
    return s == 0 || (s + 1) % every == 0 || s + 1 == steps;
}

static void train_table(FILE *out, const train_report *t)
{
    const vl_train_opts *o = t->opts;
    char note[512];
    uint32_t steps = o->steps, every = steps <= TABLE_ROWS ? 1 : (steps + TABLE_ROWS - 1) / TABLE_ROWS;

    fprintf(out,
            "train: a %d-%d-%d ReLU network, softmax cross-entropy, Adam (lr %g), %zu rows in "
            "micro-batches of %d,\n  the loss divided by a global batch of 2^%d; seed %" PRIu64
            "; sums in %s\n",
            VL_TRAIN_IN, VL_TRAIN_HIDDEN, VL_TRAIN_CLASSES, (double)o->lr, t->rows, VL_TRAIN_BATCH,
            (int)log2((double)VL_TRAIN_GLOBAL), o->seed,
            o->accumulate_in_format ? "the format the products write" : "fp32");
    fprintf(out, "backend: %s (%s)\n\n", vl_backend_name(t->backend),
            vl_backend_note(t->backend, note, sizeof note));
    fprintf(out, "  %-13s %-8s %-6s %10s %9s %8s  %s\n", "regime", "scaling", "master",
            "final loss", "accuracy", "skipped", "precision");
    for (int i = 0; i < t->n; i++) {
        const vl_train_run *r = t->runs[i];
        const vl_train_regime *g = r->regime;
        fprintf(out, "  %-13s %-8s %-6s %10.4f %8.1f%% %8" PRIu32 "  %s\n", g->name,
                g->per_tensor ? "tensor" : vl_scaling_names[g->scaling], master_name(g),
                r->final_loss, 100 * r->accuracy, r->skipped, g->precision);
    }

    fprintf(out, "\n  loss per step%s\n  %6s", every > 1 ? " (every step in --format json)" : "",
            "step");
    step_header(out, t);
    for (uint32_t s = 0; s < steps; s++) {
        if (!step_shown(s, steps, every))
            continue;
        fprintf(out, "  %6" PRIu32, s + 1);
        for (int i = 0; i < t->n; i++)
            fprintf(out, " %13.4f", t->runs[i]->loss[s]);
        fputc('\n', out);
    }

    fprintf(out, "\n  gradient values flushed to zero / made subnormal, %% of those cast\n  %6s",
             "step");
    step_header(out, t);
    for (uint32_t s = 0; s < steps; s++) {
        if (!step_shown(s, steps, every))
            continue;
        fprintf(out, "  %6" PRIu32, s + 1);
        for (int i = 0; i < t->n; i++) {
            char cell[32];
            snprintf(cell, sizeof cell, "%.1f/%.1f", 100.0 * t->runs[i]->flushed[s],
                     100.0 * t->runs[i]->subnormal[s]);
            fprintf(out, " %13s", cell);
        }
        fputc('\n', out);
    }

    for (int i = 0; i < t->n; i++) {
        const vl_train_run *r = t->runs[i];
        if (r->regime->scaling == VL_SCALING_NONE)
            continue;
        fprintf(out, "\n  %s: loss scale %g at step 1, %g at step %" PRIu32 "; %" PRIu32
                     " steps skipped",
                r->regime->name, (double)r->scale[0], (double)r->scale[steps - 1], steps,
                r->skipped);
        for (uint32_t s = 0, shown = 0; s < steps && shown < 8; s++)
            if (r->skipped_at[s])
                fprintf(out, "%s%" PRIu32, shown++ ? ", " : " (", s + 1);
        fputs(r->skipped ? (r->skipped > 8 ? ", ...)\n" : ")\n") : "\n", out);
    }
}

void train_write(FILE *out, out_format f, const train_report *t)
{
    if (f == OUT_JSON)
        train_json(out, t);
    else
        train_table(out, t);
}
