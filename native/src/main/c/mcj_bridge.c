/*
 * JNI entry points of dev.mooncake.jcache.nativebridge.MooncakeNative.
 *
 * Rules every entry point follows:
 *  - no Java input may crash the JVM: handles are looked up in the handle table (mcj_handles.h),
 *    never dereferenced; every array, key, buffer, offset and length is checked before Mooncake
 *    sees it; a failed check throws NullPointerException / IllegalArgumentException /
 *    IllegalStateException with a message and nothing is called;
 *  - Mooncake's result codes are returned as they are; only whole-bridge failures (library or
 *    symbols missing, memory) throw NativeBridgeException;
 *  - arguments are checked before any lock is taken; locks are released on every path.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <jni.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dev_mooncake_jcache_nativebridge_MooncakeNative.h"
#include "mcj_handles.h"
#include "mcj_signals.h"
#include "mooncake_store_abi.h"

#define JNI_FN(name) Java_dev_mooncake_jcache_nativebridge_MooncakeNative_##name

/* ---------------------------------------------------------------------------------------------
 * Exceptions
 * ------------------------------------------------------------------------------------------- */

static jclass bridge_exception_class; /* global ref, from JNI_OnLoad */
static jmethodID buffer_is_read_only;

static void throw_class(JNIEnv *env, jclass cls, const char *fmt, va_list args) {
  char message[2048];
  vsnprintf(message, sizeof message, fmt, args);
  if (cls != NULL) (*env)->ThrowNew(env, cls, message);
}

static void throw_named(JNIEnv *env, const char *class_name, const char *fmt, ...) {
  if ((*env)->ExceptionCheck(env)) return;
  jclass cls = (*env)->FindClass(env, class_name);
  if (cls == NULL) return; /* FindClass threw NoClassDefFoundError */
  va_list args;
  va_start(args, fmt);
  throw_class(env, cls, fmt, args);
  va_end(args);
  (*env)->DeleteLocalRef(env, cls);
}

#define THROW_NPE(env, ...) throw_named(env, "java/lang/NullPointerException", __VA_ARGS__)
#define THROW_IAE(env, ...) throw_named(env, "java/lang/IllegalArgumentException", __VA_ARGS__)
#define THROW_ISE(env, ...) throw_named(env, "java/lang/IllegalStateException", __VA_ARGS__)
#define THROW_OOM(env, ...) throw_named(env, "java/lang/OutOfMemoryError", __VA_ARGS__)

static void throw_bridge(JNIEnv *env, const char *fmt, ...) {
  if ((*env)->ExceptionCheck(env)) return;
  va_list args;
  va_start(args, fmt);
  throw_class(env, bridge_exception_class, fmt, args);
  va_end(args);
}

static void throw_bad_handle(JNIEnv *env, int kind, jlong handle) {
  if (handle == 0) {
    THROW_ISE(env, "null %s handle (0)", mcj_kind_name(kind));
  } else {
    THROW_ISE(env, "%s handle 0x%llx is closed or not a %s handle", mcj_kind_name(kind),
              (unsigned long long)handle, mcj_kind_name(kind));
  }
}

/* ---------------------------------------------------------------------------------------------
 * Objects behind the handles
 * ------------------------------------------------------------------------------------------- */

typedef struct mcj_library {
  void *dl;
  char *path;
  mcj_store_api api;
} mcj_library;

#define MCJ_MAX_STORE_REGIONS 16

typedef struct mcj_region mcj_region;

typedef struct mcj_store {
  mcj_library *library;
  void *mc;
  int signal_flags;
  uint64_t signals_restored;      /* cumulative, see mcj_signals_leave */
  pthread_mutex_t regions_lock;   /* guards regions / region_count */
  mcj_region *regions[MCJ_MAX_STORE_REGIONS];
  int region_count;
} mcj_store;

typedef struct mcj_replica {
  mcj_replicate_config config;
  char **segments;
} mcj_replica;

enum { REGION_OPEN = 0, REGION_RELEASED = 1 };

struct mcj_region {
  char *base;
  size_t size;
  int state;             /* changes under the slot's write lock */
  int registrations;     /* stores it is registered with; atomic */
  pthread_mutex_t views_lock;
  jweak *views;          /* weak refs to every ByteBuffer view handed out */
  int view_count;
  int view_capacity;
};

static int region_registrations(mcj_region *region) {
  return __atomic_load_n(&region->registrations, __ATOMIC_SEQ_CST);
}

/* ---------------------------------------------------------------------------------------------
 * Argument helpers
 * ------------------------------------------------------------------------------------------- */

/* A key or pattern copied out of a Java byte[] and NUL-terminated. */
typedef struct key_copy {
  char *text;
  char inline_text[256];
} key_copy;

static void key_release(key_copy *copy) {
  if (copy->text != NULL && copy->text != copy->inline_text) free(copy->text);
  copy->text = NULL;
}

/* Checks (not null, not empty, no NUL) and copies; NULL with an exception pending on failure. */
static const char *key_get(JNIEnv *env, jbyteArray key, const char *what, key_copy *copy) {
  copy->text = NULL;
  if (key == NULL) {
    THROW_NPE(env, "%s is null", what);
    return NULL;
  }
  jsize length = (*env)->GetArrayLength(env, key);
  if (length == 0) {
    THROW_IAE(env, "%s is empty", what);
    return NULL;
  }
  char *text = (size_t)length < sizeof copy->inline_text ? copy->inline_text
                                                         : malloc((size_t)length + 1);
  if (text == NULL) {
    THROW_OOM(env, "cannot copy a %s of %d bytes", what, (int)length);
    return NULL;
  }
  (*env)->GetByteArrayRegion(env, key, 0, length, (jbyte *)text);
  text[length] = '\0';
  copy->text = text;
  if (memchr(text, '\0', (size_t)length) != NULL) {
    key_release(copy);
    THROW_IAE(env, "%s contains a NUL byte", what);
    return NULL;
  }
  return text;
}

/*
 * The address of buffer[offset, offset + length), after checking: not null, direct, offset and
 * length non-negative and inside the capacity, and (for destinations) not read-only. NULL with an
 * exception pending on failure; *ok tells a legitimately NULL address (capacity 0) from failure.
 */
