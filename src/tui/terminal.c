/* terminal.c: the explorer's terminal.  It includes <term.h>, whose capability macros
 * (lines, columns...) would clash with ordinary names anywhere else. */
#include "terminal.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

static volatile sig_atomic_t got_signal;
static bool curses_active;

static void restore_terminal(void)
{
    if (curses_active) {
        curses_active = false;
        endwin();
    }
}

static void on_terminate(int sig)
{
    got_signal = sig;
}

/* A crash must not leave the terminal in raw mode: restore it, then die as before. */
static void on_fatal(int sig)
{
    restore_terminal();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_terminate;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_fatal;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
}

/* Whether TERM names a terminal that can show the explorer.  setupterm() first, as initscr()
 * would exit on an unknown TERM and newterm() keeps what it allocated when it fails; a
 * terminal that cannot address the cursor (dumb) would show nothing at all. */
static bool usable(const char *term, char *why, size_t len)
{
    int err;
    if (setupterm(NULL, STDOUT_FILENO, &err) != OK) {
        snprintf(why, len, "unknown terminal type '%s' (TERM)", term);
        return false;
    }
    const char *cup = tigetstr("cup");
    bool ok = cup && cup != (const char *)-1;
    del_curterm(cur_term);
    if (!ok)
        snprintf(why, len, "the terminal '%s' (TERM) cannot move the cursor", term);
    return ok;
}

SCREEN *terminal_open(char *why, size_t len)
{
    const char *term = getenv("TERM");
    if (!term || !*term) {
        snprintf(why, len, "TERM is not set");
        return NULL;
    }
    if (!usable(term, why, len))
        return NULL;
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        snprintf(why, len, "cannot open the terminal '%s' (TERM)", term);
        return NULL;
    }
    install_signals();
    atexit(restore_terminal);
    curses_active = true;
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    timeout(TERMINAL_WAIT_MS);
    return scr;
}

void terminal_close(SCREEN *scr)
{
    restore_terminal();
    delscreen(scr);
}

int terminal_signal(void)
{
    return got_signal;
}
