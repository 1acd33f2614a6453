/* fuzz_preset.c: libFuzzer target for the preset loader and the config.json import.
 * Built only by `make fuzz` (clang -fsanitize=fuzzer,address,undefined); see .ci/run. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog.h"
#include "core/hfconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[VL_ERR_LEN];
    vl_catalog c;
    vl_kind kind;
    size_t index;
    vl_model m;

    vl_catalog_init(&c);
    if (vl_catalog_add_text(&c, "fuzz.yaml", (const char *)data, size, &kind, &index, err) &&
        kind == VL_KIND_MODEL) {
        vl_params p;
        vl_count_params(&c.models[index].arch, &p);
    }
    vl_catalog_free(&c);
    if (vl_model_from_hf_text("fuzz.json", (const char *)data, size, &m, NULL, err)) {
        vl_params p;
        vl_count_params(&m.arch, &p);
    }
    return 0;
}
