/* timeline-view.c: the Timeline panel's state (timeline-view.h). */
#include "timeline-view.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"

bool timeline_view_build(timeline_view *v, const explorer *e)
{
    size_t before = v->built ? v->t.n_events : 0;
    timeline_view_free(v);
    if (e->error) {
        snprintf(v->error, sizeof v->error, "%s", e->error);
        return false;
    }
    vl_settings s = explorer_settings(e);
    const vl_runtime rt = explorer_runtime(e);
    if (!vl_timeline_for(&e->model, &s, &rt, &v->t, v->error, sizeof v->error)) {
        vl_timeline_free(&v->t);
        return false;
    }
    if (v->t.n_events == 0) {
        snprintf(v->error, sizeof v->error, "%s", _("the step allocates nothing"));
        vl_timeline_free(&v->t);
        return false;
    }
    v->built = true;
    if (v->t.n_events != before || v->cursor >= v->t.n_events)
        v->cursor = v->t.peak.event;
    return true;
}

void timeline_view_free(timeline_view *v)
{
    if (v->built)
        vl_timeline_free(&v->t);
    v->built = false;
    v->error[0] = '\0';
}

int timeline_view_columns(const timeline_view *v, int width, report_tl_column *out)
{
    if (!v->built)
        return 0;
    return report_tl_columns(&v->t, width > TLV_MAX_COLUMNS ? TLV_MAX_COLUMNS : width, out);
}

int timeline_view_column_of(const timeline_view *v, int width, size_t i)
{
    if (!v->built)
        return 0;
    return report_tl_column_of(&v->t, width > TLV_MAX_COLUMNS ? TLV_MAX_COLUMNS : width, i);
}

static bool move_to(timeline_view *v, size_t to)
{
    if (!v->built || to == v->cursor)
        return false;
    v->cursor = to;
    return true;
}

bool timeline_view_step(timeline_view *v, int dir)
{
    if (!v->built)
        return false;
    if (dir < 0)
        return move_to(v, v->cursor > 0 ? v->cursor - 1 : 0);
    return move_to(v, v->cursor + 1 < v->t.n_events ? v->cursor + 1 : v->cursor);
}

/* The first event of the phase event i is in. */
static size_t phase_start(const vl_timeline *t, size_t i)
{
    while (i > 0 && t->events[i - 1].phase == t->events[i].phase)
        i--;
    return i;
}

bool timeline_view_phase(timeline_view *v, int dir)
{
    if (!v->built)
        return false;
    const vl_timeline *t = &v->t;
    size_t i = v->cursor;
    if (dir > 0) {
        while (i + 1 < t->n_events && t->events[i + 1].phase == t->events[v->cursor].phase)
            i++;
        return move_to(v, i + 1 < t->n_events ? i + 1 : i);
    }
    size_t start = phase_start(t, i);
    return move_to(v, start < i || start == 0 ? start : phase_start(t, start - 1));
}

bool timeline_view_jump(timeline_view *v, bool end)
{
    return v->built && move_to(v, end ? v->t.n_events - 1 : 0);
}

bool timeline_view_peak(timeline_view *v)
{
    return v->built && move_to(v, v->t.peak.event);
}

void timeline_view_bands(const timeline_view *v, uint64_t out[REPORT_TL_BANDS])
{
    if (v->built)
        report_tl_bands(&v->t, v->cursor, out);
    else
        memset(out, 0, REPORT_TL_BANDS * sizeof *out);
}

/* The phases' labels as core/timeline.c makes them, a number where %llu stands. */
static const char *const phase_patterns[] = {
    N_("forward embedding"), N_("forward layer %llu"), N_("loss"), N_("loss backward"),
    N_("backward: gradient from the next stage"), N_("backward layer %llu"),
    N_("backward embedding"), N_("optimizer step"),
    N_("step start (the state kept between steps)"), N_("the other micro-batches (1F1B)"),
    N_("load weights"), N_("allocate the KV cache"), N_("capture CUDA graphs"),
    N_("prefill steps 2-%llu"), N_("prefill step %llu"), N_("prefill"), N_("decode steps 2-%llu"),
    N_("decode step %llu"),
};

/* Whether text is pattern with digits where its %llu is (their value in *n), to the end. */
static bool phase_match(const char *pattern, const char *text, unsigned long long *n)
{
    const char *hole = strstr(pattern, "%llu");
    size_t head = hole ? (size_t)(hole - pattern) : strlen(pattern);
    if (strncmp(pattern, text, head) != 0)
        return false;
    if (!hole)
        return text[head] == '\0';
    char *end;
    if (!isdigit((unsigned char)text[head]))
        return false;
    *n = strtoull(text + head, &end, 10);
    return strcmp(end, hole + 4) == 0;
}

const char *timeline_view_phase_text(const char *phase, char *buf, size_t len)
{
    unsigned long long mb = 0, n = 0;
    int skip = 0;
    char words[VL_PHASE_LEN];
    if (sscanf(phase, "micro-batch %llu %n", &mb, &skip) != 1 || !skip)
        skip = 0;
    snprintf(words, sizeof words, "%s", phase + skip);
    for (size_t i = 0; i < sizeof phase_patterns / sizeof *phase_patterns; i++)
        if (phase_match(phase_patterns[i], phase + skip, &n)) {
            snprintf(words, sizeof words, _(phase_patterns[i]), n);
            break;
        }
    if (skip)
        snprintf(buf, len, _("micro-batch %llu %s"), mb, words);
    else
        snprintf(buf, len, "%s", words);
    return buf;
}
