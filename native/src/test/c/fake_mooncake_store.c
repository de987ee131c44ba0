/*
 * A fake libmooncake_store.so for tests: Mooncake Store's C ABI (mooncake_store_abi.h) with the
 * semantics documented in shared/MOONCAKE.md, in one process, thread-safe through one mutex.
 * Written from the documented behaviour, not from Mooncake's code. Never packaged. Built from
 * this file, fake_mooncake_shared.c (the cross-process mode, MCJ_FAKE_SHARED=<file>: every process
 * sees one table; its semantics, placement and limits are described there) and
 * fake_mooncake_events.c (KV events, MCJ_FAKE_EVENTS=<file>: the record format is described there).
 * Tested by fake_mooncake_store_test*.c (native/pom.xml, execution fake-store-test).
 *
 * Without MCJ_FAKE_SHARED everything below holds as it always has; with it, objects, placement,
 * eviction and the "objects" / "clients" counters are the shared table's, and the rest (controls,
 * registrations, the recorded configs) stays per process.
 *
 * What it mimics:
 *  - one "cluster" per process: every client handle sees the same objects; each object lives in
 *    the segment of the client that was chosen for it (preferred_segments first, else round-robin
 *    over clients with room); destroying a client loses the objects in its segment;
 *  - put / put_from are create-only (an existing key answers 0 and keeps the old value); size 0 and
 *    replica_num 0 answer -600; the copying put goes through setup's local_buffer_size and answers
 *    -600 (with an E line "Failed to allocate buffer for put operation") for a value larger than
 *    it, so for every value when setup was given 0, as Mooncake does (measured on 3b5a594); a
 *    full pool answers -200 (no eviction), unless eviction is on (ctl eviction=1 or
 *    MCJ_FAKE_EVICTION=1): then unpinned objects out of their lease are evicted first,
 *    soft-pinned ones next, hard-pinned ones never, and -200 only when nothing can go
 *    (stat "evictions" counts them);
 *  - get_into / is_exist grant a read lease (FAKE_MC_LEASE_MS, default 10000 ms); remove without
 *    force inside the lease answers -706; missing keys -704; a too-small buffer -600;
 *  - memory reused as Mooncake reuses it (both modes; the shared mode's top comment has the
 *    details): an object's bytes live in a block of its segment; a freed object's block stays in
 *    its segment's list of its size class (fake_size_class: 3 significant bits, rounded up) and
 *    the next put of that class there writes into it in place; a segment's used bytes count its
 *    objects only; its FREE blocks go when they would not fit beside them, and with the segment.
 *    get_into / batch_get_into take the lease and the block under the lock and copy OUTSIDE it,
 *    after MCJ_FAKE_READ_DELAY_US (ctl read_delay_us; default 0; one delay for a whole batch in
 *    one-process mode: its transfers run side by side), so a forced remove of A plus a
 *    put of B of A's class meanwhile hands A's reader B's whole object (the defect measured on a
 *    real Mooncake); a block stays allocated until its last reader has copied;
 *  - remove_by_regex with POSIX extended regex, substring match; remove_all;
 *  - register_buffer twice on one address -600, unregistering an unknown one -600; with protocol
 *    rdma, put_from / get_into on memory outside registered buffers fail with -800;
 *  - an unknown metadata_server scheme aborts the process (Mooncake's LOG(FATAL));
 *  - the first create of the process: unless dlsym(RTLD_DEFAULT, "Py_IsInitialized") finds a
 *    symbol, blocks SIGINT/SIGTERM/SIGHUP/SIGUSR1 in the calling thread and starts a thread
 *    ("fake-mc-signal") that sigwait()s for them, then resets the signal to SIG_DFL and re-raises
 *    it (the process dies without the JVM's shutdown hooks); registers an atexit handler.
 *
 *  - log lines as Mooncake writes them through glog, under MC_LOG_LEVEL / MC_LOG_DIR and glog's
 *    GLOG_minloglevel / FLAGS_stderrthreshold (fake_mooncake_glog.c): at each setup an I line and,
 *    in P2P handshake mode, the benign E line "Local segment descriptor not found"; an E line when
 *    a setup fails.
 *
 * Test hooks, in-band so that a JVM can drive them:
 *  - remove(h, "__fake_mc__/ctl/<name>=<value>", any) sets a control and answers 0:
 *      fail_ops=<code>      every data call answers <code> (batch calls: per key)
 *      fail_batch=<code>    every batch call itself answers <code>
 *      unreachable=<code>   one-process mode: reads (get_into, batch_get_into) of the objects
 *                           stored now answer <code> (e.g. -800, as Mooncake does for an object
 *                           whose segment died); objects stored later read normally; 0 clears
 *      fail_setup=<code>, fail_health=<code>, fail_register=<code>
 *      setup_delay_ms=<ms>  setup sleeps that long first (an unreachable master)
 *      fail_create=<n>      the next n creates return NULL
 *      lease_ms=<n>
 *      abi=1|2|3            the replicate_config layout of the next creates (0: MCJ_FAKE_ABI)
 *      eviction=0|1         one-process mode: evict when the pool is full (see above)
 *      put_delay_us=<us>    shared mode: a put sleeps that long between reserving the key (in
 *                           flight: -703 to others) and completing it (MCJ_FAKE_PUT_DELAY_US);
 *                           one-process mode: after completing it, before returning (a caller
 *                           stays inside the native call, e.g. for a stack sampled meanwhile)
 *      read_delay_us=<us>   get_into sleeps that long between taking the object's block (and
 *                           lease) and copying from it, outside every lock
 *                           (MCJ_FAKE_READ_DELAY_US; -1: back to the environment)
 *      foreign_reads=<n>    one-process mode: the next n get_into of a key other than the one put
 *                           last (by put, put_from, batch_put_from) answer that object's bytes,
 *                           as a reader whose block was reused meanwhile gets them
 *      events_drop_next=<n> the next n events this process publishes are dropped (a gap)
 *      hold_shared_lock_ms=<ms>  shared mode: hold the table's lock that long (to kill -9 a
 *                           process inside the critical section)
 *      sigint_handler_on_create=1  the next creates install a SIGINT handler that swallows it
 *      block_on_create=1           the next creates block SIGINT/SIGTERM/SIGHUP/SIGUSR1 in the caller
 *      reset=1                     all controls back to their defaults
 *  - get_size(h, "__fake_mc__/stat/<name>") answers a counter: registered, register_calls,
 *    unregister_calls, clients, creates, destroys, objects, signal_thread, sigint_handler,
 *    copying_puts (calls of the copying put), local_buffer_bytes (the local_buffer_size of every
 *    live client that is set up, summed: what Mooncake would have allocated for them),
 *    block_reuses (puts that took a freed block), free_blocks, used_bytes (objects' bytes in
 *    every segment), cached_bytes (capacity of the FREE blocks), reads_copying (reads between
 *    taking their block and finishing their copy; the shared table's in the shared mode); in the
 *    shared mode also segments (live clients with capacity), clients_dropped, evictions,
 *    owner_dead_recoveries, event_seq (sequence numbers used so far, dropped events included),
 *    registrations (this process's clients' registrations, counting re-registrations),
 *    lock_holder_pid (pid holding the lock through hold_shared_lock_ms, else 0);
 *    get_size(h, "__fake_mc__/env/<NAME>") answers getenv(NAME) as a number (-704 when unset);
 *    stats rpc_timeout_at_setup / rpc_connect_timeout_at_setup answer MC_RPC_TIMEOUT_MS /
 *    MC_RPC_CONNECT_TIMEOUT_MS as the last setup saw them (-704 unset, -1 no setup yet): Mooncake's
 *    client reads both once, when setup builds its master RPC pool.
 *  - environment: FAKE_MC_LEASE_MS, FAKE_MC_SIGINT_HANDLER=1 (as sigint_handler_on_create),
 *    FAKE_MC_FAIL_OPS=<code> (as fail_ops, from the first create of the process on).
 * Built with -DFAKE_MC_PARTIAL it lacks three of the 19 functions and set_etcd_tls_config, to test
 * the bridge's messages.
 *
 * replicate_config layouts (issue 12). Mooncake's store_c.h has had three layouts of struct
 * mooncake_replicate_config and no version symbol; the fake reads the config pointer as raw bytes
 * in the layout chosen by MCJ_FAKE_ABI=v1|v2|v3 (default v2), read by each create (so a process
 * can hold handles of different layouts; ctl "abi=1|2|3" overrides the environment for the next
 * creates, "abi=0" / "reset=1" go back to it; any other MCJ_FAKE_ABI value makes create fail with
 * a message on stderr). x86-64 offsets:
 *   v1: size_t replica_num@0, int with_soft_pin@8, const char **preferred_segments@16,
 *       size_t preferred_segments_count@24                                       (32 bytes)
 *   v2: v1 plus int with_hard_pin@12                                             (32 bytes)
 *   v3: replica_num@0, int with_hard_pin@8, preferred_segments@16, count@24, int soft_pin_action@32
 *       (PRESERVE 0, ENABLE 1, DISABLE 2; any other value: the put answers -1 before anything
 *       else, as Mooncake's conversion does), int has_soft_pin_ttl@36, uint64 soft_pin_ttl_ms@40
 *       (48 bytes; a TTL with an action other than ENABLE, or above FAKE_MC_MAX_SOFT_PIN_TTL_MS
 *       (default 1800000, the master's default soft pin TTL), answers -600, as the master rejects)
 * What a put received is recorded as one line of text:
 *   v1: "layout=v1 replica_num=N soft_pin=S preferred=a,b"
 *   v2: "layout=v2 replica_num=N soft_pin=S hard_pin=H preferred=a,b"
 *   v3: "layout=v3 replica_num=N hard_pin=H soft_pin_action=A has_ttl=T ttl_ms=M preferred=a,b"
 *   NULL config: "layout=vN config=null"
 * (ints as received, not normalised to 0/1; "preferred=" is empty without preferred segments).
 *  - the last put / put_from / batch_put_from of the process (recorded even when the put is then
 *    refused): exported fake_mooncake_last_replicate_config(buf, len), and in-band
 *    get_into(h, "__fake_mc__/replicate_config/last", buf, n) (get_size gives its length);
 *  - per stored object, the config of the put that created it (without "preferred="):
 *    fake_mooncake_replicate_config_of(key, buf, len), in-band
 *    get_into(h, "__fake_mc__/replicate_config/of/<key>", ...); -704 for a missing key.
 * Both C functions copy the NUL-terminated text and return its length (snprintf-like: truncated
 * when it does not fit), or -704 for a missing key; the in-band get_into answers the length copied
 * (no NUL) or -600 when the buffer is too small. They work on handles that are not set up.
 *
 * mooncake_store_set_etcd_tls_config(store, ca_file, cert_file, key_file): void, as in the Mooncake
 * versions that have it (TLS is global there; the handle is not used). Recorded, process-wide:
 * "calls=N ca=<ca> cert=<cert> key=<key> after_setup=0|1" ("(null)" for NULL; after_setup=1 when the
 * handle was already set up, which real Mooncake silently ignores): exported
 * fake_mooncake_last_etcd_tls_config(buf, len), in-band get_into(h, "__fake_mc__/etcd_tls", ...).
 * Exported by the normal fake only. Symbols cannot tell the layouts apart: every mainline Mooncake
 * store_c.h (v1 cd1ef9b5, v2 d3ace8fb..3b5a594, v3 newer) exports the same 19 functions;
 * set_etcd_tls_config appears only on a side branch with the v2 layout (0efb9cda..2d791cfe).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_mooncake_internal.h"
#include "mooncake_store_abi.h"

#define EXPORT __attribute__((visibility("default")))

/* The shared header's types: a definition below that disagrees does not compile. */
#define FAKE_PROTOTYPE(ret, name, params) EXPORT ret mooncake_store_##name params;
MCJ_STORE_FUNCTIONS(FAKE_PROTOTYPE)
#undef FAKE_PROTOTYPE

