/* report.h: the report model (what an estimate shows, whatever draws it) and the writers
 * that render it: table, JSON, CSV, Markdown, SVG. */
#ifndef VL_REPORT_H
#define VL_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/explain.h"
#include "core/memory.h"
#include "core/preset.h"
#include "core/solve.h"
#include "core/timeline.h"
#include "core/units.h"
#include "text.h"

typedef struct report {
    const vl_model *model;
    const vl_settings *settings;
    const vl_breakdown *breakdown;
    const vl_gpu *gpu;
    vl_units units;
    bool explain; /* table and markdown: list the saved activation tensors too */
    const vl_breakdown *zero; /* training: the same run at ZeRO 0..3 (report_zero_sweep), or NULL */
    const vl_solution *solution; /* --solve: what was solved for, or NULL */
    vl_solve solved;
    const vl_timeline *timeline; /* the step's timeline: its peak is what must fit, or NULL */
    bool events;                 /* --timeline: list its events too */
    const vl_runtime *runtime;   /* what the timeline ran on, or NULL: the GPU's, modelled */
} report;

/* ---- the model: one policy for every front end ----------------------------------------- */

/* The GPU as the run is judged against: g, its memory --capacity's when given. */
vl_gpu report_gpu(const vl_settings *s, const vl_gpu *g);
/* What the run may use of the GPU: all of its memory, or in inference --gpu-util of it. */
uint64_t report_capacity(const vl_settings *s, const vl_gpu *g);
/* The runtime r's run is on: r->runtime, or its GPU's with the context modelled. */
vl_runtime report_runtime(const report *r);
/* The framework r's run is on, as vl_framework_of resolves it on that runtime. */
vl_framework report_framework(const report *r);
/* The KV cache r's serving engine gives itself out of report_capacity (vl_kv_budget_of):
 * NULL, or why there is none (a framework that does not profile, nothing left). */
const char *report_kv_budget(const report *r, vl_kv_budget *k);
/* Whether r's run fits its GPU (vl_fit_of): the peak's device bytes when there is a
 * timeline (what nvidia-smi would show at the step's peak), else the steady-state sum,
 * and a serving engine's KV cache. */
vl_fit report_judge(const report *r);
bool report_fits(const report *r);
/* What does not fit in f, and by how much: "over by 3.20 GiB", "the engine's KV cache holds
 * 97 of the 128 sequences at once, 3.20 GiB short", "the engine would stop before serving,
 * ...", with batch the sequences the run asks for. */
void report_over_text(const vl_fit *f, uint64_t batch, vl_units units, char *buf, size_t len);
/* part as a percentage of whole; 0 when whole is 0. */
double report_share(uint64_t part, uint64_t whole);
/* The bytes that fill a bar's full width when bars of these totals are drawn on one scale
 * next to the capacity marker: the largest of them and the capacity. */
uint64_t report_bar_full(uint64_t capacity, const vl_breakdown *bars, size_t n);

#define REPORT_ZERO_STAGES 4
/* Training: the same run at ZeRO stages 0..3 (the ZeRO paper's Fig. 1 comparison).  false,
 * with the reason in err, when a stage cannot be estimated. */
bool report_zero_sweep(const vl_model *m, const vl_settings *s,
                       vl_breakdown zero[REPORT_ZERO_STAGES], char *err, size_t errlen);
/* Inference: prefill and decode as bars of their own (each phase's KV cache and workspace
 * with b's weights and overhead), totals at each phase's peak.  Returns how many: 1
 * without generated tokens (prefill only), else 2. */
int report_phases(const vl_breakdown *b, const vl_settings *s, vl_breakdown phase[2]);
extern const char *const report_phase_names[2];

/* Inference: the roofline bounds on the GPU (zero where its figures are unknown). */
vl_speed report_speed(const report *r);
/* Training: the step time at --mfu on the GPU (all zero in inference). */
vl_train_speed report_train_speed(const report *r);

/* "training" or "inference": the titles say "<model>: training memory per GPU". */
const char *report_mode(const report *r);
/* The settings in one short line, for a title's subtitle. */
void report_brief_settings(const report *r, char *buf, size_t len);
/* "NVIDIA H100 80GB (h100-80gb): 80.00 GiB per GPU; fits, with 1.50 GiB to spare" */
void report_fit_line(const report *r, char *buf, size_t len);
/* "fits, with 1.50 GiB to spare" or "does not fit: over by 3.20 GiB" */
void report_verdict(const report *r, char *buf, size_t len);

