/* solve.c: the what-fits solver: a binary search over a quantity the total grows (or
 * shrinks) with monotonically, or a scan of the valid tensor-parallel GPU counts. */
#include "solve.h"

#include <string.h>

#include "framework.h"
#include "timeline.h"
#include "units.h"

const char *const vl_solve_names[VL_N_SOLVES] = {"max-batch", "max-context", "min-gpus",
                                                 "max-concurrency"};

uint64_t vl_profile_peak(const vl_timeline *t)
{
    const vl_peak *p = &t->peak;
    return p->allocated - p->alive[VL_TL_WEIGHTS] - p->alive[VL_TL_KV_CACHE] -
           (p->alive[VL_TL_RUNTIME] - p->cublas);
}

/* The tokens `bytes` of cache hold in whole blocks of `block` tokens (0: one token). */
static uint64_t whole_blocks(uint64_t bytes, uint64_t per_token, uint64_t block)
{
    if (!block)
        block = 1;
    return per_token ? bytes / (per_token * block) * block : 0;
}

/* vLLM's extensible KV cache from 0.34 (v1/worker/extensible_kv_cache.py,
 * measure_kv_cache_bytes), for vl_kv_budget_of: it measures the free memory once warmup and
 * CUDA graph capture are done and gives the cache min(its share, the free memory - a margin)
 * less what it keeps and the transient peak: what `share` becomes.  The free memory is the
 * GPU's less the CUDA context, what the communicators took as they were made (comm_made,
 * outside what it keeps) and what it keeps; the margin max(1 GiB, 0.75 x the peak)
 * (KV_CACHE_MARGIN_FLOOR_BYTES, KV_CACHE_MARGIN_FRACTION; the peak, allocated_bytes peak -
 * current over the sizing warmup's steps, is the profile run's). */
static uint64_t extensible_limit(const vl_settings *run, const vl_runtime *rt,
                                 vl_kv_budget *out, uint64_t share)
{
    out->context = vl_runtime_context(rt, run->overhead, NULL);
    const uint64_t three_quarters = out->profile_peak - out->profile_peak / 4;
    out->margin = three_quarters > VL_GIB ? three_quarters : VL_GIB;
    if (!rt->memory) /* no GPU known: the share alone */
        return share;
    bool ovf = false;
    const uint64_t held = vl_add(vl_add(out->context, out->comm_made, &ovf), out->margin, &ovf);
    const uint64_t device = !ovf && rt->memory > held ? rt->memory - held : 0;
    return device < share ? device : share;
}

/* SGLang's pool (vl_kv_budget_of under static sizing), for run (s under f): what CUDA
 * leaves free once its context and the communicators are made (model_runner.py,
 * init_torch_distributed, "pre_model_load_memory"), times mem_fraction_static, less what the
 * weights take as they load (kv_cache_configurator.py, _profile_available_bytes: free memory
 * now - pre_model_load_memory x (1 - mem_fraction_static)), in whole pages. */
static const char *static_budget(const vl_model *m, const vl_settings *run, const vl_framework *f,
                                 const vl_runtime *rt, const vl_inference *inf,
                                 vl_kv_budget *out)
{
    vl_settings one = *run; /* the weights, as one token's run loads them */
    one.batch = one.seq = 1;
    one.gen = 0;
    vl_timeline t;
    char err[160];
    if (!vl_timeline_build(m, &one, f, rt, &t, err, sizeof err)) {
        vl_timeline_free(&t);
        out->sizing = VL_KV_NONE;
        return "the engine's weights are not valid for this model";
    }
    /* as the free memory shows them: with what each tensor's segment holds past it (the
     * rank that holds the most: the stage's layers, the embeddings and the output layer) */
    out->weights = t.end[VL_TL_WEIGHTS] +
                   vl_weight_segment_tails(&m->arch, run, inf->stage_layers, true);
    vl_timeline_free(&t);
    out->communicators = vl_communicator_bytes(f, run, rt, NULL, NULL);
    bool ovf = false;
    const uint64_t before =
        vl_add(vl_runtime_context(rt, run->overhead, NULL), out->communicators, &ovf);
    if (!ovf && before < rt->memory) {
        out->free_at_load = rt->memory - before;
        out->capacity = vl_ppm_of(out->free_at_load, f->gpu_util);
    }
    if (ovf || out->weights >= out->capacity) {
        out->shortfall = ovf ? UINT64_MAX : out->weights - out->capacity;
        return "the weights leave nothing of the engine's static share for the KV cache";
    }
    out->available = out->capacity - out->weights;
    out->tokens = whole_blocks(out->available, inf->kv_gpu_per_token, run->kv_block);
    return NULL;
}

