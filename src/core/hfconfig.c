/* hfconfig.c: Hugging Face config.json files as models.
 *
 * The JSON parser is jansson (Debian's libjansson-dev), chosen over json-c because it
 * reports every syntax error with its line and column, keeps integers apart from reals and
 * refuses an integer that does not fit (json-c clamps it), refuses \u0000 in strings (so
 * every key and text is a C string) and invalid UTF-8, and bounds its nesting depth.  Where
 * it and Python's json module differ on what config.json files contain, Python's semantics
 * are kept: a key given twice takes its last value (with a warning naming the key and its
 * line), and surrogate pairs decode to one character. */
#include "hfconfig.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "names.h"

#define MAX_CONFIG_BYTES (4 << 20)
/* The same nesting limit as the presets' (yamldoc.c); config.json files nest four deep. */
#define MAX_DEPTH 64

typedef struct hf {
    const char *file, *text;
    size_t len;
    char *err;                /* VL_ERR_LEN bytes */
    vl_hf_warnings *warnings; /* or NULL */
    json_t *root;
    json_t *where; /* each top-level key: the byte offset of its (last) value */
    bool nested;   /* keys read from an object inside (Gemma 3's text_config) ... */
    size_t scope;  /* ... which errors point at */
    vl_arch *a;
} hf;

/* ---- errors that point into the text --------------------------------------------------- */

