/* report.h: an estimate rendered as table, JSON, CSV or Markdown. */
#ifndef VL_REPORT_H
#define VL_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/memory.h"
#include "core/preset.h"
#include "core/solve.h"
#include "core/units.h"

typedef enum { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_MARKDOWN, FMT_SVG, N_FORMATS } report_format;
extern const char *const report_format_names[N_FORMATS];

typedef struct report {
    const vl_model *model;
    const vl_settings *settings;
    const vl_breakdown *breakdown;
    const vl_gpu *gpu;
    vl_units units;
    bool explain; /* table and markdown: list the saved activation tensors too */
    const vl_breakdown *zero; /* the same run at ZeRO 0..3 (for the SVG), or NULL */
    const vl_solution *solution; /* --solve: what was solved for, or NULL */
    vl_solve solved;
} report;

void report_write(FILE *out, report_format f, const report *r);
bool report_fits(const report *r);
/* s as a JSON string, quoted and escaped. */
void json_string(FILE *out, const char *s);
/* The stacked bars (and the ZeRO 0-3 comparison when r->zero) as SVG. */
void svg_write(FILE *out, const report *r);

#endif