static char *buffer_get(JNIEnv *env, jobject buffer, jint offset, jint length, int writable,
                        const char *what, int *ok) {
  *ok = 0;
  if (buffer == NULL) {
    THROW_NPE(env, "%s is null", what);
    return NULL;
  }
  jlong capacity = (*env)->GetDirectBufferCapacity(env, buffer);
  if (capacity < 0) {
    THROW_IAE(env, "%s is not a direct buffer", what);
    return NULL;
  }
  if (offset < 0 || length < 0) {
    THROW_IAE(env, "%s: negative offset %d or length %d", what, (int)offset, (int)length);
    return NULL;
  }
  if ((jlong)offset + (jlong)length > capacity) {
    THROW_IAE(env, "%s: range [%d, %lld) is outside its capacity %lld", what, (int)offset,
              (long long)offset + length, (long long)capacity);
    return NULL;
  }
  if (writable) {
    jboolean read_only = (*env)->CallBooleanMethod(env, buffer, buffer_is_read_only);
    if ((*env)->ExceptionCheck(env)) return NULL;
    if (read_only) {
      THROW_IAE(env, "%s is read-only", what);
      return NULL;
    }
  }
  char *address = (*env)->GetDirectBufferAddress(env, buffer);
  if (address == NULL && capacity > 0) {
    THROW_IAE(env, "%s has no accessible address", what);
    return NULL;
  }
  *ok = 1;
  return address == NULL ? NULL : address + offset;
}

/* Store / replica lookups that throw on a bad handle. */
static mcj_store *store_enter(JNIEnv *env, jlong handle, mcj_slot **slot) {
  mcj_store *store = mcj_handle_enter(handle, MCJ_KIND_STORE, slot);
  if (store == NULL) throw_bad_handle(env, MCJ_KIND_STORE, handle);
  return store;
}

/* config 0 means NULL (Mooncake's default: one replica). Returns 1 on success. */
static int replica_enter(JNIEnv *env, jlong handle, mcj_slot **slot,
                         const mcj_replicate_config **config) {
  *slot = NULL;
  *config = NULL;
  if (handle == 0) return 1;
  mcj_replica *replica = mcj_handle_enter(handle, MCJ_KIND_REPLICA, slot);
  if (replica == NULL) {
    throw_bad_handle(env, MCJ_KIND_REPLICA, handle);
    return 0;
  }
  *config = &replica->config;
  return 1;
}

static void replica_leave(mcj_slot *slot) {
  if (slot != NULL) mcj_handle_leave(slot);
}

static const char *string_get(JNIEnv *env, jstring value, const char *what) {
  if (value == NULL) {
    THROW_NPE(env, "%s is null", what);
    return NULL;
  }
  return (*env)->GetStringUTFChars(env, value, NULL);
}

static void string_release(JNIEnv *env, jstring value, const char *chars) {
  if (chars != NULL) (*env)->ReleaseStringUTFChars(env, value, chars);
}

/* ---------------------------------------------------------------------------------------------
 * Batch arguments: keys, buffers, offsets, lengths, results, all checked up front.
 * ------------------------------------------------------------------------------------------- */

typedef struct batch_args {
  size_t count;
  const char **keys;
  char *key_text; /* all keys, NUL-separated */
  void **buffers;
  size_t *sizes;
} batch_args;

static void batch_release(batch_args *batch) {
  free(batch->keys);
  free(batch->key_text);
  free(batch->buffers);
  free(batch->sizes);
  memset(batch, 0, sizeof *batch);
}

/* Checks the array lengths against keys' and copies the keys. 1 on success. */
static int batch_keys(JNIEnv *env, jobjectArray keys, jint results_length, const char *results_name,
                      batch_args *batch) {
  memset(batch, 0, sizeof *batch);
  if (keys == NULL) {
    THROW_NPE(env, "keys is null");
    return 0;
  }
  jsize count = (*env)->GetArrayLength(env, keys);
  if (count <= 0) {
    THROW_IAE(env, "count 0: a batch needs at least one key");
    return 0;
  }
  if (results_length != count) {
    THROW_IAE(env, "array length mismatch: %d keys but %s has %d elements", (int)count,
              results_name, (int)results_length);
    return 0;
  }
  size_t total = 0;
  for (jsize i = 0; i < count; i++) {
    jbyteArray key = (*env)->GetObjectArrayElement(env, keys, i);
    if (key == NULL) {
      THROW_NPE(env, "keys[%d] is null", (int)i);
      return 0;
    }
    jsize length = (*env)->GetArrayLength(env, key);
    (*env)->DeleteLocalRef(env, key);
    if (length == 0) {
      THROW_IAE(env, "keys[%d] is empty", (int)i);
      return 0;
    }
    total += (size_t)length + 1;
  }
  batch->count = (size_t)count;
  batch->keys = calloc((size_t)count, sizeof(char *));
  batch->key_text = malloc(total);
  if (batch->keys == NULL || batch->key_text == NULL) {
    batch_release(batch);
    THROW_OOM(env, "cannot copy %d keys (%zu bytes)", (int)count, total);
    return 0;
  }
  char *cursor = batch->key_text;
  for (jsize i = 0; i < count; i++) {
    jbyteArray key = (*env)->GetObjectArrayElement(env, keys, i);
    jsize length = key == NULL ? -1 : (*env)->GetArrayLength(env, key);
    /* Another thread may have changed the array since the first pass. */
    if (key == NULL || (size_t)length + 1 > total - (size_t)(cursor - batch->key_text)) {
      batch_release(batch);
      THROW_IAE(env, "keys changed while being copied");
      return 0;
    }
    (*env)->GetByteArrayRegion(env, key, 0, length, (jbyte *)cursor);
    (*env)->DeleteLocalRef(env, key);
    cursor[length] = '\0';
    if (length == 0 || memchr(cursor, '\0', (size_t)length) != NULL) {
      batch_release(batch);
      THROW_IAE(env, "keys[%d] %s", (int)i, length == 0 ? "is empty" : "contains a NUL byte");
      return 0;
    }
    batch->keys[i] = cursor;
    cursor += length + 1;
  }
  return 1;
}

