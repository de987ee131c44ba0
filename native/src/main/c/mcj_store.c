/*
 * Store operations: natives of MooncakeClient for one handle's lifecycle and its single-key calls
 * (batches are in mcj_batch.c, region registration in mcj_region.c).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "dev_mooncake_jcache_nativebridge_MooncakeClient.h"
#include "mcj_jni.h"
#include "mcj_signals.h"

#define CLIENT_FN(name) MCJ_JNI(MooncakeClient, name)

/* --- Lifecycle ------------------------------------------------------------------------------- */

JNIEXPORT jlong JNICALL CLIENT_FN(create)(JNIEnv *env, jclass cls, jlong library_handle,
                                          jint signal_flags, jint abi) {
  (void)cls;
  jlong handle = 0;
  mcj_store *store = NULL;
  mcj_slot *library_slot;
  mcj_library *library = mcj_enter(env, library_handle, MCJ_KIND_LIBRARY, &library_slot);
  if (library == NULL) goto cleanup;
  if (abi < MCJ_ABI_UNKNOWN || abi > MCJ_ABI_V3) {
    mcj_throw_iae(env, "unknown replicate_config layout %d (known: 1, 2, 3 or 0 for not named)",
                  (int)abi);
    goto cleanup;
  }
  store = calloc(1, sizeof *store);
  if (store == NULL) {
    mcj_throw_oom(env, "cannot allocate a store record");
    goto cleanup;
  }
  mcj_signal_guard guard;
  mcj_signals_enter(&guard, signal_flags);
  store->mc = library->api.create();
  store->signals_restored = mcj_signals_leave(&guard);
  if (store->mc == NULL) goto cleanup; /* 0: the caller names the library */
  store->library = library; /* libraries are never freed */
  store->abi = abi;
  store->signal_flags = signal_flags;
  pthread_mutex_init(&store->regions_lock, NULL);
  handle = mcj_handle_new(MCJ_KIND_STORE, store);
  if (handle == 0) {
    library->api.destroy(store->mc);
    pthread_mutex_destroy(&store->regions_lock);
    mcj_throw_table_full(env);
    goto cleanup;
  }
  store = NULL; /* owned by the handle */
cleanup:
  free(store);
  mcj_leave(&library_slot);
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

JNIEXPORT jint JNICALL CLIENT_FN(setup)(JNIEnv *env, jclass cls, jlong handle,
                                        jstring jlocal_hostname, jstring jmetadata_server,
                                        jlong global_segment_size, jlong local_buffer_size,
                                        jstring jprotocol, jstring jdevice_name,
                                        jstring jmaster_address) {
  (void)cls;
  jint result = 0;
  mcj_slot *slot = NULL;
  mcj_string local_hostname = {0}, metadata_server = {0}, protocol = {0}, device_name = {0},
             master = {0};
  if (global_segment_size < 0 || local_buffer_size < 0) {
    mcj_throw_iae(env, "negative size: global_segment_size %lld, local_buffer_size %lld",
                  (long long)global_segment_size, (long long)local_buffer_size);
    goto cleanup;
  }
  if (mcj_string_get(env, jlocal_hostname, "local_hostname", &local_hostname) == NULL ||
      mcj_string_get(env, jmetadata_server, "metadata_server", &metadata_server) == NULL ||
      mcj_string_get(env, jprotocol, "protocol", &protocol) == NULL ||
      mcj_string_get(env, jdevice_name, "device_name", &device_name) == NULL ||
      mcj_string_get(env, jmaster_address, "master_server_address", &master) == NULL) {
    goto cleanup;
  }
  const char *problem = metadata_server_problem(metadata_server.chars);
  if (problem != NULL) {
    mcj_throw_iae(env, "metadata_server '%s' %s", metadata_server.chars, problem);
    goto cleanup;
  }
  const char *empty = local_hostname.chars[0] == '\0' ? "local_hostname"
                      : protocol.chars[0] == '\0'     ? "protocol"
                      : master.chars[0] == '\0'       ? "master_server_address"
                                                      : NULL;
  if (empty != NULL) {
    mcj_throw_iae(env, "%s is empty", empty);
    goto cleanup;
  }
  mcj_store *store = mcj_store_enter(env, handle, &slot);
  if (store == NULL) goto cleanup;
  mcj_signal_guard guard;
  mcj_signals_enter(&guard, store->signal_flags);
  result = store->library->api.setup(store->mc, local_hostname.chars, metadata_server.chars,
                                     (uint64_t)global_segment_size, (uint64_t)local_buffer_size,
                                     protocol.chars, device_name.chars, master.chars);
  uint64_t restored = mcj_signals_leave(&guard);
  __atomic_fetch_or(&store->signals_restored, restored, __ATOMIC_SEQ_CST);
  if (result == 0) __atomic_store_n(&store->set_up, 1, __ATOMIC_SEQ_CST);
cleanup:
  mcj_leave(&slot);
  mcj_string_release(env, &local_hostname);
  mcj_string_release(env, &metadata_server);
  mcj_string_release(env, &protocol);
  mcj_string_release(env, &device_name);
  mcj_string_release(env, &master);
  return result;
}

/* mooncake_store_set_etcd_tls_config, before setup. A library without it gets a
 * NativeBridgeException naming the symbol, a store already set up an IllegalStateException
 * (Mooncake would take the call and ignore it): TLS asked for and not applied must not pass. */
JNIEXPORT void JNICALL CLIENT_FN(setEtcdTlsConfig)(JNIEnv *env, jclass cls, jlong handle,
                                                   jstring jca, jstring jcert, jstring jkey) {
  (void)cls;
  mcj_slot *slot = NULL;
  mcj_string ca = {0}, cert = {0}, key = {0};
  if (mcj_string_get(env, jca, "ca_file", &ca) == NULL ||
      mcj_string_get(env, jcert, "cert_file", &cert) == NULL ||
      mcj_string_get(env, jkey, "key_file", &key) == NULL) {
    goto cleanup;
  }
  mcj_store *store = mcj_store_enter(env, handle, &slot);
  if (store == NULL) goto cleanup;
  if (__atomic_load_n(&store->set_up, __ATOMIC_SEQ_CST)) {
    mcj_throw_ise(env, "etcd TLS must be configured before setup: Mooncake ignores it after");
    goto cleanup;
  }
  if (store->library->api.set_etcd_tls_config == NULL) {
    mcj_throw_bridge(env,
                     "'%s' does not export mooncake_store_set_etcd_tls_config, so etcd_tls "
                     "cannot be applied: use a Mooncake build that has it, or remove etcd_tls",
                     store->library->path);
    goto cleanup;
  }
  store->library->api.set_etcd_tls_config(store->mc, ca.chars, cert.chars, key.chars);
cleanup:
  mcj_leave(&slot);
  mcj_string_release(env, &ca);
  mcj_string_release(env, &cert);
  mcj_string_release(env, &key);
}

MCJ_READ_ENTRY(jlong, CLIENT_FN(signalsRestored), MCJ_KIND_STORE, mcj_store,
               __atomic_load_n(&object->signals_restored, __ATOMIC_SEQ_CST))

MCJ_READ_ENTRY(jint, CLIENT_FN(healthCheck), MCJ_KIND_STORE, mcj_store,
               object->library->api.health_check(object->mc))

/* Waits for calls in flight, unregisters the regions registered through this store, destroys the
 * Mooncake client. A second destroy throws ClosedHandleException. */
JNIEXPORT void JNICALL CLIENT_FN(destroy)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  int destroyed = 0;
  mcj_slot *slot = NULL;
  mcj_store *store = mcj_enter_exclusive(env, handle, MCJ_KIND_STORE, &slot);
  if (store == NULL) goto cleanup;
  pthread_mutex_lock(&store->regions_lock);
  for (int i = 0; i < store->region_count; i++) {
    store->library->api.unregister_buffer(store->mc, store->regions[i]->base);
    __atomic_fetch_sub(&store->regions[i]->registrations, 1, __ATOMIC_SEQ_CST);
  }
  store->region_count = 0;
  pthread_mutex_unlock(&store->regions_lock);
  store->library->api.destroy(store->mc);
  destroyed = 1;
cleanup:
  mcj_leave_exclusive(&slot, destroyed);
  if (destroyed) {
    pthread_mutex_destroy(&store->regions_lock);
    free(store);
  }
}

