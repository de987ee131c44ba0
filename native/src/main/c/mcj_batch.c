/*
 * Batches: natives of MooncakeClient taking arrays of keys (and buffers), all checked and copied
 * up front, then one call of Mooncake's batch function, then one result per key written back.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev_mooncake_jcache_nativebridge_MooncakeClient.h"
#include "mcj_jni.h"

#define CLIENT_FN(name) MCJ_JNI(MooncakeClient, name)

typedef struct batch_args {
  size_t count;
  const char **keys;
  char *key_text; /* all keys, NUL-separated */
  void **buffers;
  size_t *sizes;
  void *results; /* count ints or int64s */
} batch_args;

static void batch_release(batch_args *batch) {
  free(batch->keys);
  free(batch->key_text);
  free(batch->buffers);
  free(batch->sizes);
  free(batch->results);
  memset(batch, 0, sizeof *batch);
}

/* Checks keys against results (same length, at least 1), copies the keys and allocates room for
 * count results of result_size bytes. 1 on success. */
static int batch_keys(JNIEnv *env, jobjectArray keys, jarray results, size_t result_size,
                      batch_args *batch) {
  if (keys == NULL || results == NULL) {
    mcj_throw_npe(env, "%s is null", keys == NULL ? "keys" : "results");
    return 0;
  }
  jsize count = (*env)->GetArrayLength(env, keys);
  if (count <= 0) {
    mcj_throw_iae(env, "count 0: a batch needs at least one key");
    return 0;
  }
  jsize results_length = (*env)->GetArrayLength(env, results);
  if (results_length != count) {
    mcj_throw_iae(env, "array length mismatch: %d keys but results has %d elements", (int)count,
                  (int)results_length);
    return 0;
  }
  size_t total = 0;
  for (jsize i = 0; i < count; i++) {
    jbyteArray key = (*env)->GetObjectArrayElement(env, keys, i);
    if (key == NULL) {
      mcj_throw_npe(env, "keys[%d] is null", (int)i);
      return 0;
    }
    jsize length = (*env)->GetArrayLength(env, key);
    (*env)->DeleteLocalRef(env, key);
    if (length == 0) {
      mcj_throw_iae(env, "keys[%d] is empty", (int)i);
      return 0;
    }
    total += (size_t)length + 1;
  }
  batch->count = (size_t)count;
  batch->keys = calloc((size_t)count, sizeof(char *));
  batch->key_text = malloc(total);
  batch->results = calloc((size_t)count, result_size);
  if (batch->keys == NULL || batch->key_text == NULL || batch->results == NULL) {
    mcj_throw_oom(env, "cannot copy %d keys (%zu bytes)", (int)count, total);
    return 0;
  }
  char *cursor = batch->key_text;
  for (jsize i = 0; i < count; i++) {
    jbyteArray key = (*env)->GetObjectArrayElement(env, keys, i);
    jsize length = key == NULL ? -1 : (*env)->GetArrayLength(env, key);
    /* Another thread may have changed the array since the first pass. */
    if (key == NULL || (size_t)length + 1 > total - (size_t)(cursor - batch->key_text)) {
      mcj_throw_iae(env, "keys changed while being copied");
      return 0;
    }
    (*env)->GetByteArrayRegion(env, key, 0, length, (jbyte *)cursor);
    (*env)->DeleteLocalRef(env, key);
    cursor[length] = '\0';
    if (length == 0 || memchr(cursor, '\0', (size_t)length) != NULL) {
      mcj_throw_iae(env, "keys[%d] %s", (int)i, length == 0 ? "is empty" : "contains a NUL byte");
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
  int success = 0;
  jint *offset_values = NULL, *length_values = NULL;
  if (buffers == NULL || offsets == NULL || lengths == NULL) {
    mcj_throw_npe(env, "%s is null",
                  buffers == NULL ? "buffers" : offsets == NULL ? "offsets" : "lengths");
    goto cleanup;
  }
  jsize count = (jsize)batch->count;
  jsize nb = (*env)->GetArrayLength(env, buffers);
  jsize no = (*env)->GetArrayLength(env, offsets);
  jsize nl = (*env)->GetArrayLength(env, lengths);
  if (nb != count || no != count || nl != count) {
    mcj_throw_iae(env, "array length mismatch: %d keys, %d buffers, %d offsets, %d lengths",
                  (int)count, (int)nb, (int)no, (int)nl);
    goto cleanup;
  }
  offset_values = malloc(sizeof(jint) * (size_t)count);
  length_values = malloc(sizeof(jint) * (size_t)count);
  batch->buffers = calloc((size_t)count, sizeof(void *));
  batch->sizes = calloc((size_t)count, sizeof(size_t));
  if (offset_values == NULL || length_values == NULL || batch->buffers == NULL ||
      batch->sizes == NULL) {
    mcj_throw_oom(env, "cannot allocate batch arguments for %d keys", (int)count);
    goto cleanup;
  }
  (*env)->GetIntArrayRegion(env, offsets, 0, count, offset_values);
  (*env)->GetIntArrayRegion(env, lengths, 0, count, length_values);
  for (jsize i = 0; i < count; i++) {
    jobject buffer = (*env)->GetObjectArrayElement(env, buffers, i);
    char what[48];
    snprintf(what, sizeof what, "buffers[%d]", (int)i);
    int ok;
    char *address =
        mcj_buffer_get(env, buffer, offset_values[i], length_values[i], writable, what, &ok);
    if (buffer != NULL) (*env)->DeleteLocalRef(env, buffer);
    if (!ok) goto cleanup;
    batch->buffers[i] = address;
    batch->sizes[i] = (size_t)length_values[i];
  }
  success = 1;
cleanup:
  free(offset_values);
  free(length_values);
  return success;
}

JNIEXPORT jint JNICALL CLIENT_FN(batchPutFrom)(JNIEnv *env, jclass cls, jlong handle,
                                               jobjectArray keys, jobjectArray buffers,
                                               jintArray offsets, jintArray lengths,
                                               jlong config_handle, jintArray results) {
  (void)cls;
  jint result = 0;
  batch_args batch = {0};
  mcj_slot *slot = NULL, *config_slot = NULL;
  int ok;
  if (!batch_keys(env, keys, results, sizeof(int), &batch) ||
      !batch_buffers(env, buffers, offsets, lengths, 0, &batch)) {
    goto cleanup;
  }
  mcj_store *store = mcj_enter(env, handle, MCJ_KIND_STORE, &slot);
  if (store == NULL) goto cleanup;
  const mcj_replicate_config *config =
      mcj_replica_enter(env, config_handle, store, &config_slot, &ok);
  if (!ok) goto cleanup;
  result = store->library->api.batch_put_from(store->mc, batch.keys, batch.buffers, batch.sizes,
                                              batch.count, config, batch.results);
  mcj_leave(&config_slot);
  mcj_leave(&slot);
  (*env)->SetIntArrayRegion(env, results, 0, (jsize)batch.count, (const jint *)batch.results);
cleanup:
  mcj_leave(&config_slot);
  mcj_leave(&slot);
  batch_release(&batch);
  return result;
}

JNIEXPORT jint JNICALL CLIENT_FN(batchGetInto)(JNIEnv *env, jclass cls, jlong handle,
                                               jobjectArray keys, jobjectArray buffers,
                                               jintArray offsets, jintArray lengths,
                                               jlongArray results) {
  (void)cls;
  jint result = 0;
  batch_args batch = {0};
  mcj_slot *slot = NULL;
  if (!batch_keys(env, keys, results, sizeof(int64_t), &batch) ||
      !batch_buffers(env, buffers, offsets, lengths, 1, &batch)) {
    goto cleanup;
  }
  mcj_store *store = mcj_enter(env, handle, MCJ_KIND_STORE, &slot);
  if (store == NULL) goto cleanup;
  result = store->library->api.batch_get_into(store->mc, batch.keys, batch.buffers, batch.sizes,
                                              batch.count, batch.results);
  mcj_leave(&slot);
  (*env)->SetLongArrayRegion(env, results, 0, (jsize)batch.count, (const jlong *)batch.results);
cleanup:
  mcj_leave(&slot);
  batch_release(&batch);
  return result;
}

JNIEXPORT jint JNICALL CLIENT_FN(batchIsExist)(JNIEnv *env, jclass cls, jlong handle,
                                               jobjectArray keys, jintArray results) {
  (void)cls;
  jint result = 0;
  batch_args batch = {0};
  mcj_slot *slot = NULL;
  if (!batch_keys(env, keys, results, sizeof(int), &batch)) goto cleanup;
  mcj_store *store = mcj_enter(env, handle, MCJ_KIND_STORE, &slot);
  if (store == NULL) goto cleanup;
  result = store->library->api.batch_is_exist(store->mc, batch.keys, batch.count, batch.results);
  mcj_leave(&slot);
  (*env)->SetIntArrayRegion(env, results, 0, (jsize)batch.count, (const jint *)batch.results);
cleanup:
  mcj_leave(&slot);
  batch_release(&batch);
  return result;
}
