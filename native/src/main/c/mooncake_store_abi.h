/*
 * Mooncake Store's C ABI (mooncake-store/include/store_c.h), as this bridge sees it.
 *
 * THE ONE PLACE that knows the ABI: the layout of replicate_config and the types of the 19
 * functions. Nothing here comes from Mooncake's headers; we build without them and resolve every
 * function with dlsym() at run time. replicate_config's layout changed upstream after the snapshot
 * this was written against: when it changes again, change it here (the bridge and the test fixture
 * both include this file) and nowhere else.
 */
#ifndef MOONCAKE_STORE_ABI_H
#define MOONCAKE_STORE_ABI_H

#include <stddef.h>
#include <stdint.h>

/* struct mooncake_replicate_config, field for field. A NULL pointer means: one replica, soft pin
 * preserved. Strings are only read during the call. */
typedef struct mcj_replicate_config {
  size_t replica_num;
  int with_soft_pin;
  int with_hard_pin;
  const char **preferred_segments;
  size_t preferred_segments_count;
} mcj_replicate_config;

/*
 * X(return type, name without the "mooncake_store_" prefix, parameter list) for each of the 19
 * functions, in store_c.h's order. Used to declare the function-pointer table, the symbol names
 * and (in the fixture) the prototypes, so that all three agree.
 */
#define MCJ_STORE_FUNCTIONS(X)                                                                    \
  X(void *, create, (void))                                                                       \
  X(void, destroy, (void *store))                                                                 \
  X(int, setup,                                                                                   \
    (void *store, const char *local_hostname, const char *metadata_server,                        \
     uint64_t global_segment_size, uint64_t local_buffer_size, const char *protocol,              \
     const char *device_name, const char *master_server_addr))                                    \
  X(int, init_all,                                                                                \
    (void *store, const char *protocol, const char *device_name, uint64_t mount_segment_size))    \
  X(int, health_check, (void *store))                                                             \
  X(int, put,                                                                                     \
    (void *store, const char *key, const void *value, size_t size,                                \
     const mcj_replicate_config *config))                                                         \
  X(int, put_from,                                                                                \
    (void *store, const char *key, void *buffer, size_t size,                                     \
     const mcj_replicate_config *config))                                                         \
  X(int, batch_put_from,                                                                          \
    (void *store, const char **keys, void **buffers, const size_t *sizes, size_t count,           \
     const mcj_replicate_config *config, int *results_out))                                       \
  X(int64_t, get_into, (void *store, const char *key, void *buffer, size_t size))                 \
  X(int, batch_get_into,                                                                          \
    (void *store, const char **keys, void **buffers, const size_t *sizes, size_t count,           \
     int64_t *results_out))                                                                       \
  X(int, is_exist, (void *store, const char *key))                                                \
  X(int, batch_is_exist, (void *store, const char **keys, size_t count, int *results_out))        \
  X(int64_t, get_size, (void *store, const char *key))                                            \
  X(int, get_hostname, (void *store, char *buf_out, size_t buf_len))                              \
  X(int, remove, (void *store, const char *key, int force))                                       \
  X(int64_t, remove_by_regex, (void *store, const char *pattern, int force))                      \
  X(int64_t, remove_all, (void *store, int force))                                                \
  X(int, register_buffer, (void *store, void *buffer, size_t size))                               \
  X(int, unregister_buffer, (void *store, void *buffer))

#define MCJ_STORE_FUNCTION_COUNT 19

/* The resolved functions of one loaded library. */
typedef struct mcj_store_api {
#define MCJ_API_FIELD(ret, name, params) ret(*name) params;
  MCJ_STORE_FUNCTIONS(MCJ_API_FIELD)
#undef MCJ_API_FIELD
} mcj_store_api;

/* Mooncake's result codes the bridge itself produces or tests for. */
#define MCJ_OK 0
#define MCJ_INTERNAL_ERROR (-1)
#define MCJ_INVALID_PARAMS (-600)

#endif /* MOONCAKE_STORE_ABI_H */
