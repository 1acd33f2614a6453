/* releases.h: the day each modelled release line came out, and the releases of a day
 * (--as-of).
 *
 * A release list in settings.h (VL_TORCH_LIST and its kin) gives each line the day its
 * first release reached PyPI, current the day of its current_from release.  A day stands
 * for the releases out on it: each list's newest line from on or before it.  A published
 * measurement names its day more often than its releases, and a release given names a
 * day too (vl_patch_day). */
#ifndef VL_RELEASES_H
#define VL_RELEASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "settings.h"

/* --as-of's value for no day: each release at its default (current). */
#define VL_DAY_CURRENT 0u

/* Whether setting k is a release list that a day sets: --torch, --transformers,
 * --bitsandbytes, --peft, --megatron, --vllm and --sglang.  Not --trl, which a run uses or
 * not by choice, nor --cuda, which follows --torch. */
bool vl_release_dated(vl_setting k);
/* The day (yyyymmdd) line c of the dated release list k came out. */
uint32_t vl_release_day(vl_setting k, int c);
/* The line of the dated release list k out on day: current from its current_from's day
 * (and for VL_DAY_CURRENT), else the newest line from on or before it, or the oldest
 * modelled one for a day before them all. */
int vl_release_on(vl_setting k, uint32_t day);
/* The next day after day (dir > 0), or the last before it, on which a dated release line
 * came out that matters to s: a list that applies in its mode and is not inert there (the
 * vLLM release outside vLLM, PEFT's without adapters); s NULL: every list.  VL_DAY_CURRENT
 * after the newest, which comes after every day; day itself at either end. */
uint32_t vl_release_next_day(uint32_t day, int dir, const vl_settings *s);
/* How many of those days come before day (VL_DAY_CURRENT: all of them), and how many
 * there are: a slider's place. */
int vl_release_days_before(uint32_t day, int *total, const vl_settings *s);

/* Sets the dated releases of s that apply in its mode and are not in keep to their lines on
 * day (vLLM's within its framework's engine: the V1 engine's from 0.8, the V0 engine's
 * through 0.10); returns those it set. */
vl_setting_set vl_settings_on_day(vl_settings *s, uint32_t day, vl_setting_set keep);
/* The dated releases of s still at current take their lines on the day the line of
 * release k in s came out (none for current, or k no dated release): a release chosen
 * alone, as the explorer's slider chooses it; returns those it set. */
vl_setting_set vl_settings_on_release(vl_settings *s, vl_setting k);
/* The day p dates its releases by: its --as-of, else the newest day of the release lines
 * it gives (current names none); VL_DAY_CURRENT for none. */
uint32_t vl_patch_day(const vl_settings_patch *p);

/* Reads "YYYY-MM-DD" (YYYY-MM and YYYY: their first day) or "current".  False, with
 * *why, for text that is neither or names no calendar day from 2000 to 2099. */
bool vl_day_parse(const char *text, uint32_t *day, const char **why);
/* day as --as-of spells it: "2022-01-11", or "current". */
const char *vl_day_format(uint32_t day, char *buf, size_t len);

#endif
