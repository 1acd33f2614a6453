/* hfcache.h: a model of the local Hugging Face cache, offline: its snapshot, config.json,
 * and the exact parameter count and weight bytes from its safetensors headers.
 *
 * The cache layout is huggingface_hub's (file_download.py, constants.py):
 *   <cache>/models--ORG--NAME/refs/main          the commit "main" points at
 *   <cache>/models--ORG--NAME/snapshots/<commit>/ the files, as links into blobs/
 * with <cache> the first of $HF_HUB_CACHE, $HUGGINGFACE_HUB_CACHE, $HF_HOME/hub,
 * $XDG_CACHE_HOME/huggingface/hub and ~/.cache/huggingface/hub that is set.
 *
 * A safetensors file is an 8-byte little-endian header length N, N bytes of UTF-8 JSON
 * mapping each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (plus an
 * optional "__metadata__"), then the data (huggingface/safetensors, README "Format").
 * Every file is opened without blocking and must be a regular file (a FIFO is an error,
 * not a hang); every malformed header is an error naming the file. */
#ifndef VL_HFCACHE_H
#define VL_HFCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "hfconfig.h"
#include "preset.h"

#define VL_HF_PATH_LEN 4096

/* The safetensors dtypes, with their sizes in bytes (safetensors' Dtype enum). */
#define VL_SF_DTYPES(X)                                                                      \
    X(BOOL, 1) X(U8, 1) X(I8, 1) X(F8_E5M2, 1) X(F8_E4M3, 1) X(F8_E8M0, 1) X(I16, 2)         \
    X(U16, 2) X(F16, 2) X(BF16, 2) X(I32, 4) X(U32, 4) X(F32, 4) X(I64, 8) X(U64, 8)         \
    X(F64, 8) X(C64, 8)

#define VL_SF_ENUM(id, size) VL_SF_##id,
typedef enum { VL_SF_DTYPES(VL_SF_ENUM) VL_SF_N } vl_sf_dtype;
#undef VL_SF_ENUM

/* What the safetensors headers of a checkpoint hold. */
typedef struct {
    uint64_t params;                /* elements of all tensors */
    uint64_t bytes;                 /* bytes of all tensors' data */
    uint64_t tensors;
    uint64_t dtype_params[VL_SF_N]; /* elements stored in each dtype */
    unsigned files;
    bool from_index;                /* the files came from model.safetensors.index.json */
} vl_sf_summary;

/* Adds one safetensors file's tensors to *sum (zero it first).  On error, a reason
 * "PATH: ..." in err. */
bool vl_sf_add_file(const char *path, vl_sf_summary *sum, char err[VL_ERR_LEN]);

/* The cache folder (see above); false when neither the variables nor HOME are set. */
bool vl_hf_cache_dir(char *out, size_t len);

typedef struct {
    char repo[256];                  /* "ORG/NAME" */
    char dir[VL_HF_PATH_LEN];        /* <cache>/models--ORG--NAME */
    char snapshot[VL_HF_PATH_LEN];   /* the snapshot folder */
    char revision[128];              /* its name: the commit */
    char config[VL_HF_PATH_LEN];     /* its config.json; "" when it has none */
} vl_hf_snapshot;

/* Finds ORG/NAME (or a bare NAME, as "gpt2") in the cache: the snapshot refs/main names,
 * else the only one, else the most recently modified.  False with a reason (an invalid
 * name, the folders searched, a refs/main naming a missing snapshot). */
bool vl_hf_resolve(const char *repo, vl_hf_snapshot *s, char err[VL_ERR_LEN]);

/* The snapshot's weights: the files model.safetensors.index.json's weight_map names (each
 * tensor it lists must be in its file), else every *.safetensors file.  *found is false
 * when there are none. */
bool vl_hf_weights(const vl_hf_snapshot *s, vl_sf_summary *sum, bool *found,
                   char err[VL_ERR_LEN]);

/* --model ORG/NAME: the snapshot's config.json as the architecture (hfconfig.c) and, when
 * it has safetensors weights, their exact element count and bytes (m->checkpoint_params,
 * m->checkpoint_bytes: the count the memory model uses).  m->source says which source gave
 * the count.  False with one line in err (the cache, the config, a bad header). */
bool vl_model_from_hf_cache(const char *repo, vl_model *m, vl_hf_warnings *warnings,
                            char err[VL_ERR_LEN]);

#endif
