/* fuzz_estimate.c: libFuzzer target for the estimate path: a model and settings from text,
 * through the settings' rules, vl_estimate, the solver, the formulas and the speed bounds.
 * Built only by `make fuzz` (clang -fsanitize=fuzzer,address,undefined); see .ci/run.
 *
 * An input is a model and, after the first NUL byte, command-line flags ("--zero 3 --gpus
 * 8 --flash-attn"): the model is a config.json (it starts with '{'), a model preset, or a
 * scenario preset (its model a built-in one, its settings under the flags). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "core/explain.h"
#include "core/hfconfig.h"
#include "core/solve.h"
#include "core/timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static vl_catalog builtin;

/* The model (and a scenario's settings) of text; false when it is refused. */
static bool load_model(const char *text, size_t len, vl_model *m, vl_settings *s,
                       const vl_gpu **gpu)
{
    char err[VL_ERR_LEN];
    if (len > 0 && text[0] == '{')
        return vl_model_from_hf_text("fuzz.json", text, len, m, NULL, err);
    vl_preset *p = malloc(sizeof *p);
    bool ok = p && vl_preset_parse("fuzz.yaml", text, len, p, err);
    if (ok && p->kind == VL_KIND_MODEL) {
        *m = p->u.model;
    } else if (ok && p->kind == VL_KIND_SCENARIO) {
        const vl_scenario *sc = &p->u.scenario;
        const vl_model *found = sc->params ? NULL : vl_catalog_model(&builtin, sc->model);
        const vl_gpu *g = sc->gpu[0] ? vl_catalog_gpu(&builtin, sc->gpu) : NULL;
        vl_settings_apply(s, &sc->settings);
        if (g)
            *gpu = g;
        if (sc->params)
            vl_model_from_params(m, sc->params);
        else if (found)
            *m = *found;
        else
            ok = false;
    } else {
        ok = false;
    }
    free(p);
    return ok;
}

/* Flags over s, as the command line reads them: "--flag VALUE", or "--flag" for a switch.
 * False at the first bad value. */
static bool apply_flags(char *flags, vl_settings *s)
{
    char why[VL_ERR_LEN];
    for (char *save = NULL, *t = strtok_r(flags, " \t\n", &save); t;
         t = strtok_r(NULL, " \t\n", &save)) {
        bool negated = false;
        int k = vl_setting_by_flag(t + 2 * (strncmp(t, "--", 2) == 0), &negated);
        if (k < 0)
            return false;
        if (vl_setting_table[k].type == VL_ST_BOOL) {
            vl_setting_put((vl_setting)k, s, !negated);
            continue;
        }
        char *value = strtok_r(NULL, " \t\n", &save);
        if (!value || !vl_setting_parse((vl_setting)k, value, s, why, sizeof why))
            return false;
    }
    return true;
}

/* The timeline replays every layer's tensors, so its cost grows with the layers, and a
 * solver builds one timeline for each value it tries (some 30): under the sanitizers the
 * four solvers took 0.9 s on a 64-layer model and 1.1 s on a 91-layer one, against the
 * 2 s limit .ci/run sets.  The sum takes the same time at any depth; the solvers run to
 * 96 layers (GPT-3's, the deepest model of the corpus), one timeline to 1024 (0.2 s). */
#define MAX_SOLVE_LAYERS 96
#define MAX_TIMELINE_LAYERS 1024

static void estimate(const vl_model *m, const vl_settings *s, const vl_gpu *gpu)
{
    vl_breakdown b;
    char buf[1024], notes[VL_MAX_NOTES][VL_NOTE_LEN];
    if (vl_estimate(m, s, &b) == NULL) {
        for (int c = 0; c < VL_N_COMPONENTS; c++)
            vl_explain(s, &b, (vl_component)c, VL_UNITS_GIB, buf, sizeof buf);
        vl_notes(s, m, &b, notes, VL_MAX_NOTES);
        vl_speed_bounds(&b, s, gpu->bandwidth, gpu->bf16_flops, gpu->host_bandwidth);
    }
    if (m->arch.layers > MAX_TIMELINE_LAYERS)
        return;
    for (int w = 0; w < VL_N_SOLVES && m->arch.layers <= MAX_SOLVE_LAYERS; w++) {
        vl_settings t = *s;
        vl_solution sol;
        const vl_runtime rt = vl_runtime_on(gpu, s, false);
        vl_solve_fit(m, &t, (vl_solve)w, gpu->memory, &rt, &sol);
    }
    vl_timeline tl;
    char why[VL_ERR_LEN];
    const vl_runtime given = vl_runtime_on(gpu, s, true);
    vl_timeline_for(m, s, &given, &tl, why, sizeof why);
    vl_timeline_free(&tl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    char err[VL_ERR_LEN];
    if (!ready) {
        vl_catalog_init(&builtin);
        if (!vl_catalog_add_builtin(&builtin, err))
            abort();
        ready = true;
    }
    const char *text = (const char *)data, *nul = memchr(text, '\0', size);
    size_t model_len = nul ? (size_t)(nul - text) : size;
    const vl_gpu *gpu = vl_catalog_gpu(&builtin, "h100-80gb");
    vl_model m;
    vl_settings s;
    if (!gpu)
        abort();
    vl_settings_default(&s);
    if (!load_model(text, model_len, &m, &s, &gpu))
        return 0;
    if (nul) {
        char *flags = malloc(size - model_len);
        if (!flags)
            abort();
        memcpy(flags, nul + 1, size - model_len - 1);
        flags[size - model_len - 1] = '\0';
        bool ok = apply_flags(flags, &s);
        free(flags);
        if (!ok)
            return 0;
    }
    vl_settings_valid(&s, &m.arch, err, sizeof err);
    estimate(&m, &s, gpu); /* invalid settings too: vl_estimate refuses them itself */
    return 0;
}