/* Checks and resolves buffers[i][offsets[i], offsets[i] + lengths[i]). 1 on success. */
static int batch_buffers(JNIEnv *env, jobjectArray buffers, jintArray offsets, jintArray lengths,
                         int writable, batch_args *batch) {
  if (buffers == NULL || offsets == NULL || lengths == NULL) {
    THROW_NPE(env, "%s is null", buffers == NULL ? "buffers" : offsets == NULL ? "offsets" : "lengths");
    return 0;
  }
  jsize count = (jsize)batch->count;
  jsize nb = (*env)->GetArrayLength(env, buffers);
  jsize no = (*env)->GetArrayLength(env, offsets);
  jsize nl = (*env)->GetArrayLength(env, lengths);
  if (nb != count || no != count || nl != count) {
    THROW_IAE(env, "array length mismatch: %d keys, %d buffers, %d offsets, %d lengths", (int)count,
              (int)nb, (int)no, (int)nl);
    return 0;
  }
  jint *offset_values = malloc(sizeof(jint) * (size_t)count);
  jint *length_values = malloc(sizeof(jint) * (size_t)count);
  batch->buffers = calloc((size_t)count, sizeof(void *));
  batch->sizes = calloc((size_t)count, sizeof(size_t));
  if (offset_values == NULL || length_values == NULL || batch->buffers == NULL ||
      batch->sizes == NULL) {
    free(offset_values);
    free(length_values);
    THROW_OOM(env, "cannot allocate batch arguments for %d keys", (int)count);
    return 0;
  }
  (*env)->GetIntArrayRegion(env, offsets, 0, count, offset_values);
  (*env)->GetIntArrayRegion(env, lengths, 0, count, length_values);
  int success = 1;
  for (jsize i = 0; i < count && success; i++) {
    jobject buffer = (*env)->GetObjectArrayElement(env, buffers, i);
    char what[48];
    snprintf(what, sizeof what, "buffers[%d]", (int)i);
    int ok;
    char *address = buffer_get(env, buffer, offset_values[i], length_values[i], writable, what, &ok);
    if (buffer != NULL) (*env)->DeleteLocalRef(env, buffer);
    if (!ok) {
      success = 0;
      break;
    }
    batch->buffers[i] = address;
    batch->sizes[i] = (size_t)length_values[i];
  }
  free(offset_values);
  free(length_values);
  return success;
}

/* ---------------------------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------------------------- */

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
  (void)reserved;
  JNIEnv *env;
  if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  if (mcj_handles_init() != 0) return JNI_ERR;
  jclass cls = (*env)->FindClass(env, "dev/mooncake/jcache/nativebridge/NativeBridgeException");
  if (cls == NULL) return JNI_ERR;
  bridge_exception_class = (*env)->NewGlobalRef(env, cls);
  (*env)->DeleteLocalRef(env, cls);
  jclass buffer_class = (*env)->FindClass(env, "java/nio/Buffer");
  if (buffer_class == NULL) return JNI_ERR;
  buffer_is_read_only = (*env)->GetMethodID(env, buffer_class, "isReadOnly", "()Z");
  (*env)->DeleteLocalRef(env, buffer_class);
  if (buffer_is_read_only == NULL || bridge_exception_class == NULL) return JNI_ERR;
  return JNI_VERSION_1_8;
}

static const char *const symbol_names[] = {
#define MCJ_SYMBOL_NAME(ret, name, params) "mooncake_store_" #name,
    MCJ_STORE_FUNCTIONS(MCJ_SYMBOL_NAME)
#undef MCJ_SYMBOL_NAME
};

JNIEXPORT jlong JNICALL JNI_FN(openLibrary)(JNIEnv *env, jclass cls, jstring jpath) {
  (void)cls;
  const char *path = string_get(env, jpath, "library path");
  if (path == NULL) return 0;
  if (path[0] == '\0') {
    string_release(env, jpath, path);
    THROW_IAE(env, "library path is empty");
    return 0;
  }
  dlerror();
  /* RTLD_LOCAL: Mooncake's symbols stay out of the global scope. Never dlclose()d: Mooncake
   * registers atexit handlers and starts threads that run its code until the process ends. */
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (dl == NULL) {
    const char *error = dlerror();
    throw_bridge(env, "cannot load the Mooncake Store library '%s': %s", path,
                 error != NULL ? error : "unknown dlopen error");
    string_release(env, jpath, path);
    return 0;
  }
  mcj_library *library = calloc(1, sizeof *library);
  if (library == NULL) {
    string_release(env, jpath, path);
    THROW_OOM(env, "cannot allocate a library record");
    return 0;
  }
  library->dl = dl;
  library->path = strdup(path);
  void **table = (void **)&library->api;
  char missing[1600];
  size_t missing_length = 0;
  int missing_count = 0;
  char last_error[400] = "";
  missing[0] = '\0';
  for (int i = 0; i < MCJ_STORE_FUNCTION_COUNT; i++) {
    dlerror();
    void *symbol = dlsym(dl, symbol_names[i]);
    if (symbol == NULL) {
      const char *error = dlerror();
      if (error != NULL) snprintf(last_error, sizeof last_error, "%s", error);
      int written = snprintf(missing + missing_length, sizeof missing - missing_length, "%s%s",
                             missing_count == 0 ? "" : ", ", symbol_names[i]);
      if (written > 0 && (size_t)written < sizeof missing - missing_length) {
        missing_length += (size_t)written;
      }
      missing_count++;
    }
    table[i] = symbol;
  }
  if (missing_count > 0) {
    throw_bridge(env,
                 "'%s' lacks %d of the %d Mooncake Store C functions: %s (dlerror: %s); it is "
                 "not a libmooncake_store.so built with -DWITH_STORE_C_SHARED=ON, or not a "
                 "version this bridge supports",
                 path, missing_count, MCJ_STORE_FUNCTION_COUNT, missing,
                 last_error[0] != '\0' ? last_error : "none");
    free(library->path);
    free(library);
    string_release(env, jpath, path);
    return 0;
  }
  string_release(env, jpath, path);
  jlong handle = mcj_handle_new(MCJ_KIND_LIBRARY, library);
  if (handle == 0) {
    free(library->path);
    free(library);
    THROW_ISE(env, "too many open native objects (%d)", MCJ_MAX_HANDLES);
  }
  return handle;
}

