/* cli.h: the command-line subcommands. */
#ifndef VL_CLI_H
#define VL_CLI_H

#include "app/app.h"

int cmd_estimate(int argc, char **argv);
int cmd_presets(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_probe(int argc, char **argv);

#endif
