/*
 * Errors and argument checks: the exceptions every entry point throws, the handle lookups that
 * throw on a bad handle, the argument views of mcj_jni.h, and JNI_OnLoad, which caches the
 * classes they need.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcj_jni.h"

static jclass bridge_exception_class; /* global refs, from JNI_OnLoad */
static jclass closed_exception_class;
jmethodID mcj_buffer_is_read_only;

static jclass global_class(JNIEnv *env, const char *name) {
  jclass local = (*env)->FindClass(env, name);
  if (local == NULL) return NULL;
  jclass global = (*env)->NewGlobalRef(env, local);
  (*env)->DeleteLocalRef(env, local);
  return global;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
  (void)reserved;
  JNIEnv *env;
  if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  if (mcj_handles_init() != 0) return JNI_ERR;
  bridge_exception_class =
      global_class(env, "dev/mooncake/jcache/nativebridge/NativeBridgeException");
  closed_exception_class =
      global_class(env, "dev/mooncake/jcache/nativebridge/ClosedHandleException");
  jclass buffer_class = (*env)->FindClass(env, "java/nio/Buffer");
  if (buffer_class == NULL || bridge_exception_class == NULL || closed_exception_class == NULL) {
    return JNI_ERR;
  }
  mcj_buffer_is_read_only = (*env)->GetMethodID(env, buffer_class, "isReadOnly", "()Z");
  (*env)->DeleteLocalRef(env, buffer_class);
  return mcj_buffer_is_read_only == NULL ? JNI_ERR : JNI_VERSION_1_8;
}

/* --- Exceptions ------------------------------------------------------------------------------ */

static void throw_class(JNIEnv *env, jclass cls, const char *fmt, va_list args) {
  if ((*env)->ExceptionCheck(env) || cls == NULL) return;
  char message[2048];
  vsnprintf(message, sizeof message, fmt, args);
  (*env)->ThrowNew(env, cls, message);
}

static void throw_named(JNIEnv *env, const char *class_name, const char *fmt, va_list args) {
  if ((*env)->ExceptionCheck(env)) return;
  jclass cls = (*env)->FindClass(env, class_name);
  if (cls == NULL) return; /* FindClass threw NoClassDefFoundError */
  throw_class(env, cls, fmt, args);
  (*env)->DeleteLocalRef(env, cls);
}

#define DEFINE_THROW(function, class_name)                   \
  void function(JNIEnv *env, const char *fmt, ...) {         \
    va_list args;                                            \
    va_start(args, fmt);                                     \
    throw_named(env, class_name, fmt, args);                 \
    va_end(args);                                            \
  }

DEFINE_THROW(mcj_throw_npe, "java/lang/NullPointerException")
DEFINE_THROW(mcj_throw_iae, "java/lang/IllegalArgumentException")
DEFINE_THROW(mcj_throw_ise, "java/lang/IllegalStateException")
DEFINE_THROW(mcj_throw_oom, "java/lang/OutOfMemoryError")

void mcj_throw_bridge(JNIEnv *env, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  throw_class(env, bridge_exception_class, fmt, args);
  va_end(args);
}

static void throw_closed_class(JNIEnv *env, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  throw_class(env, closed_exception_class, fmt, args);
  va_end(args);
}

void mcj_throw_closed(JNIEnv *env, int kind, jlong handle) {
  if (handle == 0) {
    throw_closed_class(env, "null %s handle (0)", mcj_kind_name(kind));
  } else {
    throw_closed_class(env, "%s handle 0x%llx is closed or not a %s handle", mcj_kind_name(kind),
                       (unsigned long long)handle, mcj_kind_name(kind));
  }
}

void mcj_throw_table_full(JNIEnv *env) {
  mcj_throw_bridge(env, "too many open native objects (the bridge's table holds %d)",
                   MCJ_MAX_HANDLES);
}

/* --- Handles --------------------------------------------------------------------------------- */

void *mcj_enter(JNIEnv *env, jlong handle, int kind, mcj_slot **slot) {
  *slot = NULL;
  void *object = mcj_handle_enter(handle, kind, slot);
  if (object == NULL) mcj_throw_closed(env, kind, handle);
  return object;
}

void *mcj_enter_exclusive(JNIEnv *env, jlong handle, int kind, mcj_slot **slot) {
  *slot = NULL;
  void *object = mcj_handle_lock_exclusive(handle, kind, slot);
  if (object == NULL) mcj_throw_closed(env, kind, handle);
  return object;
}