JNIEXPORT jint JNICALL JNI_FN(symbolCount)(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return MCJ_STORE_FUNCTION_COUNT;
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

JNIEXPORT jint JNICALL JNI_FN(applyRpcTimeouts)(JNIEnv *env, jclass cls, jlong request_ms,
                                                jlong connect_ms) {
  (void)env;
  (void)cls;
  int applied = 0;
  if (set_env_if_unset("MC_RPC_TIMEOUT_MS", request_ms)) applied |= 1;
  if (set_env_if_unset("MC_RPC_CONNECT_TIMEOUT_MS", connect_ms)) applied |= 2;
  return applied;
}

JNIEXPORT jboolean JNICALL JNI_FN(hostProbeVisible)(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return mcj_host_probe_visible() ? JNI_TRUE : JNI_FALSE;
}

/* ---------------------------------------------------------------------------------------------
 * Store lifecycle
 * ------------------------------------------------------------------------------------------- */

JNIEXPORT jlong JNICALL JNI_FN(create)(JNIEnv *env, jclass cls, jlong library_handle,
                                       jint signal_flags) {
  (void)cls;
  mcj_slot *library_slot;
  mcj_library *library = mcj_handle_enter(library_handle, MCJ_KIND_LIBRARY, &library_slot);
  if (library == NULL) {
    throw_bad_handle(env, MCJ_KIND_LIBRARY, library_handle);
    return 0;
  }
  mcj_store *store = calloc(1, sizeof *store);
  if (store == NULL) {
    mcj_handle_leave(library_slot);
    THROW_OOM(env, "cannot allocate a store record");
    return 0;
  }
  mcj_signal_guard guard;
  mcj_signals_enter(&guard, signal_flags);
  void *mc = library->api.create();
  uint64_t restored = mcj_signals_leave(&guard);
  if (mc == NULL) {
    mcj_handle_leave(library_slot);
    free(store);
    return 0;
  }
  store->library = library; /* libraries are never freed */
  store->mc = mc;
  store->signal_flags = signal_flags;
  store->signals_restored = restored;
  pthread_mutex_init(&store->regions_lock, NULL);
  jlong handle = mcj_handle_new(MCJ_KIND_STORE, store);
  if (handle == 0) {
    library->api.destroy(mc);
    free(store);
    THROW_ISE(env, "too many open native objects (%d)", MCJ_MAX_HANDLES);
  }
  mcj_handle_leave(library_slot);
  return handle;
}

/* The metadata_server forms Mooncake knows. Anything else makes Mooncake LOG(FATAL), i.e. abort
 * the whole process, so it never reaches Mooncake. NULL when acceptable, else the reason. */
static const char *metadata_server_problem(const char *value) {
  if (value[0] == '\0') return "is empty";
  if (strcmp(value, "P2PHANDSHAKE") == 0) return NULL;
  const char *scheme_end = strstr(value, "://");
  if (scheme_end == NULL) return NULL; /* bare host:port means etcd */
  size_t length = (size_t)(scheme_end - value);
  static const char *const schemes[] = {"etcd", "redis", "http", "https"};
  for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
    if (strlen(schemes[i]) == length && strncmp(value, schemes[i], length) == 0) return NULL;
  }
  return "has an unknown scheme (known: P2PHANDSHAKE, etcd://, redis://, http://, https://, or a "
         "bare host:port for etcd); Mooncake would abort the process";
}

JNIEXPORT jint JNICALL JNI_FN(setup)(JNIEnv *env, jclass cls, jlong handle, jstring jlocal_hostname,
                                     jstring jmetadata_server, jlong global_segment_size,
                                     jlong local_buffer_size, jstring jprotocol,
                                     jstring jdevice_name, jstring jmaster_address) {
  (void)cls;
  if (global_segment_size < 0 || local_buffer_size < 0) {
    THROW_IAE(env, "negative size: global_segment_size %lld, local_buffer_size %lld",
              (long long)global_segment_size, (long long)local_buffer_size);
    return 0;
  }
  const char *local_hostname = string_get(env, jlocal_hostname, "local_hostname");
  const char *metadata_server = local_hostname ? string_get(env, jmetadata_server, "metadata_server") : NULL;
  const char *protocol = metadata_server ? string_get(env, jprotocol, "protocol") : NULL;
  const char *device_name = protocol ? string_get(env, jdevice_name, "device_name") : NULL;
  const char *master = device_name ? string_get(env, jmaster_address, "master_server_address") : NULL;
  jint result = 0;
  if (master != NULL) {
    const char *problem = metadata_server_problem(metadata_server);
    if (problem != NULL) {
      THROW_IAE(env, "metadata_server '%s' %s", metadata_server, problem);
    } else if (local_hostname[0] == '\0' || protocol[0] == '\0' || master[0] == '\0') {
      THROW_IAE(env, "%s is empty",
                local_hostname[0] == '\0' ? "local_hostname"
                : protocol[0] == '\0'     ? "protocol"
                                          : "master_server_address");
    } else {
      mcj_slot *slot;
      mcj_store *store = store_enter(env, handle, &slot);
      if (store != NULL) {
        mcj_signal_guard guard;
        mcj_signals_enter(&guard, store->signal_flags);
        result = store->library->api.setup(store->mc, local_hostname, metadata_server,
                                           (uint64_t)global_segment_size,
                                           (uint64_t)local_buffer_size, protocol, device_name,
                                           master);
        uint64_t restored = mcj_signals_leave(&guard);
        __atomic_fetch_or(&store->signals_restored, restored, __ATOMIC_SEQ_CST);
        mcj_handle_leave(slot);
      }
    }
  }
  string_release(env, jlocal_hostname, local_hostname);
  string_release(env, jmetadata_server, metadata_server);
  string_release(env, jprotocol, protocol);
  string_release(env, jdevice_name, device_name);
  string_release(env, jmaster_address, master);
  return result;
}

JNIEXPORT jint JNICALL JNI_FN(initAll)(JNIEnv *env, jclass cls, jlong handle, jstring jprotocol,
                                       jstring jdevice_name, jlong mount_segment_size) {
  (void)cls;
  if (mount_segment_size < 0) {
    THROW_IAE(env, "negative mount_segment_size %lld", (long long)mount_segment_size);
    return 0;
  }
  const char *protocol = string_get(env, jprotocol, "protocol");
  const char *device_name = protocol ? string_get(env, jdevice_name, "device_name") : NULL;
  jint result = 0;
  if (device_name != NULL) {
    if (protocol[0] == '\0') {
      THROW_IAE(env, "protocol is empty");
    } else {
      mcj_slot *slot;
      mcj_store *store = store_enter(env, handle, &slot);
      if (store != NULL) {
        mcj_signal_guard guard;
        mcj_signals_enter(&guard, store->signal_flags);
        result = store->library->api.init_all(store->mc, protocol, device_name,
                                              (uint64_t)mount_segment_size);
        uint64_t restored = mcj_signals_leave(&guard);
        __atomic_fetch_or(&store->signals_restored, restored, __ATOMIC_SEQ_CST);
        mcj_handle_leave(slot);
      }
    }
  }
  string_release(env, jprotocol, protocol);
  string_release(env, jdevice_name, device_name);
  return result;
}

JNIEXPORT jlong JNICALL JNI_FN(signalsRestored)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_store *store = store_enter(env, handle, &slot);
  if (store == NULL) return 0;
  jlong restored = (jlong)__atomic_load_n(&store->signals_restored, __ATOMIC_SEQ_CST);
  mcj_handle_leave(slot);
  return restored;
}

