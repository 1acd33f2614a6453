/* timeline-view.h: the Timeline panel's state, free of curses: a copy of the step's timeline
 * (vl_timeline_for on the explorer's settings), a cursor over its events, and the events
 * compressed into the chart's columns, each column the largest moment among its events so
 * that the peak is never lost.  The numbers are those `vramlab estimate --timeline` prints
 * for the same settings. */
#ifndef VL_TIMELINE_VIEW_H
#define VL_TIMELINE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/timeline.h"
#include "explorer.h"
#include "report/report.h"

/* The widest chart: the columns of a 200-column terminal and then some. */
#define TLV_MAX_COLUMNS 256

typedef struct timeline_view {
    bool built;                 /* t holds a timeline */
    vl_timeline t;
    char error[256];            /* why there is none: the explorer's error or the build's */
    size_t cursor;              /* an event index, < t.n_events when built */
} timeline_view;

/* Rebuilds the timeline from the explorer's state (its settings, model, overhead flag).  The
 * cursor stays where it was when the step has as many events as before, else goes to the
 * peak.  false, with the reason in v->error, when there is no timeline. */
bool timeline_view_build(timeline_view *v, const explorer *e);
void timeline_view_free(timeline_view *v);

/* The events in `width` columns (at most TLV_MAX_COLUMNS; report_tl_columns).  Returns how
 * many columns were filled: width, or 0 without a timeline. */
int timeline_view_columns(const timeline_view *v, int width, report_tl_column *out);
/* The first of those columns that covers event i. */
int timeline_view_column_of(const timeline_view *v, int width, size_t i);

/* The cursor: Left/Right one event (dir -1/+1); a phase: on to the first event of the next
 * phase (in the last phase, to its last event), back to the first event of the current
 * phase, or from there of the one before; the first or last event; the peak.  true when it
 * moved. */
bool timeline_view_step(timeline_view *v, int dir);
bool timeline_view_phase(timeline_view *v, int dir);
bool timeline_view_jump(timeline_view *v, bool end);
bool timeline_view_peak(timeline_view *v);

/* The bands after the cursor's event (report_tl_bands): what is alive by component, the
 * allocator's rounding, the context, the allocator's cache; zeros without a timeline. */
void timeline_view_bands(const timeline_view *v, uint64_t out[REPORT_TL_BANDS]);

/* A phase's label (the timeline's, which the JSON and CSV carry as they are) in the
 * explorer's language: its micro-batch and its words translated, its numbers kept; a label
 * of no known pattern (zero_grad) as it is.  Returns buf. */
const char *timeline_view_phase_text(const char *phase, char *buf, size_t len);

#endif
