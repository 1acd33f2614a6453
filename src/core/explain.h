/* explain.h: every number traced to its formula, with the current values substituted.
 * The CLI's table and markdown output and the explorer's formula pane print these. */
#ifndef VL_EXPLAIN_H
#define VL_EXPLAIN_H

#include <stddef.h>

#include "memory.h"
#include "steptime.h"
#include "units.h"

/* "optimizer states = (4 master + 4 grad copy + 8 moments) = 16 B/param x 6.74e9 params
 *  / 8 GPUs (ZeRO-1 and up) = 12.55 GiB" */
void vl_explain(const vl_settings *s, const vl_breakdown *b, vl_component c, vl_units u,
                char *buf, size_t len);

/* A GGUF file type's tensor types and their weights: "q4_K 6.1e9 x 4.5 bits + q6_K ...". */
void vl_explain_gguf_mix(const vl_gguf_weights *g, char *buf, size_t len);

/* Training's step time with its numbers: "6 x 6.74e9 weights + 12 x 32 layers x 2048 x 4096
 * (attention) = 4.2e10 FLOPs a token ... at 40% MFU of 989 TFLOP/s: 0.22 s a step ...". */
void vl_explain_step_time(const vl_settings *s, const vl_arch *a, const vl_train_speed *v,
                          char *buf, size_t len);

/* --cpu-offload's share of the speed bounds, its formula substituted: "with --cpu-offload
 * each forward also reads 4 GiB over the host link: a decode step >= (8.55 GiB weights + ...)
 * / 3350 GB/s + 4 GiB / 63.00 GB/s = ...", for the speed line and the formula pane. */
void vl_explain_host_link(const vl_breakdown *b, const vl_speed *v, double bandwidth,
                          double host_bandwidth, vl_units u, char *buf, size_t len);

/* The bytes-per-parameter convention in force, with its source. */
const char *vl_convention(const vl_settings *s);

/* Advice and caveats for this run (a context past the model's positions, the article's
 * deployment advice, what tensor parallelism replicates); returns how many were written. */
#define VL_NOTE_LEN 256
#define VL_MAX_NOTES 4
int vl_notes(const vl_settings *s, const vl_model *m, const vl_breakdown *b,
             char notes[][VL_NOTE_LEN], int max);

#endif