#define FAKE_EXPORT_TEXT(name, params) EXPORT int name params;
FAKE_EXPORT_TEXT(fake_mooncake_last_replicate_config, (char *buf, size_t len))
FAKE_EXPORT_TEXT(fake_mooncake_replicate_config_of, (const char *key, char *buf, size_t len))
FAKE_EXPORT_TEXT(fake_mooncake_last_etcd_tls_config, (char *buf, size_t len))
#undef FAKE_EXPORT_TEXT
#ifndef FAKE_MC_PARTIAL
EXPORT void mooncake_store_set_etcd_tls_config(void *store, const char *ca_file,
                                               const char *cert_file, const char *key_file);
#endif

/* From a *_locked helper: every local check passed, the shared table does the rest. */
#define GO_SHARED INT32_MIN

#define NO_AVAILABLE_HANDLE FAKE_NO_AVAILABLE_HANDLE
#define OBJECT_NOT_FOUND FAKE_OBJECT_NOT_FOUND
#define OBJECT_HAS_LEASE FAKE_OBJECT_HAS_LEASE
#define TRANSFER_FAIL FAKE_TRANSFER_FAIL

static const char CTL_PREFIX[] = "__fake_mc__/ctl/";
static const char STAT_PREFIX[] = "__fake_mc__/stat/";
static const char ENV_PREFIX[] = "__fake_mc__/env/";
static const char LAST_CONFIG_KEY[] = "__fake_mc__/replicate_config/last";
static const char CONFIG_OF_PREFIX[] = "__fake_mc__/replicate_config/of/";
static const char ETCD_TLS_KEY[] = "__fake_mc__/etcd_tls";


typedef struct registration {
  char *base;
  size_t size;
  struct registration *next;
} registration;

struct client;

/* A block of a segment's memory (one-process mode): an object's bytes. A freed object's block goes
 * to its segment's list of its class (fake_size_class) and the next object of that class there is
 * written into it, as Mooncake's allocator hands a freed range out again. Freed (free()) only when
 * no segment has it and no read copies from it. */
typedef struct block {
  char *data;
  size_t capacity;
  uint32_t size_class;
  struct client *segment; /* NULL: no one's (its segment destroyed, or purged) */
  int readers;            /* get_into copies in progress, outside the lock */
  struct block *prev, *next; /* the segment's FREE list of its class */
} block;

typedef struct client {
  int id;
  int layout;
  int set_up;
  char hostname[512];
  char protocol[32];
  uint64_t segment_size;
  uint64_t used;
  uint64_t local_buffer_size;
  registration *registrations;
  int shared;        /* MCJ_FAKE_SHARED: objects live in the shared table */
  shm_member member; /* its registration there */
  uint64_t cached;   /* capacity of its FREE blocks (not part of used) */
  block *free_blocks[FAKE_SIZE_CLASSES]; /* most recently freed first */
  struct client *next;
} client;

typedef struct object {
  char *key;
  block *block; /* its bytes */
  size_t size;
  int64_t lease_until_ms;
  int64_t soft_pin_until_ms; /* 0: none */
  pin_request pins; /* preferred not kept */
  client *owner;
  int unreachable; /* ctl unreachable=<code>: reads answer it (its segment is gone) */
  struct object *next;
} object;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static client *clients;
static int next_client_id;
static int round_robin;

static object **buckets;
static size_t bucket_count;
static size_t object_count;

static long stat_evictions, stat_block_reuses, stat_free_blocks, stat_reads_copying;
static int eviction_on = -1; /* ctl eviction=0|1; -1: MCJ_FAKE_EVICTION */
/* ctl foreign_reads=<n>: the next n one-process get_into of another key answer the object put
 * last instead (the reuse race's outcome: another key's bytes in the reader's buffer) */
static int foreign_reads;
static char last_put_key[512];
static long stat_register_calls, stat_unregister_calls, stat_registered, stat_creates,
    stat_destroys, stat_signal_thread, stat_sigint_handler, stat_copying_puts;

static int fail_ops, fail_batch, fail_setup, fail_health, fail_register, fail_create;
static int setup_delay_ms;
static int64_t lease_ms = -1;
static int sigint_handler_on_create, block_on_create;
static int abi_override; /* ctl abi=N; 0: MCJ_FAKE_ABI */
static int64_t put_delay_us = -1;
static int64_t read_delay_us = -1;
static fake_event_counters local_events; /* one-process mode */
static int64_t max_soft_pin_ttl_ms = -1;

static char last_config[2048] = "none";
static char last_etcd_tls[3 * 1024 + 64] = "calls=0";
static long etcd_tls_calls __attribute__((unused)); /* partial: no set_etcd_tls_config */

/* ------------------------------------------------------------------------------------------- */

int64_t fake_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define now_ms fake_now_ms

void fake_sleep_us(int64_t us) {
  if (us <= 0) return;
  struct timespec pause = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&pause, &pause) != 0) {
  }
}