void mcj_leave(mcj_slot **slot) {
  if (*slot != NULL) mcj_handle_leave(*slot);
  *slot = NULL;
}

void mcj_leave_exclusive(mcj_slot **slot, int free_slot) {
  if (*slot != NULL) mcj_handle_unlock_exclusive(*slot, free_slot);
  *slot = NULL;
}

mcj_store *mcj_store_enter(JNIEnv *env, jlong handle, mcj_slot **slot) {
  return mcj_enter(env, handle, MCJ_KIND_STORE, slot);
}

mcj_region *mcj_region_enter_open(JNIEnv *env, jlong handle, mcj_slot **slot) {
  mcj_region *region = mcj_enter(env, handle, MCJ_KIND_REGION, slot);
  if (region != NULL && region->state != MCJ_REGION_OPEN) {
    mcj_leave(slot);
    mcj_throw_ise(env, "region is released");
    return NULL;
  }
  return region;
}

/* --- Argument views -------------------------------------------------------------------------- */

void mcj_key_release(mcj_key *copy) {
  if (copy->text != NULL && copy->text != copy->inline_text) free(copy->text);
  copy->text = NULL;
}

const char *mcj_key_get(JNIEnv *env, jbyteArray key, const char *what, mcj_key *copy) {
  copy->text = NULL;
  if (key == NULL) {
    mcj_throw_npe(env, "%s is null", what);
    return NULL;
  }
  jsize length = (*env)->GetArrayLength(env, key);
  if (length == 0) {
    mcj_throw_iae(env, "%s is empty", what);
    return NULL;
  }
  char *text = (size_t)length < sizeof copy->inline_text ? copy->inline_text
                                                         : malloc((size_t)length + 1);
  if (text == NULL) {
    mcj_throw_oom(env, "cannot copy a %s of %d bytes", what, (int)length);
    return NULL;
  }
  (*env)->GetByteArrayRegion(env, key, 0, length, (jbyte *)text);
  text[length] = '\0';
  copy->text = text;
  if (memchr(text, '\0', (size_t)length) != NULL) {
    mcj_key_release(copy);
    mcj_throw_iae(env, "%s contains a NUL byte", what);
    return NULL;
  }
  return text;
}

char *mcj_buffer_get(JNIEnv *env, jobject buffer, jint offset, jint length, int writable,
                     const char *what, int *ok) {
  *ok = 0;
  if (buffer == NULL) {
    mcj_throw_npe(env, "%s is null", what);
    return NULL;
  }
  jlong capacity = (*env)->GetDirectBufferCapacity(env, buffer);
  if (capacity < 0) {
    mcj_throw_iae(env, "%s is not a direct buffer", what);
    return NULL;
  }
  if (offset < 0 || length < 0) {
    mcj_throw_iae(env, "%s: negative offset %d or length %d", what, (int)offset, (int)length);
    return NULL;
  }
  if ((jlong)offset + (jlong)length > capacity) {
    mcj_throw_iae(env, "%s: range [%d, %lld) is outside its capacity %lld", what, (int)offset,
                  (long long)offset + length, (long long)capacity);
    return NULL;
  }
  if (writable) {
    jboolean read_only = (*env)->CallBooleanMethod(env, buffer, mcj_buffer_is_read_only);
    if ((*env)->ExceptionCheck(env)) return NULL;
    if (read_only) {
      mcj_throw_iae(env, "%s is read-only", what);
      return NULL;
    }
  }
  char *address = (*env)->GetDirectBufferAddress(env, buffer);
  if (address == NULL && capacity > 0) {
    mcj_throw_iae(env, "%s has no accessible address", what);
    return NULL;
  }
  *ok = 1;
  return address == NULL ? NULL : address + offset;
}

const char *mcj_string_get(JNIEnv *env, jstring value, const char *what, mcj_string *view) {
  view->value = value;
  view->chars = NULL;
  if (value == NULL) {
    mcj_throw_npe(env, "%s is null", what);
    return NULL;
  }
  view->chars = (*env)->GetStringUTFChars(env, value, NULL);
  return view->chars; /* NULL: OutOfMemoryError pending */
}

void mcj_string_release(JNIEnv *env, mcj_string *view) {
  if (view->chars != NULL) (*env)->ReleaseStringUTFChars(env, view->value, view->chars);
  view->chars = NULL;
}
