/*
 * Tests of the fake libmooncake_store.so itself (fake_mooncake_store.c): the replicate_config
 * layouts it decodes and records, setup's local buffer and the copying put, set_etcd_tls_config,
 * and (with MCJ_FAKE_SHARED) its cross-process mode. Built and run by native/pom.xml's
 * fake-store-test execution:
 *   fake_mooncake_store_test <path of the fake> <path of the partial fake>
 * Exits non-zero with a message naming the failed check. Multi-process cases fork(); every wait on
 * another process polls with a deadline instead of sleeping a fixed time.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_mooncake_store_test.h"

int failures;

void check(int condition, const char *format, ...) {
  if (condition) return;
  va_list args;
  va_start(args, format);
  fprintf(stderr, "FAILED: ");
  vfprintf(stderr, format, args);
  fprintf(stderr, "\n");
  va_end(args);
  failures++;
}

void *need(void *library, const char *name) {
  void *symbol = dlsym(library, name);
  if (symbol == NULL) {
    fprintf(stderr, "FAILED: the fake lacks %s\n", name);
    exit(2);
  }
  return symbol;
}

void load_api(void *library, fake_api *api) {
#define LOAD(ret, name, params) api->name = (ret(*) params)need(library, "mooncake_store_" #name);
  MCJ_STORE_FUNCTIONS(LOAD)
#undef LOAD
  api->last_config = need(library, "fake_mooncake_last_replicate_config");
  api->config_of = need(library, "fake_mooncake_replicate_config_of");
  api->last_tls = need(library, "fake_mooncake_last_etcd_tls_config");
  api->set_tls = need(library, "mooncake_store_set_etcd_tls_config");
}

void *set_up_client(fake_api *api, uint64_t segment) {
  void *store = api->create();
  check(store != NULL, "create");
  if (store == NULL) exit(2);
  int code = api->setup(store, "127.0.0.1", "P2PHANDSHAKE", segment, 1 << 22, "tcp", "",
                        "127.0.0.1:50051");
  check(code == 0, "setup answered %d", code);
  return store;
}

/* ---------------------------------------------------------------------------------------------
 * replicate_config layouts, written as a caller of each Mooncake version would
 * ------------------------------------------------------------------------------------------- */

typedef struct {
  size_t replica_num;
  int with_soft_pin;
  const char **preferred_segments;
  size_t preferred_segments_count;
} config_v1;

typedef struct {
  size_t replica_num;
  int with_soft_pin;
  int with_hard_pin;
  const char **preferred_segments;
  size_t preferred_segments_count;
} config_v2;

typedef struct {
  size_t replica_num;
  int with_hard_pin;
  const char **preferred_segments;
  size_t preferred_segments_count;
  int soft_pin_action;
  int has_soft_pin_ttl;
  uint64_t soft_pin_ttl_ms;
} config_v3;

_Static_assert(sizeof(config_v1) == 32 && sizeof(config_v2) == 32 && sizeof(config_v3) == 48,
               "x86-64 layouts");

static void expect_text(const char *what, int (*read)(char *, size_t), const char *expected) {
  char text[1024];
  int n = read(text, sizeof text);
  check(n == (int)strlen(expected) && strcmp(text, expected) == 0, "%s: \"%s\", expected \"%s\"",
        what, text, expected);
}

static void *store_with_layout(fake_api *api, const char *abi) {
  setenv("MCJ_FAKE_ABI", abi, 1);
  void *store = set_up_client(api, 64 << 20);
  unsetenv("MCJ_FAKE_ABI");
  return store;
}

