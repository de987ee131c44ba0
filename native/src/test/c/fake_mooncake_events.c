/*
 * KV events of the fake (issue 11): with MCJ_FAKE_EVENTS=<file>, one event per stored, removed or
 * evicted object is appended to <file>, in the order of their sequence numbers (appended under the
 * table's lock, so with MCJ_FAKE_SHARED the file is one ordered stream for every process).
 *
 * What publishes, as Mooncake's master does (3b5a594, master_service.cpp): a put when it completes
 * ("stored"), remove ("removed"), eviction ("removed"). remove_by_regex, remove_all and the loss of
 * a client's segment publish NOTHING (the master publishes nothing for them either).
 *
 * File format: a sequence of records, nothing else (no file header):
 *   uint64 sequence, big-endian     the ZeroMQ sequence frame of the real publisher (first is 1)
 *   uint32 payload length, big-endian
 *   payload                         msgpack, as the master's KvEventPublisher::PublishBatch packs a
 *                                   batch of one event:
 *     [timestamp_ms, [event], 0]    (array of 3: int, array of 1 map, batch dp_rank 0)
 *     event = map {event_id: int (1, 2, ...; separate from the sequence), timestamp: int ms since
 *       the epoch, event_type: "stored" | "removed", type: "BlockStored" | "BlockRemoved",
 *       model_name: nil, block_size: nil, additional_salt: nil, lora_name: nil,
 *       tenant_id: "default", backend_id: <str>, group_id: nil, medium: "cpu", dp_rank: nil,
 *       object_key: <key>, seq_hashes: [], block_hashes: [], base_block_idx: 0 (stored) | nil
 *       (removed), and for stored also parent_hash: nil, token_ids: nil, parent_block_hash: nil}
 *     (20 fields for stored, 17 for removed, in this order: what a real master of 3b5a594 sends
 *     with its default --kv_events_emit_legacy_compat=true, captured off its socket)
 *   backend_id is MCJ_FAKE_EVENTS_BACKEND_ID (default "fake"). Keys are never parsed as token
 *   hashes (seq_hashes is always empty).
 * In the one-process mode the counters are the process's: give each process its own file there.
 * A record is written with one write() on an O_APPEND descriptor; a reader that finds a short
 * record at the end is looking at a write in progress and should wait.
 *
 * Gaps, as the real publisher leaves when it drops events under back-pressure: the event whose
 * sequence would be N is not written (its sequence number is consumed, its event_id is not) when N
 * is listed in MCJ_FAKE_EVENTS_DROP (comma-separated, e.g. "3,7"), or when the process set the ctl
 * events_drop_next=<n> (the next n events that process publishes are dropped).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_mooncake_internal.h"

static pthread_once_t open_once = PTHREAD_ONCE_INIT;
static int events_fd = -1;
static const char *backend_id = "fake";
static int drop_next; /* guarded by the caller's lock */

void fake_events_drop_next(int n) { __atomic_store_n(&drop_next, n, __ATOMIC_RELAXED); }

static void open_events(void) {
  const char *path = getenv("MCJ_FAKE_EVENTS");
  if (path == NULL || path[0] == '\0') return;
  const char *id = getenv("MCJ_FAKE_EVENTS_BACKEND_ID");
  if (id != NULL && id[0] != '\0') backend_id = id;
  events_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (events_fd < 0) {
    fprintf(stderr, "fake-mooncake: MCJ_FAKE_EVENTS=%s: %s; no events\n", path, strerror(errno));
  }
}

static int listed_for_drop(uint64_t seq) {
  const char *list = getenv("MCJ_FAKE_EVENTS_DROP");
  for (const char *p = list; p != NULL && *p != '\0';) {
    char *end;
    unsigned long long n = strtoull(p, &end, 10);
    if (end == p) break;
    if (n == seq) return 1;
    p = *end == ',' ? end + 1 : end;
  }
  return 0;
}

/* ---- a minimal msgpack writer ---- */

typedef struct out {
  unsigned char *data;
  size_t length, capacity;
  int failed;
} out;

static void put_bytes(out *o, const void *bytes, size_t n) {
  if (o->failed) return;
  if (o->length + n > o->capacity) {
    size_t capacity = (o->length + n) * 2 + 64;
    unsigned char *grown = realloc(o->data, capacity);
    if (grown == NULL) {
      o->failed = 1;
      return;
    }
    o->data = grown;
    o->capacity = capacity;
  }
  memcpy(o->data + o->length, bytes, n);
  o->length += n;
}

static void put_byte(out *o, unsigned char b) { put_bytes(o, &b, 1); }

static void put_be(out *o, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) put_byte(o, (unsigned char)(value >> (8 * i)));
}