JNIEXPORT jint JNICALL JNI_FN(healthCheck)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_store *store = store_enter(env, handle, &slot);
  if (store == NULL) return 0;
  jint result = store->library->api.health_check(store->mc);
  mcj_handle_leave(slot);
  return result;
}

/* Waits for calls in flight, unregisters the regions registered through this store, destroys the
 * Mooncake client. A second destroy throws IllegalStateException. */
JNIEXPORT void JNICALL JNI_FN(destroy)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_store *store = mcj_handle_lock_exclusive(handle, MCJ_KIND_STORE, &slot);
  if (store == NULL) {
    throw_bad_handle(env, MCJ_KIND_STORE, handle);
    return;
  }
  pthread_mutex_lock(&store->regions_lock);
  for (int i = 0; i < store->region_count; i++) {
    store->library->api.unregister_buffer(store->mc, store->regions[i]->base);
    __atomic_fetch_sub(&store->regions[i]->registrations, 1, __ATOMIC_SEQ_CST);
  }
  store->region_count = 0;
  pthread_mutex_unlock(&store->regions_lock);
  store->library->api.destroy(store->mc);
  mcj_handle_unlock_exclusive(slot, 1);
  pthread_mutex_destroy(&store->regions_lock);
  free(store);
}

/* ---------------------------------------------------------------------------------------------
 * Replicate config
 * ------------------------------------------------------------------------------------------- */

static void replica_free(mcj_replica *replica) {
  if (replica == NULL) return;
  if (replica->segments != NULL) {
    for (size_t i = 0; i < replica->config.preferred_segments_count; i++) free(replica->segments[i]);
    free(replica->segments);
  }
  free(replica);
}

JNIEXPORT jlong JNICALL JNI_FN(newReplicaConfig)(JNIEnv *env, jclass cls, jlong replica_num,
                                                 jboolean soft_pin, jboolean hard_pin,
                                                 jobjectArray preferred) {
  (void)cls;
  if (replica_num < 0) {
    THROW_IAE(env, "negative replica_num %lld", (long long)replica_num);
    return 0;
  }
  jsize count = preferred == NULL ? 0 : (*env)->GetArrayLength(env, preferred);
  mcj_replica *replica = calloc(1, sizeof *replica);
  if (replica == NULL || (count > 0 && (replica->segments = calloc((size_t)count, sizeof(char *))) == NULL)) {
    free(replica);
    THROW_OOM(env, "cannot allocate a replicate config");
    return 0;
  }
  for (jsize i = 0; i < count; i++) {
    jstring segment = (*env)->GetObjectArrayElement(env, preferred, i);
    if (segment == NULL) {
      replica_free(replica);
      THROW_NPE(env, "preferred_segments[%d] is null", (int)i);
      return 0;
    }
    const char *chars = (*env)->GetStringUTFChars(env, segment, NULL);
    if (chars == NULL) {
      replica_free(replica);
      return 0;
    }
    replica->segments[i] = strdup(chars);
    (*env)->ReleaseStringUTFChars(env, segment, chars);
    (*env)->DeleteLocalRef(env, segment);
    replica->config.preferred_segments_count = (size_t)i + 1; /* for replica_free */
    if (replica->segments[i] == NULL) {
      replica_free(replica);
      THROW_OOM(env, "cannot copy a preferred segment");
      return 0;
    }
    if (replica->segments[i][0] == '\0') {
      replica_free(replica);
      THROW_IAE(env, "preferred_segments[%d] is empty", (int)i);
      return 0;
    }
  }
  replica->config.replica_num = (size_t)replica_num;
  replica->config.with_soft_pin = soft_pin ? 1 : 0;
  replica->config.with_hard_pin = hard_pin ? 1 : 0;
  replica->config.preferred_segments = (const char **)replica->segments;
  replica->config.preferred_segments_count = (size_t)count;
  jlong handle = mcj_handle_new(MCJ_KIND_REPLICA, replica);
  if (handle == 0) {
    replica_free(replica);
    THROW_ISE(env, "too many open native objects (%d)", MCJ_MAX_HANDLES);
  }
  return handle;
}

JNIEXPORT void JNICALL JNI_FN(freeReplicaConfig)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_replica *replica = mcj_handle_lock_exclusive(handle, MCJ_KIND_REPLICA, &slot);
  if (replica == NULL) {
    throw_bad_handle(env, MCJ_KIND_REPLICA, handle);
    return;
  }
  mcj_handle_unlock_exclusive(slot, 1);
  replica_free(replica);
}

/* ---------------------------------------------------------------------------------------------
 * Single-key calls
 * ------------------------------------------------------------------------------------------- */

static jint put_common(JNIEnv *env, jlong handle, jbyteArray jkey, jobject buffer, jint offset,
                       jint length, jlong config_handle, int from) {
  key_copy key;
  if (key_get(env, jkey, "key", &key) == NULL) return 0;
  int ok;
  char *address = buffer_get(env, buffer, offset, length, 0, "value", &ok);
  jint result = 0;
  if (ok) {
    mcj_slot *slot, *config_slot;
    const mcj_replicate_config *config;
    mcj_store *store = store_enter(env, handle, &slot);
    if (store != NULL) {
      if (replica_enter(env, config_handle, &config_slot, &config)) {
        result = from ? store->library->api.put_from(store->mc, key.text, address, (size_t)length, config)
                      : store->library->api.put(store->mc, key.text, address, (size_t)length, config);
        replica_leave(config_slot);
      }
      mcj_handle_leave(slot);
    }
  }
  key_release(&key);
  return result;
}

JNIEXPORT jint JNICALL JNI_FN(put)(JNIEnv *env, jclass cls, jlong handle, jbyteArray key,
                                   jobject value, jint offset, jint length, jlong config) {
  (void)cls;
  return put_common(env, handle, key, value, offset, length, config, 0);
}

JNIEXPORT jint JNICALL JNI_FN(putFrom)(JNIEnv *env, jclass cls, jlong handle, jbyteArray key,
                                       jobject value, jint offset, jint length, jlong config) {
  (void)cls;
  return put_common(env, handle, key, value, offset, length, config, 1);
}

JNIEXPORT jlong JNICALL JNI_FN(getInto)(JNIEnv *env, jclass cls, jlong handle, jbyteArray jkey,
                                        jobject destination, jint offset, jint length) {
  (void)cls;
  key_copy key;
  if (key_get(env, jkey, "key", &key) == NULL) return 0;
  int ok;
  char *address = buffer_get(env, destination, offset, length, 1, "destination", &ok);
  jlong result = 0;
  if (ok) {
    mcj_slot *slot;
    mcj_store *store = store_enter(env, handle, &slot);
    if (store != NULL) {
      result = store->library->api.get_into(store->mc, key.text, address, (size_t)length);
      mcj_handle_leave(slot);
    }
  }
  key_release(&key);
  return result;
}