static void test_layouts(fake_api *api) {
  const char *segments[] = {"seg-a", "seg-b"};
  char value[16] = "value";
  char text[512];

  void *v1 = store_with_layout(api, "v1");
  config_v1 c1 = {2, 1, segments, 2};
  check(api->put(v1, "l/v1", value, sizeof value, (void *)&c1) == 0, "v1 put");
  expect_text("v1 last", api->last_config,
              "layout=v1 replica_num=2 soft_pin=1 preferred=seg-a,seg-b");
  check(api->config_of("l/v1", text, sizeof text) > 0 &&
            strcmp(text, "layout=v1 replica_num=2 soft_pin=1") == 0,
        "v1 per key: %s", text);
  /* A v2 caller's hard pin means nothing to a v1 library: offset 12 is padding there. */
  config_v2 c2_on_v1 = {1, 0, 1, NULL, 0};
  check(api->put(v1, "l/v2-on-v1", value, sizeof value, (void *)&c2_on_v1) == 0, "v2 on v1 put");
  expect_text("v2 config on v1", api->last_config, "layout=v1 replica_num=1 soft_pin=0 preferred=");

  void *v2 = store_with_layout(api, "v2");
  config_v2 c2 = {1, 1, 1, segments, 1};
  check(api->put_from(v2, "l/v2", value, sizeof value, (void *)&c2) == 0, "v2 put_from");
  expect_text("v2 last", api->last_config,
              "layout=v2 replica_num=1 soft_pin=1 hard_pin=1 preferred=seg-a");
  check(api->put(v2, "l/null", value, sizeof value, NULL) == 0, "v2 put NULL config");
  expect_text("NULL config", api->last_config, "layout=v2 config=null");

  void *v3 = store_with_layout(api, "v3");
  config_v3 c3 = {1, 0, segments, 2, 1, 1, 5000};
  check(api->put(v3, "l/v3", value, sizeof value, (void *)&c3) == 0, "v3 put");
  expect_text("v3 last", api->last_config,
              "layout=v3 replica_num=1 hard_pin=0 soft_pin_action=1 has_ttl=1 ttl_ms=5000 "
              "preferred=seg-a,seg-b");
  check(api->config_of("l/v3", text, sizeof text) > 0 &&
            strcmp(text, "layout=v3 replica_num=1 hard_pin=0 soft_pin_action=1 has_ttl=1 "
                         "ttl_ms=5000") == 0,
        "v3 per key: %s", text);
  /* Issue 12's hazard: a v2 caller's soft pin (offset 8) is a HARD pin to a v3 library. */
  struct {
    config_v2 v2;
    char tail[16];
  } c2_on_v3 = {{1, 1, 0, NULL, 0}, {0}};
  check(api->put(v3, "l/v2-on-v3", value, sizeof value, (void *)&c2_on_v3) == 0, "v2 on v3");
  expect_text("v2 soft pin on v3", api->last_config,
              "layout=v3 replica_num=1 hard_pin=1 soft_pin_action=0 has_ttl=0 ttl_ms=0 preferred=");
  /* An action outside the enum: -1, and nothing stored. */
  config_v3 bad = {1, 0, NULL, 0, 3, 0, 0};
  check(api->put(v3, "l/bad-action", value, sizeof value, (void *)&bad) == -1, "action 3 → -1");
  check(api->is_exist(v3, "l/bad-action") == 0, "nothing stored for a bad action");
  bad.soft_pin_action = -1;
  const char *keys[] = {"l/batch"};
  void *buffers[] = {value};
  size_t sizes[] = {sizeof value};
  int results[1] = {42};
  check(api->batch_put_from(v3, keys, buffers, sizes, 1, (void *)&bad, results) == -1,
        "batch with action -1 → -1");
  /* A TTL only goes with ENABLE. */
  config_v3 ttl_without_enable = {1, 0, NULL, 0, 0, 1, 100};
  check(api->put(v3, "l/ttl", value, sizeof value, (void *)&ttl_without_enable) == -600,
        "TTL with PRESERVE → -600");
  config_v3 zero_replicas = {0, 0, NULL, 0, 0, 0, 0};
  check(api->put(v3, "l/zero", value, sizeof value, (void *)&zero_replicas) == -600,
        "replica_num 0 → -600");

  /* The in-band reads the Java side uses. */
  const char *last = "__fake_mc__/replicate_config/last";
  int64_t length = api->get_size(v3, last);
  check(length == (int64_t)strlen("layout=v3 replica_num=0 hard_pin=0 soft_pin_action=0 has_ttl=0 "
                                  "ttl_ms=0 preferred="),
        "get_size of the last config: %lld", (long long)length);
  memset(text, 0, sizeof text);
  check(api->get_into(v3, last, text, sizeof text) == length, "get_into of the last config");
  check(strncmp(text, "layout=v3 replica_num=0", 23) == 0, "in-band last: %s", text);
  check(api->get_into(v3, last, text, 3) == -600, "in-band last, small buffer → -600");
  memset(text, 0, sizeof text);
  check(api->get_into(v3, "__fake_mc__/replicate_config/of/l/v1", text, sizeof text) ==
                (int64_t)strlen("layout=v1 replica_num=2 soft_pin=1") &&
            strcmp(text, "layout=v1 replica_num=2 soft_pin=1") == 0,
        "in-band per key: %s", text);
  check(api->get_into(v3, "__fake_mc__/replicate_config/of/none", text, sizeof text) == -704,
        "in-band per key, missing → -704");
  check(api->config_of("none", text, sizeof text) == -704, "per key, missing → -704");

  /* An unknown MCJ_FAKE_ABI fails create. */
  setenv("MCJ_FAKE_ABI", "v4", 1);
  check(api->create() == NULL, "MCJ_FAKE_ABI=v4 fails create");
  unsetenv("MCJ_FAKE_ABI");

  api->remove_all(v1, 1);
  api->destroy(v1);
  api->destroy(v2);
  api->destroy(v3);
}