uint32_t fake_size_class(uint64_t size, uint64_t *capacity) {
  if (size < 16) {
    *capacity = size;
    return (uint32_t)size;
  }
  int shift = 63 - __builtin_clzll(size) - 3; /* keeps the top 4 bits: m in 8..15 */
  uint64_t m = size >> shift;
  if (m << shift != size) m++; /* round up */
  if (m == 16) {
    m = 8;
    shift++;
  }
  *capacity = shift >= 61 ? UINT64_MAX : m << shift;
  return (uint32_t)(8 * shift + m); /* shift >= 1, so 16 and up: after the exact classes */
}

/* FAKE_MC_LEASE_MS; default 10000 (Mooncake's), 500 in the shared mode (the test master's). */
static int64_t lease_duration(void) {
  if (lease_ms < 0) {
    const char *env = getenv("FAKE_MC_LEASE_MS");
    lease_ms = env != NULL ? atoll(env) : fake_shm_enabled() == 1 ? 500 : 10000;
  }
  return lease_ms;
}

/* ctl put_delay_us, else MCJ_FAKE_PUT_DELAY_US: a shared-mode put's in-flight window. */
static int64_t put_delay(void) {
  if (put_delay_us >= 0) return put_delay_us;
  const char *env = getenv("MCJ_FAKE_PUT_DELAY_US");
  return env != NULL ? atoll(env) : 0;
}

/* ctl read_delay_us, else MCJ_FAKE_READ_DELAY_US (default 0): how long get_into waits between
 * taking the object's place (and lease) and copying from it, outside every lock. */
static int64_t read_delay(void) {
  if (read_delay_us >= 0) return read_delay_us;
  const char *env = getenv("MCJ_FAKE_READ_DELAY_US");
  return env != NULL ? atoll(env) : 0;
}

static size_t hash(const char *key) {
  size_t h = 5381;
  for (const unsigned char *p = (const unsigned char *)key; *p; p++) h = h * 33 + *p;
  return h;
}

static object **slot_of(const char *key) {
  if (bucket_count == 0) {
    bucket_count = 1024;
    buckets = calloc(bucket_count, sizeof(object *));
  }
  object **link = &buckets[hash(key) % bucket_count];
  while (*link != NULL && strcmp((*link)->key, key) != 0) link = &(*link)->next;
  return link;
}

static void grow_if_needed(void) {
  if (object_count < bucket_count * 2) return;
  size_t new_count = bucket_count * 4;
  object **grown = calloc(new_count, sizeof(object *));
  if (grown == NULL) return;
  for (size_t i = 0; i < bucket_count; i++) {
    object *o = buckets[i];
    while (o != NULL) {
      object *next = o->next;
      size_t b = hash(o->key) % new_count;
      o->next = grown[b];
      grown[b] = o;
      o = next;
    }
  }
  free(buckets);
  buckets = grown;
  bucket_count = new_count;
}

/* ---- blocks (one-process mode); every function here runs under the lock ---- */

/* A block no segment has any more: freed now, or by its last reader. */
static void block_orphan(block *b) {
  b->segment = NULL;
  if (b->readers == 0) {
    free(b->data);
    free(b);
  }
}

static void block_push_free(block *b) {
  block **head = &b->segment->free_blocks[b->size_class];
  b->prev = NULL;
  b->next = *head;
  if (*head != NULL) (*head)->prev = b;
  *head = b;
  b->segment->cached += b->capacity;
  stat_free_blocks++;
}

static void block_unlink_free(block *b) {
  if (b->prev != NULL) {
    b->prev->next = b->next;
  } else {
    b->segment->free_blocks[b->size_class] = b->next;
  }
  if (b->next != NULL) b->next->prev = b->prev;
  b->prev = b->next = NULL;
  b->segment->cached -= b->capacity;
  stat_free_blocks--;
}

/* Every FREE block of c goes (c is destroyed, or its FREE blocks no longer fit beside its objects). */
static void purge_free_blocks(client *c) {
  for (int k = 0; k < FAKE_SIZE_CLASSES; k++) {
    while (c->free_blocks[k] != NULL) {
      block *b = c->free_blocks[k];
      block_unlink_free(b);
      block_orphan(b);
    }
  }
}

/* A block for an object of size in owner's segment: the most recently freed block of its class
 * there (a read still copying from it copies the new object), else a new one. NULL: no memory. */
static block *block_take(client *owner, size_t size) {
  uint64_t capacity;
  uint32_t size_class = fake_size_class(size, &capacity);
  block *b = owner->free_blocks[size_class];
  if (b != NULL) {
    block_unlink_free(b);
    stat_block_reuses++;
    return b;
  }
  if (owner->used + owner->cached + size > owner->segment_size) purge_free_blocks(owner);
  b = calloc(1, sizeof *b);
  if (b == NULL) return NULL;
  b->data = malloc(capacity);
  if (b->data == NULL) {
    free(b);
    return NULL;
  }
  b->capacity = capacity;
  b->size_class = size_class;
  b->segment = owner;
  return b;
}

/* A read's copy is done: a block orphaned meanwhile goes with its last reader. */
static void block_done_reading(block *b) {
  if (--b->readers == 0 && b->segment == NULL) block_orphan(b);
}

static void unlink_object(object **link) {
  object *o = *link;
  *link = o->next;
  o->owner->used -= o->size;
  object_count--;
  block_push_free(o->block); /* its segment keeps it for the next object of its class */
  free(o->key);
  free(o);
}

static int leased(const object *o) { return o->lease_until_ms > now_ms(); }

/* ---------------------------------------------------------------------------------------------
 * replicate_config layouts
 * ------------------------------------------------------------------------------------------- */

/* Field at a byte offset; memcpy, because the caller's struct is not ours to type-pun. */
#define FIELD(raw, offset, type) \
  ({                             \
    type value_;                 \
    memcpy(&value_, (const char *)(raw) + (offset), sizeof value_); \
    value_;                      \
  })

/* Decodes a config in the given layout. -1 for a v3 soft_pin_action out of the enum. */
static int decode_config(int layout, const void *raw, pin_request *out) {
  memset(out, 0, sizeof *out);
  out->layout = layout;
  if (raw == NULL) return 0;
  out->present = 1;
  out->replica_num = FIELD(raw, 0, size_t);
  out->preferred = FIELD(raw, 16, const char **);
  out->preferred_count = FIELD(raw, 24, size_t);
  if (layout == 3) {
    out->hard_pin = FIELD(raw, 8, int);
    out->soft_pin_action = FIELD(raw, 32, int);
    out->has_ttl = FIELD(raw, 36, int);
    out->ttl_ms = FIELD(raw, 40, uint64_t);
    if (out->soft_pin_action < 0 || out->soft_pin_action > 2) return MCJ_INTERNAL_ERROR;
  } else {
    out->soft_pin = FIELD(raw, 8, int);
    out->hard_pin = layout == 2 ? FIELD(raw, 12, int) : 0;
  }
  return 0;
}

static int64_t max_soft_pin_ttl(void) {
  if (max_soft_pin_ttl_ms < 0) {
    const char *env = getenv("FAKE_MC_MAX_SOFT_PIN_TTL_MS");
    max_soft_pin_ttl_ms = env != NULL ? atoll(env) : 1800000;
  }
  return max_soft_pin_ttl_ms;
}

/* A soft pin's end: v1/v2 with_soft_pin and v3 ENABLE pin for the v3 TTL, else for the master's
 * --default_kv_soft_pin_ttl (30 min). 0: no soft pin. */
int64_t fake_soft_pin_until(const pin_request *p, int64_t now) {
  if (!p->present) return 0;
  if (p->layout == 3) {
    if (p->soft_pin_action != 1) return 0;
    return now + (p->has_ttl ? (int64_t)p->ttl_ms : 1800000);
  }
  return p->soft_pin ? now + 1800000 : 0;
}

/* What the master refuses in a decoded config (a missing config is fine). */
static int check_config(const pin_request *pins) {
  if (!pins->present) return 0;
  if (pins->replica_num == 0) return MCJ_INVALID_PARAMS;
  if (pins->layout == 3 && pins->has_ttl &&
      (pins->soft_pin_action != 1 || pins->ttl_ms > (uint64_t)max_soft_pin_ttl())) {
    return MCJ_INVALID_PARAMS;
  }
  return 0;
}

