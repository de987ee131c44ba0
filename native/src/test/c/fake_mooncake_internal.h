/*
 * Internal to the fake libmooncake_store.so (fake_mooncake_store.c, fake_mooncake_shared.c,
 * fake_mooncake_events.c): what the files share. Not part of any ABI.
 */
#ifndef FAKE_MOONCAKE_INTERNAL_H
#define FAKE_MOONCAKE_INTERNAL_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_HIDDEN __attribute__((visibility("hidden")))

#define FAKE_NO_AVAILABLE_HANDLE (-200)
#define FAKE_ILLEGAL_CLIENT (-601)
#define FAKE_REPLICA_IS_NOT_READY (-703)
#define FAKE_OBJECT_NOT_FOUND (-704)
#define FAKE_OBJECT_HAS_LEASE (-706)
#define FAKE_TRANSFER_FAIL (-800)

/* What one put's replicate_config said, decoded from the handle's layout. */
typedef struct pin_request {
  int layout;          /* 1, 2, 3 */
  int present;         /* 0: NULL config */
  size_t replica_num;
  int soft_pin;        /* v1, v2: with_soft_pin */
  int hard_pin;        /* v2, v3: with_hard_pin */
  int soft_pin_action; /* v3 */
  int has_ttl;         /* v3 */
  uint64_t ttl_ms;     /* v3 */
  const char **preferred;
  size_t preferred_count;
} pin_request;

/* Monotonic milliseconds (CLOCK_MONOTONIC is one clock for every process of the machine). */
FAKE_HIDDEN int64_t fake_now_ms(void);
/* Sleeps us microseconds (nothing for 0 or less), resuming after signals. */
FAKE_HIDDEN void fake_sleep_us(int64_t us);

/* Memory blocks, as Mooncake's offset allocator bins them: sizes below 16 are classes of their
 * own, larger ones round UP to 3 significant bits (m * 2^k, 8 <= m <= 15: "the same power-of-two
 * eighth"), so 1000 and 1024 share the class of capacity 1024, 1025 is in the class of 1152. A
 * freed block is taken again by the next object of its class in its segment. */
#define FAKE_SIZE_CLASSES 512
/* The class of size (> 0), and the capacity of its blocks in *capacity. */
FAKE_HIDDEN uint32_t fake_size_class(uint64_t size, uint64_t *capacity);
/* When a soft pin that a put asked for ends (0: none), from now. */
FAKE_HIDDEN int64_t fake_soft_pin_until(const pin_request *pins, int64_t now);

/* ---- cross-process mode (fake_mooncake_shared.c) ---- */

#define FAKE_SHM_KEY_MAX 4096
#define FAKE_SHM_NAME_MAX 128

/* One client's place in the shared table. index/id are guarded by the table's mutex. */
typedef struct shm_member {
  int index;         /* in the table's client array; -1: none */
  uint64_t id;       /* the registration's id; 0: not registered */
  uint64_t capacity; /* global_segment_size */
  char name[FAKE_SHM_NAME_MAX];
  long registrations; /* how often registered (more than once: dropped and re-registered) */
  struct shm_member *next;
} shm_member;

/* 1 when MCJ_FAKE_SHARED names a table (attached on the first call), 0 when unset, negative when
 * the table cannot be opened (a message on stderr). */
FAKE_HIDDEN int fake_shm_enabled(void);
/* Registers the client (its segment) under a name built from host; 0 or an error. */
FAKE_HIDDEN int fake_shm_join(shm_member *m, const char *host, uint64_t capacity);
/* Drops the client's segment with every object in it. */
FAKE_HIDDEN void fake_shm_leave(shm_member *m);
FAKE_HIDDEN int fake_shm_put(shm_member *m, const char *key, const void *value, size_t size,
                             const pin_request *pins, int64_t delay_us);
/* Looks the object up and takes its lease under the table's lock, then copies its block outside
 * it, after sleeping delay_us (MCJ_FAKE_READ_DELAY_US): a forced remove and a put of another key
 * of the same class may reuse the block meanwhile, and the copy is then that key's bytes. */
FAKE_HIDDEN int64_t fake_shm_get(shm_member *m, const char *key, void *buffer, size_t size,
                                 int64_t lease_ms, int64_t delay_us);
FAKE_HIDDEN int fake_shm_exist(shm_member *m, const char *key, int64_t lease_ms);
FAKE_HIDDEN int64_t fake_shm_size(shm_member *m, const char *key);
FAKE_HIDDEN int fake_shm_remove(shm_member *m, const char *key, int force);
/* regex NULL: every object. */
FAKE_HIDDEN int64_t fake_shm_remove_matching(shm_member *m, const regex_t *regex, int force);
/* The pins an object was created with; 0 or -704. */
FAKE_HIDDEN int fake_shm_pins_of(const char *key, pin_request *out);
/* Test hook (ctl hold_shared_lock_ms): takes the table's lock and holds it for ms, so that a test
 * can kill the process inside the critical section. */
FAKE_HIDDEN int fake_shm_hold_lock(int64_t ms);
/* A counter of the shared table, or -600 for an unknown name. */
FAKE_HIDDEN int64_t fake_shm_stat(const char *name);

/* ---- KV events (fake_mooncake_events.c) ---- */

/* The publisher's counters: in the shared table with MCJ_FAKE_SHARED, else in the process. */
typedef struct fake_event_counters {
  uint64_t seq;      /* next sequence number; 0 means 1 */
  uint64_t event_id; /* next event_id; 0 means 1 */
} fake_event_counters;

/* Appends one event ("stored" or "removed") for key when MCJ_FAKE_EVENTS names a file. The caller
 * holds the lock that guards counters (so records are appended in sequence order). */
FAKE_HIDDEN void fake_event(fake_event_counters *counters, const char *type, const char *key);
/* The next n events this process publishes are dropped (sequence gaps). */
FAKE_HIDDEN void fake_events_drop_next(int n);

/* ---- log lines (fake_mooncake_glog.c) ---- */

/* Mooncake's config, read while the library is loaded: MC_LOG_LEVEL, MC_LOG_DIR. */
FAKE_HIDDEN void fake_log_config(void);
/* One line at severity I, W, E or F, written where glog would write it. */
FAKE_HIDDEN void fake_log(char severity, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

#endif
