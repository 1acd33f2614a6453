/* fuzz_npy.c: libFuzzer target for the .npy reader (npy.h).  Built only by `make fuzz`
 * (clang -fsanitize=fuzzer,address,undefined); see .ci/run.  Every input is read or
 * refused with a reason, and what is read keeps the reader's promises. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/npy.h"

#define MAX_VALUES (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[VL_NPY_ERR_LEN] = "";
    size_t n = 0;
    float *v = vl_npy_parse(data, size, MAX_VALUES, &n, err);
    if (v) {
        if (n == 0 || n > MAX_VALUES || n * sizeof *v > size) /* 4 or 8 bytes per value */
            abort();
        volatile float sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += v[i]; /* every value is there to read (ASan) */
        free(v);
    } else if (err[0] == '\0') {
        abort(); /* a refusal always says why */
    }
    return 0;
}