/* The recorded text; with_preferred adds "preferred=a,b". */
static void format_config(const pin_request *p, int with_preferred, char *out, size_t len) {
  int n;
  if (!p->present) {
    n = snprintf(out, len, "layout=v%d config=null", p->layout);
    return;
  }
  if (p->layout == 3) {
    n = snprintf(out, len,
                 "layout=v3 replica_num=%zu hard_pin=%d soft_pin_action=%d has_ttl=%d ttl_ms=%llu",
                 p->replica_num, p->hard_pin, p->soft_pin_action, p->has_ttl,
                 (unsigned long long)p->ttl_ms);
  } else if (p->layout == 2) {
    n = snprintf(out, len, "layout=v2 replica_num=%zu soft_pin=%d hard_pin=%d", p->replica_num,
                 p->soft_pin, p->hard_pin);
  } else {
    n = snprintf(out, len, "layout=v1 replica_num=%zu soft_pin=%d", p->replica_num, p->soft_pin);
  }
  if (!with_preferred || n < 0 || (size_t)n >= len) return;
  size_t at = (size_t)n;
  at += (size_t)snprintf(out + at, len - at, " preferred=");
  for (size_t i = 0; p->preferred != NULL && i < p->preferred_count && at < len; i++) {
    const char *segment = p->preferred[i] != NULL ? p->preferred[i] : "(null)";
    at += (size_t)snprintf(out + at, len - at, "%s%s", i > 0 ? "," : "", segment);
  }
}

/* Decodes and records a put's config; caller holds the lock. */
static int take_config(client *c, const void *raw, pin_request *out) {
  int result = decode_config(c->layout, raw, out);
  format_config(out, 1, last_config, sizeof last_config);
  return result;
}

/* snprintf-like copy of a recorded text. */
static int copy_text(const char *text, char *buf, size_t len) {
  if (buf == NULL || len == 0) return (int)strlen(text);
  return snprintf(buf, len, "%s", text);
}

int fake_mooncake_last_replicate_config(char *buf, size_t len) {
  pthread_mutex_lock(&lock);
  int result = copy_text(last_config, buf, len);
  pthread_mutex_unlock(&lock);
  return result;
}

int fake_mooncake_last_etcd_tls_config(char *buf, size_t len) {
  pthread_mutex_lock(&lock);
  int result = copy_text(last_etcd_tls, buf, len);
  pthread_mutex_unlock(&lock);
  return result;
}

/* The text of the config an object was created with; caller holds the lock. */
static int config_of_locked(const char *key, char *text, size_t len) {
  pin_request pins;
  if (fake_shm_enabled() == 1) {
    int found = fake_shm_pins_of(key, &pins);
    if (found != 0) return found;
  } else {
    object *o = *slot_of(key);
    if (o == NULL) return OBJECT_NOT_FOUND;
    pins = o->pins;
  }
  format_config(&pins, 0, text, len);
  return 0;
}

int fake_mooncake_replicate_config_of(const char *key, char *buf, size_t len) {
  if (key == NULL) return MCJ_INTERNAL_ERROR;
  char text[512];
  pthread_mutex_lock(&lock);
  int result = config_of_locked(key, text, sizeof text);
  pthread_mutex_unlock(&lock);
  return result < 0 ? result : copy_text(text, buf, len);
}

/* In-band reads of the records: the text into buffer (no NUL), or -600 when it does not fit;
 * 1 when key is not one of them. Caller holds the lock. */
static int record_text_locked(const char *key, char *text, size_t len, int64_t *result) {
  if (strcmp(key, LAST_CONFIG_KEY) == 0) {
    snprintf(text, len, "%s", last_config);
  } else if (strcmp(key, ETCD_TLS_KEY) == 0) {
    snprintf(text, len, "%s", last_etcd_tls);
  } else if (strncmp(key, CONFIG_OF_PREFIX, sizeof CONFIG_OF_PREFIX - 1) == 0) {
    int found = config_of_locked(key + sizeof CONFIG_OF_PREFIX - 1, text, len);
    if (found < 0) {
      *result = found;
      return 0;
    }
  } else {
    return 1;
  }
  *result = (int64_t)strlen(text);
  return 0;
}

static int is_registered(client *c, const void *address, size_t size) {
  const char *p = address;
  for (registration *r = c->registrations; r != NULL; r = r->next) {
    if (p >= r->base && (size_t)(p - r->base) <= r->size && size <= r->size - (size_t)(p - r->base)) {
      return 1;
    }
  }
  return 0;
}

static int transfer_allowed(client *c, const void *buffer, size_t size) {
  return strcmp(c->protocol, "rdma") != 0 || is_registered(c, buffer, size);
}

static client *pick_segment(const pin_request *pins, size_t size) {
  if (pins->preferred != NULL) {
    for (size_t i = 0; i < pins->preferred_count; i++) {
      for (client *c = clients; c != NULL; c = c->next) {
        if (c->set_up && pins->preferred[i] != NULL &&
            strcmp(c->hostname, pins->preferred[i]) == 0 &&
            c->segment_size - c->used >= size) {
          return c;
        }
      }
    }
  }
  int count = 0;
  for (client *c = clients; c != NULL; c = c->next) count++;
  for (int attempt = 0; attempt < count; attempt++) {
    int index = (round_robin + attempt) % count;
    client *c = clients;
    for (int i = 0; i < index; i++) c = c->next;
    if (c->set_up && c->segment_size >= c->used + size && c->segment_size > 0) {
      round_robin = index + 1;
      return c;
    }
  }
  return NULL;
}

static int eviction_enabled(void) {
  if (eviction_on < 0) {
    const char *env = getenv("MCJ_FAKE_EVICTION");
    eviction_on = env != NULL && strcmp(env, "1") == 0;
  }
  return eviction_on;
}

/* With eviction on (ctl eviction=1 or MCJ_FAKE_EVICTION=1; off by default, where a full pool
 * answers -200 at once): makes room in the first preferred client, else the first client that can
 * hold size, by evicting its objects that are not hard-pinned and out of their lease, those without
 * an active soft pin first, oldest lease first (as the shared mode and Mooncake do). NULL when that
 * cannot make room. Caller holds the lock. */
static client *evict_for(const pin_request *pins, size_t size) {
  client *target = NULL;
  for (size_t i = 0; pins->preferred != NULL && i < pins->preferred_count && !target; i++) {
    for (client *c = clients; c != NULL && !target; c = c->next) {
      if (c->set_up && pins->preferred[i] != NULL && strcmp(c->hostname, pins->preferred[i]) == 0 &&
          c->segment_size >= size) {
        target = c;
      }
    }
  }
  for (client *c = clients; c != NULL && !target; c = c->next) {
    if (c->set_up && c->segment_size >= size) target = c;
  }
  if (target == NULL) return NULL;
  int64_t now = now_ms();
  while (target->segment_size - target->used < size) {
    object **victim = NULL;
    int victim_pinned = 0;
    for (size_t b = 0; b < bucket_count; b++) {
      for (object **link = &buckets[b]; *link != NULL; link = &(*link)->next) {
        object *o = *link;
        if (o->owner != target || o->pins.hard_pin || o->lease_until_ms > now) continue;
        int pinned = o->soft_pin_until_ms > now;
        if (victim == NULL || pinned < victim_pinned ||
            (pinned == victim_pinned && o->lease_until_ms < (*victim)->lease_until_ms)) {
          victim = link;
          victim_pinned = pinned;
        }
      }
    }
    if (victim == NULL) return NULL;
    fake_event(&local_events, "removed", (*victim)->key);
    unlink_object(victim);
    stat_evictions++;
  }
  return target;
}

/* Stores a copy; caller holds the lock. */
static int put_locked(client *c, const char *key, const void *value, size_t size,
                      const pin_request *pins) {
  if (!c->set_up) return MCJ_INVALID_PARAMS;
  if (fail_ops) return fail_ops;
  if (key == NULL || key[0] == '\0' || size == 0) return MCJ_INVALID_PARAMS;
  int refused = check_config(pins);
  if (refused) return refused;
  if (c->shared) return GO_SHARED;
  object **link = slot_of(key);
  if (*link != NULL) return 0; /* create-only: keep the old value */
  client *owner = pick_segment(pins, size);
  if (owner == NULL && eviction_enabled()) owner = evict_for(pins, size);
  if (owner == NULL) return NO_AVAILABLE_HANDLE;
  object *o = calloc(1, sizeof *o);
  if (o == NULL) return MCJ_INTERNAL_ERROR;
  o->key = strdup(key);
  o->block = o->key != NULL ? block_take(owner, size) : NULL;
  if (o->block == NULL) {
    free(o->key);
    free(o);
    return MCJ_INTERNAL_ERROR;
  }
  memcpy(o->block->data, value, size); /* in place: a read of the block's last object sees it */
  o->size = size;
  o->soft_pin_until_ms = fake_soft_pin_until(pins, now_ms());
  o->pins = *pins;
  o->pins.preferred = NULL;
  o->pins.preferred_count = 0;
  o->owner = owner;
  owner->used += size;
  *link = o;
  object_count++;
  fake_event(&local_events, "stored", key);
  grow_if_needed();
  return 0;
}

