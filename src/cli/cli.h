/* cli.h: the command-line subcommands. */
#ifndef VL_CLI_H
#define VL_CLI_H

/* Exit codes (HACKING §2). */
#define EXIT_OK 0
#define EXIT_NOFIT 1
#define EXIT_USAGE 2

int cmd_estimate(int argc, char **argv);
int cmd_presets(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_probe(int argc, char **argv);

/* "vramlab: " + message on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
