/* panels.c: the table of panels, built from UI_PANELS (panel.h), the one list of them. */
#include "panel.h"

#define UI_PANEL_ENTRY(name) [UI_ROW_##name] = &panel_##name,
const panel *const ui_panels[N_PANELS] = {UI_PANELS(UI_PANEL_ENTRY)};
