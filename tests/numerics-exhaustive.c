/* numerics-exhaustive.c: vl_encode(VL_FMT_F16) against the compiler's _Float16 for every
 * one of the 2^32 fp32 bit patterns (HACKING §5).  Too slow for `make check`; run by hand:
 *   numerics-exhaustive    prints the count checked and the mismatches, exit 1 on any. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/numerics.h"

int main(void)
{
#ifdef __FLT16_MAX__
    uint64_t checked = 0, mismatches = 0;

    for (uint64_t u = 0; u < (1ull << 32); u++) {
        uint32_t bits = (uint32_t)u, got;
        uint16_t want;
        float x;
        memcpy(&x, &bits, sizeof x);
        _Float16 h = (_Float16)x;
        memcpy(&want, &h, sizeof want);
        got = vl_encode(VL_FMT_F16, x, false);
        /* NaNs match when both are NaN: _Float16 keeps the payload, CUDA does not. */
        bool ok = isnan(x) ? (want & 0x7FFF) > 0x7C00 && (got & 0x7FFF) > 0x7C00 : got == want;
        checked++;
        if (!ok && mismatches++ < 10)
            printf("mismatch: 0x%08" PRIx32 " -> 0x%04" PRIx32 ", _Float16 0x%04x\n", bits, got,
                   (unsigned)want);
    }
    printf("checked %" PRIu64 " fp32 patterns, %" PRIu64 " mismatches\n", checked, mismatches);
    return mismatches != 0;
#else
    puts("this compiler has no _Float16: nothing checked");
    return 77; /* automake's "skipped" */
#endif
}
