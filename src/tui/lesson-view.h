/* lesson-view.h: the explorer's lesson (HACKING §3, a preset of kind lesson): the step shown,
 * its language, and each step's state put into the explorer, free of curses.
 *
 * A step's state is laid out as `vramlab estimate` lays out its options: the defaults, then
 * the scenario's settings when the step names a scenario, then the step's own settings; the
 * model and the GPU from the step, else from its scenario, else the GPU in use. */
#ifndef VL_LESSON_VIEW_H
#define VL_LESSON_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "core/preset.h"
#include "explorer.h"

typedef struct lesson_view {
    const vl_lesson *lesson; /* NULL: no lesson */
    size_t step;             /* the step shown, from 0 */
    vl_lang lang;
} lesson_view;

/* The explorer's language, its own text's (po/) and the lesson's: `flag` (--lang) when
 * given, else the locale's messages, the first of LANGUAGE (GNU gettext's list: its first
 * entry decides), LC_ALL, LC_MESSAGES and LANG that is set and not empty (POSIX's order
 * after GNU's): Chinese when it starts with "zh", else English. */
vl_lang lesson_lang(const char *flag, const char *language, const char *lc_all,
                    const char *lc_messages, const char *lang);

/* Puts step `step` of v's lesson into e (through explorer_load_scenario) and shows it:
 * NULL, or why it cannot be shown (e and v unchanged). */
const char *lesson_go(lesson_view *v, explorer *e, size_t step, char *why, size_t len);

/* The step shown, and its texts in v's language. */
const vl_lesson_step *lesson_step(const lesson_view *v);
const char *lesson_title(const lesson_view *v);
const char *lesson_text(const lesson_view *v);
const char *lesson_question(const lesson_view *v);

#endif