/* The facts above the numbers, in order: model, note, settings, ..., each with its label. */
#define REPORT_MAX_FACTS (14 + VL_MAX_NOTES)
typedef struct report_fact {
    const char *label;
    char text[1024];
} report_fact;
int report_facts(const report *r, report_fact facts[REPORT_MAX_FACTS]);
/* What the device holds at peak p beyond the allocator's segments and the context, as
 * " + X paged optimizer states (CUDA managed memory) + Y communicators' buffers (nvlink)" (either
 * left out where none; "" for neither), in buf. */
const char *report_peak_extras(const vl_peak *p, vl_units units, char *buf, size_t len);
/* --timeline: event i as "alloc", what, its exact bytes and the allocator's after it in
 * the report's units (for the table and Markdown). */
void report_event_line(const report *r, size_t i, char *buf, size_t len);
/* The timeline as a chart of `width` columns (the explorer's Timeline panel, the SVG).  The
 * bands of a column, bottom to top: the timeline's components (the live tensors), the caching
 * allocator's rounding of their blocks (allocated - tensors), the CUDA context (or
 * --overhead), paged optimizer states in CUDA managed memory (--paged-optimizer), the
 * framework's communicators' buffers (on more than one GPU), and the segments the allocator
 * keeps cached beyond them (reserved - allocated): below the cache is what the process
 * holds, the top is what nvidia-smi would show. */
enum { REPORT_TL_ROUNDING = VL_N_TL_COMPONENTS, REPORT_TL_CONTEXT, REPORT_TL_MANAGED,
       REPORT_TL_COMM, REPORT_TL_CACHED, REPORT_TL_BANDS };
extern const char *const report_tl_band_keys[REPORT_TL_BANDS];   /* "weights", "cached" */
extern const char *const report_tl_band_labels[REPORT_TL_BANDS]; /* for people */
/* The bands after event i. */
void report_tl_bands(const vl_timeline *t, size_t i, uint64_t band[REPORT_TL_BANDS]);
typedef struct report_tl_column {
    size_t first, last;         /* the events it covers */
    size_t event;               /* among them, the first whose allocated is the largest */
    uint64_t band[REPORT_TL_BANDS]; /* at that event, bottom to top */
    uint64_t top;               /* their sum: reserved + context + managed + communicators at
                                 * that event */
} report_tl_column;
/* Each column covers a run of consecutive events, in order, every event in one column (or,
 * with fewer events than columns, one event in several), and is the largest moment among
 * them, so that the peak is never lost.  Returns width, or 0 when t has no events. */
int report_tl_columns(const vl_timeline *t, int width, report_tl_column *out);
/* The first column of `width` that covers event i. */
int report_tl_column_of(const vl_timeline *t, int width, size_t i);

/* In training with --offload, or in inference with weights offloaded (--cpu-offload): the
 * CPU memory per node is shown. */
bool report_offloaded(const report *r);
/* The flag that offloads: "--offload params", "--cpu-offload 4 GiB". */
const char *report_offload_flag(const report *r, char *buf, size_t len);

/* ---- the writers ------------------------------------------------------------------------ */

/* One row a format: its --format name and its writer, report_write_NAME in src/report/NAME.c.
 * The enum, the names and the writer table all come from this list. */
#define REPORT_FORMATS(X) X(TABLE, table) X(JSON, json) X(CSV, csv) X(MARKDOWN, markdown) X(SVG, svg)

#define REPORT_FORMAT_ENUM(id, name) FMT_##id,
typedef enum { REPORT_FORMATS(REPORT_FORMAT_ENUM) N_FORMATS } report_format;
#undef REPORT_FORMAT_ENUM
#define REPORT_WRITER_DECL(id, name) void report_write_##name(FILE *out, const report *r);
REPORT_FORMATS(REPORT_WRITER_DECL)
#undef REPORT_WRITER_DECL

typedef struct report_writer {
    const char *name;
    void (*write)(FILE *out, const report *r);
} report_writer;
extern const report_writer report_writers[N_FORMATS];
extern const char *const report_format_names[N_FORMATS];

/* r in format f; write errors stay on out (ferror). */
void report_write(FILE *out, report_format f, const report *r);

#endif
