/* panels.c: the table of panels, built from UI_PANELS (panel.h): a row there without its
 * panel-NAME.c is a link error, and there is no other list to forget. */
#include "panel.h"

#define UI_PANEL_ROW(name) &panel_##name,
const panel *const ui_panels[N_PANELS] = {UI_PANELS(UI_PANEL_ROW)};
