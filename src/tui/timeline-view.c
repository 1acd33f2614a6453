/* timeline-view.c: the Timeline panel's state (timeline-view.h). */
#include "timeline-view.h"

#include <stdio.h>
#include <string.h>

bool timeline_view_build(timeline_view *v, const explorer *e)
{
    size_t before = v->built ? v->t.n_events : 0;
    timeline_view_free(v);
    if (e->error) {
        snprintf(v->error, sizeof v->error, "%s", e->error);
        return false;
    }
    vl_settings s = explorer_settings(e);
    if (!vl_timeline_for(&e->model, &s, e->overhead_given, &v->t, v->error, sizeof v->error)) {
        vl_timeline_free(&v->t);
        return false;
    }
    if (v->t.n_events == 0) {
        snprintf(v->error, sizeof v->error, "the step allocates nothing");
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

/* Column c of width: its first and last event. */
static void column_range(size_t n, int width, int c, size_t *first, size_t *last)
{
    *first = (size_t)c * n / (size_t)width;
    size_t end = ((size_t)c + 1) * n / (size_t)width;
    *last = end > *first ? end - 1 : *first;
}

int timeline_view_columns(const timeline_view *v, int width, tlv_column *out)
{
    if (!v->built || width <= 0)
        return 0;
    if (width > TLV_MAX_COLUMNS)
        width = TLV_MAX_COLUMNS;
    const vl_timeline *t = &v->t;
    for (int c = 0; c < width; c++) {
        tlv_column *col = &out[c];
        column_range(t->n_events, width, c, &col->first, &col->last);
        col->event = col->first;
        for (size_t i = col->first + 1; i <= col->last; i++)
            if (t->events[i].allocated > t->events[col->event].allocated)
                col->event = i;
    }
    /* one pass over the events: what is alive at each column's event (they come in order) */
    uint64_t live[VL_N_TL_COMPONENTS] = {0};
    int c = 0;
    for (size_t i = 0; i < t->n_events && c < width; i++) {
        const vl_event *ev = &t->events[i];
        if (ev->kind == VL_EV_ALLOC)
            live[ev->component] += ev->bytes;
        else
            live[ev->component] -= ev->bytes;
        for (; c < width && out[c].event == i; c++) {
            tlv_column *col = &out[c];
            memcpy(col->band, live, sizeof live);
            col->band[TLV_SLACK] = ev->reserved - ev->tensors;
            col->band[TLV_CONTEXT] = t->peak.context;
            col->top = ev->reserved + t->peak.context;
        }
    }
    return width;
}

int timeline_view_column_of(const timeline_view *v, int width, size_t i)
{
    if (!v->built || width <= 0)
        return 0;
    if (width > TLV_MAX_COLUMNS)
        width = TLV_MAX_COLUMNS;
    for (int c = 0; c < width; c++) {
        size_t first, last;
        column_range(v->t.n_events, width, c, &first, &last);
        if (i >= first && i <= last)
            return c;
    }
    return width - 1;
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

void timeline_view_alive(const timeline_view *v, uint64_t out[VL_N_TL_COMPONENTS])
{
    if (v->built)
        vl_timeline_alive(&v->t, v->cursor, out);
    else
        memset(out, 0, VL_N_TL_COMPONENTS * sizeof *out);
}
