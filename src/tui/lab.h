/* lab.h: the explorer's Probe and Formats panels, as state free of curses: the default
 * gradient sample at a chosen loss scale, a GradScaler trace, the lost-update and
 * accumulation results, and a typed value in every format.  The numbers are those
 * `vramlab probe` and `vramlab inspect` print for the same options. */
#ifndef VL_LAB_H
#define VL_LAB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/numerics.h"
#include "core/probe.h"

#define LAB_SAMPLE (1u << 20)  /* vramlab probe underflow's default --count */
#define LAB_MAX_LOG2_SCALE 24

typedef struct lab {
    bool ready;                /* computed on first view: the panels cost nothing unseen */
    vl_backend backend;
    char backend_note[400];
    float *sample;
    int log2_scale;            /* the loss scale is 2^log2_scale */
    vl_underflow under;        /* runs[0] at scale 1, runs[1] at the loss scale */
    vl_scaler_trace *trace;
    vl_update update;
    vl_accumulate accum;
    char typed[64];            /* Formats: the value being inspected, as typed */
    vl_inspection insp[VL_N_FORMATS];
} lab;

/* Computes everything the first time; false, and why in `why` (out of memory), when not. */
bool lab_ready(lab *l, char *why, size_t len);
void lab_free(lab *l);
/* The loss-scale slider: 2^0 .. 2^24; true when it moved. */
bool lab_scale(lab *l, int steps);
/* Formats: inspect a typed value; false, and why in `why`, when the text is not a number. */
bool lab_inspect(lab *l, const char *text, char *why, size_t len);

#endif
