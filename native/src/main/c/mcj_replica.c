/*
 * Replica configs: natives of ReplicaConfig. A config is encoded once, when it is made, in the
 * layout of the store it is made for (mooncake_store_abi.h), and every put checks that the store
 * it goes to has that layout. What each layout can say:
 *   soft pin      v1, v2: with_soft_pin = 1;  v3: soft_pin_action = ENABLE
 *   hard pin      v2: with_hard_pin@12;  v3: with_hard_pin@8;  v1: none, refused
 *   soft pin TTL  v3 only (has_soft_pin_ttl, soft_pin_ttl_ms), and only with a soft pin
 * A store whose layout was not named gets the encoding all three read alike (no pin, no TTL),
 * and a config that needs more is refused with a message saying which key settles it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev_mooncake_jcache_nativebridge_ReplicaConfig.h"
#include "mcj_jni.h"

#define REPLICA_FN(name) MCJ_JNI(ReplicaConfig, name)

static const char *abi_name(int abi) {
  switch (abi) {
    case MCJ_ABI_V1: return "v1";
    case MCJ_ABI_V2: return "v2";
    case MCJ_ABI_V3: return "v3";
    default: return "not named";
  }
}

static size_t layout_size(int abi) {
  switch (abi) {
    case MCJ_ABI_V1: return sizeof(mcj_replicate_config_v1);
    case MCJ_ABI_V2: return sizeof(mcj_replicate_config_v2);
    default: return sizeof(mcj_replicate_config_v3); /* v3, and the common encoding */
  }
}

typedef struct replica_request {
  size_t replica_num;
  int soft_pin;
  int hard_pin;
  jlong soft_pin_ttl_ms; /* < 0: none */
  const char **segments;
  size_t segment_count;
} replica_request;

/* Encodes the request in the layout; 0 with IllegalArgumentException pending when the layout
 * cannot say it. */
static int encode(JNIEnv *env, const mcj_store *store, const replica_request *request,
                  mcj_replicate_config_block *block) {
  const char *path = store->library->path;
  int abi = store->abi;
  int ttl = request->soft_pin_ttl_ms >= 0;
  memset(block, 0, sizeof *block);
  if (ttl && !request->soft_pin) {
    mcj_throw_iae(env, "soft_pin_ttl needs with_soft_pin: true (Mooncake takes a TTL only with a "
                       "soft pin)");
    return 0;
  }
  if (ttl && request->soft_pin_ttl_ms == 0) {
    mcj_throw_iae(env, "soft_pin_ttl must be positive");
    return 0;
  }
  if (abi == MCJ_ABI_UNKNOWN && (request->soft_pin || request->hard_pin || ttl)) {
    mcj_throw_iae(env,
                  "%s needs to know the replicate_config layout of '%s', and the library does "
                  "not tell (store_c.h has no version symbol): set the config key abi to v1, v2 "
                  "or v3 (see docs/native-bridge.md, 'Which layout do I have?')",
                  ttl ? "soft_pin_ttl" : request->hard_pin ? "with_hard_pin" : "with_soft_pin",
                  path);
    return 0;
  }
  if (abi == MCJ_ABI_V1 && request->hard_pin) {
    mcj_throw_iae(env, "with_hard_pin: '%s' has the v1 replicate_config layout (abi v1), which "
                       "has no hard pin; remove with_hard_pin or use a newer Mooncake", path);
    return 0;
  }
  if ((abi == MCJ_ABI_V1 || abi == MCJ_ABI_V2) && ttl) {
    mcj_throw_iae(env, "soft_pin_ttl: '%s' has the %s replicate_config layout (abi %s), which "
                       "has no soft pin TTL (v3 has); remove soft_pin_ttl (the master's "
                       "--default_kv_soft_pin_ttl applies) or use a newer Mooncake",
                  path, abi_name(abi), abi_name(abi));
    return 0;
  }
  switch (abi) {
    case MCJ_ABI_V1:
      block->v1.replica_num = request->replica_num;
      block->v1.with_soft_pin = request->soft_pin;
      block->v1.preferred_segments = request->segments;
      block->v1.preferred_segments_count = request->segment_count;
      break;
    case MCJ_ABI_V2:
      block->v2.replica_num = request->replica_num;
      block->v2.with_soft_pin = request->soft_pin;
      block->v2.with_hard_pin = request->hard_pin;
      block->v2.preferred_segments = request->segments;
      block->v2.preferred_segments_count = request->segment_count;
      break;
    default: /* v3, or not named (then no pin and no TTL: zeros mean the same in all three) */
      block->v3.replica_num = request->replica_num;
      block->v3.with_hard_pin = request->hard_pin;
      block->v3.preferred_segments = request->segments;
      block->v3.preferred_segments_count = request->segment_count;
      block->v3.soft_pin_action = request->soft_pin ? MCJ_SOFT_PIN_ENABLE : MCJ_SOFT_PIN_PRESERVE;
      block->v3.has_soft_pin_ttl = ttl;
      block->v3.soft_pin_ttl_ms = ttl ? (uint64_t)request->soft_pin_ttl_ms : 0;
      break;
  }
  return 1;
}