const char *vl_kv_budget_of(const vl_model *m, const vl_settings *s, const vl_framework *f,
                            const vl_runtime *rt, uint64_t capacity, vl_kv_budget *out)
{
    memset(out, 0, sizeof *out);
    if (s->mode != VL_MODE_INFER || !vl_sizes_kv(f))
        return "the framework does not size its KV cache";
    out->memory = rt->memory;
    vl_breakdown b;
    vl_settings run = *s; /* the run's settings under f (which holds their choices) */
    vl_settings_take_framework(&run, f);
    const char *why = vl_estimate(m, &run, &b);
    if (why)
        return why;
    out->sizing = f->kv_sizing;
    out->share = f->gpu_util;
    out->per_sequence = b.inf.kv_gpu_per_token * b.inf.cached_slots;
    if (f->kv_sizing == VL_KV_STATIC)
        return static_budget(m, &run, f, rt, &b.inf, out);
    /* the profile run: the step's token budget (the whole request where prefill is not
     * chunked) shared evenly over as many sequences as it allows (_dummy_run) */
    const uint64_t budget = f->prefill_chunk ? f->prefill_chunk : s->seq + s->gen;
    vl_settings p = run;
    p.batch = budget < f->profile_seqs ? budget : f->profile_seqs;
    p.seq = budget / p.batch;
    p.gen = 0;
    vl_framework pf = *f;
    pf.profile_run = true;
    vl_timeline t;
    char err[160];
    if (!vl_timeline_build(m, &p, &pf, rt, &t, err, sizeof err)) {
        vl_timeline_free(&t);
        out->sizing = VL_KV_NONE;
        return "the engine's profile run is not valid for this model";
    }
    out->profile_seqs = p.batch;
    out->profile_tokens = p.seq;
    out->weights = t.end[VL_TL_WEIGHTS];
    out->profile_peak = vl_profile_peak(&t);
    out->non_torch = f->profile_non_torch;
    /* what a V0 release counted of the same run (vl_framework_on_vllm): its reserved
     * segments besides the peak, or the whole context outside the allocator */
    if (f->profile_counts == VL_COUNTS_RESERVED)
        out->profile_peak += t.peak.reserved - t.peak.allocated;
    else if (f->profile_counts == VL_COUNTS_CONTEXT)
        out->non_torch = t.peak.context;
    /* less what the communicators took as they were made, where the engine measured its
     * memory after that (comm_nvlink_init) */
    vl_communicator_bytes(&pf, &p, rt, NULL, &out->comm_made);
    out->communicators = t.peak.communicators - out->comm_made;
    vl_timeline_free(&t);
    out->sampler_state = vl_sampler_state(&m->arch, f);
    out->graph_estimate = vl_graph_estimate(&m->arch, &run, f);
    bool ovf = false;
    /* what stays once warmup and capture are done, beside the profile run's peak */
    const uint64_t kept = vl_add(vl_add(out->weights, vl_add(out->non_torch, out->communicators,
                                                             &ovf), &ovf),
                                 vl_add(out->sampler_state, out->graph_estimate, &ovf), &ovf);
    out->capacity =
        f->kv_sizing == VL_KV_EXTENSIBLE ? extensible_limit(&run, rt, out, capacity) : capacity;
    const uint64_t taken = vl_add(kept, out->profile_peak, &ovf);
    if (ovf || taken >= out->capacity) {
        out->shortfall = ovf ? UINT64_MAX : taken - out->capacity;
        return "the weights and the profile run leave nothing of the engine's share for the "
               "KV cache";
    }
    out->available = out->capacity - taken;
    out->tokens = whole_blocks(out->available, b.inf.kv_gpu_per_token, run.kv_block);
    return NULL;
}

const char *const vl_fit_by_names[VL_N_FIT_BY] = {"peak", "share", "kv_cache"};

vl_fit vl_fit_of(uint64_t device, uint64_t capacity, const vl_kv_budget *k, uint64_t batch)
{
    const bool sized = k && k->sizing != VL_KV_NONE;
    if (sized && k->memory)
        capacity = k->memory;
    vl_fit f = {.fits = device <= capacity, .by = VL_FIT_PEAK, .device = device};
    f.margin = f.fits ? capacity - device : device - capacity;
    if (!sized)
        return f;
    bool ovf = false;
    const uint64_t need = vl_mul(batch, k->per_sequence, &ovf); /* the batch's cache */
    if (!k->available) { /* the engine stops before serving */
        const uint64_t over = vl_add(k->shortfall, need, &ovf);
        return (vl_fit){false, ovf ? UINT64_MAX : over, VL_FIT_SHARE, 0, device};
    }
    if (!k->per_sequence) /* a model that caches nothing (an encoder): the peak decides */
        return f;
    f.held = k->available / k->per_sequence;
    if (ovf || need > k->available)
        return (vl_fit){false, ovf ? UINT64_MAX : need - k->available, VL_FIT_KV_CACHE,
                        f.held, device};
    if (f.fits && k->available - need < f.margin) {
        f.margin = k->available - need;
        f.by = VL_FIT_KV_CACHE;
    }
    return f;
}

