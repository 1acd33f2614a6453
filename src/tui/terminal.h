/* terminal.h: the explorer's terminal (after htop's CRT.c): opened only when it can show the
 * explorer, set up for keys, restored on every exit path, fatal signals included. */
#ifndef VL_TERMINAL_H
#define VL_TERMINAL_H

#include <curses.h>
#include <stddef.h>

/* How long getch waits for a key: the loop wakes up now and then to notice SIGINT/SIGTERM. */
#define TERMINAL_WAIT_MS 250

/* The terminal on stdin/stdout, set up (cbreak, keypad, the getch timeout); NULL, and why in
 * `why`, when TERM is unset, unknown or cannot move the cursor. */
SCREEN *terminal_open(char *why, size_t len);
/* Back to the shell's terminal; the screen is freed. */
void terminal_close(SCREEN *scr);
/* The SIGINT, SIGTERM or SIGHUP that asked the loop to end, or 0. */
int terminal_signal(void);

#endif