static void replica_free(mcj_replica *replica) {
  if (replica == NULL) return;
  if (replica->segments != NULL) {
    for (size_t i = 0; i < replica->segment_count; i++) free(replica->segments[i]);
    free(replica->segments);
  }
  free(replica);
}

/* Copies the preferred segment names into the replica; 1 on success. */
static int copy_segments(JNIEnv *env, jobjectArray preferred, mcj_replica *replica) {
  jsize count = preferred == NULL ? 0 : (*env)->GetArrayLength(env, preferred);
  if (count == 0) return 1;
  replica->segments = calloc((size_t)count, sizeof(char *));
  if (replica->segments == NULL) {
    mcj_throw_oom(env, "cannot allocate a replicate config");
    return 0;
  }
  for (jsize i = 0; i < count; i++) {
    mcj_string segment;
    jstring value = (*env)->GetObjectArrayElement(env, preferred, i);
    char what[48];
    snprintf(what, sizeof what, "preferred_segments[%d]", (int)i);
    if (mcj_string_get(env, value, what, &segment) == NULL) return 0;
    replica->segments[i] = strdup(segment.chars);
    mcj_string_release(env, &segment);
    (*env)->DeleteLocalRef(env, value);
    if (replica->segments[i] == NULL) {
      mcj_throw_oom(env, "cannot copy a preferred segment");
      return 0;
    }
    replica->segment_count = (size_t)i + 1; /* for replica_free */
    if (replica->segments[i][0] == '\0') {
      mcj_throw_iae(env, "%s is empty", what);
      return 0;
    }
  }
  return 1;
}

JNIEXPORT jlong JNICALL REPLICA_FN(newReplicaConfig)(JNIEnv *env, jclass cls, jlong store_handle,
                                                     jlong replica_num, jboolean soft_pin,
                                                     jboolean hard_pin, jlong soft_pin_ttl_ms,
                                                     jobjectArray preferred) {
  (void)cls;
  jlong handle = 0;
  mcj_replica *replica = NULL;
  mcj_slot *store_slot = NULL;
  if (replica_num < 0) {
    mcj_throw_iae(env, "negative replica_num %lld", (long long)replica_num);
    goto cleanup;
  }
  replica = calloc(1, sizeof *replica);
  if (replica == NULL) {
    mcj_throw_oom(env, "cannot allocate a replicate config");
    goto cleanup;
  }
  if (!copy_segments(env, preferred, replica)) goto cleanup;
  mcj_store *store = mcj_enter(env, store_handle, MCJ_KIND_STORE, &store_slot);
  if (store == NULL) goto cleanup;
  replica_request request = {
      .replica_num = (size_t)replica_num,
      .soft_pin = soft_pin ? 1 : 0,
      .hard_pin = hard_pin ? 1 : 0,
      .soft_pin_ttl_ms = soft_pin_ttl_ms,
      .segments = (const char **)replica->segments,
      .segment_count = replica->segment_count,
  };
  if (!encode(env, store, &request, &replica->block)) goto cleanup;
  replica->abi = store->abi;
  handle = mcj_handle_new(MCJ_KIND_REPLICA, replica);
  if (handle == 0) {
    mcj_throw_table_full(env);
    goto cleanup;
  }
  replica = NULL; /* owned by the handle */
cleanup:
  mcj_leave(&store_slot);
  replica_free(replica);
  return handle;
}

JNIEXPORT void JNICALL REPLICA_FN(freeReplicaConfig)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_replica *replica = mcj_enter_exclusive(env, handle, MCJ_KIND_REPLICA, &slot);
  if (replica == NULL) return;
  mcj_handle_unlock_exclusive(slot, 1);
  replica_free(replica);
}

/* The bytes Mooncake will read: the layout's size (48 when not named), for tests and logs. */
JNIEXPORT jbyteArray JNICALL REPLICA_FN(encoded)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot;
  mcj_replica *replica = mcj_enter(env, handle, MCJ_KIND_REPLICA, &slot);
  if (replica == NULL) return NULL;
  jsize size = (jsize)layout_size(replica->abi);
  jbyteArray bytes = (*env)->NewByteArray(env, size);
  if (bytes != NULL) {
    (*env)->SetByteArrayRegion(env, bytes, 0, size, (const jbyte *)replica->block.bytes);
  }
  mcj_leave(&slot);
  return bytes;
}

const mcj_replicate_config *mcj_replica_enter(JNIEnv *env, jlong handle, const mcj_store *store,
                                              mcj_slot **slot, int *ok) {
  *slot = NULL;
  *ok = 1;
  if (handle == 0) return NULL; /* Mooncake's default: one replica, soft pin preserved */
  mcj_replica *replica = mcj_enter(env, handle, MCJ_KIND_REPLICA, slot);
  if (replica == NULL) {
    *ok = 0;
    return NULL;
  }
  if (replica->abi != store->abi) {
    mcj_leave(slot);
    mcj_throw_iae(env, "this replicate config was encoded for layout %s, but the store's is %s: "
                       "make the config from the store it is used with",
                  abi_name(replica->abi), abi_name(store->abi));
    *ok = 0;
    return NULL;
  }
  return (const mcj_replicate_config *)&replica->block;
}
