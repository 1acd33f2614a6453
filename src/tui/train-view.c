/* train-view.c: the Train panel's state (train-view.h). */
#include "train-view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
/* The runs in `set` (bit r for regime r) afresh; the old ones go only when every new one
 * was made.  False, and why, when out of memory. */
static bool fresh(train_view *t, unsigned set, char *why, size_t len)
{
    vl_train_run *made[VL_N_REGIMES] = {NULL};
    bool ok = true;
    t->opts.static_scale = (float)ldexp(1.0, t->log2_scale);
    for (int r = 0; r < VL_N_REGIMES && ok; r++)
        if (set >> r & 1)
            ok = (made[r] = vl_train_init(&t->backend, &t->opts, r)) != NULL;
    for (int r = 0; r < VL_N_REGIMES; r++) {
        if (!(set >> r & 1))
            continue;
        vl_train_run *old = ok ? t->runs[r] : made[r];
        if (ok)
            t->runs[r] = made[r];
        vl_train_free(old);
    }
    if (!ok)
        snprintf(why, len, "%s", _("out of memory for the training runs"));
    return ok;
}

#define ALL_RUNS ((1u << VL_N_REGIMES) - 1)

bool train_view_ready(train_view *t, char *why, size_t len)
{
    if (t->ready)
        return true;
    memset(t, 0, sizeof *t);
    vl_backend_open(&t->backend, VL_BACKEND_AUTO);
    vl_train_opts_default(&t->opts);
    t->log2_scale = (int)lround(log2(VL_TRAIN_STATIC_SCALE));
    t->ready = fresh(t, ALL_RUNS, why, len);
    return t->ready;
}

void train_view_free(train_view *t)
{
    for (int r = 0; r < VL_N_REGIMES; r++)
        vl_train_free(t->runs[r]);
    memset(t, 0, sizeof *t);
}

bool train_view_slice(train_view *t)
{
    bool ran = false;
    if (t->paused)
        return false;
    for (int r = 0; r < VL_N_REGIMES; r++) {
        vl_train_run *run = t->runs[r];
        if (run && run->done < run->steps) {
            vl_train_step(run, TRAIN_VIEW_SLICE);
            ran = true;
        }
    }
    return ran;
}

bool train_view_restart(train_view *t, char *why, size_t len)
{
    return fresh(t, ALL_RUNS, why, len);
}

bool train_view_scale(train_view *t, int steps, char *why, size_t len)
{
    int from = t->log2_scale, to = from + steps;
    to = to < TRAIN_VIEW_MIN_LOG2_SCALE   ? TRAIN_VIEW_MIN_LOG2_SCALE
         : to > TRAIN_VIEW_MAX_LOG2_SCALE ? TRAIN_VIEW_MAX_LOG2_SCALE
                                          : to;
    why[0] = '\0';
    if (to == from)
        return false;
    t->log2_scale = to;
    if (fresh(t, 1u << VL_REGIME_FP16_STATIC, why, len))
        return true;
    t->log2_scale = from;
    t->opts.static_scale = (float)ldexp(1.0, from);
    return false;
}

uint32_t train_view_step(const train_view *t)
{
    uint32_t most = 0;
    for (int r = 0; r < VL_N_REGIMES; r++)
        if (t->runs[r] && t->runs[r]->done > most)
            most = t->runs[r]->done;
    return most;
}

bool train_view_done(const train_view *t)
{
    for (int r = 0; r < VL_N_REGIMES; r++)
        if (t->runs[r] && t->runs[r]->done < t->runs[r]->steps)
            return false;
    return true;
}
