/* train-view.h: the explorer's Train panel as state free of curses: every regime of
 * `vramlab probe train` (src/core/train.h) trained from the same seed, a slice of steps at
 * a time between frames, so the keys never wait for the training.  After n slices each run
 * holds what vl_train_step(run, n * TRAIN_VIEW_SLICE) gives, bit for bit. */
#ifndef VL_TRAIN_VIEW_H
#define VL_TRAIN_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/train.h"

/* Steps of every unfinished run per slice: at about 0.3 ms a step on the CPU (vramlab
 * probe train's 7 x 300 steps take about 0.6 s) a slice costs a few milliseconds, and the
 * 300 steps take some 150 frames, a few seconds to watch. */
#define TRAIN_VIEW_SLICE 2u
/* The static regime's loss scale, 2^0 .. 2^40: from no scaling at all (its fp16 gradients
 * underflow as unscaled fp16's do) to past fp16's range (the loss's gradients are 2^-24 a
 * unit, train.h, so at 2^40 they reach 2^16 > fp16's largest, 65504, and every step
 * overflows and is skipped). */
#define TRAIN_VIEW_MIN_LOG2_SCALE 0
#define TRAIN_VIEW_MAX_LOG2_SCALE 40

typedef struct train_view {
    bool ready;                       /* set up on first view */
    bool paused;
    vl_backend backend;
    vl_train_opts opts;               /* vramlab probe train's defaults */
    int log2_scale;                   /* fp16-static's loss scale is 2^log2_scale */
    vl_train_run *runs[VL_N_REGIMES]; /* one per regime, in vl_train_regimes' order */
} train_view;

/* Opens the backend (CUDA when one answers, else the CPU) and every run, once; false, and
 * why in `why`, when out of memory. */
bool train_view_ready(train_view *t, char *why, size_t len);
void train_view_free(train_view *t);

/* One slice: TRAIN_VIEW_SLICE more steps of every unfinished run; false when nothing ran
 * (paused, or every run done). */
bool train_view_slice(train_view *t);
/* Every run from step 0 (paused stays paused); false, and why, when out of memory (the
 * runs are as they were). */
bool train_view_restart(train_view *t, char *why, size_t len);
/* fp16-static's loss scale times 2^steps, within the range above, and that run from step
 * 0; false when it did not move or, with why set, when out of memory. */
bool train_view_scale(train_view *t, int steps, char *why, size_t len);

/* The most steps any run has done, and whether every run is done. */
uint32_t train_view_step(const train_view *t);
bool train_view_done(const train_view *t);

#endif
