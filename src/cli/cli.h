/* cli.h: the command-line subcommands. */
#ifndef VL_CLI_H
#define VL_CLI_H

#include <time.h>

#include "app/app.h"

/* A monotonic clock in seconds, for progress shown once work has taken a second. */
static inline double cli_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int cmd_estimate(int argc, char **argv);
int cmd_presets(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_probe(int argc, char **argv);

#endif