static int64_t stat(fake_api *api, void *store, const char *name) {
  char key[128];
  snprintf(key, sizeof key, "__fake_mc__/stat/%s", name);
  return api->get_size(store, key);
}

/* One-process eviction (ctl eviction=1), and issue 12's hazard seen through it: a v2 caller's soft
 * pin is a hard pin to a v3 library, so the pool fills up instead of evicting. */
static void test_eviction(fake_api *api) {
  /* the only client: its 64 KiB segment is the whole pool */
  setenv("MCJ_FAKE_ABI", "v3", 1);
  void *store = set_up_client(api, 64 << 10);
  unsetenv("MCJ_FAKE_ABI");
  static char value[16 << 10];
  char key[64];
  check(api->remove(store, "__fake_mc__/ctl/eviction=1", 1) == 0, "ctl eviction=1");
  struct {
    config_v2 v2;
    char tail[16];
  } v2_soft = {{1, 1, 0, NULL, 0}, {0}};
  for (int i = 0; i < 4; i++) {
    snprintf(key, sizeof key, "ev/v2soft/%d", i);
    check(api->put(store, key, value, sizeof value, (void *)&v2_soft) == 0, "v2 soft put %d", i);
  }
  check(api->put(store, "ev/v2soft/4", value, sizeof value, (void *)&v2_soft) == -200,
        "v2's soft pin on v3 is a hard pin: the full pool answers -200");
  check(api->remove_all(store, 1) == 4, "remove_all");
  config_v3 soft = {1, 0, NULL, 0, 1, 0, 0}, plain = {1, 0, NULL, 0, 0, 0, 0};
  int64_t evictions = stat(api, store, "evictions");
  for (int i = 0; i < 3; i++) {
    snprintf(key, sizeof key, "ev/soft/%d", i);
    check(api->put(store, key, value, sizeof value, (void *)&soft) == 0, "v3 soft put %d", i);
  }
  check(api->put(store, "ev/plain/0", value, sizeof value, (void *)&plain) == 0, "plain put");
  check(api->put(store, "ev/plain/1", value, sizeof value, (void *)&plain) == 0, "evicting put");
  check(api->get_size(store, "ev/plain/0") == -704, "the unpinned object is evicted first");
  check(api->get_size(store, "ev/soft/0") == (int64_t)sizeof value, "soft-pinned ones stay");
  check(api->put(store, "ev/soft/3", value, sizeof value, (void *)&soft) == 0 &&
            api->get_size(store, "ev/plain/1") == -704,
        "again the unpinned one goes");
  check(api->put(store, "ev/soft/4", value, sizeof value, (void *)&soft) == 0,
        "a pool of soft-pinned objects evicts one of them");
  check(stat(api, store, "evictions") == evictions + 3, "three evictions");
  char buffer[16 << 10];
  for (int i = 0; i < 5; i++) {
    snprintf(key, sizeof key, "ev/soft/%d", i);
    api->get_into(store, key, buffer, sizeof buffer); /* a read lease on each */
  }
  check(api->put(store, "ev/leased", value, sizeof value, (void *)&plain) == -200,
        "objects inside their lease are not evicted");
  check(api->remove(store, "__fake_mc__/ctl/eviction=0", 1) == 0, "ctl eviction=0");
  check(api->remove_all(store, 1) == 4, "remove_all");
  for (int i = 0; i < 4; i++) {
    snprintf(key, sizeof key, "ev/off/%d", i);
    check(api->put(store, key, value, sizeof value, (void *)&plain) == 0, "put %d", i);
  }
  check(api->put(store, "ev/off/4", value, sizeof value, (void *)&plain) == -200,
        "eviction off: a full pool answers -200");
  api->remove_all(store, 1);
  check(api->remove(store, "__fake_mc__/ctl/eviction=-1", 1) == 0, "eviction back to default");
  api->destroy(store);
}

typedef struct slow_read {
  fake_api *api;
  void *store;
  const char *key;
  char buffer[8 << 10];
  int64_t result;
} slow_read;