/* The master's part of a read: checks, the lease, and the block to copy from (*reading, with a
 * reader counted; the caller copies outside the lock and calls block_done_reading). */
static int64_t get_locked(client *c, const char *key, void *buffer, size_t size, block **reading) {
  if (!c->set_up) return MCJ_INVALID_PARAMS;
  if (fail_ops) return fail_ops;
  /* shared: the whole buffer must be registered (the object's size is not known here) */
  if (c->shared) return transfer_allowed(c, buffer, size) ? GO_SHARED : TRANSFER_FAIL;
  object *o = *slot_of(key);
  if (foreign_reads > 0 && strcmp(key, last_put_key) != 0) {
    object *other = *slot_of(last_put_key);
    if (other != NULL && size >= other->size) {
      foreign_reads--;
      o = other;
    }
  }
  if (o == NULL) return OBJECT_NOT_FOUND;
  if (size < o->size) return MCJ_INVALID_PARAMS;
  if (o->unreachable) return o->unreachable;
  if (!transfer_allowed(c, buffer, o->size)) return TRANSFER_FAIL;
  o->lease_until_ms = now_ms() + lease_duration();
  o->block->readers++;
  stat_reads_copying++;
  *reading = o->block;
  return (int64_t)o->size;
}

static int exist_locked(client *c, const char *key) {
  if (!c->set_up) return MCJ_INVALID_PARAMS;
  if (fail_ops) return fail_ops;
  if (c->shared) return GO_SHARED;
  object *o = *slot_of(key);
  if (o == NULL) return 0;
  o->lease_until_ms = now_ms() + lease_duration();
  return 1;
}

/* ---------------------------------------------------------------------------------------------
 * Signals, as Mooncake's ResourceTracker does them
 * ------------------------------------------------------------------------------------------- */

static sigset_t signal_thread_set;

