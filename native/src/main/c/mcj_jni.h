/*
 * What every JNI source file of the bridge shares: the objects behind the handles, the exceptions,
 * and argument views that are checked on the way in and released on one cleanup path.
 *
 * Rules every entry point follows:
 *  - no Java input may crash the JVM: handles are looked up in the handle table (mcj_handles.h),
 *    never dereferenced; every array, key, buffer, offset and length is checked before Mooncake
 *    sees it; a failed check throws NullPointerException / IllegalArgumentException with a
 *    message and nothing is called;
 *  - a zero, stale, closed or forged handle throws ClosedHandleException (an
 *    IllegalStateException); other refused states (a released region, a full handle table) throw
 *    something else, so that callers can tell "closed" from them;
 *  - Mooncake's result codes are returned as they are; only whole-bridge failures (library or
 *    symbols missing, memory) throw NativeBridgeException;
 *  - one shape: resources start NULL, every failure does `goto cleanup`, cleanup releases
 *    whatever was taken (the helpers below accept what was never taken).
 */
#ifndef MCJ_JNI_H
#define MCJ_JNI_H

#include <jni.h>
#include <pthread.h>
#include <stdint.h>

#include "mcj_handles.h"
#include "mooncake_store_abi.h"

#define MCJ_JNI(cls, name) Java_dev_mooncake_jcache_nativebridge_##cls##_##name

/* --- Objects behind the handles -------------------------------------------------------------- */

typedef struct mcj_library {
  void *dl;
  char *path;
  mcj_store_api api; /* required functions all set; optional ones NULL when absent */
} mcj_library;

#define MCJ_MAX_STORE_REGIONS 16

typedef struct mcj_region mcj_region;

typedef struct mcj_store {
  mcj_library *library;
  void *mc;
  int abi;                        /* enum mcj_abi: the layout the user named, or UNKNOWN */
  int set_up;                     /* a setup answered 0; atomic */
  int signal_flags;
  uint64_t signals_restored;      /* cumulative, see mcj_signals_leave */
  pthread_mutex_t regions_lock;   /* guards regions / region_count */
  mcj_region *regions[MCJ_MAX_STORE_REGIONS];
  int region_count;
} mcj_store;

typedef struct mcj_replica {
  int abi;                        /* the layout `block` is encoded in */
  mcj_replicate_config_block block;
  char **segments;
  size_t segment_count;
} mcj_replica;

enum { MCJ_REGION_OPEN = 0, MCJ_REGION_RELEASED = 1 };

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

/* --- Exceptions (mcj_errors.c); each does nothing when an exception is already pending ------- */

void mcj_throw_npe(JNIEnv *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mcj_throw_iae(JNIEnv *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mcj_throw_ise(JNIEnv *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mcj_throw_oom(JNIEnv *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mcj_throw_bridge(JNIEnv *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ClosedHandleException for a zero, forged, stale or closed handle of that kind. */
void mcj_throw_closed(JNIEnv *env, int kind, jlong handle);
/* NativeBridgeException: the handle table is full. */
void mcj_throw_table_full(JNIEnv *env);

/* Buffer.isReadOnly(), cached by JNI_OnLoad. */
extern jmethodID mcj_buffer_is_read_only;

/* --- Handles --------------------------------------------------------------------------------- */

/* Read-locks the slot of an open handle of that kind; NULL with ClosedHandleException pending. */
void *mcj_enter(JNIEnv *env, jlong handle, int kind, mcj_slot **slot);
/* Write-locks it (waits for calls in flight); NULL with ClosedHandleException pending. */
void *mcj_enter_exclusive(JNIEnv *env, jlong handle, int kind, mcj_slot **slot);
/* Leaves a read-locked slot; NULL (never entered) is fine. Sets *slot to NULL. */
void mcj_leave(mcj_slot **slot);
/* Ends an exclusive section (mcj_enter_exclusive); with free_slot the handle is dead from now on.
 * NULL (never entered) is fine. Sets *slot to NULL. */
void mcj_leave_exclusive(mcj_slot **slot, int free_slot);

/* The open store behind a handle, read-locked; NULL with ClosedHandleException pending. */
mcj_store *mcj_store_enter(JNIEnv *env, jlong handle, mcj_slot **slot);
/* The region behind a handle, read-locked, if it is not released; NULL with an exception pending
 * (ClosedHandleException, or IllegalStateException for a released region, its slot left). */
mcj_region *mcj_region_enter_open(JNIEnv *env, jlong handle, mcj_slot **slot);

/*
 * An entry point `fn(handle)` that only reads something of the handle's object under the slot's
 * read lock: `expr` sees the object as `object`; 0 when the handle is refused (exception pending).
 * Written in the one cleanup shape, so such one-liners do not each spell it out.
 */
#define MCJ_READ_ENTRY(rtype, fn, kind, otype, expr)          \
  JNIEXPORT rtype JNICALL fn(JNIEnv *env, jclass cls, jlong handle) { \
    (void)cls;                                                \
    rtype result = 0;                                         \
    mcj_slot *slot = NULL;                                    \
    otype *object = mcj_enter(env, handle, kind, &slot);      \
    if (object == NULL) goto cleanup;                         \
    result = (rtype)(expr);                                   \
  cleanup:                                                    \
    mcj_leave(&slot);                                         \
    return result;                                            \
  }

/* The replicate config a put passes: NULL for handle 0 (Mooncake's default), else the encoded
 * block, after checking it was made for this store's layout. *ok is 0 with an exception pending. */
const mcj_replicate_config *mcj_replica_enter(JNIEnv *env, jlong handle, const mcj_store *store,
                                              mcj_slot **slot, int *ok);

/* --- Argument views -------------------------------------------------------------------------- */

/* A key or pattern copied out of a Java byte[] and NUL-terminated. */
typedef struct mcj_key {
  char *text;
  char inline_text[256];
} mcj_key;

/* Checks (not null, not empty, no NUL) and copies; NULL with an exception pending on failure. */
const char *mcj_key_get(JNIEnv *env, jbyteArray key, const char *what, mcj_key *copy);
void mcj_key_release(mcj_key *copy);

/*
 * The address of buffer[offset, offset + length), after checking: not null, direct, offset and
 * length non-negative and inside the capacity, and (writable) not read-only. *ok tells a
 * legitimately NULL address (capacity 0) from failure (0, exception pending).
 */
char *mcj_buffer_get(JNIEnv *env, jobject buffer, jint offset, jint length, int writable,
                     const char *what, int *ok);

/* A Java string's modified UTF-8, or NULL with an exception pending (null throws NPE). */
typedef struct mcj_string {
  jstring value;
  const char *chars;
} mcj_string;

const char *mcj_string_get(JNIEnv *env, jstring value, const char *what, mcj_string *view);
void mcj_string_release(JNIEnv *env, mcj_string *view);

#endif /* MCJ_JNI_H */