JNIEXPORT jint JNICALL JNI_FN(isExist)(JNIEnv *env, jclass cls, jlong handle, jbyteArray jkey) {
  (void)cls;
  key_copy key;
  if (key_get(env, jkey, "key", &key) == NULL) return 0;
  jint result = 0;
  mcj_slot *slot;
  mcj_store *store = store_enter(env, handle, &slot);
  if (store != NULL) {
    result = store->library->api.is_exist(store->mc, key.text);
    mcj_handle_leave(slot);
  }
  key_release(&key);
  return result;
}

JNIEXPORT jlong JNICALL JNI_FN(getSize)(JNIEnv *env, jclass cls, jlong handle, jbyteArray jkey) {
  (void)cls;
  key_copy key;
  if (key_get(env, jkey, "key", &key) == NULL) return 0;
  jlong result = 0;
  mcj_slot *slot;
  mcj_store *store = store_enter(env, handle, &slot);
  if (store != NULL) {
    result = store->library->api.get_size(store->mc, key.text);
    mcj_handle_leave(slot);
  }
  key_release(&key);
  return result;
}

JNIEXPORT jint JNICALL JNI_FN(remove)(JNIEnv *env, jclass cls, jlong handle, jbyteArray jkey,
                                      jboolean force) {
  (void)cls;
  key_copy key;
  if (key_get(env, jkey, "key", &key) == NULL) return 0;
  jint result = 0;
  mcj_slot *slot;
  mcj_store *store = store_enter(env, handle, &slot);
  if (store != NULL) {
    result = store->library->api.remove(store->mc, key.text, force ? 1 : 0);
    mcj_handle_leave(slot);
  }
  key_release(&key);
  return result;
}

JNIEXPORT jlong JNICALL JNI_FN(removeByRegex)(JNIEnv *env, jclass cls, jlong handle,
                                              jbyteArray jpattern, jboolean force) {
  (void)cls;
  key_copy pattern;
  if (key_get(env, jpattern, "pattern", &pattern) == NULL) return 0;
  jlong result = 0;
  mcj_slot *slot;
  mcj_store *store = store_enter(env, handle, &slot);
  if (store != NULL) {
    result = store->library->api.remove_by_regex(store->mc, pattern.text, force ? 1 : 0);
    mcj_handle_leave(slot);
  }
  key_release(&pattern);
  return result;
}

JNIEXPORT jlong JNICALL JNI_FN(removeAll)(JNIEnv *env, jclass cls, jlong handle, jboolean force) {
  (void)cls;
  mcj_slot *slot;
  mcj_store *store = store_enter(env, handle, &slot);
  if (store == NULL) return 0;
  jlong result = store->library->api.remove_all(store->mc, force ? 1 : 0);
  mcj_handle_leave(slot);
  return result;
}

JNIEXPORT jint JNICALL JNI_FN(getHostname)(JNIEnv *env, jclass cls, jlong handle, jbyteArray out) {
  (void)cls;
  if (out == NULL) {
    THROW_NPE(env, "out is null");
    return 0;
  }
  jsize capacity = (*env)->GetArrayLength(env, out);
  if (capacity == 0) {
    THROW_IAE(env, "out has length 0");
    return 0;
  }
  char *text = calloc((size_t)capacity, 1);
  if (text == NULL) {
    THROW_OOM(env, "cannot allocate %d bytes", (int)capacity);
    return 0;
  }
  jint result = 0;
  mcj_slot *slot;
  mcj_store *store = store_enter(env, handle, &slot);
  if (store != NULL) {
    result = store->library->api.get_hostname(store->mc, text, (size_t)capacity);
    mcj_handle_leave(slot);
    text[capacity - 1] = '\0'; /* whatever the library did */
    if (result == 0) (*env)->SetByteArrayRegion(env, out, 0, capacity, (const jbyte *)text);
  }
  free(text);
  return result;
}

/* ---------------------------------------------------------------------------------------------
 * Batch calls
 * ------------------------------------------------------------------------------------------- */

JNIEXPORT jint JNICALL JNI_FN(batchPutFrom)(JNIEnv *env, jclass cls, jlong handle,
                                            jobjectArray keys, jobjectArray buffers,
                                            jintArray offsets, jintArray lengths,
                                            jlong config_handle, jintArray results) {
  (void)cls;
  if (results == NULL) {
    THROW_NPE(env, "results is null");
    return 0;
  }
  batch_args batch;
  if (!batch_keys(env, keys, (*env)->GetArrayLength(env, results), "results", &batch)) return 0;
  jint result = 0;
  if (batch_buffers(env, buffers, offsets, lengths, 0, &batch)) {
    int *codes = calloc(batch.count, sizeof(int));
    if (codes == NULL) {
      THROW_OOM(env, "cannot allocate results for %zu keys", batch.count);
    } else {
      mcj_slot *slot, *config_slot;
      const mcj_replicate_config *config;
      mcj_store *store = store_enter(env, handle, &slot);
      if (store != NULL) {
        if (replica_enter(env, config_handle, &config_slot, &config)) {
          result = store->library->api.batch_put_from(store->mc, batch.keys, batch.buffers,
                                                      batch.sizes, batch.count, config, codes);
          replica_leave(config_slot);
        }
        mcj_handle_leave(slot);
        if (!(*env)->ExceptionCheck(env)) {
          (*env)->SetIntArrayRegion(env, results, 0, (jsize)batch.count, (const jint *)codes);
        }
      }
      free(codes);
    }
  }
  batch_release(&batch);
  return result;
}

JNIEXPORT jint JNICALL JNI_FN(batchGetInto)(JNIEnv *env, jclass cls, jlong handle,
                                            jobjectArray keys, jobjectArray buffers,
                                            jintArray offsets, jintArray lengths,
                                            jlongArray results) {
  (void)cls;
  if (results == NULL) {
    THROW_NPE(env, "results is null");
    return 0;
  }
  batch_args batch;
  if (!batch_keys(env, keys, (*env)->GetArrayLength(env, results), "results", &batch)) return 0;
  jint result = 0;
  if (batch_buffers(env, buffers, offsets, lengths, 1, &batch)) {
    int64_t *values = calloc(batch.count, sizeof(int64_t));
    if (values == NULL) {
      THROW_OOM(env, "cannot allocate results for %zu keys", batch.count);
    } else {
      mcj_slot *slot;
      mcj_store *store = store_enter(env, handle, &slot);
      if (store != NULL) {
        result = store->library->api.batch_get_into(store->mc, batch.keys, batch.buffers,
                                                    batch.sizes, batch.count, values);
        mcj_handle_leave(slot);
        (*env)->SetLongArrayRegion(env, results, 0, (jsize)batch.count, (const jlong *)values);
      }
      free(values);
    }
  }
  batch_release(&batch);
  return result;
}

