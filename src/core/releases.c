/* releases.c: the day each modelled release line came out, and the releases of a day. */
#include "releases.h"

#include <stdio.h>
#include <string.h>

#include "framework.h"
#include "i18n.h"

#define VL_ENUM_DAY(id, name, day) day,
static const uint32_t torch_days[] = {VL_TORCH_LIST(VL_ENUM_DAY)};
static const uint32_t transformers_days[] = {VL_TRANSFORMERS_LIST(VL_ENUM_DAY)};
static const uint32_t bitsandbytes_days[] = {VL_BITSANDBYTES_LIST(VL_ENUM_DAY)};
static const uint32_t peft_days[] = {VL_PEFT_LIST(VL_ENUM_DAY)};
static const uint32_t vllm_days[] = {VL_VLLM_LIST(VL_ENUM_DAY)};
static const uint32_t sglang_days[] = {VL_SGLANG_LIST(VL_ENUM_DAY)};
static const uint32_t megatron_days[] = {VL_MEGATRON_LIST(VL_ENUM_DAY)};
#undef VL_ENUM_DAY

static const struct {
    vl_setting k;
    const uint32_t *days;
    int n;
} dated[] = {
    {VL_SET_TORCH, torch_days, VL_N_TORCHES},
    {VL_SET_TRANSFORMERS, transformers_days, VL_N_TRANSFORMERS},
    {VL_SET_BITSANDBYTES, bitsandbytes_days, VL_N_BITSANDBYTES},
    {VL_SET_PEFT, peft_days, VL_N_PEFTS},
    {VL_SET_VLLM, vllm_days, VL_N_VLLMS},
    {VL_SET_SGLANG, sglang_days, VL_N_SGLANGS},
    {VL_SET_MEGATRON, megatron_days, VL_N_MEGATRONS},
};
#define N_DATED (sizeof dated / sizeof dated[0])

static int dated_index(vl_setting k)
{
    for (size_t i = 0; i < N_DATED; i++)
        if (dated[i].k == k)
            return (int)i;
    return -1;
}

bool vl_release_dated(vl_setting k)
{
    return dated_index(k) >= 0;
}

uint32_t vl_release_day(vl_setting k, int c)
{
    int i = dated_index(k);
    return i >= 0 && c >= 0 && c < dated[i].n ? dated[i].days[c] : VL_DAY_CURRENT;
}

int vl_release_on(vl_setting k, uint32_t day)
{
    int i = dated_index(k);
    if (i < 0 || day == VL_DAY_CURRENT || day >= dated[i].days[0])
        return 0;
    int best = 1; /* the lines are listed oldest first, after current */
    for (int c = 1; c < dated[i].n; c++)
        if (dated[i].days[c] <= day)
            best = c;
    return best;
}

/* Whether list i's releases change anything for s (NULL: every list does). */
static bool dated_matters(size_t i, const vl_settings *s)
{
    if (!s)
        return true;
    const vl_setting_desc *d = &vl_setting_table[dated[i].k];
    return vl_setting_applies(dated[i].k, s) && !(d->inert && d->inert(s));
}

uint32_t vl_release_next_day(uint32_t day, int dir, const vl_settings *s)
{
    const uint32_t at = day == VL_DAY_CURRENT ? UINT32_MAX : day;
    uint32_t best = at;
    for (size_t i = 0; i < N_DATED; i++) {
        if (!dated_matters(i, s))
            continue;
        for (int c = 0; c < dated[i].n; c++) {
            uint32_t d = dated[i].days[c];
            if (dir > 0 ? d > at && (best == at || d < best) : d < at && (best == at || d > best))
                best = d;
        }
    }
    if (dir > 0 && best == at) /* after the newest line: current */
        return VL_DAY_CURRENT;
    return best == UINT32_MAX ? VL_DAY_CURRENT : best;
}

int vl_release_days_before(uint32_t day, int *total, const vl_settings *s)
{
    int before = 0, n = 0;
    for (uint32_t d = vl_release_next_day(1, 1, s); d != VL_DAY_CURRENT;
         d = vl_release_next_day(d, 1, s)) {
        n++;
        before += day == VL_DAY_CURRENT || d < day;
    }
    *total = n;
    return before;
}