static void *signal_thread(void *arg) {
  (void)arg;
  for (;;) {
    int sig = 0;
    if (sigwait(&signal_thread_set, &sig) != 0) continue;
    if (sig == SIGUSR1) continue;
    char message[] = "fake-mooncake: signal thread took signal NN; re-raising with SIG_DFL\n";
    char *nn = strstr(message, "NN");
    nn[0] = (char)('0' + sig / 10);
    nn[1] = (char)('0' + sig % 10);
    if (write(2, message, sizeof message - 1) < 0) {
      /* nothing to do */
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    raise(sig);
  }
  return NULL;
}

static void exit_handler(void) {
  /* Mooncake tears every live client down here; the fake has nothing outside the process. */
}

static void block_signals_in_caller(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void resource_tracker_init(void) {
  if (dlsym(RTLD_DEFAULT, "Py_IsInitialized") == NULL) {
    sigemptyset(&signal_thread_set);
    sigaddset(&signal_thread_set, SIGINT);
    sigaddset(&signal_thread_set, SIGTERM);
    sigaddset(&signal_thread_set, SIGHUP);
    sigaddset(&signal_thread_set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &signal_thread_set, NULL); /* and never unblocked here */
    pthread_t thread;
    if (pthread_create(&thread, NULL, signal_thread, NULL) == 0) {
      pthread_setname_np(thread, "fake-mc-signal");
      pthread_detach(thread);
      stat_signal_thread = 1;
    }
  }
  atexit(exit_handler);
}

static void swallow_sigint(int sig) {
  (void)sig;
  static const char message[] = "fake-mooncake: SIGINT swallowed by the handler installed in create\n";
  if (write(2, message, sizeof message - 1) < 0) {
    /* nothing to do */
  }
}

static pthread_once_t tracker_once = PTHREAD_ONCE_INIT;
static pthread_once_t environment_once = PTHREAD_ONCE_INIT;

static void read_environment(void) {
  const char *fail = getenv("FAKE_MC_FAIL_OPS");
  if (fail != NULL) {
    pthread_mutex_lock(&lock);
    fail_ops = atoi(fail);
    pthread_mutex_unlock(&lock);
  }
}

/* ---------------------------------------------------------------------------------------------
 * Lifecycle
 * ------------------------------------------------------------------------------------------- */

/* MCJ_FAKE_ABI as a layout number, 0 (with a message) when it names none. */
static int layout_from_environment(void) {
  const char *abi = getenv("MCJ_FAKE_ABI");
  if (abi == NULL || abi[0] == '\0') return 2;
  if (strcmp(abi, "v1") == 0 || strcmp(abi, "1") == 0) return 1;
  if (strcmp(abi, "v2") == 0 || strcmp(abi, "2") == 0) return 2;
  if (strcmp(abi, "v3") == 0 || strcmp(abi, "3") == 0) return 3;
  fprintf(stderr, "fake-mooncake: MCJ_FAKE_ABI=%s is not v1, v2 or v3; create fails\n", abi);
  return 0;
}

void *mooncake_store_create(void) {
  pthread_once(&environment_once, read_environment);
  pthread_mutex_lock(&lock);
  int refuse = fail_create > 0;
  if (refuse) fail_create--;
  int install = sigint_handler_on_create ||
                (getenv("FAKE_MC_SIGINT_HANDLER") != NULL && strcmp(getenv("FAKE_MC_SIGINT_HANDLER"), "1") == 0);
  int block = block_on_create;
  int layout = abi_override;
  pthread_mutex_unlock(&lock);
  if (refuse) return NULL;
  if (layout < 1 || layout > 3) layout = layout_from_environment();
  if (layout == 0) return NULL;
  int shared = fake_shm_enabled();
  if (shared < 0) return NULL; /* MCJ_FAKE_SHARED names a table that cannot be used */
  pthread_once(&tracker_once, resource_tracker_init);
  if (install) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = swallow_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
  }
  if (block) block_signals_in_caller();
  client *c = calloc(1, sizeof *c);
  if (c == NULL) return NULL;
  pthread_mutex_lock(&lock);
  if (install) stat_sigint_handler++;
  c->id = next_client_id++;
  c->layout = layout;
  c->shared = shared;
  c->member.index = -1;
  c->next = clients;
  clients = c;
  stat_creates++;
  pthread_mutex_unlock(&lock);
  return c;
}

void mooncake_store_destroy(void *store) {
  if (store == NULL) return;
  client *c = store;
  /* Mooncake's teardown logs too (3b5a594: "removeSegmentDesc <host> finish", INFO). */
  if (c->set_up) fake_log('I', "transfer_metadata.cpp", 583, "removeSegmentDesc %s finish", c->hostname);
  if (c->shared && c->set_up) fake_shm_leave(&c->member);
  pthread_mutex_lock(&lock);
  /* The segment leaves the cluster with every object in it, whoever wrote them. */
  for (size_t b = 0; b < bucket_count; b++) {
    object **link = &buckets[b];
    while (*link != NULL) {
      if ((*link)->owner == c) {
        unlink_object(link);
      } else {
        link = &(*link)->next;
      }
    }
  }
  purge_free_blocks(c); /* its memory goes with it (a read in progress keeps its block) */
  while (c->registrations != NULL) {
    registration *r = c->registrations;
    c->registrations = r->next;
    stat_registered--;
    free(r);
  }
  for (client **link = &clients; *link != NULL; link = &(*link)->next) {
    if (*link == c) {
      *link = c->next;
      break;
    }
  }
  stat_destroys++;
  pthread_mutex_unlock(&lock);
  free(c);
}

#ifndef FAKE_MC_PARTIAL
void mooncake_store_set_etcd_tls_config(void *store, const char *ca_file, const char *cert_file,
                                        const char *key_file) {
  pthread_mutex_lock(&lock);
  etcd_tls_calls++;
  int after_setup = store != NULL && ((client *)store)->set_up;
  snprintf(last_etcd_tls, sizeof last_etcd_tls, "calls=%ld ca=%.1000s cert=%.1000s key=%.1000s after_setup=%d",
           etcd_tls_calls, ca_file != NULL ? ca_file : "(null)",
           cert_file != NULL ? cert_file : "(null)", key_file != NULL ? key_file : "(null)",
           after_setup);
  pthread_mutex_unlock(&lock);
}
#endif

static int known_metadata_server(const char *value) {
  if (strcmp(value, "P2PHANDSHAKE") == 0) return 1;
  const char *end = strstr(value, "://");
  if (end == NULL) return 1;
  size_t n = (size_t)(end - value);
  return (n == 4 && strncmp(value, "etcd", 4) == 0) || (n == 5 && strncmp(value, "redis", 5) == 0) ||
         (n == 4 && strncmp(value, "http", 4) == 0) || (n == 5 && strncmp(value, "https", 5) == 0);
}

static int setup_locked(client *c, const char *local_hostname, uint64_t segment,
                        uint64_t local_buffer, const char *protocol) {
  if (fail_setup) return fail_setup;
  if (c->set_up) return MCJ_INVALID_PARAMS;
  if (strcmp(protocol, "tcp") != 0 && strcmp(protocol, "rdma") != 0) return MCJ_INVALID_PARAMS;
  if (local_hostname[0] == '\0') return MCJ_INVALID_PARAMS;
  if (c->shared) {
    int joined = fake_shm_join(&c->member, local_hostname, segment);
    if (joined != 0) return joined;
    snprintf(c->hostname, sizeof c->hostname, "%s", c->member.name);
  } else if (strchr(local_hostname, ':') != NULL) {
    snprintf(c->hostname, sizeof c->hostname, "%s", local_hostname);
  } else {
    snprintf(c->hostname, sizeof c->hostname, "%s:%d", local_hostname, 12300 + c->id);
  }
  snprintf(c->protocol, sizeof c->protocol, "%s", protocol);
  c->segment_size = segment;
  c->local_buffer_size = local_buffer;
  c->set_up = 1;
  return 0;
}

/* What the last setup read of MC_RPC_*: Mooncake's MasterClient reads them when setup builds it. */
static int64_t setup_rpc_timeout = -1, setup_rpc_connect_timeout = -1;

static int64_t env_number(const char *name) {
  const char *value = getenv(name);
  return value == NULL ? OBJECT_NOT_FOUND : atoll(value);
}

int mooncake_store_setup(void *store, const char *local_hostname, const char *metadata_server,
                         uint64_t global_segment_size, uint64_t local_buffer_size,
                         const char *protocol, const char *device_name,
                         const char *master_server_addr) {
  (void)device_name;
  if (store == NULL) return MCJ_INTERNAL_ERROR;
  if (local_hostname == NULL || metadata_server == NULL || protocol == NULL ||
      master_server_addr == NULL) {
    return MCJ_INTERNAL_ERROR;
  }
  if (!known_metadata_server(metadata_server)) {
    fprintf(stderr, "fake-mooncake: FATAL: Unable to find metadata storage plugin for %s\n",
            metadata_server);
    abort(); /* Mooncake's LOG(FATAL) */
  }
  if (strchr(master_server_addr, ':') == NULL) return MCJ_INVALID_PARAMS;
  pthread_mutex_lock(&lock);
  setup_rpc_timeout = env_number("MC_RPC_TIMEOUT_MS");
  setup_rpc_connect_timeout = env_number("MC_RPC_CONNECT_TIMEOUT_MS");
  pthread_mutex_unlock(&lock);
  if (setup_delay_ms > 0) {
    usleep((useconds_t)setup_delay_ms * 1000); /* an unreachable master: setup hangs in retries */
  }
  pthread_mutex_lock(&lock);
  int result = setup_locked(store, local_hostname, global_segment_size, local_buffer_size, protocol);
  pthread_mutex_unlock(&lock);
  /* What Mooncake logs (fake_mooncake_glog.c): a line per start, its benign ERROR, real errors. */
  if (result == 0) {
    fake_log('I', "client_service.cpp", 1, "fake: client %s set up", local_hostname);
    if (strcmp(metadata_server, "P2PHANDSHAKE") == 0) {
      fake_log('E', "transfer_metadata.cpp", 1029, "Local segment descriptor not found");
    }
  } else {
    fake_log('E', "client_service.cpp", 2, "fake: setup against %s failed: %d",
             master_server_addr, result);
  }
  return result;
}

int mooncake_store_init_all(void *store, const char *protocol, const char *device_name,
                            uint64_t mount_segment_size) {
  (void)device_name;
  if (store == NULL || protocol == NULL) return MCJ_INTERNAL_ERROR;
  pthread_mutex_lock(&lock);
  int result = setup_locked(store, "localhost", mount_segment_size, 0, protocol);
  pthread_mutex_unlock(&lock);
  return result;
}

int mooncake_store_health_check(void *store) {
  if (store == NULL) return MCJ_INTERNAL_ERROR;
  pthread_mutex_lock(&lock);
  int result = fail_health ? fail_health : ((client *)store)->set_up ? 0 : MCJ_INTERNAL_ERROR;
  pthread_mutex_unlock(&lock);
  return result;
}

/* ---------------------------------------------------------------------------------------------
 * Data
 * ------------------------------------------------------------------------------------------- */

/* One put after the config is decoded: local checks under the lock, then the table. */
static int put_one(client *c, const char *key, const void *value, size_t size,
                   const pin_request *pins, int copying) {
  pthread_mutex_lock(&lock);
  int result;
  int no_room = 0;
  if (copying) {
    /* A copying put goes through the client's local buffer (setup's local_buffer_size): with 0,
     * or a value larger than it, Mooncake answers -600 (measured on 3b5a594). */
    stat_copying_puts++;
    no_room = c->set_up && size > c->local_buffer_size;
    result = no_room ? MCJ_INVALID_PARAMS : put_locked(c, key, value, size, pins);
  } else {
    result = c->set_up && !fail_ops && !transfer_allowed(c, value, size)
                 ? TRANSFER_FAIL
                 : put_locked(c, key, value, size, pins);
  }
  if (result == 0 && !c->shared && strlen(key) < sizeof last_put_key) {
    strcpy(last_put_key, key);
  }
  int64_t delay = put_delay();
  pthread_mutex_unlock(&lock);
  if (no_room) {
    fake_log('E', "client_service.cpp", 3, "Failed to allocate buffer for put operation");
  }
  if (result == GO_SHARED) {
    result = fake_shm_put(&c->member, key, value, size, pins, delay);
  } else if (delay > 0) {
    usleep((useconds_t)delay); /* one-process mode: the put is done, its call returns late */
  }
  return result;
}

/* Decodes and records config; 0 or the put's answer for a config the layout refuses. */
static int decode_put_config(client *c, const void *config, pin_request *pins) {
  pthread_mutex_lock(&lock);
  int result = take_config(c, config, pins);
  pthread_mutex_unlock(&lock);
  return result;
}

int mooncake_store_put(void *store, const char *key, const void *value, size_t size,
                       const mcj_replicate_config *config) {
  if (store == NULL || key == NULL) return MCJ_INTERNAL_ERROR;
  if (value == NULL && size > 0) return MCJ_INTERNAL_ERROR;
  pin_request pins;
  int result = decode_put_config(store, config, &pins);
  return result != 0 ? result : put_one(store, key, value, size, &pins, 1);
}

int mooncake_store_put_from(void *store, const char *key, void *buffer, size_t size,
                            const mcj_replicate_config *config) {
  if (store == NULL || key == NULL) return MCJ_INTERNAL_ERROR;
  if (buffer == NULL && size > 0) return MCJ_INTERNAL_ERROR;
  pin_request pins;
  int result = decode_put_config(store, config, &pins);
  return result != 0 ? result : put_one(store, key, buffer, size, &pins, 0);
}

int mooncake_store_batch_put_from(void *store, const char **keys, void **buffers,
                                  const size_t *sizes, size_t count,
                                  const mcj_replicate_config *config, int *results_out) {
  if (store == NULL || keys == NULL || buffers == NULL || sizes == NULL || results_out == NULL) {
    return MCJ_INTERNAL_ERROR;
  }
  for (size_t i = 0; i < count; i++) {
    if (keys[i] == NULL || (buffers[i] == NULL && sizes[i] > 0)) return MCJ_INTERNAL_ERROR;
  }
  client *c = store;
  pin_request pins;
  int overall = decode_put_config(c, config, &pins);
  if (!overall) {
    pthread_mutex_lock(&lock);
    overall = fail_batch;
    pthread_mutex_unlock(&lock);
  }
  if (!overall) {
    for (size_t i = 0; i < count; i++) {
      results_out[i] = put_one(c, keys[i], buffers[i], sizes[i], &pins, 0);
    }
  }
  return overall;
}

static int64_t get_one(client *c, const char *key, void *buffer, size_t size) {
  pthread_mutex_lock(&lock);
  block *reading = NULL;
  int64_t result = get_locked(c, key, buffer, size, &reading);
  int64_t lease = lease_duration();
  int64_t delay = read_delay();
  pthread_mutex_unlock(&lock);
  if (result == GO_SHARED) return fake_shm_get(&c->member, key, buffer, size, lease, delay);
  if (reading != NULL) {
    /* The transfer, outside the lock: a forced remove does not wait for it, and the next put of
     * the block's class in its segment writes into the block meanwhile. */
    fake_sleep_us(delay);
    memcpy(buffer, reading->data, (size_t)result);
    pthread_mutex_lock(&lock);
    block_done_reading(reading);
    stat_reads_copying--;
    pthread_mutex_unlock(&lock);
  }
  return result;
}

/* A batch's reads: the blocks taken under the lock one by one, then ONE read delay for all of them
 * (Mooncake submits a batch's transfers side by side), then the copies; each block stays taken
 * until copied, as in get_one. The shared mode reads key by key (fake_shm_get). */
static void get_batch(client *c, const char **keys, void **buffers, const size_t *sizes,
                      size_t count, int64_t *results_out) {
  if (c->shared) {
    for (size_t i = 0; i < count; i++) results_out[i] = get_one(c, keys[i], buffers[i], sizes[i]);
    return;
  }
  block **reading = calloc(count, sizeof *reading);
  if (reading == NULL) {
    for (size_t i = 0; i < count; i++) results_out[i] = MCJ_INTERNAL_ERROR;
    return;
  }
  int copying = 0;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < count; i++) {
    results_out[i] = get_locked(c, keys[i], buffers[i], sizes[i], &reading[i]);
    copying |= reading[i] != NULL;
  }
  int64_t delay = read_delay();
  pthread_mutex_unlock(&lock);
  if (copying) fake_sleep_us(delay);
  for (size_t i = 0; i < count; i++) {
    if (reading[i] == NULL) continue;
    memcpy(buffers[i], reading[i]->data, (size_t)results_out[i]);
    pthread_mutex_lock(&lock);
    block_done_reading(reading[i]);
    stat_reads_copying--;
    pthread_mutex_unlock(&lock);
  }
  free(reading);
}