/* Writes "file:line:column: message" for byte offset at into the error; returns false. */
static bool fail_at(hf *h, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_at(hf *h, size_t at, const char *fmt, ...)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < h->len; i++, col++)
        if (h->text[i] == '\n') {
            line++;
            col = 0;
        }
    va_list ap;
    int n = snprintf(h->err, VL_ERR_LEN, "%s:%zu:%zu: ", h->file, line, col);
    va_start(ap, fmt);
    if (n >= 0 && n < VL_ERR_LEN)
        vsnprintf(h->err + n, VL_ERR_LEN - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Where the value of top-level key is; the object's start when the key is absent. */
static size_t offset_of(hf *h, const char *key)
{
    if (h->nested)
        return h->scope;
    json_t *at = key ? json_object_get(h->where, key) : NULL;
    if (at)
        return (size_t)json_integer_value(at);
    size_t i = 0;
    while (i < h->len && is_space(h->text[i]))
        i++;
    return i;
}

/* A value for a message: "an object", "a list", or the value as JSON (ASCII, so control
 * characters stay escapes), cut at 48 characters. */
static const char *describe(const json_t *v, char *buf, size_t len)
{
    if (json_is_object(v) || json_is_array(v)) {
        snprintf(buf, len, "%s", json_is_object(v) ? "an object" : "a list");
        return buf;
    }
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
    if (!s)
        snprintf(buf, len, "a value");
    else if (strlen(s) > 48)
        snprintf(buf, len, "%.45s...", s);
    else
        snprintf(buf, len, "%s", s);
    free(s);
    return buf;
}

/* ---- keys, their places and their duplicates ------------------------------------------- */

static void warn(hf *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(hf *h, const char *fmt, ...)
{
    vl_hf_warnings *w = h->warnings;
    if (!w)
        return;
    if (w->n == VL_HF_MAX_WARNINGS) {
        w->more++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->text[w->n++], VL_ERR_LEN, fmt, ap);
    va_end(ap);
}

/* The end of the JSON string that starts at text[i] (its closing quote). */
static size_t string_end(const char *text, size_t i)
{
    for (i++; text[i] != '"'; i++)
        if (text[i] == '\\')
            i++;
    return i;
}

/* One walk over the text that jansson accepted (so it is valid JSON): where each top-level
 * key's value starts, a warning for each key given twice in an object (jansson, like
 * Python, keeps the last), and the nesting limit. */
static bool walk_keys(hf *h)
{
    json_t *keys[MAX_DEPTH + 1]; /* each open object's keys (NULL for a list) */
    bool want_key[MAX_DEPTH + 1];
    int depth = 0;
    size_t line = 1;
    bool ok = true;

    for (size_t i = 0; ok && i < h->len; i++) {
        char c = h->text[i];
        if (c == '\n') {
            line++;
        } else if (c == '{' || c == '[') {
            if (depth == MAX_DEPTH) {
                ok = fail_at(h, i, "nested more than %d levels deep", MAX_DEPTH);
                break;
            }
            keys[depth] = c == '{' ? (depth == 0 ? json_incref(h->where) : json_object()) : NULL;
            want_key[depth++] = c == '{';
        } else if (c == '}' || c == ']') {
            json_decref(keys[--depth]);
        } else if (c == ',') {
            want_key[depth - 1] = keys[depth - 1] != NULL;
        } else if (c == '"') {
            size_t end = string_end(h->text, i);
            if (depth > 0 && want_key[depth - 1]) {
                json_t *k = json_loadb(h->text + i, end + 1 - i, JSON_DECODE_ANY, NULL);
                const char *key = json_string_value(k);
                size_t v = end + 1;
                while (is_space(h->text[v]) || h->text[v] == ':')
                    v++;
                char shown[64];
                if (key && json_object_get(keys[depth - 1], key))
                    warn(h, "%s:%zu: key %s given twice: the last value is used, as in Python",
                         h->file, line, describe(k, shown, sizeof shown));
                if (!key || json_object_set_new(keys[depth - 1], key, json_integer((json_int_t)v)))
                    ok = fail_at(h, i, "out of memory");
                json_decref(k);
                want_key[depth - 1] = false;
            }
            i = end;
        }
    }
    while (depth > 0)
        json_decref(keys[--depth]);
    return ok;
}

/* ---- reading keys -------------------------------------------------------------------- */

/* The first of the keys (a NULL-terminated list of aliases) that is present and not null. */
static json_t *get(hf *h, const char *const *keys, const char **which)
{
    for (; *keys; keys++) {
        json_t *v = json_object_get(h->root, *keys);
        if (v && !json_is_null(v)) {
            *which = *keys;
            return v;
        }
    }
    return NULL;
}

#define KEYS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A whole number (a JSON integer, not a quoted one); *out untouched when absent.
 * required: absence is an error. */
static bool get_count(hf *h, const char *const *keys, uint64_t *out, bool required)
{
    const char *which;
    char got[64];
    json_t *v = get(h, keys, &which);
    if (!v) {
        if (required)
            return fail_at(h, offset_of(h, NULL), "missing key '%s'", keys[0]);
        return true;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return fail_at(h, offset_of(h, which), "%s: expected a whole number, got %s", which,
                       describe(v, got, sizeof got));
    *out = (uint64_t)json_integer_value(v);
    return true;
}

static bool get_bool(hf *h, const char *const *keys, bool *out)
{
    const char *which;
    char got[64];
    json_t *v = get(h, keys, &which);
    if (!v)
        return true;
    if (!json_is_boolean(v))
        return fail_at(h, offset_of(h, which), "%s: expected true or false, got %s", which,
                       describe(v, got, sizeof got));
    *out = json_is_true(v);
    return true;
}

/* A dropout probability at key into *p, when the file has the key (*found).  A quoted
 * number is text, here as for every other number. */
static bool get_probability(hf *h, const char *key, bool *found, double *p)
{
    const char *k[] = {key, NULL}, *which;
    char got[64];
    json_t *v = get(h, k, &which);
    *found = v != NULL;
    if (!v)
        return true;
    *p = json_is_number(v) ? json_number_value(v) : -1;
    if (!(*p >= 0 && *p <= 1))
        return fail_at(h, offset_of(h, which), "%s: expected a probability, got %s", which,
                       describe(v, got, sizeof got));
    return true;
}

/* The model's dropout: any of keys (the residual stream's, the embeddings') above 0 turns
 * dropout on; attention, the attention probabilities' key, sets attention_dropout, by the
 * configuration class's default (attention_on) where the file leaves it out. */
static bool get_dropout(hf *h, const char *const *keys, const char *attention, bool attention_on)
{
    bool found;
    double p;
    for (; *keys; keys++) {
        if (!get_probability(h, *keys, &found, &p))
            return false;
        if (found && p > 0)
            h->a->dropout = true;
    }
    if (!get_probability(h, attention, &found, &p))
        return false;
    h->a->attention_dropout =
        (found ? p > 0 : attention_on) ? VL_ATTN_DROPOUT_ON : VL_ATTN_DROPOUT_OFF;
    return true;
}

static const char *get_text(hf *h, const char *key)
{
    const char *k[] = {key, NULL}, *which;
    return json_string_value(get(h, k, &which));
}

static bool unsupported(hf *h, const char *const *keys, const char *what)
{
    const char *which = NULL;
    get(h, keys, &which);
    return fail_at(h, offset_of(h, which), "%s: %s", keys[0], what);
}

/* ---- what every family has ----------------------------------------------------------- */

/* The keys every family has.  A family sets its configuration class's defaults in the
 * architecture first (Gemma3TextConfig: 8 heads, vocab_size 262208, ...): a key with a
 * default may be absent, as transformers reads it; one without a default is required. */
static bool read_common(hf *h, bool tie_default)
{
    vl_arch *a = h->a;
    a->tie_embeddings = tie_default;
    return get_count(h, KEYS("hidden_size", "n_embd", "n_embed", "d_model"), &a->hidden,
                     !a->hidden) &&
           get_count(h, KEYS("num_hidden_layers", "n_layer", "num_layers"), &a->layers,
                     !a->layers) &&
           get_count(h, KEYS("num_attention_heads", "n_head", "num_heads"), &a->heads,
                     !a->heads) &&
           get_count(h, KEYS("vocab_size"), &a->vocab, !a->vocab) &&
           get_count(h, KEYS("num_key_value_heads"), &a->kv_heads, false) &&
           get_count(h, KEYS("head_dim"), &a->head_dim, false) &&
           get_count(h, KEYS("intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size"),
                     &a->ffn, false) &&
           get_count(h, KEYS("max_position_embeddings", "n_positions"), &a->max_positions,
                     false) &&
           get_bool(h, KEYS("tie_word_embeddings"), &a->tie_embeddings);
}

/* Llama and the families built like it: RoPE, SwiGLU/GeGLU, RMSNorm, no biases. */
static bool read_llama_like(hf *h, bool tie_default)
{
    h->a->position = VL_POS_ROPE;
    h->a->mlp = VL_MLP_GATED;
    h->a->norm = VL_NORM_RMSNORM;
    return read_common(h, tie_default);
}

/* Llama's biases (LlamaConfig: attention_bias, mlp_bias), which the families built on it
 * keep. */
static bool read_llama_biases(hf *h, bool tie_default)
{
    bool attn_bias = false, mlp_bias = false;
    if (!read_llama_like(h, tie_default) || !get_bool(h, KEYS("attention_bias"), &attn_bias) ||
        !get_bool(h, KEYS("mlp_bias"), &mlp_bias))
        return false;
    if (attn_bias)
        return unsupported(h, KEYS("attention_bias"), "biases on q, k, v and o are not supported");
    if (mlp_bias)
        return unsupported(h, KEYS("mlp_bias"), "MLP biases without attention biases are not "
                                                "supported");
    return true;
}

/* Llama, and Granite (GraniteConfig: Llama's keys and the same defaults; its multipliers
 * have no parameters). */
static bool read_llama(hf *h)
{
    return read_llama_biases(h, false);
}

/* SmolLM3: Llama's layout (its layers without RoPE have no parameters of their own),
 * embeddings tied by default (SmolLM3Config). */
static bool read_smollm3(hf *h)
{
    return read_llama_biases(h, true);
}

static bool read_mistral(hf *h)
{
    return read_llama_like(h, false) &&
           get_count(h, KEYS("sliding_window"), &h->a->sliding_window, false);
}

/* Phi-3: Mistral's keys; Phi3PreTrainedModel claimed no SDPA until transformers pull request
 * #32457 (August 2024, after 4.44.0): from_pretrained ran it eager before 4.45. */
static bool read_phi3(hf *h)
{
    h->a->sdpa_from = VL_TF_4_45;
    h->a->qkv_views = VL_QKV_VIEWS_V; /* value_states: a slice of qkv_proj's output */
    return read_mistral(h);
}

static bool read_mixtral(hf *h)
{
    return read_mistral(h) &&
           get_count(h, KEYS("num_local_experts"), &h->a->experts, true) &&
           get_count(h, KEYS("num_experts_per_tok"), &h->a->experts_per_token, true);
}

/* Qwen's sliding window applies only with use_sliding_window (Qwen2Config, Qwen3Config). */
static bool read_qwen_window(hf *h)
{
    bool sliding = false;
    uint64_t window = 0;
    if (!get_bool(h, KEYS("use_sliding_window"), &sliding) ||
        !get_count(h, KEYS("sliding_window"), &window, false))
        return false;
    h->a->sliding_window = sliding ? window : 0;
    return true;
}

static bool read_qwen2(hf *h)
{
    h->a->attention_bias = true; /* Qwen2 has q, k, v biases */
    return read_llama_like(h, false) && read_qwen_window(h);
}

/* Qwen3: no biases, a query and a key RMSNorm of head_dim per layer (q_norm, k_norm), and
 * head_dim 128 unless given (Qwen3Config, Qwen3MoeConfig). */
static bool read_qwen3(hf *h)
{
    h->a->head_dim = 128;
    h->a->qk_norm = VL_QK_NORM_HEAD;
    return read_llama_biases(h, false) && read_qwen_window(h);
}

/* A list key that must be empty for the count (Qwen3MoeConfig's mlp_only_layers). */
static bool require_empty(hf *h, const char *key, const char *what)
{
    json_t *v = json_object_get(h->root, key);
    if (v && !json_is_null(v) && !(json_is_array(v) && json_array_size(v) == 0))
        return unsupported(h, (const char *const[]){key, NULL}, what);
    return true;
}

/* Qwen's MoE configs: the count follows only a mixture in every layer (decoder_sparse_step
 * 1, no mlp_only_layers). */
static bool read_qwen_moe_layers(hf *h)
{
    uint64_t step = 1;
    if (!get_count(h, KEYS("decoder_sparse_step"), &step, false))
        return false;
    if (step != 1)
        return unsupported(h, KEYS("decoder_sparse_step"),
                           "MoE layers other than every layer are not supported");
    return require_empty(h, "mlp_only_layers", "dense layers among the MoE layers are not "
                                               "supported");
}

/* Qwen2-MoE: Qwen2's layers with every layer a mixture of num_experts of
 * moe_intermediate_size and one shared expert of shared_expert_intermediate_size behind a
 * sigmoid gate (Qwen2MoeConfig: 60, 4 a token, 1408, 5632). */
static bool read_qwen2_moe(hf *h)
{
    vl_arch *a = h->a;
    a->experts = 60;
    a->experts_per_token = 4;
    a->moe_ffn = 1408;
    a->shared_ffn = 5632;
    a->shared_experts = 1;
    a->shared_expert_gate = true;
    if (!read_qwen2(h) || !get_count(h, KEYS("num_experts"), &a->experts, false) ||
        !get_count(h, KEYS("num_experts_per_tok"), &a->experts_per_token, false) ||
        !get_count(h, KEYS("moe_intermediate_size"), &a->moe_ffn, false) ||
        !get_count(h, KEYS("shared_expert_intermediate_size"), &a->shared_ffn, false))
        return false;
    if (!a->shared_ffn) /* no shared expert */
        a->shared_experts = 0, a->shared_expert_gate = false;
    return read_qwen_moe_layers(h);
}

/* Qwen3-MoE: every layer a mixture of num_experts of moe_intermediate_size, with a router
 * without biases and no shared expert (Qwen3MoeConfig's defaults: 128, 8 a token, 768). */
static bool read_qwen3_moe(hf *h)
{
    vl_arch *a = h->a;
    a->experts = 128;
    a->experts_per_token = 8;
    a->moe_ffn = 768;
    return read_qwen3(h) && get_count(h, KEYS("num_experts"), &a->experts, false) &&
           get_count(h, KEYS("num_experts_per_tok"), &a->experts_per_token, false) &&
           get_count(h, KEYS("moe_intermediate_size"), &a->moe_ffn, false) &&
           read_qwen_moe_layers(h);
}

/* Gemma: embeddings tied, head_dim 256 unless given (GemmaConfig). */
static bool read_gemma(hf *h)
{
    h->a->head_dim = 256;
    return read_llama_biases(h, true);
}

/* Gemma 2: Gemma with four RMSNorms a layer (before and after attention and the MLP); the
 * defaults of Gemma2Config are its 2B's shape.  Its sliding window covers every other
 * layer, so it is not a window on all of them (as the gemma-2 presets count the KV). */
static void gemma2_defaults(vl_arch *a)
{
    a->hidden = 2304, a->layers = 26, a->heads = 8, a->kv_heads = 4, a->vocab = 256000;
    a->ffn = 9216;
    a->norms_per_layer = 4;
}

static bool read_gemma2(hf *h)
{
    gemma2_defaults(h->a);
    return read_gemma(h);
}

/* Gemma 3's language model: Gemma 2 with per-head query and key RMSNorms; the defaults of
 * Gemma3TextConfig (vocab_size 262208; five of six layers windowed, so no window). */
static bool read_gemma3_text(hf *h)
{
    gemma2_defaults(h->a);
    h->a->vocab = 262208;
    h->a->max_positions = 131072;
    h->a->qk_norm = VL_QK_NORM_HEAD;
    return read_gemma(h);
}

/* Gemma 3 with its vision tower (Gemma3Config): the language model is text_config, a
 * Gemma3TextConfig, which errors point at; the SigLIP tower and the projector are not
 * counted. */
static bool read_gemma3(hf *h)
{
    json_t *root = h->root, *text = json_object_get(root, "text_config");
    char got[64];
    if (!text)
        return fail_at(h, offset_of(h, NULL), "missing key 'text_config'");
    if (!json_is_object(text))
        return fail_at(h, offset_of(h, "text_config"), "text_config: expected an object, got %s",
                       describe(text, got, sizeof got));
    h->scope = offset_of(h, "text_config");
    h->root = text;
    h->nested = true;
    bool ok = read_gemma3_text(h);
    h->root = root;
    h->nested = false;
    return ok;
}

/* OLMo 2: Llama's layers with their norms after each sublayer (the same count) and query
 * and key RMSNorms over all heads (Olmo2Config). */
static bool read_olmo2(hf *h)
{
    h->a->qk_norm = VL_QK_NORM_FULL;
    return read_llama_biases(h, false);
}

/* OLMoE: OLMo 2's norms, every layer a mixture of num_experts of intermediate_size
 * (OlmoeConfig: 64, 8 a token). */
static bool read_olmoe(hf *h)
{
    h->a->experts = 64;
    h->a->experts_per_token = 8;
    return read_olmo2(h) && get_count(h, KEYS("num_experts"), &h->a->experts, false) &&
           get_count(h, KEYS("num_experts_per_tok"), &h->a->experts_per_token, false);
}

/* Granite MoE: Granite with every layer a mixture of num_local_experts of
 * intermediate_size (GraniteMoeConfig: 8, 2 a token). */
static bool read_granitemoe(hf *h)
{
    h->a->experts = 8;
    h->a->experts_per_token = 2;
    return read_llama(h) && get_count(h, KEYS("num_local_experts"), &h->a->experts, false) &&
           get_count(h, KEYS("num_experts_per_tok"), &h->a->experts_per_token, false);
}

/* ERNIE 4.5: Llama's layout, use_bias for every projection, embeddings tied and head_dim
 * 128 by default (Ernie4_5Config). */
static bool read_ernie4_5(hf *h)
{
    bool bias = false;
    h->a->head_dim = 128;
    if (!read_llama_like(h, true) || !get_bool(h, KEYS("use_bias"), &bias))
        return false;
    h->a->attention_bias = h->a->mlp_bias = bias;
    return true;
}

/* StableLM: RoPE and a gated MLP without biases, LayerNorms, q, k, v biases with
 * use_qkv_bias, one norm a layer with use_parallel_residual (StableLmConfig). */
static bool read_stablelm(hf *h)
{
    vl_arch *a = h->a;
    bool parallel = false, qk_norm = false;
    a->position = VL_POS_ROPE;
    a->mlp = VL_MLP_GATED;
    a->norm = VL_NORM_LAYERNORM;
    if (!read_common(h, false) || !get_bool(h, KEYS("use_qkv_bias"), &a->attention_bias) ||
        !get_bool(h, KEYS("use_parallel_residual"), &parallel) ||
        !get_bool(h, KEYS("qk_layernorm"), &qk_norm) ||
        !get_dropout(h, KEYS("hidden_dropout"), "attention_dropout", false))
        return false;
    if (qk_norm)
        return unsupported(h, KEYS("qk_layernorm"),
                           "a LayerNorm per head on queries and keys is not supported");
    a->parallel_attention = parallel;
    return true;
}

/* GPT-2 and its descendants: learned positions, GELU MLP, LayerNorm, biases everywhere. */
static void gpt_traits(vl_arch *a)
{
    a->position = VL_POS_LEARNED;
    a->mlp = VL_MLP_STANDARD;
    a->norm = VL_NORM_LAYERNORM;
    a->attention_bias = true;
    a->mlp_bias = true;
}

static bool read_gpt2(hf *h)
{
    gpt_traits(h->a);
    h->a->sdpa_from = VL_TF_4_42; /* GPT2SdpaAttention: transformers pull request #31172 */
    h->a->eager_softmax = VL_SOFTMAX_INPUT; /* GPT2Attention: softmax in the scores' dtype */
    h->a->qkv_views = VL_QKV_VIEWS_QKV; /* c_attn(...).split(split_size, dim=2) */
    return read_common(h, true) &&
           get_dropout(h, KEYS("resid_pdrop", "embd_pdrop"), "attn_pdrop", true);
}

/* GPT-Neo: GPT-2's layout without q, k, v biases (the output projection keeps its own);
 * local attention on every other layer has no parameters (GPTNeoConfig). */
static bool read_gpt_neo(hf *h)
{
    gpt_traits(h->a);
    h->a->attention_bias = false;
    return read_common(h, true) &&
           get_dropout(h, KEYS("embed_dropout", "resid_dropout"), "attention_dropout", false);
}

static bool read_opt(hf *h)
{
    bool pre = true, bias = true;
    uint64_t proj = 0;
    gpt_traits(h->a);
    h->a->position_offset = 2; /* OPT's learned positions start at row 2 */
    if (!read_common(h, true) || !get_bool(h, KEYS("do_layer_norm_before"), &pre) ||
        !get_bool(h, KEYS("enable_bias"), &bias) ||
        !get_count(h, KEYS("word_embed_proj_dim"), &proj, false) ||
        !get_dropout(h, KEYS("dropout"), "attention_dropout", false))
        return false;
    if (proj && proj != h->a->hidden)
        return unsupported(h, KEYS("word_embed_proj_dim"),
                           "embedding projections (OPT-350M) are not supported");
    if (!pre)
        return unsupported(h, KEYS("do_layer_norm_before"),
                           "OPT with post-norm layers (OPT-350M) is not supported");
    h->a->attention_bias = h->a->mlp_bias = bias;
    return true;
}

static bool read_falcon(hf *h)
{
    vl_arch *a = h->a;
    bool alibi = false, bias = false, parallel = true, new_arch = false, multi_query = true;
    uint64_t kv = 0, norms = 0;
    a->mlp = VL_MLP_STANDARD;
    a->norm = VL_NORM_LAYERNORM;
    a->eager_softmax = VL_SOFTMAX_INPUT; /* softmax(..., dtype=hidden_states.dtype) */
    if (!read_common(h, true) || !get_bool(h, KEYS("alibi"), &alibi) ||
        !get_bool(h, KEYS("bias"), &bias) || !get_bool(h, KEYS("parallel_attn"), &parallel) ||
        !get_bool(h, KEYS("new_decoder_architecture"), &new_arch) ||
        !get_bool(h, KEYS("multi_query"), &multi_query) ||
        !get_count(h, KEYS("num_kv_heads", "n_head_kv"), &kv, false) ||
        !get_count(h, KEYS("num_ln_in_parallel_attn"), &norms, false))
        return false;
    a->position = alibi ? VL_POS_ALIBI : VL_POS_ROPE;
    a->attention_bias = a->mlp_bias = bias;
    a->parallel_attention = parallel || new_arch;
    if (new_arch) { /* grouped KV heads and, by default, two norms per layer */
        a->kv_heads = kv ? kv : a->heads;
        a->norms_per_layer = norms ? norms : 2;
    } else {
        a->kv_heads = multi_query ? 1 : a->heads;
    }
    return true;
}

/* GPTBigCode (StarCoder, SantaCoder): GPT-2's layout with one K and one V head shared by
 * all query heads under multi_query, its default (GPTBigCodeConfig; GPTBigCodeAttention's
 * c_attn is hidden + 2 x head_dim wide then), embeddings tied (GPTBigCodeForCausalLM). */
static bool read_gpt_bigcode(hf *h)
{
    bool multi_query = true, softmax_fp32 = true;
    gpt_traits(h->a);
    h->a->qkv_views = VL_QKV_VIEWS_QKV; /* c_attn(...).split: query and key_value */
    if (!read_common(h, true) || !get_bool(h, KEYS("multi_query"), &multi_query) ||
        !get_bool(h, KEYS("attention_softmax_in_fp32"), &softmax_fp32) ||
        !get_dropout(h, KEYS("resid_pdrop", "embd_pdrop"), "attn_pdrop", true))
        return false;
    h->a->kv_heads = multi_query ? 1 : h->a->heads;
    /* attention_softmax_in_fp32: the scores scaled, masked and softmaxed in fp32 and cast
     * back by one scripted function (upcast_masked_softmax, modeling_gpt_bigcode.py) */
    h->a->eager_softmax = softmax_fp32 ? VL_SOFTMAX_FUSED : VL_SOFTMAX_INPUT;
    return true;
}

/* StarCoder2: RoPE, GQA, a GELU MLP (c_fc, c_proj), LayerNorms, use_bias on every
 * projection, embeddings tied, a sliding window when given (Starcoder2Config's defaults
 * are its 3B's shape: 3072 wide, 30 layers, 24 heads, 2 KV heads, 12288, 49152). */
static bool read_starcoder2(hf *h)
{
    vl_arch *a = h->a;
    bool bias = true;
    a->hidden = 3072, a->layers = 30, a->heads = 24, a->kv_heads = 2, a->ffn = 12288;
    a->vocab = 49152;
    a->position = VL_POS_ROPE;
    a->mlp = VL_MLP_STANDARD;
    a->norm = VL_NORM_LAYERNORM;
    if (!read_common(h, true) || !get_bool(h, KEYS("use_bias"), &bias) ||
        !get_count(h, KEYS("sliding_window"), &a->sliding_window, false) ||
        !get_dropout(h, KEYS("residual_dropout", "embedding_dropout"), "attention_dropout",
                     false))
        return false;
    a->attention_bias = a->mlp_bias = bias;
    return true;
}

static bool read_bloom(hf *h)
{
    vl_arch *a = h->a;
    gpt_traits(a);
    a->position = VL_POS_ALIBI;
    a->embedding_norm = true;
    return read_common(h, true) &&
           get_dropout(h, KEYS("hidden_dropout"), "attention_dropout", false);
}

static bool read_gpt_neox(hf *h)
{
    vl_arch *a = h->a;
    bool attn_bias = true, parallel = true;
    gpt_traits(a);
    a->sdpa_from = VL_TF_4_42; /* transformers pull request #31031 */
    a->position = VL_POS_ROPE;
    a->qkv_views = VL_QKV_VIEWS_V; /* value: a slice of query_key_value's output */
    a->eager_softmax = VL_SOFTMAX_INPUT; /* _attn's softmax in the scores' dtype (until 4.49) */
    if (!read_common(h, false) || !get_bool(h, KEYS("attention_bias"), &attn_bias) ||
        !get_bool(h, KEYS("use_parallel_residual"), &parallel) ||
        !get_dropout(h, KEYS("hidden_dropout"), "attention_dropout", false))
        return false;
    if (!attn_bias)
        return unsupported(h, KEYS("attention_bias"),
                           "GPT-NeoX without attention biases is not supported");
    a->parallel_attention = parallel; /* with both norms of the layer */
    a->norms_per_layer = 2;
    return true;
}

/* GPT-J's layout, which Phi's follows: GPT-2's biases and LayerNorm, one norm feeding
 * attention and the MLP side by side, RoPE on part of each head (no parameters), a bias on
 * the output layer. */
static void gptj_traits(vl_arch *a)
{
    gpt_traits(a);
    a->position = VL_POS_ROPE;
    a->parallel_attention = true;
    a->norms_per_layer = 1;
    a->head_bias = true;
}

/* Phi-1, Phi-1.5 and Phi-2 (PhiConfig, models/phi/modeling_phi.py): GPT-J's layout with
 * biases on every linear layer, untied; optional LayerNorms of head_dim on queries and
 * keys (qk_layernorm).  PhiConfig's defaults are Phi-1.5's. */
static bool read_phi(hf *h)
{
    vl_arch *a = h->a;
    bool qk_norm = false;
    gptj_traits(a);
    a->hidden = 2048, a->layers = 24, a->heads = 32, a->ffn = 8192, a->vocab = 51200;
    a->max_positions = 2048;
    if (!read_common(h, false) || !get_bool(h, KEYS("qk_layernorm"), &qk_norm) ||
        !get_dropout(h, KEYS("resid_pdrop", "embd_pdrop"), "attention_dropout", false))
        return false;
    a->qk_norm = qk_norm ? VL_QK_NORM_HEAD : VL_QK_NORM_NONE;
    return true;
}

/* GPT-J (GPTJConfig, models/gptj/modeling_gptj.py): no bias on q, k, v or the attention's
 * output projection; the MLP and the output layer keep theirs.  GPTJConfig's defaults are
 * GPT-J 6B's. */
static bool read_gptj(hf *h)
{
    vl_arch *a = h->a;
    gptj_traits(a);
    a->attention_bias = false;
    a->attention_out_bias = VL_OUT_BIAS_OFF;
    a->hidden = 4096, a->layers = 28, a->heads = 16, a->vocab = 50400;
    a->max_positions = 2048;
    return read_common(h, false) &&
           get_dropout(h, KEYS("resid_pdrop", "embd_pdrop"), "attn_pdrop", false);
}

static bool read_bert(hf *h)
{
    vl_arch *a = h->a;
    gpt_traits(a);
    a->norm_position = VL_NORM_POST;
    a->embedding_norm = true;
    a->pooler = true;
    a->eager_softmax = VL_SOFTMAX_INPUT; /* BertSelfAttention's nn.Softmax */
    a->sdpa_from = VL_TF_4_41; /* BertSdpaSelfAttention: transformers pull request #28802 */
    return read_common(h, true) && get_count(h, KEYS("type_vocab_size"), &a->token_types, false) &&
           get_dropout(h, KEYS("hidden_dropout_prob"), "attention_probs_dropout_prob", true);
}

/* RoBERTa and XLM-RoBERTa: BERT's layout; max_position_embeddings already counts the
 * rows after the padding index (514 for 512 tokens), and type_vocab_size is 1.  Their SDPA
 * came later than BERT's: transformers pull request #30510, released in 4.45.0. */
static bool read_roberta(hf *h)
{
    if (!read_bert(h))
        return false;
    h->a->sdpa_from = VL_TF_4_45;
    return true;
}

/* DistilBERT: BERT's post-norm layers under its own key names, no token types and no
 * pooler (DistilBertConfig; its defaults are distilbert-base's). */
static bool read_distilbert(hf *h)
{
    vl_arch *a = h->a;
    gpt_traits(a);
    a->norm_position = VL_NORM_POST;
    a->embedding_norm = true;
    a->eager_softmax = VL_SOFTMAX_INPUT;
    /* transformers pull request #33724, merged in October 2024, after 4.45.0 */
    a->sdpa_from = VL_TF_4_46;
    a->hidden = 768, a->layers = 6, a->heads = 12, a->ffn = 3072, a->vocab = 30522;
    a->max_positions = 512;
    return get_count(h, KEYS("dim"), &a->hidden, false) &&
           get_count(h, KEYS("n_layers"), &a->layers, false) &&
           get_count(h, KEYS("n_heads"), &a->heads, false) &&
           get_count(h, KEYS("hidden_dim"), &a->ffn, false) && read_common(h, true) &&
           get_dropout(h, KEYS("dropout"), "attention_dropout", true);
}

static bool read_deepseek(hf *h)
{
    vl_arch *a = h->a;
    uint64_t nope = 0, freq = 1;
    const char *topk;
    if (!read_llama_like(h, false) ||
        !get_count(h, KEYS("kv_lora_rank"), &a->kv_lora_rank, true) ||
        !get_count(h, KEYS("q_lora_rank"), &a->q_lora_rank, false) ||
        !get_count(h, KEYS("qk_nope_head_dim"), &nope, true) ||
        !get_count(h, KEYS("qk_rope_head_dim"), &a->qk_rope_head_dim, true) ||
        !get_count(h, KEYS("v_head_dim"), &a->v_head_dim, true) ||
        !get_count(h, KEYS("n_routed_experts"), &a->experts, true) ||
        !get_count(h, KEYS("num_experts_per_tok"), &a->experts_per_token, true) ||
        !get_count(h, KEYS("n_shared_experts"), &a->shared_experts, false) ||
        !get_count(h, KEYS("moe_intermediate_size"), &a->moe_ffn, true) ||
        !get_count(h, KEYS("first_k_dense_replace"), &a->dense_layers, false) ||
        !get_count(h, KEYS("moe_layer_freq"), &freq, false))
        return false;
    if (freq != 1)
        return unsupported(h, KEYS("moe_layer_freq"), "MoE layers other than every layer are "
                                                      "not supported");
    a->head_dim = nope + a->qk_rope_head_dim;
    a->kv_heads = a->heads;
    topk = get_text(h, "topk_method");
    a->router_bias = topk && strcmp(topk, "noaux_tc") == 0; /* e_score_correction_bias */
    return true;
}

/* ---- the families -------------------------------------------------------------------- */

/* The model_type values understood, in alphabetical order: the order a refused config's
 * message lists them in. */
static const struct family {
    vl_model_type type; /* its model_type: vl_model_type_names */
    bool (*read)(hf *h);
} families[] = {
    {VL_MT_BERT, read_bert},
    {VL_MT_BLOOM, read_bloom},
    {VL_MT_DEEPSEEK_V2, read_deepseek},
    {VL_MT_DEEPSEEK_V3, read_deepseek},
    {VL_MT_DISTILBERT, read_distilbert},
    {VL_MT_ERNIE4_5, read_ernie4_5},
    {VL_MT_FALCON, read_falcon},
    {VL_MT_GEMMA, read_gemma},
    {VL_MT_GEMMA2, read_gemma2},
    {VL_MT_GEMMA3, read_gemma3},
    {VL_MT_GEMMA3_TEXT, read_gemma3_text},
    {VL_MT_GPT2, read_gpt2},
    {VL_MT_GPT_BIGCODE, read_gpt_bigcode},
    {VL_MT_GPT_NEO, read_gpt_neo},
    {VL_MT_GPT_NEOX, read_gpt_neox},
    {VL_MT_GPTJ, read_gptj},
    {VL_MT_GRANITE, read_llama},
    {VL_MT_GRANITEMOE, read_granitemoe},
    {VL_MT_LLAMA, read_llama},
    {VL_MT_MISTRAL, read_mistral},
    {VL_MT_MIXTRAL, read_mixtral},
    {VL_MT_OLMO2, read_olmo2},
    {VL_MT_OLMOE, read_olmoe},
    {VL_MT_OPT, read_opt},
    {VL_MT_PHI, read_phi},
    {VL_MT_PHI3, read_phi3},
    {VL_MT_QWEN2, read_qwen2},
    {VL_MT_QWEN2_MOE, read_qwen2_moe},
    {VL_MT_QWEN3, read_qwen3},
    {VL_MT_QWEN3_MOE, read_qwen3_moe},
    {VL_MT_ROBERTA, read_roberta},
    {VL_MT_SMOLLM3, read_smollm3},
    {VL_MT_STABLELM, read_stablelm},
    {VL_MT_STARCODER2, read_starcoder2},
    {VL_MT_XLM_ROBERTA, read_roberta},
};
#define N_FAMILIES (sizeof families / sizeof families[0])

/* A name for the catalog's rules, from _name_or_path or the file name. */
void vl_hf_model_name(const char *from, char *name, size_t len)
{
    const char *slash = strrchr(from, '/');
    size_t o = 0;
    for (const char *s = slash ? slash + 1 : from; *s && o + 1 < len; s++) {
        char c = (*s >= 'A' && *s <= 'Z') ? (char)(*s - 'A' + 'a') : *s;
        name[o++] = strchr("abcdefghijklmnopqrstuvwxyz0123456789._-", c) && c ? c : '-';
    }
    name[o] = '\0';
    if (!o)
        snprintf(name, len, "hf-config");
}

/* The text as JSON into h->root, and its keys' places. */
static bool load(hf *h)
{
    json_error_t e;
    size_t i = offset_of(h, NULL);
    if (i == h->len)
        return fail_at(h, 0, "empty file: expected a Hugging Face config.json (a JSON object)");
    h->root = json_loadb(h->text, h->len, JSON_DECODE_ANY, &e);
    if (!h->root) {
        snprintf(h->err, VL_ERR_LEN, "%s:%d:%d: JSON syntax error: %s", h->file, e.line,
                 e.column, e.text);
        return false;
    }
    char got[64];
    if (!json_is_object(h->root))
        return fail_at(h, i, "expected a JSON object, got %s", describe(h->root, got, sizeof got));
    if (!(h->where = json_object()))
        return fail_at(h, 0, "out of memory");
    return walk_keys(h);
}

bool vl_model_from_hf_text(const char *file, const char *text, size_t len, vl_model *m,
                           vl_hf_warnings *warnings, char err[VL_ERR_LEN])
{
    hf h = {.file = file, .text = text, .len = len, .err = err, .warnings = warnings,
            .a = &m->arch};
    memset(m, 0, sizeof *m);
    if (warnings)
        warnings->n = warnings->more = 0;
    bool ok = load(&h);
    const char *t = NULL;
    if (ok) {
        json_t *type = json_object_get(h.root, "model_type");
        t = json_string_value(type);
        size_t i = 0;
        while (t && i < N_FAMILIES && strcmp(vl_model_type_names[families[i].type], t) != 0)
            i++;
        const char *types[N_FAMILIES];
        for (size_t k = 0; k < N_FAMILIES; k++)
            types[k] = vl_model_type_names[families[k].type];
        char list[512], hint[96], got[64]; /* the 30 names take about 300 */
        vl_join(types, N_FAMILIES, list, sizeof list);
        ok = false;
        if (!type)
            fail_at(&h, offset_of(&h, NULL), "missing key 'model_type' (supported: %s)", list);
        else if (!t)
            fail_at(&h, offset_of(&h, "model_type"), "model_type: expected text, got %s",
                    describe(type, got, sizeof got));
        else if (i == N_FAMILIES)
            fail_at(&h, offset_of(&h, "model_type"),
                    "model_type %s is not supported (supported: %s)%s",
                    describe(type, got, sizeof got), list,
                    vl_hint(t, types, N_FAMILIES, hint, sizeof hint));
        else
            ok = families[i].read(&h);
        if (ok)
            h.a->model_type = families[i].type;
    }
    if (ok) {
        const char *key;
        vl_arch_defaults(h.a);
        const char *why = vl_arch_check(h.a, &key);
        if (why)
            ok = fail_at(&h, offset_of(&h, NULL), "%s (architecture.%s)", why, key);
    }
    if (ok) {
        const char *id = get_text(&h, "_name_or_path");
        vl_hf_model_name(id && *id ? id : file, m->name, sizeof m->name);
        snprintf(m->display, sizeof m->display, "%s", id && *id ? id : m->name);
        snprintf(m->source, sizeof m->source, "%s (model_type %s)", file, t);
        snprintf(m->origin, sizeof m->origin, "%s", file);
    }
    json_decref(h.where);
    json_decref(h.root);
    return ok;
}

bool vl_model_from_hf_file(const char *path, vl_model *m, vl_hf_warnings *warnings,
                           char err[VL_ERR_LEN])
{
    char *buf;
    size_t len;
    if (warnings)
        warnings->n = warnings->more = 0;
    if (!vl_read_file(path, MAX_CONFIG_BYTES, &buf, &len, err, VL_ERR_LEN))
        return false;
    bool ok = vl_model_from_hf_text(path, buf, len, m, warnings, err);
    free(buf);
    return ok;
}