/* --- Single-key calls ------------------------------------------------------------------------ */

JNIEXPORT jint JNICALL CLIENT_FN(putFrom)(JNIEnv *env, jclass cls, jlong handle, jbyteArray jkey,
                                          jobject value, jint offset, jint length,
                                          jlong config_handle) {
  (void)cls;
  jint result = 0;
  mcj_slot *slot = NULL, *config_slot = NULL;
  mcj_key key = {.text = NULL};
  int ok;
  if (mcj_key_get(env, jkey, "key", &key) == NULL) goto cleanup;
  char *address = mcj_buffer_get(env, value, offset, length, 0, "value", &ok);
  if (!ok) goto cleanup;
  mcj_store *store = mcj_store_enter(env, handle, &slot);
  if (store == NULL) goto cleanup;
  const mcj_replicate_config *config = mcj_replica_enter(env, config_handle, store, &config_slot,
                                                         &ok);
  if (!ok) goto cleanup;
  result = store->library->api.put_from(store->mc, key.text, address, (size_t)length, config);
cleanup:
  mcj_leave(&config_slot);
  mcj_leave(&slot);
  mcj_key_release(&key);
  return result;
}

JNIEXPORT jlong JNICALL CLIENT_FN(getInto)(JNIEnv *env, jclass cls, jlong handle, jbyteArray jkey,
                                           jobject destination, jint offset, jint length) {
  (void)cls;
  jlong result = 0;
  mcj_slot *slot = NULL;
  mcj_key key = {.text = NULL};
  int ok;
  if (mcj_key_get(env, jkey, "key", &key) == NULL) goto cleanup;
  char *address = mcj_buffer_get(env, destination, offset, length, 1, "destination", &ok);
  if (!ok) goto cleanup;
  mcj_store *store = mcj_store_enter(env, handle, &slot);
  if (store == NULL) goto cleanup;
  result = store->library->api.get_into(store->mc, key.text, address, (size_t)length);
cleanup:
  mcj_leave(&slot);
  mcj_key_release(&key);
  return result;
}

