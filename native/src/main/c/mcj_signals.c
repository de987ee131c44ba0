#define _GNU_SOURCE
#include "mcj_signals.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

/*
 * Mooncake's "is a host runtime in charge of signals?" probe looks this symbol up; it never calls
 * it. If something does call it, answer what a real Python (loaded later, e.g. by an embedding
 * library) answers, else 0 ("not initialized").
 */
__attribute__((visibility("default"))) int Py_IsInitialized(void);

int Py_IsInitialized(void) {
  int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "Py_IsInitialized");
  if (next != NULL && next != Py_IsInitialized) return next();
  return 0;
}

/* Looked up through the main program's handle, i.e. in the global scope only: dlsym(RTLD_DEFAULT)
 * from this library would also search this library itself (it is in its own lookup scope), and
 * so would always succeed here, while from Mooncake's library it does not. */
int mcj_host_probe_visible(void) {
  void *global = dlopen(NULL, RTLD_LAZY);
  int visible = global != NULL && dlsym(global, "Py_IsInitialized") != NULL;
  if (global != NULL) dlclose(global);
  return visible;
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void install_host_probe(void) {
  if (mcj_host_probe_visible()) return; /* a Python, or an earlier promotion */
  Dl_info info;
  if (dladdr((void *)&Py_IsInitialized, &info) == 0 || info.dli_fname == NULL) return;
  /* The JVM loaded this library RTLD_LOCAL; reopening it with RTLD_NOLOAD | RTLD_GLOBAL promotes
   * its (few, prefixed) exported symbols to the global scope without loading anything. */
  void *self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
  (void)self; /* keep the reference: the library stays loaded for the JVM's life anyway */
}

static int guarded(int sig) { return sig != SIGKILL && sig != SIGSTOP; }

static int same_action(const struct sigaction *a, const struct sigaction *b) {
  if (a->sa_flags != b->sa_flags) return 0;
  if ((a->sa_flags & SA_SIGINFO) ? a->sa_sigaction != b->sa_sigaction
                                 : a->sa_handler != b->sa_handler) {
    return 0;
  }
  for (int s = 1; s < MCJ_GUARDED_SIGNAL_MAX; s++) {
    if (sigismember(&a->sa_mask, s) != sigismember(&b->sa_mask, s)) return 0;
  }
  return 1;
}

void mcj_signals_enter(mcj_signal_guard *guard, int flags) {
  memset(guard, 0, sizeof *guard);
  guard->flags = flags;
  if (flags & MCJ_SIGNALS_HOST_PROBE) pthread_once(&probe_once, install_host_probe);
  if (!(flags & MCJ_SIGNALS_RESTORE)) return;
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGHUP);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGQUIT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &block, &guard->saved_mask);
  for (int sig = 1; sig < MCJ_GUARDED_SIGNAL_MAX; sig++) {
    if (!guarded(sig)) continue;
    guard->saved_ok[sig] = sigaction(sig, NULL, &guard->saved[sig]) == 0;
  }
}

uint64_t mcj_signals_leave(mcj_signal_guard *guard) {
  uint64_t restored = 0;
  if (!(guard->flags & MCJ_SIGNALS_RESTORE)) return 0;
  for (int sig = 1; sig < MCJ_GUARDED_SIGNAL_MAX; sig++) {
    if (!guard->saved_ok[sig]) continue;
    struct sigaction now;
    memset(&now, 0, sizeof now);
    if (sigaction(sig, NULL, &now) != 0) continue;
    if (!same_action(&now, &guard->saved[sig])) {
      if (sigaction(sig, &guard->saved[sig], NULL) == 0) restored |= (uint64_t)1 << sig;
    }
  }
  pthread_sigmask(SIG_SETMASK, &guard->saved_mask, NULL);
  return restored;
}