bool vl_timeline_with_kv(const vl_model *m, const vl_settings *s, const vl_runtime *rt,
                         uint64_t capacity, vl_timeline *out, vl_kv_budget *kv, char *err,
                         size_t len)
{
    vl_framework f;
    vl_framework_of(s, rt, &f);
    memset(kv, 0, sizeof *kv);
    /* an engine that sizes its KV cache allocates all of it before it serves (vLLM's
     * initialize_kv_cache, SGLang's token_to_kv_pool): the step runs beside the pool */
    if (s->mode == VL_MODE_INFER && capacity && !vl_kv_budget_of(m, s, &f, rt, capacity, kv))
        f.kv_pool = kv->available;
    return vl_timeline_build(m, s, &f, rt, out, err, len);
}

bool vl_fit_for(const vl_model *m, const vl_settings *s, const vl_runtime *rt,
                uint64_t capacity, vl_fit *out, char *err, size_t len)
{
    vl_timeline t;
    vl_kv_budget k; /* sizing none where the engine sizes none, or in training */
    const bool ok = vl_timeline_with_kv(m, s, rt, capacity, &t, &k, err, len);
    const uint64_t device = ok ? t.peak.device : 0;
    vl_timeline_free(&t);
    if (!ok)
        return false;
    *out = vl_fit_of(device, capacity, &k, s->batch);
    return true;
}

int64_t vl_fit_headroom(const vl_fit *f)
{
    const int64_t m = f->margin > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)f->margin;
    return f->fits ? m : -m;
}

/* The sequences a serving engine's KV cache holds at once: the cache it sizes itself, or,
 * where it does not profile, what the steady-state sum leaves of capacity beside the
 * weights, the run's workspace and the overhead. */
static const char *max_concurrency(const vl_model *m, const vl_settings *s, uint64_t capacity,
                                   const vl_runtime *rt, vl_solution *out)
{
    if (s->mode != VL_MODE_INFER)
        return "max-concurrency is for serving (--mode infer)";
    vl_framework f;
    vl_framework_of(s, rt, &f);
    uint64_t fixed, room, per_seq;
    if (vl_sizes_kv(&f)) {
        vl_kv_budget k;
        const char *why = vl_kv_budget_of(m, s, &f, rt, capacity, &k);
        if (why)
            return why;
        fixed = capacity - k.available;
        room = k.available;
        per_seq = k.per_sequence;
    } else {
        vl_breakdown b;
        const char *why = vl_estimate(m, s, &b);
        if (why)
            return why;
        fixed = b.total - b.bytes[VL_C_KV_CACHE];
        room = fixed < capacity ? capacity - fixed : 0;
        per_seq = b.inf.kv_gpu_per_token * b.inf.cached_slots;
    }
    if (per_seq == 0 || room < per_seq)
        return "not one sequence's KV cache fits beside the weights, workspace and overhead";
    out->answer = room / per_seq;
    out->next = out->answer + 1;
    out->next_total = fixed + out->next * per_seq;
    out->next_fit = (vl_fit){false, out->next * per_seq - room,
                             vl_sizes_kv(&f) ? VL_FIT_KV_CACHE : VL_FIT_PEAK, out->answer,
                             out->next_total};
    return NULL;
}

static uint64_t *field(vl_settings *s, vl_solve what)
{
    return what == VL_SOLVE_MAX_BATCH ? &s->batch : what == VL_SOLVE_MAX_CONTEXT ? &s->seq
                                                                                  : &s->gpus;
}

/* One search: the model and runtime every try uses, and who is told of each. */
typedef struct search {
    const vl_model *m;
    const vl_runtime *rt;
    vl_solve what;
    vl_solve_watch watch;
    void *ctx;
    unsigned tried, most;
} search;

/* The tries a binary search over [1, hi] makes at most, the answer's neighbour and the
 * first try besides. */
static unsigned bisect_tries(uint64_t hi)
{
    unsigned bits = 0;
    for (; hi; hi >>= 1)
        bits++;
    return bits + 3;
}