/* The line of k on day for s: vl_release_on's, within the lines s's framework runs (vLLM's
 * V1 engine from 0.8, its V0 engine through 0.10: vl_settings_check). */
static int line_for(vl_setting k, const vl_settings *s, uint32_t day)
{
    const int c = vl_release_on(k, day);
    if (k != VL_SET_VLLM || c == VL_VLLM_CURRENT)
        return c;
    const unsigned line = vl_vllm_line((vl_vllm)c);
    if (vl_is_vllm_v0(s->framework))
        return line > 10 ? VL_VLLM_0_10 : c;
    return line < 8 ? VL_VLLM_0_8 : c;
}

vl_setting_set vl_settings_on_day(vl_settings *s, uint32_t day, vl_setting_set keep)
{
    vl_setting_set set = {0};
    for (size_t i = 0; i < N_DATED; i++)
        if (!vl_set_has(keep, dated[i].k) && vl_setting_applies(dated[i].k, s)) {
            vl_setting_put(dated[i].k, s, (uint64_t)line_for(dated[i].k, s, day));
            vl_set_add(&set, dated[i].k);
        }
    return set;
}

vl_setting_set vl_settings_on_release(vl_settings *s, vl_setting k)
{
    const uint64_t line = vl_setting_get(k, s);
    vl_setting_set chosen = {0};
    if (!vl_release_dated(k) || line == 0)
        return chosen; /* current names no day */
    vl_set_add(&chosen, k);
    for (size_t i = 0; i < N_DATED; i++)
        if (vl_setting_get(dated[i].k, s) != 0)
            vl_set_add(&chosen, dated[i].k);
    return vl_settings_on_day(s, vl_release_day(k, (int)line), chosen);
}

uint32_t vl_patch_day(const vl_settings_patch *p)
{
    if (vl_set_has(p->given, VL_SET_AS_OF))
        return p->values.as_of;
    uint32_t day = VL_DAY_CURRENT;
    for (size_t i = 0; i < N_DATED; i++)
        if (vl_set_has(p->given, dated[i].k)) { /* current names no day */
            const int c = (int)vl_setting_get(dated[i].k, &p->values);
            const uint32_t d = c ? vl_release_day(dated[i].k, c) : VL_DAY_CURRENT;
            day = d > day ? d : day;
        }
    return day;
}

static bool leap(unsigned y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

bool vl_day_parse(const char *text, uint32_t *day, const char **why)
{
    if (strcmp(text, "current") == 0) {
        *day = VL_DAY_CURRENT;
        return true;
    }
    unsigned part[3] = {0, 1, 1};
    const char *p = text;
    int n = 0;
    for (; n < 3; n++) {
        const char *start = p;
        unsigned v = 0;
        while (*p >= '0' && *p <= '9' && p - start < 4)
            v = v * 10 + (unsigned)(*p++ - '0');
        if (p - start != (n == 0 ? 4 : 2)) {
            *why = _("expected YYYY-MM-DD, YYYY-MM, YYYY or current");
            return false;
        }
        part[n] = v;
        if (*p != '-')
            break;
        p++;
    }
    if (*p != '\0' || n == 3) {
        *why = _("expected YYYY-MM-DD, YYYY-MM, YYYY or current");
        return false;
    }
    static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (part[0] < 2000 || part[0] > 2099) {
        *why = _("the year must be from 2000 to 2099");
        return false;
    }
    if (part[1] < 1 || part[1] > 12 ||
        part[2] < 1 || part[2] > mdays[part[1] - 1] + (part[1] == 2 && leap(part[0]))) {
        *why = _("no such day in the calendar");
        return false;
    }
    *day = part[0] * 10000 + part[1] * 100 + part[2];
    return true;
}

const char *vl_day_format(uint32_t day, char *buf, size_t len)
{
    if (day == VL_DAY_CURRENT)
        snprintf(buf, len, "current");
    else
        snprintf(buf, len, "%04u-%02u-%02u", (unsigned)(day / 10000), (unsigned)(day / 100 % 100),
                 (unsigned)(day % 100));
    return buf;
}
