// test_cuda_casts.cu: the CUDA kernels' casts (cuda/casts.cuh), run on the host with the
// reference code CUDA's headers carry, against the software codecs: every code, the
// points halfway between codes and the floats either side, every 4099th fp32 pattern, in
// every format, saturating or not.  It checks the kernels' own logic (saturation, NaN,
// classes) on any machine with nvcc; the GPU's instructions themselves are for
// `vramlab probe selftest` on a machine with a GPU.
#include <stdio.h>
#include <stdlib.h>

#include "core/selftest.h"
#include "cuda/casts.cuh"

int main(void)
{
    size_t n, checked = 0, differ = 0;
    float *x = vl_selftest_inputs(&n);

    if (!x) {
        puts("out of memory");
        return 99;
    }
    for (size_t i = 0; i < n; i++) {
        for (int f = 0; f < VL_N_FORMATS; f++) {
            for (int sat = 0; sat < 2; sat++, checked++) {
                uint32_t got = cast_code(f, x[i], sat), want = vl_encode((vl_format)f, x[i], sat);
                int cls = cast_class(f, x[i], sat);
                int want_cls = vl_classify_cast((vl_format)f, x[i], sat);
                float r = round_to(f, x[i]), want_r = vl_round((vl_format)f, x[i], false);
                if (got == want && cls == want_cls && bits_of(r) == bits_of(want_r))
                    continue;
                if (differ++ < 10)
                    printf("%s%s %a: code 0x%x, class %s, value %a; codecs 0x%x, %s, %a\n",
                           vl_format_names[f], sat ? " saturating" : "", (double)x[i],
                           (unsigned)got, vl_class_names[cls], (double)r, (unsigned)want,
                           vl_class_names[want_cls], (double)want_r);
            }
        }
    }
    printf("%zu casts compared, %zu differ\n", checked, differ);
    free(x);
    return differ != 0;
}