int64_t mooncake_store_get_into(void *store, const char *key, void *buffer, size_t size) {
  if (store == NULL || key == NULL) return MCJ_INTERNAL_ERROR;
  if (buffer == NULL && size > 0) return MCJ_INTERNAL_ERROR;
  pthread_mutex_lock(&lock);
  char text[sizeof last_etcd_tls];
  int64_t result;
  int in_band = record_text_locked(key, text, sizeof text, &result) == 0;
  if (in_band && result >= 0 && (size_t)result > size) {
    result = MCJ_INVALID_PARAMS;
  } else if (in_band && result >= 0) {
    memcpy(buffer, text, (size_t)result);
  }
  pthread_mutex_unlock(&lock);
  return in_band ? result : get_one(store, key, buffer, size);
}

int mooncake_store_batch_get_into(void *store, const char **keys, void **buffers,
                                  const size_t *sizes, size_t count, int64_t *results_out) {
  if (store == NULL || keys == NULL || buffers == NULL || sizes == NULL || results_out == NULL) {
    return MCJ_INTERNAL_ERROR;
  }
  for (size_t i = 0; i < count; i++) {
    if (keys[i] == NULL || (buffers[i] == NULL && sizes[i] > 0)) return MCJ_INTERNAL_ERROR;
  }
  pthread_mutex_lock(&lock);
  int overall = fail_batch;
  pthread_mutex_unlock(&lock);
  if (!overall) get_batch(store, keys, buffers, sizes, count, results_out);
  return overall;
}

static int exist_one(client *c, const char *key) {
  pthread_mutex_lock(&lock);
  int result = exist_locked(c, key);
  int64_t lease = lease_duration();
  pthread_mutex_unlock(&lock);
  if (result == GO_SHARED) result = fake_shm_exist(&c->member, key, lease);
  return result;
}

int mooncake_store_is_exist(void *store, const char *key) {
  if (store == NULL || key == NULL) return MCJ_INTERNAL_ERROR;
  return exist_one(store, key);
}

#ifndef FAKE_MC_PARTIAL
int mooncake_store_batch_is_exist(void *store, const char **keys, size_t count, int *results_out) {
  if (store == NULL || keys == NULL || results_out == NULL) return MCJ_INTERNAL_ERROR;
  for (size_t i = 0; i < count; i++) {
    if (keys[i] == NULL) return MCJ_INTERNAL_ERROR;
  }
  pthread_mutex_lock(&lock);
  int overall = fail_batch;
  pthread_mutex_unlock(&lock);
  if (!overall) {
    for (size_t i = 0; i < count; i++) results_out[i] = exist_one(store, keys[i]);
  }
  return overall;
}
#endif

static int64_t stat_value(const char *name) {
  static const char *const shared_stats[] = {"objects",   "clients",        "segments",
                                             "clients_dropped", "evictions",
                                             "owner_dead_recoveries", "event_seq",
                                             "registrations", "lock_holder_pid",
                                             "block_reuses", "free_blocks", "used_bytes",
                                             "cached_bytes", "reads_copying"};
  if (fake_shm_enabled() == 1) {
    for (size_t i = 0; i < sizeof shared_stats / sizeof shared_stats[0]; i++) {
      if (strcmp(name, shared_stats[i]) == 0) return fake_shm_stat(name);
    }
  }
  if (strcmp(name, "registered") == 0) return stat_registered;
  if (strcmp(name, "register_calls") == 0) return stat_register_calls;
  if (strcmp(name, "unregister_calls") == 0) return stat_unregister_calls;
  if (strcmp(name, "creates") == 0) return stat_creates;
  if (strcmp(name, "destroys") == 0) return stat_destroys;
  if (strcmp(name, "objects") == 0) return (int64_t)object_count;
  if (strcmp(name, "signal_thread") == 0) return stat_signal_thread;
  if (strcmp(name, "sigint_handler") == 0) return stat_sigint_handler;
  if (strcmp(name, "evictions") == 0) return stat_evictions;
  if (strcmp(name, "copying_puts") == 0) return stat_copying_puts;
  if (strcmp(name, "block_reuses") == 0) return stat_block_reuses;
  if (strcmp(name, "free_blocks") == 0) return stat_free_blocks;
  if (strcmp(name, "reads_copying") == 0) return stat_reads_copying;
  if (strcmp(name, "rpc_timeout_at_setup") == 0) return setup_rpc_timeout;
  if (strcmp(name, "rpc_connect_timeout_at_setup") == 0) return setup_rpc_connect_timeout;
  if (strcmp(name, "used_bytes") == 0 || strcmp(name, "cached_bytes") == 0) {
    int64_t n = 0;
    for (client *c = clients; c != NULL; c = c->next) n += (int64_t)(name[0] == 'u' ? c->used : c->cached);
    return n;
  }
  if (strcmp(name, "local_buffer_bytes") == 0) {
    int64_t n = 0;
    for (client *c = clients; c != NULL; c = c->next) {
      if (c->set_up) n += (int64_t)c->local_buffer_size;
    }
    return n;
  }
  if (strcmp(name, "clients") == 0) {
    int64_t n = 0;
    for (client *c = clients; c != NULL; c = c->next) n++;
    return n;
  }
  return MCJ_INVALID_PARAMS;
}

