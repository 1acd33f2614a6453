/* lab.c: the Probe and Formats panels' state. */
#include "lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/units.h"

static void underflow(lab *l)
{
    const float scales[2] = {1.0f, (float)(1u << l->log2_scale)};
    vl_underflow_compute(&l->backend, l->sample, LAB_SAMPLE, scales, 2, false, &l->under);
}

/* Everything the panels show; NULL, or what ran out. */
static const char *prepare(lab *l)
{
    vl_backend_open(&l->backend, VL_BACKEND_AUTO);
    vl_backend_note(&l->backend, l->backend_note, sizeof l->backend_note);
    if (!(l->sample = malloc(LAB_SAMPLE * sizeof *l->sample)))
        return _("out of memory for the gradient sample");
    vl_sample_fill(l->sample, LAB_SAMPLE, VL_PROBE_SEED);
    l->log2_scale = 16; /* GradScaler's initial 65536 */
    underflow(l);
    vl_scaler_opts so;
    vl_scaler_opts_default(&so);
    if (!(l->trace = vl_scaler_trace_new(&l->backend, &so)))
        return _("out of memory for the scaler trace");
    vl_update_opts uo;
    vl_update_opts_default(&uo);
    const char *why = vl_update_compute(&l->backend, &uo, &l->update);
    if (why)
        return why;
    vl_accumulate_opts ao;
    vl_accumulate_opts_default(&ao);
    return vl_accumulate_compute(&l->backend, &ao, &l->accum);
}

bool lab_ready(lab *l, char *why, size_t len)
{
    if (l->ready)
        return true;
    const char *fail = prepare(l);
    if (fail) {
        snprintf(why, len, "%s", fail);
        lab_free(l); /* the next try starts afresh */
        return false;
    }
    l->ready = lab_inspect(l, "0.1", why, len);
    return l->ready;
}

void lab_free(lab *l)
{
    free(l->sample);
    vl_scaler_trace_free(l->trace);
    memset(l, 0, sizeof *l);
}

bool lab_scale(lab *l, int steps)
{
    int to = l->log2_scale + steps;
    to = to < 0 ? 0 : to > LAB_MAX_LOG2_SCALE ? LAB_MAX_LOG2_SCALE : to;
    if (to == l->log2_scale)
        return false;
    l->log2_scale = to;
    underflow(l);
    return true;
}

bool lab_inspect(lab *l, const char *text, char *why, size_t len)
{
    double v;
    const char *reason;
    if (!vl_parse_real(text, &v, &reason)) {
        snprintf(why, len, _("'%s' is not a number: %s"), text, reason);
        return false;
    }
    snprintf(l->typed, sizeof l->typed, "%s", text);
    for (int f = 0; f < VL_N_FORMATS; f++)
        vl_inspect((vl_format)f, v, false, &l->insp[f]);
    return true;
}