static void *read_slowly(void *arg) {
  slow_read *r = arg;
  r->result = r->api->get_into(r->store, r->key, r->buffer, sizeof r->buffer);
  return NULL;
}

/* Waits (polling, with a deadline) until a read has taken its block and waits to copy. */
static int await_copying(fake_api *api, void *store, int64_t want) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    if (stat(api, store, "reads_copying") == want) return 1;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > 5) return 0;
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
}

/* Bytes of buffer equal to c, from offset from on. */
static size_t count_of(const char *buffer, size_t from, size_t to, char c) {
  size_t n = 0;
  for (size_t i = from; i < to; i++) n += buffer[i] == c;
  return n;
}

/* One-process blocks: a read copies outside the lock from the object's block; a forced remove and
 * a put of the same class meanwhile write another key's object into it (the defect measured on a
 * real Mooncake); reuse, eviction and used accounting; a destroyed segment's blocks. */
static void test_block_reuse(fake_api *api) {
  void *probe = set_up_client(api, 0); /* holds no objects: reads the counters throughout */
  void *store = set_up_client(api, 64 << 10);
  static char a[4096], b[4096], value[5][16 << 10], back[32 << 10];
  memset(a, 'A', sizeof a);
  memset(b, 'B', sizeof b);
  check(api->remove(store, "__fake_mc__/ctl/read_delay_us=1500000", 1) == 0, "ctl read_delay_us");

  /* B of the same size */
  check(api->put(store, "blk/a", a, sizeof a, NULL) == 0, "put blk/a");
  slow_read r = {api, store, "blk/a", {0}, 0};
  pthread_t reader;
  check(pthread_create(&reader, NULL, read_slowly, &r) == 0, "pthread_create");
  check(await_copying(api, probe, 1), "the read took blk/a's block and waits to copy");
  check(api->remove(store, "blk/a", 0) == -706, "inside its lease: a plain remove → -706");
  int64_t reuses = stat(api, probe, "block_reuses");
  check(api->remove(store, "blk/a", 1) == 0, "a forced remove does not wait for the read");
  check(api->put(store, "blk/b", b, sizeof b, NULL) == 0, "put blk/b of the same size");
  check(stat(api, probe, "block_reuses") == reuses + 1, "blk/b took blk/a's block");
  pthread_join(reader, NULL);
  check(r.result == (int64_t)sizeof a && count_of(r.buffer, 0, sizeof a, 'B') == sizeof a,
        "the read of blk/a answered %lld bytes, %zu of them blk/b's", (long long)r.result,
        count_of(r.buffer, 0, sizeof a, 'B'));

  /* B of the same class (4000 and 4096 both round to 4096): its bytes, then the rest of A's */
  check(api->put(store, "blk/a2", a, sizeof a, NULL) == 0, "put blk/a2");
  slow_read r2 = {api, store, "blk/a2", {0}, 0};
  check(pthread_create(&reader, NULL, read_slowly, &r2) == 0, "pthread_create");
  check(await_copying(api, probe, 1), "the read of blk/a2 waits to copy");
  check(api->remove(store, "blk/a2", 1) == 0, "forced remove of blk/a2");
  check(api->put(store, "blk/b2", b, 4000, NULL) == 0, "put blk/b2 of 4000 bytes");
  pthread_join(reader, NULL);
  check(r2.result == (int64_t)sizeof a && count_of(r2.buffer, 0, 4000, 'B') == 4000 &&
            count_of(r2.buffer, 4000, sizeof a, 'A') == sizeof a - 4000,
        "the read of blk/a2: blk/b2's 4000 bytes, then blk/a2's last 96");
  check(api->remove_all(store, 1) == 2, "remove_all");

  /* A segment destroyed during a read: the copy still has the block's memory */
  void *other = set_up_client(api, 64 << 10);
  char other_name[256];
  check(api->get_hostname(other, other_name, sizeof other_name) == 0, "get_hostname");
  const char *preferred[] = {other_name};
  config_v2 in_other = {1, 0, 0, preferred, 1};
  check(api->put(store, "blk/other", a, sizeof a, (void *)&in_other) == 0, "put blk/other there");
  slow_read r3 = {api, store, "blk/other", {0}, 0};
  check(pthread_create(&reader, NULL, read_slowly, &r3) == 0, "pthread_create");
  check(await_copying(api, probe, 1), "the read of blk/other waits to copy");
  api->destroy(other);
  check(api->get_size(store, "blk/other") == -704, "blk/other went with its segment");
  pthread_join(reader, NULL);
  check(r3.result == (int64_t)sizeof a && count_of(r3.buffer, 0, sizeof a, 'A') == sizeof a,
        "a read whose segment went meanwhile copies what was there");
  check(api->remove(store, "__fake_mc__/ctl/read_delay_us=-1", 1) == 0, "read delay back");
  api->remove_all(store, 1);

  /* Accounting: used counts objects, FREE blocks are kept beside them while they fit */
  check(stat(api, probe, "free_blocks") == 2, "blk/b's and blk/b2's blocks are FREE");
  int64_t used_before = stat(api, probe, "used_bytes");
  char key[64];
  for (int i = 0; i < 5; i++) memset(value[i], '0' + i, sizeof value[i]);
  for (int i = 0; i < 4; i++) {
    snprintf(key, sizeof key, "acct/%d", i);
    check(api->put(store, key, value[i], sizeof value[i], NULL) == 0, "put %s", key);
  }
  int64_t free_before = stat(api, probe, "free_blocks");
  check(free_before == 0, "the fourth 16 KiB put: the 4 KiB FREE blocks no longer fit, they went");
  check(stat(api, probe, "used_bytes") == used_before + (64 << 10), "4 objects of 16 KiB: used %lld",
        (long long)stat(api, probe, "used_bytes"));
  check(api->remove(store, "acct/1", 1) == 0 && api->remove(store, "acct/2", 1) == 0, "remove 2");
  check(stat(api, probe, "used_bytes") == used_before + (32 << 10) &&
            stat(api, probe, "free_blocks") == free_before + 2,
        "2 removed: used %lld, %lld free blocks (%lld before)", (long long)stat(api, probe, "used_bytes"),
        (long long)stat(api, probe, "free_blocks"), (long long)free_before);
  reuses = stat(api, probe, "block_reuses");
  check(api->put(store, "acct/1", value[1], sizeof value[1], NULL) == 0 &&
            api->put(store, "acct/2", value[2], sizeof value[2], NULL) == 0,
        "put 2 again");
  check(stat(api, probe, "block_reuses") == reuses + 2 &&
            stat(api, probe, "free_blocks") == free_before &&
            stat(api, probe, "used_bytes") == used_before + (64 << 10),
        "both took freed blocks");
  check(api->remove(store, "__fake_mc__/ctl/eviction=1", 1) == 0, "ctl eviction=1");
  int64_t evictions = stat(api, probe, "evictions");
  check(api->put(store, "acct/4", value[4], sizeof value[4], NULL) == 0, "a fifth put evicts");
  check(stat(api, probe, "evictions") == evictions + 1 &&
            stat(api, probe, "block_reuses") == reuses + 3 &&
            stat(api, probe, "used_bytes") == used_before + (64 << 10),
        "one eviction, its block taken, used unchanged");
  check(api->remove(store, "__fake_mc__/ctl/eviction=-1", 1) == 0, "eviction back to default");
  for (int i = 0; i < 5; i++) {
    snprintf(key, sizeof key, "acct/%d", i);
    int64_t n = api->get_into(store, key, back, sizeof back);
    check(n == -704 || (n == (int64_t)sizeof value[i] && memcmp(back, value[i], sizeof value[i]) == 0),
          "%s: %lld, its own bytes", key, (long long)n);
  }
  check(api->remove_all(store, 1) == 4 && stat(api, probe, "free_blocks") == free_before + 4,
        "remove_all: 4 free blocks");
  check(api->put(store, "acct/20k", back, 20 << 10, NULL) == 0 &&
            stat(api, probe, "free_blocks") == free_before &&
            stat(api, probe, "used_bytes") == used_before + (20 << 10),
        "a put of another class that would not fit beside them: the FREE blocks go");
  check(api->remove(store, "acct/20k", 1) == 0 && stat(api, probe, "free_blocks") == free_before + 1,
        "its block is FREE");
  api->destroy(store);
  check(stat(api, probe, "free_blocks") == free_before && stat(api, probe, "used_bytes") == used_before,
        "a destroyed segment's blocks go with it");
  api->destroy(probe);
}

