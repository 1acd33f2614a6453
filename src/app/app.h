/* app.h: what both front ends (the commands and the explorer) share: exit codes and the
 * one-line usage error (HACKING §2). */
#ifndef VL_APP_H
#define VL_APP_H

#define EXIT_OK 0
#define EXIT_NOFIT 1  /* the run does not fit (estimate --check-fit, --solve) */
#define EXIT_USAGE 2  /* bad usage or bad input: one line on stderr names the flag or file */

/* "vramlab: " + message on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