JNIEXPORT jint JNICALL JNI_FN(batchIsExist)(JNIEnv *env, jclass cls, jlong handle,
                                            jobjectArray keys, jintArray results) {
  (void)cls;
  if (results == NULL) {
    THROW_NPE(env, "results is null");
    return 0;
  }
  batch_args batch;
  if (!batch_keys(env, keys, (*env)->GetArrayLength(env, results), "results", &batch)) return 0;
  jint result = 0;
  int *codes = calloc(batch.count, sizeof(int));
  if (codes == NULL) {
    THROW_OOM(env, "cannot allocate results for %zu keys", batch.count);
  } else {
    mcj_slot *slot;
    mcj_store *store = store_enter(env, handle, &slot);
    if (store != NULL) {
      result = store->library->api.batch_is_exist(store->mc, batch.keys, batch.count, codes);
      mcj_handle_leave(slot);
      (*env)->SetIntArrayRegion(env, results, 0, (jsize)batch.count, (const jint *)codes);
    }
    free(codes);
  }
  batch_release(&batch);
  return result;
}

/* ---------------------------------------------------------------------------------------------
 * Caller buffers
 * ------------------------------------------------------------------------------------------- */

JNIEXPORT jint JNICALL JNI_FN(registerBuffer)(JNIEnv *env, jclass cls, jlong handle, jobject buffer,
                                              jint offset, jint length) {
  (void)cls;
  int ok;
  char *address = buffer_get(env, buffer, offset, length, 0, "buffer", &ok);
  if (!ok) return 0;
  if (length == 0) {
    THROW_IAE(env, "cannot register 0 bytes");
    return 0;
  }
  mcj_slot *slot;
  mcj_store *store = store_enter(env, handle, &slot);
  if (store == NULL) return 0;
  jint result = store->library->api.register_buffer(store->mc, address, (size_t)length);
  mcj_handle_leave(slot);
  return result;
}

JNIEXPORT jint JNICALL JNI_FN(unregisterBuffer)(JNIEnv *env, jclass cls, jlong handle,
                                                jobject buffer, jint offset) {
  (void)cls;
  int ok;
  char *address = buffer_get(env, buffer, offset, 0, 0, "buffer", &ok);
  if (!ok) return 0;
  if (address == NULL) {
    THROW_IAE(env, "buffer has capacity 0");
    return 0;
  }
  mcj_slot *slot;
  mcj_store *store = store_enter(env, handle, &slot);
  if (store == NULL) return 0;
  jint result = store->library->api.unregister_buffer(store->mc, address);
  mcj_handle_leave(slot);
  return result;
}

JNIEXPORT jlong JNICALL JNI_FN(bufferAddress)(JNIEnv *env, jclass cls, jobject buffer) {
  (void)cls;
  if (buffer == NULL) {
    THROW_NPE(env, "buffer is null");
    return 0;
  }
  if ((*env)->GetDirectBufferCapacity(env, buffer) < 0) return 0;
  return (jlong)(intptr_t)(*env)->GetDirectBufferAddress(env, buffer);
}

/* ---------------------------------------------------------------------------------------------
 * Regions: one mmap'ed range outside the Java heap and outside MaxDirectMemorySize, handed out
 * as direct ByteBuffer views. The mapping is only unmapped once no view of it is reachable any
 * more (checked through weak references), so a stale view can never point at unmapped memory.
 * ------------------------------------------------------------------------------------------- */

JNIEXPORT jlong JNICALL JNI_FN(regionAllocate)(JNIEnv *env, jclass cls, jlong size) {
  (void)cls;
  if (size <= 0) {
    THROW_IAE(env, "region size must be positive, not %lld", (long long)size);
    return 0;
  }
  /* MAP_NORESERVE: the region is an upper bound; pages are committed when first touched (or
   * pinned by an RDMA registration). */
  void *base = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    int error = errno;
    throw_bridge(env, "cannot map a region of %lld bytes: %s", (long long)size, strerror(error));
    return 0;
  }
  /* A forked child must not share registered (possibly pinned) pages. */
  madvise(base, (size_t)size, MADV_DONTFORK);
  mcj_region *region = calloc(1, sizeof *region);
  if (region == NULL) {
    munmap(base, (size_t)size);
    THROW_OOM(env, "cannot allocate a region record");
    return 0;
  }
  region->base = base;
  region->size = (size_t)size;
  region->state = REGION_OPEN;
  pthread_mutex_init(&region->views_lock, NULL);
  jlong handle = mcj_handle_new(MCJ_KIND_REGION, region);
  if (handle == 0) {
    munmap(base, (size_t)size);
    pthread_mutex_destroy(&region->views_lock);
    free(region);
    THROW_ISE(env, "too many open native objects (%d)", MCJ_MAX_HANDLES);
  }
  return handle;
}

static mcj_region *region_enter(JNIEnv *env, jlong handle, mcj_slot **slot) {
  mcj_region *region = mcj_handle_enter(handle, MCJ_KIND_REGION, slot);
  if (region == NULL) throw_bad_handle(env, MCJ_KIND_REGION, handle);
  return region;
}

JNIEXPORT jobject JNICALL JNI_FN(regionView)(JNIEnv *env, jclass cls, jlong handle, jlong offset,
                                             jint length) {
  (void)cls;
  mcj_slot *slot;
  mcj_region *region = region_enter(env, handle, &slot);
  if (region == NULL) return NULL;
  jobject view = NULL;
  if (region->state != REGION_OPEN) {
    THROW_ISE(env, "region is released");
  } else if (offset < 0 || length < 0 || (uint64_t)offset + (uint64_t)length > region->size) {
    THROW_IAE(env, "view [%lld, %lld) is outside the region of %zu bytes", (long long)offset,
              (long long)offset + length, region->size);
  } else {
    pthread_mutex_lock(&region->views_lock);
    if (region->view_count == region->view_capacity) {
      /* Drop views that are gone before growing. */
      int kept = 0;
      for (int i = 0; i < region->view_count; i++) {
        if ((*env)->IsSameObject(env, region->views[i], NULL)) {
          (*env)->DeleteWeakGlobalRef(env, region->views[i]);
        } else {
          region->views[kept++] = region->views[i];
        }
      }
      region->view_count = kept;
    }
    if (region->view_count == region->view_capacity) {
      int capacity = region->view_capacity == 0 ? 16 : region->view_capacity * 2;
      jweak *grown = realloc(region->views, sizeof(jweak) * (size_t)capacity);
      if (grown != NULL) {
        region->views = grown;
        region->view_capacity = capacity;
      }
    }
    if (region->view_count == region->view_capacity) {
      THROW_OOM(env, "cannot track another region view");
    } else {
      view = (*env)->NewDirectByteBuffer(env, region->base + offset, (jlong)length);
      if (view != NULL) {
        jweak weak = (*env)->NewWeakGlobalRef(env, view);
        if (weak == NULL) {
          view = NULL; /* OutOfMemoryError pending */
        } else {
          region->views[region->view_count++] = weak;
        }
      }
    }
    pthread_mutex_unlock(&region->views_lock);
  }
  mcj_handle_leave(slot);
  return view;
}