/* The calls taking one key (or pattern) and maybe a force flag. */
enum key_call { KEY_IS_EXIST, KEY_GET_SIZE, KEY_REMOVE, KEY_REMOVE_BY_REGEX };

static jlong key_call(JNIEnv *env, jlong handle, jbyteArray jkey, enum key_call call, int force) {
  jlong result = 0;
  mcj_slot *slot = NULL;
  mcj_key key = {.text = NULL};
  if (mcj_key_get(env, jkey, call == KEY_REMOVE_BY_REGEX ? "pattern" : "key", &key) == NULL) {
    goto cleanup;
  }
  mcj_store *store = mcj_store_enter(env, handle, &slot);
  if (store == NULL) goto cleanup;
  const mcj_store_api *api = &store->library->api;
  switch (call) {
    case KEY_IS_EXIST: result = api->is_exist(store->mc, key.text); break;
    case KEY_GET_SIZE: result = api->get_size(store->mc, key.text); break;
    case KEY_REMOVE: result = api->remove(store->mc, key.text, force); break;
    case KEY_REMOVE_BY_REGEX: result = api->remove_by_regex(store->mc, key.text, force); break;
  }
cleanup:
  mcj_leave(&slot);
  mcj_key_release(&key);
  return result;
}

JNIEXPORT jint JNICALL CLIENT_FN(isExist)(JNIEnv *env, jclass cls, jlong handle, jbyteArray key) {
  (void)cls;
  return (jint)key_call(env, handle, key, KEY_IS_EXIST, 0);
}

