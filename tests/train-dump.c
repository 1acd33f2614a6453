/* train-dump.c: every number of `probe train` on the CPU emulation, every regime, sums in
 * fp32 and in the format, as hexadecimal floats: what tests/train-opt-levels.sh compares
 * between builds at different optimisation levels. */
#include <stdio.h>

#include "core/train.h"

int main(void)
{
    vl_backend cpu;
    vl_train_opts o;
    vl_backend_open(&cpu, VL_BACKEND_CPU);
    vl_train_opts_default(&o);
    o.steps = 120;
    for (int in_format = 0; in_format < 2; in_format++) {
        o.accumulate_in_format = in_format;
        for (int g = 0; g < VL_N_REGIMES; g++) {
            vl_train_run *r = vl_train_init(&cpu, &o, g);
            if (!r)
                return 1;
            vl_train_step(r, o.steps);
            for (uint32_t t = 0; t < r->done; t++)
                printf("%s %u %a %a %a %a %d\n", r->regime->name, t, (double)r->loss[t],
                       (double)r->flushed[t], (double)r->subnormal[t], (double)r->scale[t],
                       r->skipped_at[t]);
            printf("%s final %a %a\n", r->regime->name, r->final_loss, r->accuracy);
            vl_train_free(r);
        }
    }
    return 0;
}
