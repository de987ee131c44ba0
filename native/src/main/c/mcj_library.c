/*
 * Library loading: natives of MooncakeLibrary. dlopen()s libmooncake_store.so, resolves the 19
 * required functions (an error naming each one missing) and the optional ones (NULL when absent),
 * plus the process-wide settings Mooncake reads from the environment.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev_mooncake_jcache_nativebridge_MooncakeLibrary.h"
#include "mcj_jni.h"
#include "mcj_signals.h"

#define LIBRARY_FN(name) MCJ_JNI(MooncakeLibrary, name)

static const char *const required_names[] = {
#define MCJ_SYMBOL_NAME(ret, name, params) "mooncake_store_" #name,
    MCJ_STORE_FUNCTIONS(MCJ_SYMBOL_NAME)
#undef MCJ_SYMBOL_NAME
};

static const char *const optional_names[] = {
#define MCJ_SYMBOL_NAME(ret, name, params) "mooncake_store_" #name,
    MCJ_STORE_OPTIONAL_FUNCTIONS(MCJ_SYMBOL_NAME)
#undef MCJ_SYMBOL_NAME
};

#define OPTIONAL_COUNT (sizeof optional_names / sizeof optional_names[0])

/* The api table as an array: the required functions first, then the optional ones. */
_Static_assert(sizeof(mcj_store_api) == sizeof(void *) * (MCJ_STORE_FUNCTION_COUNT + OPTIONAL_COUNT),
               "mcj_store_api is one pointer per function");

static void library_free(mcj_library *library) {
  if (library == NULL) return;
  free(library->path);
  free(library);
}

/* Resolves every function; 0 and a NativeBridgeException naming each missing required one. */
static int resolve(JNIEnv *env, mcj_library *library) {
  void **table = (void **)&library->api;
  char missing[1600] = "";
  size_t missing_length = 0;
  int missing_count = 0;
  char last_error[400] = "";
  for (int i = 0; i < MCJ_STORE_FUNCTION_COUNT; i++) {
    dlerror();
    table[i] = dlsym(library->dl, required_names[i]);
    if (table[i] != NULL) continue;
    const char *error = dlerror();
    if (error != NULL) snprintf(last_error, sizeof last_error, "%s", error);
    int written = snprintf(missing + missing_length, sizeof missing - missing_length, "%s%s",
                           missing_count == 0 ? "" : ", ", required_names[i]);
    if (written > 0 && (size_t)written < sizeof missing - missing_length) {
      missing_length += (size_t)written;
    }
    missing_count++;
  }
  for (size_t i = 0; i < OPTIONAL_COUNT; i++) {
    table[MCJ_STORE_FUNCTION_COUNT + i] = dlsym(library->dl, optional_names[i]);
  }
  if (missing_count == 0) return 1;
  mcj_throw_bridge(env,
                   "'%s' lacks %d of the %d Mooncake Store C functions: %s (dlerror: %s); it is "
                   "not a libmooncake_store.so built with -DWITH_STORE_C_SHARED=ON, or not a "
                   "version this bridge supports",
                   library->path, missing_count, MCJ_STORE_FUNCTION_COUNT, missing,
                   last_error[0] != '\0' ? last_error : "none");
  return 0;
}

