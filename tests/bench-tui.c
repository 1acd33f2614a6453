/* bench-tui.c: how long the explorer takes to recompute and draw a full frame, and to
 * handle 1000 key presses (each recomputed and drawn).  A benchmark that prints figures,
 * not a timed test: `make bench`.  Curses draws into a 100x30 screen written to /dev/null,
 * so the figures are the program's own work, not a terminal's. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tui/tui.h"
#include "bench.h"

static void frame(ui *u)
{
    u->lay = layout_compute(LINES, COLS, explorer_longest(), draw_lesson_rows(u, COLS));
    u->lines = LINES;
    u->cols = COLS;
    draw_frame(u);
    wnoutrefresh(stdscr);
    doupdate();
}

int main(void)
{
    static ui u;
    vl_catalog cat;
    char err[VL_ERR_LEN];
    vl_settings s;

    vl_catalog_init(&cat);
    if (!vl_catalog_add_builtin(&cat, err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    vl_settings_default(&s);
    u.cat = &cat;
    explorer_init(&u.ex, &cat, vl_catalog_model(&cat, "llama-2-7b"), 0, &s);
    u.g = theme_glyphs(false);

    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *scr = newterm("xterm-256color", out, in);
    if (!scr) {
        fprintf(stderr, "bench-tui: no terminfo entry for xterm-256color\n");
        return 77;
    }
    resizeterm(30, 100);
    theme_init(true, THEME_DEFAULT);

    const int n = 1000;
    double t0 = now();
    for (int i = 0; i < n; i++) {
        explorer_recompute(&u.ex);
        frame(&u);
    }
    double per_frame = (now() - t0) / n;

    /* key presses: walk every slider, two steps right and two back */
    static const int walk[] = {KEY_RIGHT, KEY_RIGHT, KEY_LEFT, KEY_LEFT, KEY_DOWN};
    t0 = now();
    for (int i = 0; i < n; i++) {
        if (u.ex.selected == VL_SET_FP32_GRADS && walk[i % 5] == KEY_DOWN)
            u.ex.selected = SL_PARAMS;
        if (ui_key(&u, walk[i % 5]) & UI_REDRAW)
            frame(&u);
    }
    double keys = now() - t0;

    /* the GPU picker: each key typed into its filter judges the run on every GPU it lists
     * (Llama 3.1 70B served by vLLM on two GPUs: a timeline and the engine's KV cache each) */
    u.ex.s.mode = VL_MODE_INFER;
    u.ex.s.gpus = 2;
    u.ex.s.framework = vl_catalog_framework(&cat, "vllm");
    explorer_load_model(&u.ex, vl_catalog_model(&cat, "llama-3.1-70b"));
    ui_open_picker(&u, MODE_PICK_GPU);
    const int listed = u.n_pick, typed = 100;
    t0 = now();
    for (int i = 0; i < typed; i++)
        ui_filter(&u);
    double filter = (now() - t0) / typed;

    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    vl_catalog_free(&cat);
    printf("full frame (recompute + layout + draw + update), 100x30: %.1f us/frame over %d frames"
           " (target: under 1000 us)\n",
           per_frame * 1e6, n);
    printf("%d key presses handled, recomputed and drawn: %.1f ms in all, %.1f us each\n", n,
           keys * 1e3, keys * 1e6 / n);
    printf("GPU picker, a key typed into its filter (a serving run judged on %d GPUs): "
           "%.1f us each\n", listed, filter * 1e6);
    return 0;
}
