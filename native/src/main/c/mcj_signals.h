/*
 * Giving the JVM its signals back from Mooncake.
 *
 * What Mooncake does (read in mooncake-store/src/real_client.cpp, snapshot 2026-08): the first
 * mooncake_store_create() of a process constructs a ResourceTracker singleton which
 *   1. unless dlsym(RTLD_DEFAULT, "Py_IsInitialized") finds a symbol (its test for "a host runtime
 *      owns signal handling"), blocks SIGINT, SIGTERM, SIGHUP and SIGUSR1 with pthread_sigmask() in
 *      the CALLING thread (and never unblocks them there), then starts a std::jthread that inherits
 *      that mask and sigwait()s for those four signals. When it takes one it tears every store
 *      down, resets the signal to SIG_DFL with sigaction(), unblocks it and raise()s it: the
 *      process dies without running the JVM's shutdown hooks;
 *   2. registers an atexit() handler that tears every store still alive down.
 * A sigwait()ing thread competes with the JVM for every process-directed SIGINT/SIGTERM/SIGHUP,
 * and the calling Java thread would keep the signals blocked, as would every thread it starts.
 * Other Mooncake code paths (the transfer engine's opt-in graceful shutdown) install sigaction()
 * handlers for SIGINT and SIGTERM instead.
 *
 * What the bridge does, around mooncake_store_create / setup / init_all (the calls that start
 * Mooncake's threads and handlers):
 *   a. host probe: before the first create it makes the symbol Py_IsInitialized (exported by this
 *      library, forwarding to a real Python if one is ever loaded) visible in the global scope, so
 *      Mooncake takes the JVM for a host runtime and starts no signal thread at all;
 *   b. it blocks SIGHUP, SIGINT, SIGQUIT, SIGTERM and SIGUSR1 in the calling thread for the
 *      duration of the call, so every thread Mooncake starts inside it inherits a mask that keeps
 *      those signals away from Mooncake's threads and on the JVM's;
 *   c. it saves the disposition (sigaction) of every standard signal before the call and, after
 *      it, puts back each one the call changed;
 *   d. it restores the calling thread's signal mask exactly as it was.
 * (a) needs Mooncake's probe to exist; (b)-(d) hold for any version. What cannot be undone: a
 * signal thread started by a Mooncake version without the probe, and the atexit() handler.
 */
#ifndef MCJ_SIGNALS_H
#define MCJ_SIGNALS_H

#include <signal.h>
#include <stdint.h>

#define MCJ_SIGNALS_RESTORE 1    /* (b), (c), (d) */
#define MCJ_SIGNALS_HOST_PROBE 2 /* (a) */

#define MCJ_GUARDED_SIGNAL_MAX 32

typedef struct mcj_signal_guard {
  int flags;
  sigset_t saved_mask;
  struct sigaction saved[MCJ_GUARDED_SIGNAL_MAX];
  int saved_ok[MCJ_GUARDED_SIGNAL_MAX];
} mcj_signal_guard;

void mcj_signals_enter(mcj_signal_guard *guard, int flags);

/* Ends the guarded section; returns a bit mask (bit n = signal n) of the dispositions the call
 * had changed and that were put back. */
uint64_t mcj_signals_leave(mcj_signal_guard *guard);

/* Whether the host probe symbol is visible to dlsym(RTLD_DEFAULT, ...). */
int mcj_host_probe_visible(void);

#endif
