/* explorer.h: the explorer's state and its sliders, free of curses.
 *
 * The TUI only reads this state and calls these functions; every change recomputes the
 * breakdown through the core (vl_estimate), so the screen shows what `vramlab estimate`
 * prints for the same settings. */
#ifndef VL_EXPLORER_H
#define VL_EXPLORER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/memory.h"
#include "core/catalog.h"
#include "core/solve.h"
#include "core/timeline.h"
#include "core/units.h"

/* A slider: a setting of the settings table (its vl_setting), or one of the two that
 * are not settings: the model's parameter count and the GPU. */
typedef int slider_id;
#define SL_PARAMS VL_N_SETTINGS
#define SL_GPU (VL_N_SETTINGS + 1)
#define N_SLIDERS (VL_N_SETTINGS + 2)

/* Room for the sliders one mode lists: at most every one. */
#define EX_MAX_SLIDERS N_SLIDERS

/* The range of the parameter slider (typed values may go to the command line's limits). */
#define EX_MIN_PARAMS 10000000ULL      /* 10M */
#define EX_MAX_PARAMS 2000000000000ULL /* 2T */

typedef struct explorer {
    const vl_catalog *cat;
    vl_model preset;          /* the model as loaded */
    vl_model model;           /* in use: the preset, or a GPT-3-like shape once detached */
    bool detached;            /* the parameter slider moved away from the preset */
    vl_settings s;            /* both modes' settings; each mode uses its own (effective) */
    size_t gpu;               /* index into cat->gpus */
    vl_gpu card;              /* that GPU, its memory the capacity typed if any (report_gpu) */
    vl_breakdown b;           /* the breakdown at s */
    vl_breakdown zero[4];     /* the same run at ZeRO 0..3 (report_zero_sweep) */
    vl_peak peak;             /* the step's peak (vl_timeline_for), what must fit */
    char peak_phase[VL_PHASE_LEN];
    /* serving under an engine that sizes its KV cache (vLLM, SGLang): the cache it gives
     * itself, or what it lacks (kv.shortfall); kv.sizing is none under the others */
    vl_kv_budget kv;
    vl_fit fit;               /* whether the run fits: the peak, and the engine's KV cache */
    bool overhead_given;      /* the overhead replaces the modelled CUDA context */
    const char *error;        /* why there is no breakdown, or NULL */
    char why[256];            /* the last refusal's or change's reason (explorer_set, notes) */
    char note[256];           /* what the last move did besides, or why it stopped; "" */
    /* A setting a move raised to follow it (ZeRO for an offload, GPUs for a tensor-parallel
     * degree): its value before, and the slider whose move did it; a later move of that
     * slider gives the value back while the setting still holds what the move set. */
    struct raised {
        bool set;
        slider_id by;
        uint64_t from, to;
    } raised[VL_N_SETTINGS];
    slider_id selected;
    int focus;                /* component whose formula is shown; -1 follows the slider */
} explorer;

void explorer_init(explorer *e, const vl_catalog *cat, const vl_model *m, size_t gpu,
                   const vl_settings *s);
void explorer_load_model(explorer *e, const vl_model *m);
/* A scenario: its model, its GPU and its settings over the current ones.  NULL, or why it
 * could not be loaded (state unchanged). */
const char *explorer_load_scenario(explorer *e, const vl_scenario *sc);
void explorer_recompute(explorer *e);

/* The sliders the current mode shows, in order; returns how many. */
int explorer_sliders(const explorer *e, slider_id out[EX_MAX_SLIDERS]);
/* The most sliders a mode lists (training's): the settings column is sized for them, so the
 * panes stay where they are when the mode changes. */
int explorer_longest(void);
/* The settings the current mode computes with (what `vramlab estimate` is given). */
vl_settings explorer_settings(const explorer *e);
/* Up/Down: the previous or next visible slider. */
void explorer_select(explorer *e, int dir);

/* A slider's label, translated; the settings column gives it EX_LABEL_COLS columns and a
 * space before its track (a longer one is cut with an ellipsis). */
#define EX_LABEL_COLS 14
const char *slider_label(const explorer *e, slider_id id);
/* The component whose formula the slider changes most directly. */
vl_component slider_component(const explorer *e, slider_id id);

/* NULL, or why the slider has no effect now (drawn disabled). */
const char *explorer_inert(const explorer *e, slider_id id);
/* The model is an encoder (BERT: post-norm with token types or a pooler): it reads its input
 * in one pass and generates nothing. */
bool explorer_encoder(const explorer *e);

/* Left/Right (steps = -1/+1), coarse with PgUp/PgDn; true when the value changed.  A move
 * never reaches a state the model refuses: it skips invalid values in its direction or
 * stays, and e->note says why it stopped or what else it changed ("" when nothing). */
bool explorer_move(explorer *e, slider_id id, int steps, bool coarse);
/* Home (end = false) and End: as far as a valid value goes. */
bool explorer_jump(explorer *e, slider_id id, bool end);
/* Enter: an exact typed value.  NULL, or why the text was refused (in e->why; state
 * unchanged). */
const char *explorer_set(explorer *e, slider_id id, const char *text);

/* The slider's value as text (sizes in units), and its position on the track in [0, 1]. */
void explorer_value(const explorer *e, slider_id id, vl_units units, char *buf, size_t len);
double explorer_fraction(const explorer *e, slider_id id);

/* The GPU in use, with the capacity typed (e->card). */
const vl_gpu *explorer_gpu(const explorer *e);
/* The runtime the explorer's step runs on: its GPU's generation, its overhead if given. */
vl_runtime explorer_runtime(const explorer *e);
/* Whether the run on screen fits the catalog's GPU `gpu` (vl_fit_for on that GPU's runtime
 * and capacity).  false, with why, when it cannot be judged there. */
bool explorer_fit_on(const explorer *e, size_t gpu, vl_fit *out, char *why, size_t len);

#endif