/* Non-negative integers, in the smallest form (as msgpack-c packs them). */
static void pack_uint(out *o, uint64_t v) {
  if (v < 128) {
    put_byte(o, (unsigned char)v);
  } else if (v <= 0xff) {
    put_byte(o, 0xcc);
    put_be(o, v, 1);
  } else if (v <= 0xffff) {
    put_byte(o, 0xcd);
    put_be(o, v, 2);
  } else if (v <= 0xffffffffULL) {
    put_byte(o, 0xce);
    put_be(o, v, 4);
  } else {
    put_byte(o, 0xcf);
    put_be(o, v, 8);
  }
}

static void pack_str(out *o, const char *s) {
  size_t n = strlen(s);
  if (n < 32) {
    put_byte(o, (unsigned char)(0xa0 | n));
  } else if (n <= 0xff) {
    put_byte(o, 0xd9);
    put_be(o, n, 1);
  } else if (n <= 0xffff) {
    put_byte(o, 0xda);
    put_be(o, n, 2);
  } else {
    put_byte(o, 0xdb);
    put_be(o, n, 4);
  }
  put_bytes(o, s, n);
}

static void pack_nil(out *o) { put_byte(o, 0xc0); }

static void pack_array(out *o, size_t n) {
  if (n < 16) {
    put_byte(o, (unsigned char)(0x90 | n));
  } else {
    put_byte(o, 0xdc);
    put_be(o, n, 2);
  }
}

static void pack_map(out *o, size_t n) {
  if (n < 16) {
    put_byte(o, (unsigned char)(0x80 | n));
  } else {
    put_byte(o, 0xde);
    put_be(o, n, 2);
  }
}

/* ------------------------------------------------------------------------------------------- */

void fake_event(fake_event_counters *counters, const char *type, const char *key) {
  pthread_once(&open_once, open_events);
  if (events_fd < 0) return;
  if (counters->seq == 0) counters->seq = 1; /* the publisher's first sequence and event_id */
  if (counters->event_id == 0) counters->event_id = 1;
  uint64_t seq = counters->seq++;
  int pending_drop = __atomic_load_n(&drop_next, __ATOMIC_RELAXED);
  if (pending_drop > 0 || listed_for_drop(seq)) {
    if (pending_drop > 0) __atomic_store_n(&drop_next, pending_drop - 1, __ATOMIC_RELAXED);
    return; /* a gap in the sequence, as under back-pressure */
  }
  uint64_t event_id = counters->event_id++;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t timestamp = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
  int stored = strcmp(type, "stored") == 0;

  out o = {0};
  put_be(&o, seq, 8);
  put_be(&o, 0, 4); /* the payload length, filled in below */
  pack_array(&o, 3);
  pack_uint(&o, timestamp);
  pack_array(&o, 1);
  pack_map(&o, stored ? 20 : 17);
  pack_str(&o, "event_id");
  pack_uint(&o, event_id);
  pack_str(&o, "timestamp");
  pack_uint(&o, timestamp);
  pack_str(&o, "event_type");
  pack_str(&o, stored ? "stored" : "removed");
  pack_str(&o, "type"); /* the vLLM/SGLang-compatible name (legacy compat, on by default) */
  pack_str(&o, stored ? "BlockStored" : "BlockRemoved");
  pack_str(&o, "model_name");
  pack_nil(&o);
  pack_str(&o, "block_size");
  pack_nil(&o);
  pack_str(&o, "additional_salt");
  pack_nil(&o);
  pack_str(&o, "lora_name");
  pack_nil(&o);
  pack_str(&o, "tenant_id");
  pack_str(&o, "default");
  pack_str(&o, "backend_id");
  pack_str(&o, backend_id);
  pack_str(&o, "group_id");
  pack_nil(&o);
  pack_str(&o, "medium");
  pack_str(&o, "cpu");
  pack_str(&o, "dp_rank");
  pack_nil(&o);
  pack_str(&o, "object_key");
  pack_str(&o, key);
  pack_str(&o, "seq_hashes");
  pack_array(&o, 0);
  pack_str(&o, "block_hashes");
  pack_array(&o, 0);
  pack_str(&o, "base_block_idx");
  if (stored) {
    pack_uint(&o, 0);
    pack_str(&o, "parent_hash");
    pack_nil(&o);
    pack_str(&o, "token_ids");
    pack_nil(&o);
    pack_str(&o, "parent_block_hash");
    pack_nil(&o);
  } else {
    pack_nil(&o);
  }
  pack_uint(&o, 0); /* batch dp_rank */
  if (!o.failed) {
    uint64_t payload = o.length - 12;
    for (int i = 0; i < 4; i++) o.data[8 + i] = (unsigned char)(payload >> (8 * (3 - i)));
    if (write(events_fd, o.data, o.length) != (ssize_t)o.length) {
      fprintf(stderr, "fake-mooncake: writing event %llu failed: %s\n", (unsigned long long)seq,
              strerror(errno));
    }
  }
  free(o.data);
}