/* Setup's local_buffer_size serves only the copying put, as in Mooncake 3b5a594: with 0 every
 * copying put answers -600 while put_from / get_into work; a value larger than it answers -600. */
static void test_local_buffer(fake_api *api) {
  static char value[8 << 10];
  char back[8 << 10];
  memset(value, 'v', sizeof value);
  void *none = api->create();
  int64_t before = stat(api, none, "local_buffer_bytes"); /* not set up: counts nothing */
  check(api->setup(none, "127.0.0.1", "P2PHANDSHAKE", 1 << 20, 0, "tcp", "",
                   "127.0.0.1:50051") == 0,
        "setup accepts local_buffer_size 0");
  check(stat(api, none, "local_buffer_bytes") == before, "a local buffer of 0 adds nothing");
  int64_t copying = stat(api, none, "copying_puts");
  check(api->put(none, "lb/none/1", value, 1, NULL) == -600, "copying put of 1 byte with lbuf 0");
  check(api->put(none, "lb/none/8k", value, sizeof value, NULL) == -600, "copying put of 8 KiB");
  check(stat(api, none, "copying_puts") == copying + 2, "copying puts are counted");
  check(api->get_size(none, "lb/none/1") == -704, "a refused copying put stores nothing");
  check(api->put_from(none, "lb/none/from", value, sizeof value, NULL) == 0,
        "put_from with lbuf 0");
  check(api->get_into(none, "lb/none/from", back, sizeof back) == (int64_t)sizeof back &&
            memcmp(back, value, sizeof back) == 0,
        "get_into with lbuf 0");
  check(stat(api, none, "copying_puts") == copying + 2, "put_from is not a copying put");

  void *small = api->create();
  check(api->setup(small, "127.0.0.1", "P2PHANDSHAKE", 1 << 20, 4096, "tcp", "",
                   "127.0.0.1:50051") == 0,
        "setup with local_buffer_size 4096");
  check(stat(api, small, "local_buffer_bytes") == before + 4096, "local_buffer_bytes sums setups");
  check(api->put(small, "lb/small/1k", value, 1024, NULL) == 0, "copying put within lbuf");
  check(api->put(small, "lb/small/8k", value, sizeof value, NULL) == -600,
        "copying put above lbuf");
  api->remove_all(none, 1);
  api->destroy(small);
  check(stat(api, none, "local_buffer_bytes") == before, "a destroyed client's buffer is gone");
  api->destroy(none);
}

