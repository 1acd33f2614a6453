/* probe-report.h: the output of `vramlab formats`, `inspect` and `probe`: a table for
 * people or JSON with stable keys and exact integers. */
#ifndef VL_PROBE_REPORT_H
#define VL_PROBE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "core/probe.h"
#include "core/selftest.h"
#include "core/train.h"

typedef enum { OUT_TABLE, OUT_JSON, N_OUTS } out_format;
extern const char *const out_format_names[N_OUTS];

/* A double as JSON: the shortest of %.17g that reads back exactly, and "inf", "-inf" or
 * "nan" as strings. */
void json_real(FILE *out, double v);

/* The first line of every probe JSON object: {"vramlab", "backend", "backend_note", each on
 * its own line (so that a diff can leave the backend lines out). */
void json_probe_head(FILE *out, const vl_backend *b);

/* What `vramlab probe` ran: the experiments not run are NULL. */
typedef struct probe_report {
    vl_backend *backend;
    const char *input; /* underflow: the gradient file, or NULL for the sample */
    uint64_t seed;
    const vl_underflow *underflow;
    const vl_scaler_opts *scaler_opts;
    vl_scaler_trace *scaler; /* owned by the caller */
    const vl_update *update;
    const vl_accumulate *accumulate;
} probe_report;

void probe_write(FILE *out, out_format f, const probe_report *r);

/* `vramlab probe train`: the runs, each done. */
typedef struct train_report {
    vl_backend *backend;
    const vl_train_opts *opts;
    const char *input; /* the features' file, or NULL */
    size_t rows;
    vl_train_run *const *runs;
    int n;
} train_report;

void train_write(FILE *out, out_format f, const train_report *t);

/* `vramlab probe selftest`: the checks, and why it stopped early (why may be NULL). */
void selftest_write(FILE *out, out_format f, const vl_backend *b, const vl_selftest *t,
                    const char *why);

#endif