JNIEXPORT jlong JNICALL CLIENT_FN(getSize)(JNIEnv *env, jclass cls, jlong handle, jbyteArray key) {
  (void)cls;
  return key_call(env, handle, key, KEY_GET_SIZE, 0);
}

JNIEXPORT jint JNICALL CLIENT_FN(remove)(JNIEnv *env, jclass cls, jlong handle, jbyteArray key,
                                         jboolean force) {
  (void)cls;
  return (jint)key_call(env, handle, key, KEY_REMOVE, force ? 1 : 0);
}

JNIEXPORT jlong JNICALL CLIENT_FN(removeByRegex)(JNIEnv *env, jclass cls, jlong handle,
                                                 jbyteArray pattern, jboolean force) {
  (void)cls;
  return key_call(env, handle, pattern, KEY_REMOVE_BY_REGEX, force ? 1 : 0);
}

JNIEXPORT jint JNICALL CLIENT_FN(getHostname)(JNIEnv *env, jclass cls, jlong handle,
                                              jbyteArray out) {
  (void)cls;
  jint result = 0;
  char *text = NULL;
  mcj_slot *slot = NULL;
  if (out == NULL) {
    mcj_throw_npe(env, "out is null");
    goto cleanup;
  }
  jsize capacity = (*env)->GetArrayLength(env, out);
  if (capacity == 0) {
    mcj_throw_iae(env, "out has length 0");
    goto cleanup;
  }
  text = calloc((size_t)capacity, 1);
  if (text == NULL) {
    mcj_throw_oom(env, "cannot allocate %d bytes", (int)capacity);
    goto cleanup;
  }
  mcj_store *store = mcj_store_enter(env, handle, &slot);
  if (store == NULL) goto cleanup;
  result = store->library->api.get_hostname(store->mc, text, (size_t)capacity);
  mcj_leave(&slot);
  text[capacity - 1] = '\0'; /* whatever the library did */
  if (result == 0) (*env)->SetByteArrayRegion(env, out, 0, capacity, (const jbyte *)text);
cleanup:
  mcj_leave(&slot);
  free(text);
  return result;
}

/* --- Caller buffers -------------------------------------------------------------------------- */

JNIEXPORT jint JNICALL CLIENT_FN(registerBuffer)(JNIEnv *env, jclass cls, jlong handle,
                                                 jobject buffer, jint offset, jint length) {
  (void)cls;
  jint result = 0;
  mcj_slot *slot = NULL;
  int ok;
  char *address = mcj_buffer_get(env, buffer, offset, length, 0, "buffer", &ok);
  if (!ok) goto cleanup;
  if (length == 0) {
    mcj_throw_iae(env, "cannot register 0 bytes");
    goto cleanup;
  }
  mcj_store *store = mcj_store_enter(env, handle, &slot);
  if (store == NULL) goto cleanup;
  result = store->library->api.register_buffer(store->mc, address, (size_t)length);
cleanup:
  mcj_leave(&slot);
  return result;
}

JNIEXPORT jint JNICALL CLIENT_FN(unregisterBuffer)(JNIEnv *env, jclass cls, jlong handle,
                                                   jobject buffer, jint offset) {
  (void)cls;
  jint result = 0;
  mcj_slot *slot = NULL;
  int ok;
  char *address = mcj_buffer_get(env, buffer, offset, 0, 0, "buffer", &ok);
  if (!ok) goto cleanup;
  if (address == NULL) {
    mcj_throw_iae(env, "buffer has capacity 0");
    goto cleanup;
  }
  mcj_store *store = mcj_store_enter(env, handle, &slot);
  if (store == NULL) goto cleanup;
  result = store->library->api.unregister_buffer(store->mc, address);
cleanup:
  mcj_leave(&slot);
  return result;
}