JNIEXPORT jlong JNICALL LIBRARY_FN(openLibrary)(JNIEnv *env, jclass cls, jstring jpath) {
  (void)cls;
  jlong handle = 0;
  mcj_library *library = NULL;
  mcj_string path;
  if (mcj_string_get(env, jpath, "library path", &path) == NULL) goto cleanup;
  if (path.chars[0] == '\0') {
    mcj_throw_iae(env, "library path is empty");
    goto cleanup;
  }
  library = calloc(1, sizeof *library);
  if (library == NULL || (library->path = strdup(path.chars)) == NULL) {
    mcj_throw_oom(env, "cannot allocate a library record");
    goto cleanup;
  }
  dlerror();
  /* RTLD_LOCAL: Mooncake's symbols stay out of the global scope. Never dlclose()d: Mooncake
   * registers atexit handlers and starts threads that run its code until the process ends. */
  library->dl = dlopen(path.chars, RTLD_NOW | RTLD_LOCAL);
  if (library->dl == NULL) {
    const char *error = dlerror();
    mcj_throw_bridge(env, "cannot load the Mooncake Store library '%s': %s", path.chars,
                     error != NULL ? error : "unknown dlopen error");
    goto cleanup;
  }
  if (!resolve(env, library)) goto cleanup;
  handle = mcj_handle_new(MCJ_KIND_LIBRARY, library);
  if (handle == 0) {
    mcj_throw_table_full(env);
    goto cleanup;
  }
  library = NULL; /* owned by the handle; libraries are never freed */
cleanup:
  library_free(library);
  mcj_string_release(env, &path);
  return handle;
}

JNIEXPORT jint JNICALL LIBRARY_FN(symbolCount)(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return MCJ_STORE_FUNCTION_COUNT;
}

/* Bit i set: optional function i (MCJ_STORE_OPTIONAL_FUNCTIONS order) is exported. */
JNIEXPORT jint JNICALL LIBRARY_FN(optionalSymbols)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_library *library = mcj_enter(env, handle, MCJ_KIND_LIBRARY, &slot);
  if (library == NULL) return 0;
  void **table = (void **)&library->api;
  jint bits = 0;
  for (size_t i = 0; i < OPTIONAL_COUNT; i++) {
    if (table[MCJ_STORE_FUNCTION_COUNT + i] != NULL) bits |= 1 << i;
  }
  mcj_leave(&slot);
  return bits;
}

static pthread_mutex_t environment_lock = PTHREAD_MUTEX_INITIALIZER;

static int set_env_if_unset(const char *name, jlong value) {
  if (value <= 0) return 0;
  int set = 0;
  pthread_mutex_lock(&environment_lock);
  if (getenv(name) == NULL) {
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)value);
    set = setenv(name, text, 0) == 0;
  }
  pthread_mutex_unlock(&environment_lock);
  return set;
}

/* Unsets name while it holds value (what set_env_if_unset wrote); true when it did. */
static int unset_env_if_holds(const char *name, jlong value) {
  if (value <= 0) return 0;
  char text[32];
  snprintf(text, sizeof text, "%lld", (long long)value);
  int unset = 0;
  pthread_mutex_lock(&environment_lock);
  const char *current = getenv(name);
  if (current != NULL && strcmp(current, text) == 0) unset = unsetenv(name) == 0;
  pthread_mutex_unlock(&environment_lock);
  return unset;
}

JNIEXPORT jint JNICALL LIBRARY_FN(setRpcTimeoutsIfUnset)(JNIEnv *env, jclass cls, jlong request_ms,
                                                    jlong connect_ms) {
  (void)env;
  (void)cls;
  int applied = 0;
  if (set_env_if_unset("MC_RPC_TIMEOUT_MS", request_ms)) applied |= 1;
  if (set_env_if_unset("MC_RPC_CONNECT_TIMEOUT_MS", connect_ms)) applied |= 2;
  return applied;
}

/* Undoes setRpcTimeoutsIfUnset: bit 0 / bit 1 of applied name what it set. Answers what it unset. */
JNIEXPORT jint JNICALL LIBRARY_FN(unsetRpcTimeouts)(JNIEnv *env, jclass cls, jint applied,
                                                   jlong request_ms, jlong connect_ms) {
  (void)env;
  (void)cls;
  int unset = 0;
  if ((applied & 1) && unset_env_if_holds("MC_RPC_TIMEOUT_MS", request_ms)) unset |= 1;
  if ((applied & 2) && unset_env_if_holds("MC_RPC_CONNECT_TIMEOUT_MS", connect_ms)) unset |= 2;
  return unset;
}

JNIEXPORT jboolean JNICALL LIBRARY_FN(hostProbeVisible)(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return mcj_host_probe_visible() ? JNI_TRUE : JNI_FALSE;
}
