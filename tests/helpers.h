/* helpers.h: what several unit tests share: the built-in catalog as a cmocka group fixture,
 * settings helpers, model fixtures and the explorer's start.  Included by test files only
 * (each function is static). */
#ifndef VL_TEST_HELPERS_H
#define VL_TEST_HELPERS_H

#include <string.h>

#include "core/catalog.h"
#include "core/model.h"
#include "core/settings.h"

/* The built-in presets, loaded once for a group (setup) and freed after it (teardown). */
static vl_catalog cat;

static inline int setup(void **state)
{
    (void)state;
    char err[VL_ERR_LEN];
    vl_catalog_init(&cat);
    return vl_catalog_add_builtin(&cat, err) ? 0 : -1;
}

static inline int teardown(void **state)
{
    (void)state;
    vl_catalog_free(&cat);
    return 0;
}

/* The defaults with eager attention: the formulas the tests derive by hand (Korthikanti et
 * al., the article) keep the s x s scores, which the default framework's SDPA does not. */
static inline void eager_defaults(vl_settings *s)
{
    vl_settings_default(s);
    s->attention = VL_ATTN_EAGER;
}

/* vl_settings_valid's reason for s without a model, or NULL. */
static inline const char *settings_why(const vl_settings *s)
{
    static char why[256];
    return vl_settings_valid(s, NULL, why, sizeof why) ? NULL : why;
}

/* A model of architecture a, its defaults filled in as the preset loader fills them. */
static inline vl_model model_of(vl_arch a)
{
    vl_model m;
    memset(&m, 0, sizeof m);
    m.arch = a;
    vl_arch_defaults(&m.arch);
    return m;
}

/* Llama 2 7B's shape (6,738,415,616 params). */
static inline vl_model llama2_7b(void)
{
    return model_of((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .ffn = 11008,
                              .vocab = 32000});
}

/* Mistral 7B's shape, without its sliding window: 8 KV heads, an MLP of 14336. */
static inline vl_model mistral_7b(void)
{
    return model_of((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                              .ffn = 14336, .vocab = 32000});
}

/* Mixtral 8x7B's shape: Mistral 7B's with 8 experts, 2 a token (46,702,792,704 params,
 * 12,879,925,248 active: tests/test_model.c derives both). */
static inline vl_model mixtral_8x7b(void)
{
    return model_of((vl_arch){.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8,
                              .ffn = 14336, .vocab = 32000, .experts = 8,
                              .experts_per_token = 2});
}

/* The explorer (a test that includes tui/explorer.h before this file): `model` from the
 * catalog fixture, every setting its default but the mode. */
#ifdef VL_EXPLORER_H
static inline void start(explorer *e, const char *model, vl_mode mode)
{
    vl_settings s;
    vl_settings_default(&s);
    s.mode = mode;
    explorer_init(e, &cat, vl_catalog_model(&cat, model), 0, &s);
}
#endif

#endif