int64_t mooncake_store_get_size(void *store, const char *key) {
  if (store == NULL || key == NULL) return MCJ_INTERNAL_ERROR;
  client *c = store;
  char text[sizeof last_etcd_tls];
  pthread_mutex_lock(&lock);
  int64_t result;
  if (strncmp(key, STAT_PREFIX, sizeof STAT_PREFIX - 1) == 0) {
    result = stat_value(key + sizeof STAT_PREFIX - 1);
  } else if (record_text_locked(key, text, sizeof text, &result) == 0) {
    /* the length of the record */
  } else if (strncmp(key, ENV_PREFIX, sizeof ENV_PREFIX - 1) == 0) {
    result = env_number(key + sizeof ENV_PREFIX - 1); /* what Mooncake would read */
  } else if (!c->set_up) {
    result = MCJ_INVALID_PARAMS;
  } else if (fail_ops) {
    result = fail_ops;
  } else if (c->shared) {
    result = GO_SHARED;
  } else {
    object *o = *slot_of(key);
    result = o == NULL ? OBJECT_NOT_FOUND : (int64_t)o->size;
  }
  pthread_mutex_unlock(&lock);
  return result == GO_SHARED ? fake_shm_size(&c->member, key) : result;
}

int mooncake_store_get_hostname(void *store, char *buf_out, size_t buf_len) {
  if (store == NULL || buf_out == NULL || buf_len == 0) return MCJ_INTERNAL_ERROR;
  client *c = store;
  pthread_mutex_lock(&lock);
  int result = 0;
  size_t length = strlen(c->hostname);
  if (length >= buf_len) {
    result = MCJ_INTERNAL_ERROR;
  } else {
    memcpy(buf_out, c->hostname, length + 1);
  }
  pthread_mutex_unlock(&lock);
  return result;
}

/* Marks every object stored now as read-failing with code (0 clears); caller holds the lock. */
static void mark_unreachable_locked(int code) {
  for (size_t b = 0; b < bucket_count; b++) {
    for (object *o = buckets[b]; o != NULL; o = o->next) o->unreachable = code;
  }
}

/* "name=value" under the control prefix; caller holds the lock. */
static int control_locked(const char *text) {
  const char *equals = strchr(text, '=');
  if (equals == NULL) return MCJ_INVALID_PARAMS;
  size_t n = (size_t)(equals - text);
  long long value = atoll(equals + 1);
#define CONTROL(name, variable)                                         \
  if (n == sizeof name - 1 && strncmp(text, name, n) == 0) {            \
    variable = value;                                                   \
    return 0;                                                           \
  }
  CONTROL("fail_ops", fail_ops)
  CONTROL("fail_batch", fail_batch)
  CONTROL("fail_setup", fail_setup)
  CONTROL("fail_health", fail_health)
  CONTROL("fail_register", fail_register)
  CONTROL("fail_create", fail_create)
  CONTROL("setup_delay_ms", setup_delay_ms)
  CONTROL("lease_ms", lease_ms)
  CONTROL("sigint_handler_on_create", sigint_handler_on_create)
  CONTROL("block_on_create", block_on_create)
  CONTROL("abi", abi_override)
  CONTROL("put_delay_us", put_delay_us)
  CONTROL("read_delay_us", read_delay_us)
  CONTROL("eviction", eviction_on)
  CONTROL("foreign_reads", foreign_reads)
#undef CONTROL
  if (n == 19 && strncmp(text, "hold_shared_lock_ms", 19) == 0) {
    return fake_shm_enabled() == 1 ? fake_shm_hold_lock(value) : MCJ_INVALID_PARAMS;
  }
  if (n == 11 && strncmp(text, "unreachable", 11) == 0) {
    mark_unreachable_locked((int)value);
    return 0;
  }
  if (n == 16 && strncmp(text, "events_drop_next", 16) == 0) {
    fake_events_drop_next((int)value);
    return 0;
  }
  if (n == 5 && strncmp(text, "reset", 5) == 0) {
    fail_ops = fail_batch = fail_setup = fail_health = fail_register = fail_create = 0;
    setup_delay_ms = 0;
    lease_ms = -1;
    sigint_handler_on_create = block_on_create = 0;
    abi_override = 0;
    max_soft_pin_ttl_ms = -1;
    put_delay_us = -1;
    read_delay_us = -1;
    eviction_on = -1;
    foreign_reads = 0;
    mark_unreachable_locked(0);
    fake_events_drop_next(0);
    return 0;
  }
  return MCJ_INVALID_PARAMS;
}

int mooncake_store_remove(void *store, const char *key, int force) {
  if (store == NULL || key == NULL) return MCJ_INTERNAL_ERROR;
  client *c = store;
  pthread_mutex_lock(&lock);
  int result;
  if (strncmp(key, CTL_PREFIX, sizeof CTL_PREFIX - 1) == 0) {
    result = control_locked(key + sizeof CTL_PREFIX - 1);
  } else if (!c->set_up) {
    result = MCJ_INVALID_PARAMS;
  } else if (fail_ops) {
    result = fail_ops;
  } else if (c->shared) {
    result = GO_SHARED;
  } else {
    object **link = slot_of(key);
    if (*link == NULL) {
      result = OBJECT_NOT_FOUND;
    } else if (!force && leased(*link)) {
      result = OBJECT_HAS_LEASE;
    } else {
      fake_event(&local_events, "removed", key);
      unlink_object(link);
      result = 0;
    }
  }
  pthread_mutex_unlock(&lock);
  return result == GO_SHARED ? fake_shm_remove(&c->member, key, force) : result;
}

/* Removes every object the predicate accepts; caller holds the lock. */
static int64_t remove_matching(const regex_t *regex, int force) {
  int64_t removed = 0;
  for (size_t b = 0; b < bucket_count; b++) {
    object **link = &buckets[b];
    while (*link != NULL) {
      int match = regex == NULL || regexec(regex, (*link)->key, 0, NULL, 0) == 0;
      if (match && (force || !leased(*link))) {
        unlink_object(link);
        removed++;
      } else {
        link = &(*link)->next;
      }
    }
  }
  return removed;
}

int64_t mooncake_store_remove_by_regex(void *store, const char *pattern, int force) {
  if (store == NULL || pattern == NULL) return MCJ_INTERNAL_ERROR;
  client *c = store;
  regex_t regex;
  if (regcomp(&regex, pattern, REG_EXTENDED | REG_NOSUB) != 0) return MCJ_INVALID_PARAMS;
  pthread_mutex_lock(&lock);
  int64_t result = !c->set_up ? MCJ_INVALID_PARAMS
                   : fail_ops ? fail_ops
                   : c->shared ? GO_SHARED
                               : remove_matching(&regex, force);
  pthread_mutex_unlock(&lock);
  if (result == GO_SHARED) result = fake_shm_remove_matching(&c->member, &regex, force);
  regfree(&regex);
  return result;
}

#ifndef FAKE_MC_PARTIAL
int64_t mooncake_store_remove_all(void *store, int force) {
  if (store == NULL) return MCJ_INTERNAL_ERROR;
  client *c = store;
  pthread_mutex_lock(&lock);
  int64_t result = !c->set_up ? MCJ_INVALID_PARAMS
                   : fail_ops ? fail_ops
                   : c->shared ? GO_SHARED
                               : remove_matching(NULL, force);
  pthread_mutex_unlock(&lock);
  return result == GO_SHARED ? fake_shm_remove_matching(&c->member, NULL, force) : result;
}
#endif

/* ---------------------------------------------------------------------------------------------
 * Registration
 * ------------------------------------------------------------------------------------------- */

int mooncake_store_register_buffer(void *store, void *buffer, size_t size) {
  if (store == NULL || buffer == NULL || size == 0) return MCJ_INTERNAL_ERROR;
  client *c = store;
  pthread_mutex_lock(&lock);
  stat_register_calls++;
  int result = 0;
  if (fail_register) {
    result = fail_register;
  } else {
    for (registration *r = c->registrations; r != NULL; r = r->next) {
      if (r->base == buffer) result = MCJ_INVALID_PARAMS;
    }
    if (result == 0) {
      registration *r = calloc(1, sizeof *r);
      if (r == NULL) {
        result = MCJ_INTERNAL_ERROR;
      } else {
        r->base = buffer;
        r->size = size;
        r->next = c->registrations;
        c->registrations = r;
        stat_registered++;
      }
    }
  }
  pthread_mutex_unlock(&lock);
  return result;
}

#ifndef FAKE_MC_PARTIAL
int mooncake_store_unregister_buffer(void *store, void *buffer) {
  if (store == NULL) return MCJ_INTERNAL_ERROR;
  client *c = store;
  pthread_mutex_lock(&lock);
  stat_unregister_calls++;
  int result = MCJ_INVALID_PARAMS;
  for (registration **link = &c->registrations; *link != NULL; link = &(*link)->next) {
    if ((*link)->base == buffer) {
      registration *r = *link;
      *link = r->next;
      free(r);
      stat_registered--;
      result = 0;
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return result;
}
#endif