JNIEXPORT jlong JNICALL JNI_FN(regionAddress)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_region *region = region_enter(env, handle, &slot);
  if (region == NULL) return 0;
  jlong address = (jlong)(intptr_t)region->base;
  mcj_handle_leave(slot);
  return address;
}

JNIEXPORT jlong JNICALL JNI_FN(regionSize)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_region *region = region_enter(env, handle, &slot);
  if (region == NULL) return 0;
  jlong size = (jlong)region->size;
  mcj_handle_leave(slot);
  return size;
}

JNIEXPORT jint JNICALL JNI_FN(regionLiveViews)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_region *region = region_enter(env, handle, &slot);
  if (region == NULL) return 0;
  int live = 0;
  pthread_mutex_lock(&region->views_lock);
  for (int i = 0; i < region->view_count; i++) {
    if (!(*env)->IsSameObject(env, region->views[i], NULL)) live++;
  }
  pthread_mutex_unlock(&region->views_lock);
  mcj_handle_leave(slot);
  return live;
}

JNIEXPORT jint JNICALL JNI_FN(registerRegion)(JNIEnv *env, jclass cls, jlong store_handle,
                                              jlong region_handle) {
  (void)cls;
  mcj_slot *store_slot, *region_slot;
  mcj_store *store = store_enter(env, store_handle, &store_slot);
  if (store == NULL) return 0;
  mcj_region *region = region_enter(env, region_handle, &region_slot);
  if (region == NULL) {
    mcj_handle_leave(store_slot);
    return 0;
  }
  jint result = 0;
  if (region->state != REGION_OPEN) {
    THROW_ISE(env, "region is released");
  } else {
    pthread_mutex_lock(&store->regions_lock);
    if (store->region_count == MCJ_MAX_STORE_REGIONS) {
      THROW_ISE(env, "a store can register at most %d regions", MCJ_MAX_STORE_REGIONS);
    } else {
      result = store->library->api.register_buffer(store->mc, region->base, region->size);
      if (result == 0) {
        store->regions[store->region_count++] = region;
        __atomic_fetch_add(&region->registrations, 1, __ATOMIC_SEQ_CST);
      }
    }
    pthread_mutex_unlock(&store->regions_lock);
  }
  mcj_handle_leave(region_slot);
  mcj_handle_leave(store_slot);
  return result;
}

JNIEXPORT jint JNICALL JNI_FN(unregisterRegion)(JNIEnv *env, jclass cls, jlong store_handle,
                                                jlong region_handle) {
  (void)cls;
  mcj_slot *store_slot, *region_slot;
  mcj_store *store = store_enter(env, store_handle, &store_slot);
  if (store == NULL) return 0;
  mcj_region *region = region_enter(env, region_handle, &region_slot);
  if (region == NULL) {
    mcj_handle_leave(store_slot);
    return 0;
  }
  pthread_mutex_lock(&store->regions_lock);
  int index = -1;
  for (int i = 0; i < store->region_count; i++) {
    if (store->regions[i] == region) index = i;
  }
  /* Not registered through this store: let Mooncake answer (it says -600). */
  jint result = store->library->api.unregister_buffer(store->mc, region->base);
  if (result == 0 && index >= 0) {
    store->regions[index] = store->regions[--store->region_count];
    __atomic_fetch_sub(&region->registrations, 1, __ATOMIC_SEQ_CST);
  }
  pthread_mutex_unlock(&store->regions_lock);
  mcj_handle_leave(region_slot);
  mcj_handle_leave(store_slot);
  return result;
}

/* No more views or registrations; the pages are given back to the system now (a stale view reads
 * zeros from here on instead of faulting). The mapping stays until regionFree. */
JNIEXPORT void JNICALL JNI_FN(regionRelease)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_region *region = mcj_handle_lock_exclusive(handle, MCJ_KIND_REGION, &slot);
  if (region == NULL) {
    throw_bad_handle(env, MCJ_KIND_REGION, handle);
    return;
  }
  int registrations = region_registrations(region);
  if (region->state != REGION_OPEN) {
    THROW_ISE(env, "region is already released");
  } else if (registrations > 0) {
    THROW_ISE(env, "region is still registered with %d store(s); unregister it first",
              registrations);
  } else {
    region->state = REGION_RELEASED;
    madvise(region->base, region->size, MADV_DONTNEED);
  }
  mcj_handle_unlock_exclusive(slot, 0);
}

/* Unmaps a released region once no view of it is reachable; JNI_FALSE (and nothing done) while
 * one still is. After JNI_TRUE the handle is dead. */
JNIEXPORT jboolean JNICALL JNI_FN(regionFree)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_region *region = mcj_handle_lock_exclusive(handle, MCJ_KIND_REGION, &slot);
  if (region == NULL) {
    throw_bad_handle(env, MCJ_KIND_REGION, handle);
    return JNI_FALSE;
  }
  if (region->state != REGION_RELEASED) {
    mcj_handle_unlock_exclusive(slot, 0);
    THROW_ISE(env, "region must be released before it is freed");
    return JNI_FALSE;
  }
  for (int i = 0; i < region->view_count; i++) {
    if (!(*env)->IsSameObject(env, region->views[i], NULL)) {
      mcj_handle_unlock_exclusive(slot, 0);
      return JNI_FALSE;
    }
  }
  for (int i = 0; i < region->view_count; i++) (*env)->DeleteWeakGlobalRef(env, region->views[i]);
  mcj_handle_unlock_exclusive(slot, 1);
  munmap(region->base, region->size);
  free(region->views);
  pthread_mutex_destroy(&region->views_lock);
  free(region);
  return JNI_TRUE;
}
