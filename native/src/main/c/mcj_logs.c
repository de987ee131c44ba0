/*
 * Native log settings: natives of NativeLogs. Mooncake logs through glog, which reads its GLOG_*
 * variables when it is loaded, and Mooncake reads its MC_LOG_* in a static initialiser of its
 * library, so these are set in the C environment (System.getenv cannot see them) just before
 * libmooncake_store.so is dlopen()ed and unset right after (children must not inherit them).
 * glog 0.6 (Debian's, what Mooncake links there) ignores GLOG_stderrthreshold
 * (google/glog#558, fixed in 0.7), so that one flag is also written directly, through the loaded
 * library's symbol table, before any Mooncake code runs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev_mooncake_jcache_nativebridge_NativeLogs.h"
#include "mcj_jni.h"

#define LOGS_FN(name) MCJ_JNI(NativeLogs, name)

static pthread_mutex_t logs_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Compare and set on the C environment: sets name to value (unsets it when value is null) only
 * while it holds expected (is unset when expected is null). True when it changed.
 */
JNIEXPORT jboolean JNICALL LOGS_FN(replaceEnv)(JNIEnv *env, jclass cls, jstring jname,
                                               jstring jexpected, jstring jvalue) {
  (void)cls;
  jboolean replaced = JNI_FALSE;
  mcj_string name = {0}, expected = {0}, value = {0};
  if (mcj_string_get(env, jname, "variable name", &name) == NULL) goto cleanup;
  if (jexpected != NULL && mcj_string_get(env, jexpected, "expected value", &expected) == NULL)
    goto cleanup;
  if (jvalue != NULL && mcj_string_get(env, jvalue, "variable value", &value) == NULL) goto cleanup;
  if (name.chars[0] == '\0' || strchr(name.chars, '=') != NULL) {
    mcj_throw_iae(env, "'%s' is not an environment variable name", name.chars);
    goto cleanup;
  }
  pthread_mutex_lock(&logs_lock);
  const char *current = getenv(name.chars);
  int holds = jexpected == NULL ? current == NULL
                                : current != NULL && strcmp(current, expected.chars) == 0;
  if (holds) {
    replaced = (jvalue == NULL ? unsetenv(name.chars) : setenv(name.chars, value.chars, 1)) == 0;
  }
  pthread_mutex_unlock(&logs_lock);
cleanup:
  mcj_string_release(env, &value);
  mcj_string_release(env, &expected);
  mcj_string_release(env, &name);
  return replaced;
}

/* The C environment's value (what Mooncake reads), or null. */
JNIEXPORT jstring JNICALL LOGS_FN(environment)(JNIEnv *env, jclass cls, jstring jname) {
  (void)cls;
  jstring result = NULL;
  mcj_string name = {0};
  if (mcj_string_get(env, jname, "variable name", &name) == NULL) goto cleanup;
  pthread_mutex_lock(&logs_lock);
  const char *value = getenv(name.chars);
  if (value != NULL) result = (*env)->NewStringUTF(env, value);
  pthread_mutex_unlock(&logs_lock);
cleanup:
  mcj_string_release(env, &name);
  return result;
}

/*
 * Writes glog's int32 flag FLAGS_<flag> (fLI::FLAGS_<flag>, the same symbol with and without
 * gflags) as seen from the loaded library: dlsym on its handle searches its dependencies, where
 * libglog.so is. Returns the previous value, or INT_MIN when the symbol is not visible (glog
 * linked statically and hidden: then only the environment variable can help).
 */
JNIEXPORT jint JNICALL LOGS_FN(setGlogFlag)(JNIEnv *env, jclass cls, jlong handle, jstring jflag,
                                            jint value) {
  (void)cls;
  jint previous = INT_MIN;
  mcj_slot *slot = NULL;
  mcj_string flag = {0};
  if (mcj_string_get(env, jflag, "glog flag", &flag) == NULL) goto cleanup;
  mcj_library *library = mcj_enter(env, handle, MCJ_KIND_LIBRARY, &slot);
  if (library == NULL) goto cleanup;
  char symbol[160];
  size_t length = strlen("FLAGS_") + strlen(flag.chars);
  int written = snprintf(symbol, sizeof symbol, "_ZN3fLI%zuFLAGS_%sE", length, flag.chars);
  if (written <= 0 || (size_t)written >= sizeof symbol) {
    mcj_throw_iae(env, "glog flag name too long: %s", flag.chars);
    goto cleanup;
  }
  int *address = dlsym(library->dl, symbol);
  if (address != NULL) {
    previous = *address;
    *address = value; /* before any Mooncake thread runs: nothing reads it concurrently */
  }
cleanup:
  mcj_leave(&slot);
  mcj_string_release(env, &flag);
  return previous;
}

/* ---- The log directory this process owns, removed when the process exits ------------------- */

static char owned_directory[PATH_MAX];

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* atexit: registered before Mooncake is loaded, so it runs after Mooncake's own exit handlers
 * (which may still log into the directory), and after the JVM's shutdown hooks. */
static void remove_owned_directory(void) {
  if (owned_directory[0] != '\0') nftw(owned_directory, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

JNIEXPORT jboolean JNICALL LOGS_FN(removeAtExit)(JNIEnv *env, jclass cls, jstring jpath) {
  (void)cls;
  jboolean registered = JNI_FALSE;
  mcj_string path = {0};
  if (mcj_string_get(env, jpath, "directory", &path) == NULL) goto cleanup;
  pthread_mutex_lock(&logs_lock);
  if (owned_directory[0] == '\0' && strlen(path.chars) < sizeof owned_directory &&
      path.chars[0] == '/' && atexit(remove_owned_directory) == 0) {
    snprintf(owned_directory, sizeof owned_directory, "%s", path.chars);
    registered = JNI_TRUE;
  }
  pthread_mutex_unlock(&logs_lock);
cleanup:
  mcj_string_release(env, &path);
  return registered;
}
