/*
 * Mooncake Store's C ABI (mooncake-store/include/store_c.h), as this bridge sees it.
 *
 * THE ONE PLACE that knows the ABI: the three published layouts of replicate_config, the types of
 * the 19 required functions and of the optional ones. Nothing here comes from Mooncake's headers;
 * we build without them and resolve every function with dlsym() at run time. The bridge and the
 * test fixture both include this file.
 *
 * store_c.h carries no version symbol, and struct mooncake_replicate_config has changed twice
 * (x86-64 offsets; read at kvcache-ai/Mooncake commits, see docs/native-bridge.md):
 *   v1  replica_num@0 with_soft_pin@8 preferred_segments@16 preferred_segments_count@24 (32 bytes)
 *   v2  v1 + with_hard_pin@12 (32 bytes)
 *   v3  replica_num@0 with_hard_pin@8 preferred_segments@16 preferred_segments_count@24
 *       soft_pin_action@32 has_soft_pin_ttl@36 soft_pin_ttl_ms@40 (48 bytes)
 * No exported symbol tells them apart (set_etcd_tls_config was seen in a v2 build, but nothing
 * keeps a v3 build from exporting it), so the layout is the user's to name (config key `abi`).
 * Without it the bridge still works when the config needs nothing the layouts disagree on: all
 * zeros except replica_num and the preferred segments means "no pins, soft pin preserved" in all
 * three.
 */
#ifndef MOONCAKE_STORE_ABI_H
#define MOONCAKE_STORE_ABI_H

#include <stddef.h>
#include <stdint.h>

/* Which layout; the numbers are the `abi` key's ("v1" = 1 ...) and the Java enum's ordinal + 1. */
enum mcj_abi { MCJ_ABI_UNKNOWN = 0, MCJ_ABI_V1 = 1, MCJ_ABI_V2 = 2, MCJ_ABI_V3 = 3 };

typedef struct mcj_replicate_config_v1 {
  size_t replica_num;
  int with_soft_pin;
  const char **preferred_segments;
  size_t preferred_segments_count;
} mcj_replicate_config_v1;

typedef struct mcj_replicate_config_v2 {
  size_t replica_num;
  int with_soft_pin;
  int with_hard_pin;
  const char **preferred_segments;
  size_t preferred_segments_count;
} mcj_replicate_config_v2;

/* enum mooncake_soft_pin_action (v3); any other value makes a put answer -1. */
enum mcj_soft_pin_action {
  MCJ_SOFT_PIN_PRESERVE = 0, /* keep an existing unexpired deadline; nothing for a new object */
  MCJ_SOFT_PIN_ENABLE = 1,
  MCJ_SOFT_PIN_DISABLE = 2
};

typedef struct mcj_replicate_config_v3 {
  size_t replica_num;
  int with_hard_pin;
  const char **preferred_segments;
  size_t preferred_segments_count;
  int soft_pin_action;   /* enum mcj_soft_pin_action */
  int has_soft_pin_ttl;  /* only with MCJ_SOFT_PIN_ENABLE */
  uint64_t soft_pin_ttl_ms;
} mcj_replicate_config_v3;

#if defined(__x86_64__)
_Static_assert(offsetof(mcj_replicate_config_v1, with_soft_pin) == 8, "v1 layout");
_Static_assert(offsetof(mcj_replicate_config_v1, preferred_segments) == 16, "v1 layout");
_Static_assert(offsetof(mcj_replicate_config_v1, preferred_segments_count) == 24, "v1 layout");
_Static_assert(sizeof(mcj_replicate_config_v1) == 32, "v1 layout");
_Static_assert(offsetof(mcj_replicate_config_v2, with_hard_pin) == 12, "v2 layout");
_Static_assert(offsetof(mcj_replicate_config_v2, preferred_segments) == 16, "v2 layout");
_Static_assert(sizeof(mcj_replicate_config_v2) == 32, "v2 layout");
_Static_assert(offsetof(mcj_replicate_config_v3, with_hard_pin) == 8, "v3 layout");
_Static_assert(offsetof(mcj_replicate_config_v3, preferred_segments) == 16, "v3 layout");
_Static_assert(offsetof(mcj_replicate_config_v3, preferred_segments_count) == 24, "v3 layout");
_Static_assert(offsetof(mcj_replicate_config_v3, soft_pin_action) == 32, "v3 layout");
_Static_assert(offsetof(mcj_replicate_config_v3, has_soft_pin_ttl) == 36, "v3 layout");
_Static_assert(offsetof(mcj_replicate_config_v3, soft_pin_ttl_ms) == 40, "v3 layout");
_Static_assert(sizeof(mcj_replicate_config_v3) == 48, "v3 layout");
#endif

/*
 * What the bridge hands Mooncake: one of the layouts at the start of a zeroed block larger than
 * any of them, so that a library reading a longer struct than the one we chose reads zeros
 * (every published field's default) rather than whatever follows in memory.
 */
#define MCJ_REPLICATE_CONFIG_BLOCK_SIZE 128
typedef union mcj_replicate_config_block {
  mcj_replicate_config_v1 v1;
  mcj_replicate_config_v2 v2;
  mcj_replicate_config_v3 v3;
  unsigned char bytes[MCJ_REPLICATE_CONFIG_BLOCK_SIZE];
} mcj_replicate_config_block;

/* The type the prototypes below name. The bytes behind it follow the loaded library's layout;
 * v2's fields are the ones a caller that does not know the layout may read (replica_num and the
 * preferred segments sit at the same offsets in all three). */
typedef mcj_replicate_config_v2 mcj_replicate_config;

/*
 * X(return type, name without the "mooncake_store_" prefix, parameter list) for each of the 19
 * required functions, in store_c.h's order. Used to declare the function-pointer table, the
 * symbol names and (in the fixture) the prototypes, so that all three agree.
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

/* Functions some versions export and others do not: NULL in the table when absent. */
#define MCJ_STORE_OPTIONAL_FUNCTIONS(X)                                                           \
  X(void, set_etcd_tls_config,                                                                    \
    (void *store, const char *ca_file, const char *cert_file, const char *key_file))

/* The resolved functions of one loaded library. */
typedef struct mcj_store_api {
#define MCJ_API_FIELD(ret, name, params) ret(*name) params;
  MCJ_STORE_FUNCTIONS(MCJ_API_FIELD)
  MCJ_STORE_OPTIONAL_FUNCTIONS(MCJ_API_FIELD)
#undef MCJ_API_FIELD
} mcj_store_api;

/* Mooncake's result codes the bridge itself produces or tests for. -1 is both "invalid argument
 * or exception in the C layer" and the C++ INTERNAL_ERROR: nothing tells them apart. */
#define MCJ_OK 0
#define MCJ_INTERNAL_ERROR (-1)
#define MCJ_INVALID_PARAMS (-600)

#endif /* MOONCAKE_STORE_ABI_H */