static void test_etcd_tls(fake_api *api) {
  void *store = api->create();
  api->set_tls(store, "/ca.pem", "/cert.pem", NULL);
  expect_text("tls before setup", api->last_tls,
              "calls=1 ca=/ca.pem cert=/cert.pem key=(null) after_setup=0");
  check(api->setup(store, "127.0.0.1", "P2PHANDSHAKE", 1 << 20, 1 << 20, "tcp", "",
                   "127.0.0.1:50051") == 0,
        "setup after tls");
  api->set_tls(store, "a", "b", "c");
  expect_text("tls after setup", api->last_tls, "calls=2 ca=a cert=b key=c after_setup=1");
  char text[256] = {0};
  int64_t n = api->get_into(store, "__fake_mc__/etcd_tls", text, sizeof text);
  check(n == (int64_t)strlen(text) && strcmp(text, "calls=2 ca=a cert=b key=c after_setup=1") == 0,
        "in-band tls: %s", text);
  api->destroy(store);
}

static void test_partial(const char *path) {
  void *partial = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  check(partial != NULL, "dlopen %s: %s", path, dlerror());
  if (partial == NULL) return;
  check(dlsym(partial, "mooncake_store_set_etcd_tls_config") == NULL,
        "the partial fake exports set_etcd_tls_config");
  check(dlsym(partial, "mooncake_store_put") != NULL, "the partial fake exports put");
}

int run_shared_scenarios(const char *self, const char *library);
int shared_main(int argc, char **argv);

int main(int argc, char **argv) {
  if (argc >= 4 && strncmp(argv[1], "--", 2) == 0) return shared_main(argc, argv);
  if (argc < 3) {
    fprintf(stderr, "usage: %s <fake library> <partial fake library>\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IONBF, 0);
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    fprintf(stderr, "FAILED: dlopen %s: %s\n", argv[1], dlerror());
    return 2;
  }
  fake_api api;
  load_api(library, &api);
  test_layouts(&api);
  test_eviction(&api);
  test_block_reuse(&api);
  test_local_buffer(&api);
  test_etcd_tls(&api);
  test_partial(argv[2]);
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 2;
  self[n] = '\0';
  failures += run_shared_scenarios(self, argv[1]);
  if (failures > 0) {
    fprintf(stderr, "fake_mooncake_store_test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("fake_mooncake_store_test: all checks passed\n");
  return 0;
}
