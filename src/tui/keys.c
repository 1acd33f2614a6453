/* keys.c: the keys every panel shares, and the footer and key names drawn from the tables. */
#include "keys.h"

#include <curses.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "panel.h"

static int act_help(ui *u, int arg)
{
    (void)arg;
    u->mode = MODE_HELP;
    return UI_REDRAW;
}

static int act_quit(ui *u, int arg)
{
    (void)u, (void)arg;
    return UI_QUIT;
}

static int act_redraw(ui *u, int arg)
{
    (void)u, (void)arg;
    return UI_RESIZE;
}

static int act_theme(ui *u, int arg)
{
    (void)arg;
    if (!u->color) { /* say so rather than change nothing */
        ui_say(u, true, _(" no colour here (--no-color, NO_COLOR or the terminal): the high-"
                          "contrast theme needs it; monochrome uses bold, underline, reverse"));
        return UI_REDRAW;
    }
    u->theme = (ui_theme)((u->theme + 1) % N_THEMES);
    return UI_RESIZE; /* the loop sets the colours up again */
}

static int act_panel(ui *u, int arg)
{
    const panel *p = ui_panels[arg];
    char why[256];
    if (p->enter && !p->enter(u, why, sizeof why))
        ui_say(u, true, " %s", why);
    else
        u->panel = (size_t)arg;
    return UI_REDRAW;
}

#define PANEL_KEY(name) {'1' + UI_ROW_##name, UI_ROW_##name},

/* The first KEYS_FIRST rows lead the footer. */
const binding keys_global[] = {
    {.keys = "?", .brief = N_("help"), .help = N_("the keys of this panel; any key closes it"),
     .action = act_help, .on = {{'?'}, {KEY_F(1)}}},
    {.keys = "q", .brief = N_("quit"), .help = N_("quit"), .action = act_quit, .anywhere = true,
     .on = {{'q'}, {KEY_F(10)}}},
    {.brief = N_("panels"), .help = N_("the panels, as the tabs show them"), .action = act_panel,
     .on = {UI_PANELS(PANEL_KEY)}},
    {.keys = "t", .brief = N_("theme"), .help = N_("switch the high-contrast theme"),
     .action = act_theme, .on = {{'t'}}},
    {.help = N_("redraw the whole screen"), .action = act_redraw, .anywhere = true,
     .on = {{KEY_CTRL('L')}}},
};
const size_t keys_n_global = sizeof keys_global / sizeof keys_global[0];

/* With a lesson (--lesson), before every other key: so L lists the steps on every panel. */
const binding keys_lesson[] = {
    {.keys = "n/N", .brief = N_("next/back"), .help = N_("the lesson's next step, or back one"),
     .action = ui_lesson_step, .on = {{'n', 1}, {'N', -1}}},
    {.keys = "L", .brief = N_("steps"), .help = N_("the lesson's steps: go to any of them"),
     .action = ui_lesson_list, .on = {{'L'}}},
};
const size_t keys_n_lesson = sizeof keys_lesson / sizeof keys_lesson[0];
_Static_assert(N_PANELS < KEYS_MAX_CODES, "the panel keys need a code each");

const binding *keys_find(const binding *table, size_t n, int code, int *arg)
{
    for (size_t i = 0; i < n; i++)
        for (const key_code *k = table[i].on; k->code; k++)
            if (k->code == code) {
                *arg = k->arg;
                return &table[i];
            }
    return NULL;
}

static const struct {
    int code;
    const char *name;
} named[] = {
    {KEY_UP, "Up"},      {KEY_DOWN, "Down"},     {KEY_LEFT, "Left"},     {KEY_RIGHT, "Right"},
    {KEY_PPAGE, "PgUp"}, {KEY_NPAGE, "PgDn"},    {KEY_HOME, "Home"},     {KEY_END, "End"},
    {KEY_SLEFT, "S-Left"}, {KEY_SRIGHT, "S-Right"}, {'\t', "Tab"},      {'\n', "Enter"},
    {'\r', "Enter"},     {KEY_ENTER, "Enter"},   {27, "Esc"},            {' ', "Space"},
};

const char *keys_name(int code, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (named[i].code == code)
            return named[i].name;
    if (code >= KEY_F(1) && code <= KEY_F(63))
        snprintf(buf, len, "F%d", code - KEY_F0);
    else if (code > 0 && code < 32)
        snprintf(buf, len, "Ctrl-%c", code + '@');
    else
        snprintf(buf, len, "%c", code);
    return buf;
}

/* Whether the '/'-separated list holds `name`. */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = list; *s; s += strcspn(s, "/"), s += *s == '/')
        if (strncmp(s, name, n) == 0 && (s[n] == '/' || s[n] == '\0'))
            return true;
    return false;
}

void keys_list(const binding *b, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const key_code *k = b->on; k->code && used < len; k++) {
        char tmp[16];
        const char *name = keys_name(k->code, tmp, sizeof tmp);
        if (!listed(buf, name))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "/" : "", name);
    }
}

/* Appends "  KEYS BRIEF" for a row with a footer word; false when it would not fit whole in
 * `width` columns. */
static bool footer_add(const binding *b, int width, char *buf, size_t len)
{
    if (!b->brief)
        return true;
    char keys[64], item[128];
    if (b->keys)
        snprintf(keys, sizeof keys, "%s", b->keys);
    else
        keys_list(b, keys, sizeof keys);
    size_t used = strlen(buf);
    int n = snprintf(item, sizeof item, "%s%s %s", used ? "  " : " ", keys, _(b->brief));
    if (draw_width(buf) + draw_width(item) > width)
        return false;
    if (used + (size_t)n >= len)
        return false;
    memcpy(buf + used, item, (size_t)n + 1);
    return true;
}

/* In order of importance; the first item that does not fit ends it. */
void keys_footer(const binding *panel_keys, size_t n_panel, int width, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < KEYS_FIRST; i++)
        if (!footer_add(&keys_global[i], width, buf, len))
            return;
    for (size_t i = 0; i < n_panel; i++)
        if (!footer_add(&panel_keys[i], width, buf, len))
            return;
    for (size_t i = KEYS_FIRST; i < keys_n_global; i++)
        if (!footer_add(&keys_global[i], width, buf, len))
            return;
}

void keys_hint(const binding *table, size_t n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n && footer_add(&table[i], INT_MAX, buf, len); i++)
        continue;
    if (buf[0] == ' ')
        memmove(buf, buf + 1, strlen(buf));
}

int keys_wheel(const MEVENT *ev)
{
    return ev->bstate & BUTTON4_PRESSED ? KEY_RIGHT : ev->bstate & BUTTON5_PRESSED ? KEY_LEFT : ERR;
}
