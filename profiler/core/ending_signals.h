/* Signals that end a program by their default action (SIGINT from the
 * terminal, SIGTERM from a job scheduler or a timeout, SIGPIPE from a
 * closed pipe, SIGABRT from a failed assertion, ...).
 *
 * They end the process without running atexit handlers, so every thread
 * still alive would lose its data. For each such signal the program leaves
 * at its default action, knit installs a handler that writes the
 * measurement and then ends the process by the default action, as it would
 * have ended without knit (same signal, same status, same core dump).
 * A program that sets its own action gets it for real and knit steps back;
 * it is always answered with its own view (the default, where knit's
 * handler stands in for it). Signals the program inherits ignored stay
 * ignored.
 */
#ifndef KNIT_CORE_ENDING_SIGNALS_H
#define KNIT_CORE_ENDING_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* Puts knit's handler on every ending signal that is at its default. */
void knit_ending_signals_install(void);

/* Whether sig is one of the ending signals (core/signal_wrap.c then sends
 * the program's sigaction and signal for it here). */
bool knit_ending_signals_covers(int sig);

/* The program sets (act) or asks for (old) its action for an ending
 * signal. As sigaction: 0, or -1 with errno. */
int knit_ending_signals_program_action(int sig, const struct sigaction *act, struct sigaction *old);

#endif /* KNIT_CORE_ENDING_SIGNALS_H */