/* The run at v judged (vl_fit_for) in *out; false when the settings are invalid there or
 * the result overflows. */
static bool judge_at(search *q, vl_settings s, uint64_t v, uint64_t capacity, vl_fit *out)
{
    char why[8];
    *field(&s, q->what) = v;
    const bool ok = vl_fit_for(q->m, &s, q->rt, capacity, out, why, sizeof why);
    q->tried++;
    if (q->watch)
        q->watch(q->ctx, q->tried, q->tried > q->most ? q->tried : q->most);
    return ok;
}

static bool fits_at(search *q, const vl_settings *s, uint64_t v, uint64_t capacity)
{
    vl_fit f;
    return judge_at(q, *s, v, capacity, &f) && f.fits;
}

/* The value past the answer, and why it does not fit. */
static void next_of(search *q, const vl_settings *s, uint64_t next, uint64_t capacity,
                    vl_solution *out)
{
    out->next = next;
    if (judge_at(q, *s, next, capacity, &out->next_fit))
        out->next_total = out->next_fit.device;
}

const char *vl_solve_fit(const vl_model *m, vl_settings *s, vl_solve what, uint64_t capacity,
                         const vl_runtime *rt, vl_solution *out)
{
    return vl_solve_fit_watched(m, s, what, capacity, rt, out, NULL, NULL);
}

const char *vl_solve_fit_watched(const vl_model *m, vl_settings *s, vl_solve what,
                                 uint64_t capacity, const vl_runtime *rt, vl_solution *out,
                                 vl_solve_watch watch, void *ctx)
{
    memset(out, 0, sizeof *out);
    if (what == VL_SOLVE_MAX_CONCURRENCY)
        return max_concurrency(m, s, capacity, rt, out);
    uint64_t hi = what == VL_SOLVE_MAX_BATCH     ? VL_MAX_BATCH
                  : what == VL_SOLVE_MAX_CONTEXT ? VL_MAX_SEQ - s->gen
                                                 : VL_MAX_GPUS;
    search q = {m, rt, what, watch, ctx, 0, bisect_tries(hi)};
    if (what == VL_SOLVE_MIN_GPUS && s->mode == VL_MODE_INFER) {
        /* tensor parallelism: only counts that divide the heads are valid, so scan them,
         * in whole pipeline stages with --pp (GPUs = tensor x pipeline parallel) */
        q.most = (unsigned)m->arch.heads;
        vl_fit prev = {0}, f;
        for (uint64_t t = 1; t <= m->arch.heads; t++) {
            const uint64_t n = t * s->pp;
            if (!judge_at(&q, *s, n, capacity, &f)) /* not a valid layout */
                continue;
            if (!f.fits) { /* the last valid count that did not fit */
                out->next = n;
                prev = f;
                continue;
            }
            out->answer = s->gpus = n;
            if (out->next) {
                out->next_total = prev.device;
                out->next_fit = prev;
            }
            return NULL;
        }
        return "no tensor-parallel GPU count (a divisor of the attention heads) fits";
    }
    if (what == VL_SOLVE_MIN_GPUS) {
        /* training: whole tensor x pipeline x context groups, data parallel over them */
        const uint64_t unit = s->tp * s->pp * s->cp;
        hi = VL_MAX_GPUS / unit;
        if (!fits_at(&q, s, hi * unit, capacity))
            return s->zero == 0 ? "no GPU count fits: at ZeRO-0 every GPU holds the whole "
                                  "model (try --zero 1, 2 or 3)"
                                : "no GPU count fits, even 1048576";
        uint64_t lo = 1; /* smallest n in [lo, hi] that fits; hi fits */
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (fits_at(&q, s, mid * unit, capacity))
                hi = mid;
            else
                lo = mid + 1;
        }
        out->answer = s->gpus = hi * unit;
        if (hi > 1)
            next_of(&q, s, (hi - 1) * unit, capacity, out);
        return NULL;
    }
    if (!fits_at(&q, s, 1, capacity))
        return what == VL_SOLVE_MAX_BATCH ? "it does not fit even with --batch 1"
                                          : "it does not fit even with a 1-token context";
    uint64_t lo = 1; /* largest v in [lo, hi] that fits; lo fits */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (fits_at(&q, s, mid, capacity))
            lo = mid;
        else
            hi = mid - 1;
    }
    out->answer = *field(s, what) = lo;
    if (lo < (what == VL_SOLVE_MAX_BATCH ? VL_MAX_BATCH : VL_MAX_SEQ - s->gen))
        next_of(&q, s, lo + 1, capacity, out);
    return NULL;
}
