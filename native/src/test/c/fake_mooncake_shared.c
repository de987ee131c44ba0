/*
 * The fake's cross-process mode (issue 10): with MCJ_FAKE_SHARED=<file> (e.g. /dev/shm/mcj-test),
 * every process that loads the fake sees one object table, so tests can run several JVMs or
 * processes against one "cluster" without Mooncake. Mooncake's semantics, as in the one-process
 * mode: create-only put; a put in flight answers -703 to get_into / get_size / remove and 0 to
 * is_exist and to another put; read leases; remove_by_regex; eviction.
 *
 * The file holds a header with a robust, process-shared mutex (PTHREAD_MUTEX_ROBUST +
 * PTHREAD_PROCESS_SHARED), the client table, the object table (chained hash, slots of
 * FAKE_SHM_KEY_MAX-byte keys) and the block table. The first process initialises the file under
 * flock(LOCK_EX); later ones check its magic and geometry (a mismatch fails create with a message).
 * The file is never deleted by the fake: tests give each run a fresh name.
 *
 * Memory blocks, reused as Mooncake reuses freed memory: an object's bytes live in a block of its
 * segment, the file "<file>.values/b<block index, hex>" sized to the block's capacity (so the table
 * stays small and sizes are bounded only by segment capacity). Sizes are binned as Mooncake's
 * offset allocator bins them (fake_size_class: below 16 bytes exact, above rounded up to 3
 * significant bits, "the same power-of-two eighth"; 4000 and 4096 share the 4096 class). When an
 * object is freed (remove with or without force, remove_by_regex / remove_all, eviction) its block
 * goes to its segment's FREE list of its class, bytes untouched; the next put of that class in that
 * segment takes the most recently freed block and writes its value IN PLACE (pwrite at offset 0;
 * what lies past it stays). A segment's `used` counts its objects' sizes (and puts in flight), not
 * its FREE blocks; FREE blocks are kept only while used + their capacity + the new object fit the
 * segment, else they all go before a new block is made. A dropped client's blocks go with it (files
 * unlinked). The block table has 2 * MCJ_FAKE_SHARED_SLOTS records; when all were used, a FREE
 * block of any segment is recycled.
 *
 * Reads copy outside the table's lock, as a real transfer does: get_into / batch_get_into find the
 * object, take its lease and remember its block and size under the lock, unlock, sleep
 * MCJ_FAKE_READ_DELAY_US (or ctl read_delay_us; default 0: the window is small but real), then
 * pread the block. A forced remove does not wait for such a read, so remove(A, force) + put(B of
 * A's class) in between make A's reader copy B's whole object: the defect measured on a real
 * Mooncake (shared/MOONCAKE.md, 2026-12-03). A block whose segment went meanwhile reads -800; one
 * recycled to a smaller class reads zeros past its end. A put whose writer was dropped while in
 * flight still writes its block when it resumes (and answers -601), as a resumed transfer writes
 * into memory the master has handed out again. Stats: block_reuses, free_blocks, used_bytes,
 * cached_bytes (capacity of FREE blocks), reads_copying (reads between lookup and copy, every
 * process's).
 *
 * A process killed inside the critical section leaves the mutex to the next locker with
 * EOWNERDEAD: it marks the mutex consistent and rebuilds the bucket chains, the free list, the
 * blocks' FREE lists and every segment's used bytes from the slots (each slot's state is written
 * last when it is filled and first when it is freed, so slots are whole; a block no slot holds is
 * FREE again while its segment lives).
 *
 * Clients and segments: every set-up client registers in the client table with its pid, a name
 * that get_hostname answers ("<host>:<pid>-<n>", n counting the process's clients), its
 * global_segment_size as the capacity of its segment (0: it holds no objects) and a heartbeat
 * refreshed by one thread per process ("fake-mc-heartbeat", every TTL/5). On every operation of
 * any process, lazily, a client is dropped with every object in its segment and every put it has in
 * flight when its process is gone (kill(pid, 0) fails with ESRCH) or its heartbeat is older than
 * MCJ_FAKE_CLIENT_TTL_MS (default 10000, Mooncake's --client_ttl); destroy drops it at once. A
 * process paused past the TTL (SIGSTOP) finds its registration gone when it resumes and registers
 * again under the same name with an empty segment (as a real client re-mounts); a put of its that
 * was in flight answers -601 ILLEGAL_CLIENT and stores nothing.
 *
 * Placement: the first preferred segment that names a live client with room, else the OLDEST live
 * segment with room (deterministic for tests; real Mooncake places at random). When none has room:
 * eviction in the chosen segment (the preferred one, else the oldest with capacity) of objects that
 * are complete, not hard-pinned and out of their lease, those without an active soft pin first,
 * oldest lease first (Mooncake's order); -200 NO_AVAILABLE_HANDLE when that cannot make room. There
 * is no high-watermark eviction: only an allocation that fails evicts.
 *
 * Limits: keys up to FAKE_SHM_KEY_MAX (4096) bytes (-600 beyond), MCJ_FAKE_SHARED_SLOTS objects
 * (default 16384; -200 when the table is full), FAKE_SHM_CLIENTS live clients (-1 on setup
 * beyond). Read leases: FAKE_MC_LEASE_MS of the reading process (default 500 in this mode, as the
 * test master's --default_kv_lease_ttl=500). MCJ_FAKE_PUT_DELAY_US (or ctl put_delay_us) sleeps
 * between a put's reservation and its completion, to widen the in-flight window for tests.
 *
 * Reads from a stopped process: a real Mooncake reads an object of another client's segment with a
 * transfer that first opens the segment with a P2P handshake; a process stopped with SIGSTOP has a
 * kernel that accepts the connection and nobody who answers, so the read blocks until the
 * handshake socket's 60 s SO_RCVTIMEO (transfer_metadata_plugin.cpp, doConnect; 3b5a594) and then
 * fails (-800), or goes on once the process runs again. get_into / batch_get_into do the same here
 * for an object whose segment belongs to a process in state 'T' (/proc/<pid>/stat): they wait,
 * outside the table's lock, until it runs again (then read) or MCJ_FAKE_STOPPED_READ_MS (default
 * 60000) has passed (then -800). The master's answers (is_exist, get_size) do not wait.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fake_mooncake_internal.h"
#include "mooncake_store_abi.h"

#define SHM_MAGIC 0x324b41464a434d00ULL /* "\0MCJFAK2" */
#define SHM_VERSION 2
#define FAKE_SHM_CLIENTS 64

enum { SLOT_FREE = 0, SLOT_WRITING = 1, SLOT_COMPLETE = 2 };
enum { BLOCK_UNUSED = 0, BLOCK_FREE = 1, BLOCK_USED = 2 };

typedef struct shm_client {
  int32_t live;
  int32_t pid;
  uint64_t id; /* increasing: the lowest live id is the oldest segment */
  int64_t heartbeat_ms;
  uint64_t capacity;
  uint64_t used;   /* bytes of the objects in the segment (and of puts in flight to it) */
  uint64_t cached; /* capacity of its FREE blocks, kept for reuse; not part of used */
  char name[FAKE_SHM_NAME_MAX];
} shm_client;

typedef struct shm_slot {
  int32_t state;
  uint32_t next; /* bucket chain or free list: slot index + 1; 0 ends */
  uint64_t generation;
  uint64_t segment_id; /* the client whose segment holds it */
  uint64_t writer_id;  /* the client whose put made it */
  uint64_t size;
  int64_t lease_until_ms;
  int64_t soft_pin_until_ms;
  pin_request pins; /* preferred cleared */
  uint32_t hash;
  uint32_t key_length;
  uint32_t block; /* index + 1 of the block that holds its bytes */
  char key[FAKE_SHM_KEY_MAX + 1];
} shm_slot;

/* One block of a segment's memory: its bytes are the file "<file>.values/b<index, hex>", sized to
 * the block's capacity. USED by one object (or a put in flight); FREE in its segment's list of its
 * class, to be taken again; UNUSED records are spare. */
typedef struct shm_block {
  int32_t state;
  uint32_t size_class;
  uint64_t capacity;
  uint64_t segment_id;
  int32_t client_index; /* the segment's index in the client table */
  uint32_t prev;        /* FREE: the list of (segment, class), index + 1 */
  uint32_t next;        /* FREE: that list; UNUSED: the unused list */
  uint32_t pad;
} shm_block;

typedef struct shm_header {
  uint64_t magic;
  uint32_t version;
  uint32_t key_max;
  uint64_t slot_count;
  uint64_t bucket_count;
  uint64_t slot_size;
  pthread_mutex_t mutex;
  uint64_t next_client_id;
  uint64_t next_generation;
  uint64_t high_water; /* slots [0, high_water) have been used */
  uint32_t free_head;  /* index + 1 */
  int64_t objects;
  int64_t owner_dead_recoveries;
  int64_t clients_dropped;
  int64_t evictions;
  int32_t lock_holder_pid; /* set by the hold_shared_lock_ms test hook while it holds the lock */
  fake_event_counters events;
  shm_client clients[FAKE_SHM_CLIENTS];
  uint64_t block_count; /* twice slot_count: objects use at most half, the rest can be FREE */
  uint64_t block_size;
  uint64_t block_high_water; /* blocks [0, block_high_water) have been used */
  uint32_t block_unused_head;
  uint64_t recycle_cursor;
  int64_t block_reuses;  /* puts that took a FREE block */
  int64_t reads_copying; /* reads between their lookup and the end of their copy (atomic) */
  /* then uint32_t buckets[bucket_count] (index + 1), shm_slot slots[slot_count],
   * shm_block blocks[block_count], and per segment (client index) and size class the head of
   * its FREE blocks, most recently freed first:
   * uint32_t free_lists[FAKE_SHM_CLIENTS][FAKE_SIZE_CLASSES] */
} shm_header;

static pthread_once_t attach_once = PTHREAD_ONCE_INIT;
static int attach_result;
static shm_header *table;
static uint32_t *buckets;
static shm_slot *slots;
static shm_block *blocks;
static uint32_t (*free_lists)[FAKE_SIZE_CLASSES]; /* [client index][size class] */
static char values_dir[4096];
static int64_t client_ttl_ms;
static int own_pid;

static pthread_mutex_t members_lock = PTHREAD_MUTEX_INITIALIZER;
static shm_member *members;
static int members_created;
static long registrations_total;
static pthread_once_t heartbeat_once = PTHREAD_ONCE_INIT;

/* ------------------------------------------------------------------------------------------- */

static uint32_t key_hash(const char *key) {
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)key; *p; p++) h = (h ^ *p) * 16777619u;
  return h;
}

static int64_t env_number(const char *name, int64_t fallback) {
  const char *value = getenv(name);
  return value != NULL && value[0] != '\0' ? atoll(value) : fallback;
}

static void rebuild_locked(void);

static int shm_lock(void) {
  int r = pthread_mutex_lock(&table->mutex);
  if (r == EOWNERDEAD) {
    /* A process died holding the lock: take it over and repair what it may have left half-done. */
    rebuild_locked();
    table->owner_dead_recoveries++;
    pthread_mutex_consistent(&table->mutex);
    return 0;
  }
  if (r != 0) {
    fprintf(stderr, "fake-mooncake: shared table lock failed: %s\n", strerror(r));
    return MCJ_INTERNAL_ERROR;
  }
  return 0;
}

static void shm_unlock(void) { pthread_mutex_unlock(&table->mutex); }

static size_t table_bytes(uint64_t slot_count, uint64_t bucket_count) {
  return sizeof(shm_header) + bucket_count * sizeof(uint32_t) + slot_count * sizeof(shm_slot) +
         2 * slot_count * sizeof(shm_block) +
         FAKE_SHM_CLIENTS * FAKE_SIZE_CLASSES * sizeof(uint32_t);
}

static int init_table(int fd, uint64_t slot_count, uint64_t bucket_count) {
  size_t bytes = table_bytes(slot_count, bucket_count);
  /* to 0 first: whatever an older file held must read as zeros (empty buckets, free slots) */
  if (ftruncate(fd, 0) != 0 || ftruncate(fd, (off_t)bytes) != 0) return -1;
  shm_header *h = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (h == MAP_FAILED) return -1;
  memset(h, 0, sizeof *h);
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  int r = pthread_mutex_init(&h->mutex, &attr);
  pthread_mutexattr_destroy(&attr);
  if (r != 0) return -1;
  h->version = SHM_VERSION;
  h->key_max = FAKE_SHM_KEY_MAX;
  h->slot_count = slot_count;
  h->bucket_count = bucket_count;
  h->slot_size = sizeof(shm_slot);
  h->block_count = 2 * slot_count;
  h->block_size = sizeof(shm_block);
  h->next_client_id = 1;
  h->next_generation = 1;
  __atomic_store_n(&h->magic, SHM_MAGIC, __ATOMIC_RELEASE); /* last: the table is ready */
  munmap(h, bytes);
  return 0;
}

static void attach(void) {
  const char *path = getenv("MCJ_FAKE_SHARED");
  if (path == NULL || path[0] == '\0') {
    attach_result = 0;
    return;
  }
  attach_result = -1;
  own_pid = getpid();
  client_ttl_ms = env_number("MCJ_FAKE_CLIENT_TTL_MS", 10000);
  uint64_t slot_count = (uint64_t)env_number("MCJ_FAKE_SHARED_SLOTS", 16384);
  if (slot_count < 16 || slot_count > (1u << 24)) {
    fprintf(stderr, "fake-mooncake: MCJ_FAKE_SHARED_SLOTS=%llu is outside 16..16777216\n",
            (unsigned long long)slot_count);
    return;
  }
  uint64_t bucket_count = slot_count;
  if (snprintf(values_dir, sizeof values_dir, "%s.values", path) >= (int)sizeof values_dir) return;
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    fprintf(stderr, "fake-mooncake: MCJ_FAKE_SHARED=%s: %s\n", path, strerror(errno));
    return;
  }
  flock(fd, LOCK_EX); /* one initialiser; the others wait here and then find the magic */
  struct stat st;
  int ok = fstat(fd, &st) == 0;
  shm_header probe;
  memset(&probe, 0, sizeof probe);
  if (ok && st.st_size >= (off_t)sizeof probe) ok = pread(fd, &probe, sizeof probe, 0) == sizeof probe;
  if (ok && probe.magic != SHM_MAGIC) {
    ok = init_table(fd, slot_count, bucket_count) == 0;
    if (ok) ok = pread(fd, &probe, sizeof probe, 0) == sizeof probe;
  }
  if (ok && (mkdir(values_dir, 0700) != 0 && errno != EEXIST)) ok = 0;
  flock(fd, LOCK_UN);
  if (!ok) {
    fprintf(stderr, "fake-mooncake: MCJ_FAKE_SHARED=%s cannot be initialised: %s\n", path,
            strerror(errno));
    close(fd);
    return;
  }
  if (probe.version != SHM_VERSION || probe.key_max != FAKE_SHM_KEY_MAX ||
      probe.slot_size != sizeof(shm_slot) || probe.block_size != sizeof(shm_block) ||
      probe.block_count != 2 * probe.slot_count) {
    fprintf(stderr, "fake-mooncake: MCJ_FAKE_SHARED=%s was made by another version of the fake\n",
            path);
    close(fd);
    return;
  }
  size_t bytes = table_bytes(probe.slot_count, probe.bucket_count);
  void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    fprintf(stderr, "fake-mooncake: MCJ_FAKE_SHARED=%s: mmap: %s\n", path, strerror(errno));
    return;
  }
  table = base;
  buckets = (uint32_t *)((char *)base + sizeof(shm_header));
  slots = (shm_slot *)((char *)buckets + probe.bucket_count * sizeof(uint32_t));
  blocks = (shm_block *)(slots + probe.slot_count);
  free_lists = (uint32_t(*)[FAKE_SIZE_CLASSES])(blocks + probe.block_count);
  attach_result = 1;
}

int fake_shm_enabled(void) {
  pthread_once(&attach_once, attach);
  return attach_result;
}

/* ------------------------------------------------------------------------------------------- */

static shm_client *client_by_id(uint64_t id) {
  for (int i = 0; i < FAKE_SHM_CLIENTS; i++) {
    if (table->clients[i].live && table->clients[i].id == id) return &table->clients[i];
  }
  return NULL;
}

/* ---- blocks: a segment's memory, reused as Mooncake's allocator reuses freed ranges ---- */

static void block_path(uint32_t index, char *out, size_t len) {
  snprintf(out, len, "%s/b%x", values_dir, index);
}

static uint32_t *free_list_of(const shm_block *b) {
  return &free_lists[b->client_index][b->size_class];
}

/* Puts a block at the head of its segment's list of its class. */
static void block_push_free(uint32_t index) {
  shm_block *b = &blocks[index];
  uint32_t *head = free_list_of(b);
  b->state = BLOCK_FREE;
  b->prev = 0;
  b->next = *head;
  if (*head != 0) blocks[*head - 1].prev = index + 1;
  *head = index + 1;
  table->clients[b->client_index].cached += b->capacity;
}

/* Takes a FREE block out of its list; the caller gives it its next state. */
static void block_unlink_free(uint32_t index) {
  shm_block *b = &blocks[index];
  if (b->prev != 0) {
    blocks[b->prev - 1].next = b->next;
  } else {
    *free_list_of(b) = b->next;
  }
  if (b->next != 0) blocks[b->next - 1].prev = b->prev;
  table->clients[b->client_index].cached -= b->capacity;
  b->prev = b->next = 0;
}

/* Back to the spare records; its memory (file) goes. */
static void block_discard(uint32_t index) {
  shm_block *b = &blocks[index];
  char path[4200];
  block_path(index, path, sizeof path);
  unlink(path);
  b->state = BLOCK_UNUSED;
  b->segment_id = 0;
  b->capacity = 0;
  b->prev = 0;
  b->next = table->block_unused_head;
  table->block_unused_head = index + 1;
}

/* A freed object's block: kept for the next object of its class while its segment lives (the
 * bytes stay as they were), gone with the segment otherwise. */
static void block_release(uint32_t index) {
  shm_block *b = &blocks[index];
  shm_client *segment = client_by_id(b->segment_id);
  if (segment != NULL && segment == &table->clients[b->client_index]) {
    block_push_free(index);
  } else {
    block_discard(index);
  }
}

/* Every FREE block of the segment at client_index goes (a dropped segment, or one whose FREE blocks
 * would no longer fit beside its objects). */
static void purge_free_blocks(int client_index) {
  for (int k = 0; k < FAKE_SIZE_CLASSES; k++) {
    uint32_t *head = &free_lists[client_index][k];
    while (*head != 0) {
      uint32_t index = *head - 1;
      block_unlink_free(index);
      block_discard(index);
    }
  }
}

/* A block for an object of size in segment: the most recently freed block of its class there
 * (written in place: a reader of the old object copies the new one's bytes), else a new one (*fresh:
 * its file is to be sized). Index, or -1 when every record is taken (cannot happen: objects use at
 * most half of them). */
static int64_t block_take(shm_client *segment, uint64_t size, int *fresh) {
  uint64_t capacity;
  uint32_t size_class = fake_size_class(size, &capacity);
  int client_index = (int)(segment - table->clients);
  uint32_t head = free_lists[client_index][size_class];
  if (head != 0) {
    block_unlink_free(head - 1);
    blocks[head - 1].state = BLOCK_USED;
    table->block_reuses++;
    *fresh = 0;
    return head - 1;
  }
  if (segment->used + segment->cached + size > segment->capacity) purge_free_blocks(client_index);
  int64_t index = -1;
  if (table->block_unused_head != 0) {
    index = table->block_unused_head - 1;
    table->block_unused_head = blocks[index].next;
  } else if (table->block_high_water < table->block_count) {
    index = (int64_t)table->block_high_water++;
  } else {
    /* every record was used: take a FREE one of any segment (half of them are FREE by now) */
    for (uint64_t n = 0; n < table->block_count && index < 0; n++) {
      uint64_t i = table->recycle_cursor++ % table->block_count;
      if (blocks[i].state == BLOCK_FREE) {
        block_unlink_free((uint32_t)i);
        index = (int64_t)i;
      }
    }
    if (index < 0) return -1;
  }
  shm_block *b = &blocks[index];
  b->state = BLOCK_USED;
  b->size_class = size_class;
  b->capacity = capacity;
  b->segment_id = segment->id;
  b->client_index = client_index;
  b->prev = b->next = 0;
  *fresh = 1;
  return index;
}

static uint32_t *bucket_of(uint32_t hash) { return &buckets[hash % table->bucket_count]; }

/* The link that points at key's slot, or at the chain's end (*link == 0). */
static uint32_t *find_link(const char *key, uint32_t hash) {
  uint32_t *link = bucket_of(hash);
  while (*link != 0) {
    shm_slot *s = &slots[*link - 1];
    if (s->hash == hash && strcmp(s->key, key) == 0) break;
    link = &s->next;
  }
  return link;
}

static shm_slot *find(const char *key) {
  uint32_t *link = find_link(key, key_hash(key));
  return *link == 0 ? NULL : &slots[*link - 1];
}

/* Unlinks and frees the slot at *link, with its bytes in its segment; its block goes to the
 * segment's FREE blocks (a read in progress still copies from it). */
static void free_at(uint32_t *link) {
  uint32_t index = *link - 1;
  shm_slot *s = &slots[index];
  shm_client *segment = client_by_id(s->segment_id);
  if (segment != NULL) segment->used -= s->size;
  *link = s->next;
  s->state = SLOT_FREE; /* first: a half-freed slot is a free one */
  if (s->block != 0) block_release(s->block - 1);
  s->block = 0;
  s->next = table->free_head;
  table->free_head = index + 1;
  table->objects--;
}

static void free_slot(shm_slot *s) {
  uint32_t *link = find_link(s->key, s->hash);
  if (*link != 0) free_at(link);
}

static void drop_client(shm_client *c) {
  uint64_t id = c->id;
  c->live = 0;
  table->clients_dropped++;
  for (uint64_t b = 0; b < table->bucket_count; b++) {
    uint32_t *link = &buckets[b];
    while (*link != 0) {
      shm_slot *s = &slots[*link - 1];
      if (s->segment_id == id || (s->state == SLOT_WRITING && s->writer_id == id)) {
        free_at(link);
      } else {
        link = &s->next;
      }
    }
  }
  purge_free_blocks((int)(c - table->clients)); /* the segment's memory goes with it */
}

/* Drops clients whose process is gone or whose heartbeat is older than the TTL. */
static void sweep(void) {
  int64_t now = fake_now_ms();
  for (int i = 0; i < FAKE_SHM_CLIENTS; i++) {
    shm_client *c = &table->clients[i];
    if (!c->live) continue;
    int gone = c->pid != own_pid && kill(c->pid, 0) != 0 && errno == ESRCH;
    if (gone || now - c->heartbeat_ms > client_ttl_ms) drop_client(c);
  }
}

static int register_locked(shm_member *m) {
  for (int i = 0; i < FAKE_SHM_CLIENTS; i++) {
    shm_client *c = &table->clients[i];
    if (c->live) continue;
    memset(c, 0, sizeof *c);
    c->pid = own_pid;
    c->id = table->next_client_id++;
    c->heartbeat_ms = fake_now_ms();
    c->capacity = m->capacity;
    snprintf(c->name, sizeof c->name, "%s", m->name);
    c->live = 1;
    m->index = i;
    m->id = c->id;
    m->registrations++;
    __atomic_add_fetch(&registrations_total, 1, __ATOMIC_RELAXED);
    return 0;
  }
  fprintf(stderr, "fake-mooncake: the shared table has no room for more than %d clients\n",
          FAKE_SHM_CLIENTS);
  return MCJ_INTERNAL_ERROR;
}

static shm_client *own_entry(shm_member *m) {
  if (m->id == 0 || m->index < 0) return NULL;
  shm_client *c = &table->clients[m->index];
  return c->live && c->id == m->id ? c : NULL;
}

/* Locks, sweeps, and re-registers m when it was dropped (the caller's process was paused past the
 * TTL, as a real client re-mounts after losing its session). */
static int enter(shm_member *m) {
  if (shm_lock() != 0) return MCJ_INTERNAL_ERROR;
  sweep();
  if (m != NULL && m->id != 0 && own_entry(m) == NULL && register_locked(m) != 0) {
    shm_unlock();
    return MCJ_INTERNAL_ERROR;
  }
  return 0;
}

/* The rebuild after EOWNERDEAD: chains, free lists and used bytes from the slots alone; a block
 * that no object holds is FREE again while its segment lives. */
static void rebuild_locked(void) {
  memset(buckets, 0, table->bucket_count * sizeof(uint32_t));
  memset(free_lists, 0, FAKE_SHM_CLIENTS * sizeof *free_lists);
  table->free_head = 0;
  table->block_unused_head = 0;
  table->objects = 0;
  for (int i = 0; i < FAKE_SHM_CLIENTS; i++) table->clients[i].used = table->clients[i].cached = 0;
  for (uint64_t i = 0; i < table->block_high_water; i++) {
    if (blocks[i].state == BLOCK_USED) blocks[i].state = BLOCK_FREE; /* until a slot claims it */
  }
  for (uint64_t i = table->high_water; i-- > 0;) {
    shm_slot *s = &slots[i];
    shm_client *segment = s->state != SLOT_FREE ? client_by_id(s->segment_id) : NULL;
    if (s->state == SLOT_WRITING && client_by_id(s->writer_id) == NULL) segment = NULL;
    if (s->block == 0 || s->block > table->block_high_water) segment = NULL;
    if (segment == NULL) {
      s->state = SLOT_FREE;
      s->block = 0;
      s->next = table->free_head;
      table->free_head = (uint32_t)i + 1;
      continue;
    }
    blocks[s->block - 1].state = BLOCK_USED;
    segment->used += s->size;
    uint32_t *bucket = bucket_of(s->hash);
    s->next = *bucket;
    *bucket = (uint32_t)i + 1;
    table->objects++;
  }
  for (uint64_t i = table->block_high_water; i-- > 0;) {
    shm_block *b = &blocks[i];
    if (b->state == BLOCK_USED) continue;
    shm_client *segment = b->state == BLOCK_FREE ? client_by_id(b->segment_id) : NULL;
    if (segment != NULL && segment == &table->clients[b->client_index]) {
      block_push_free((uint32_t)i);
    } else {
      block_discard((uint32_t)i);
    }
  }
}

/* ------------------------------------------------------------------------------------------- */

static void *heartbeat_thread(void *arg) {
  (void)arg;
  int64_t interval = client_ttl_ms / 5 > 5 ? client_ttl_ms / 5 : 5;
  for (;;) {
    struct timespec pause = {interval / 1000, (interval % 1000) * 1000000};
    nanosleep(&pause, NULL);
    pthread_mutex_lock(&members_lock);
    if (members != NULL && enter(NULL) == 0) {
      int64_t now = fake_now_ms();
      for (shm_member *m = members; m != NULL; m = m->next) {
        shm_client *c = own_entry(m);
        if (c != NULL) {
          c->heartbeat_ms = now;
        } else {
          register_locked(m); /* dropped while this process was paused: mount again */
        }
      }
      shm_unlock();
    }
    pthread_mutex_unlock(&members_lock);
  }
  return NULL;
}

static void start_heartbeat(void) {
  pthread_t thread;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old); /* the thread takes no signal meant for the process */
  if (pthread_create(&thread, NULL, heartbeat_thread, NULL) == 0) {
    pthread_setname_np(thread, "fake-mc-heartbeat");
    pthread_detach(thread);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int fake_shm_join(shm_member *m, const char *host, uint64_t capacity) {
  pthread_mutex_lock(&members_lock);
  size_t host_length = strcspn(host, ":");
  if (host_length > 64) host_length = 64;
  snprintf(m->name, sizeof m->name, "%.*s:%d-%d", (int)host_length, host, (int)getpid(),
           ++members_created);
  m->capacity = capacity;
  m->index = -1;
  m->id = 0;
  int result = enter(NULL);
  if (result == 0) {
    result = register_locked(m);
    shm_unlock();
  }
  if (result == 0) {
    m->next = members;
    members = m;
  }
  pthread_mutex_unlock(&members_lock);
  if (result == 0) pthread_once(&heartbeat_once, start_heartbeat);
  return result;
}

void fake_shm_leave(shm_member *m) {
  pthread_mutex_lock(&members_lock);
  for (shm_member **link = &members; *link != NULL; link = &(*link)->next) {
    if (*link == m) {
      *link = m->next;
      break;
    }
  }
  if (enter(NULL) == 0) {
    shm_client *c = own_entry(m);
    if (c != NULL) drop_client(c);
    m->id = 0;
    shm_unlock();
  }
  pthread_mutex_unlock(&members_lock);
}

/* ------------------------------------------------------------------------------------------- */

static int has_room(const shm_client *c, uint64_t size) {
  return c->capacity >= size && c->capacity - c->used >= size;
}

static shm_client *oldest(int (*accept)(const shm_client *, uint64_t), uint64_t size) {
  shm_client *best = NULL;
  for (int i = 0; i < FAKE_SHM_CLIENTS; i++) {
    shm_client *c = &table->clients[i];
    if (c->live && accept(c, size) && (best == NULL || c->id < best->id)) best = c;
  }
  return best;
}

static int can_hold(const shm_client *c, uint64_t size) { return c->capacity >= size; }

static shm_client *preferred_live(const pin_request *pins, uint64_t size, int need_room) {
  for (size_t i = 0; pins->preferred != NULL && i < pins->preferred_count; i++) {
    if (pins->preferred[i] == NULL) continue;
    for (int j = 0; j < FAKE_SHM_CLIENTS; j++) {
      shm_client *c = &table->clients[j];
      if (c->live && strcmp(c->name, pins->preferred[i]) == 0 &&
          (need_room ? has_room(c, size) : can_hold(c, size))) {
        return c;
      }
    }
  }
  return NULL;
}

/* Evicts from segment until size fits; 0 when it does. */
static int evict_for(shm_client *segment, uint64_t size, int64_t now) {
  while (!has_room(segment, size)) {
    shm_slot *victim = NULL;
    int victim_pinned = 0;
    for (uint64_t i = 0; i < table->high_water; i++) {
      shm_slot *s = &slots[i];
      if (s->state != SLOT_COMPLETE || s->segment_id != segment->id || s->pins.hard_pin) continue;
      if (s->lease_until_ms > now) continue;
      int pinned = s->soft_pin_until_ms > now;
      if (victim == NULL || pinned < victim_pinned ||
          (pinned == victim_pinned && s->lease_until_ms < victim->lease_until_ms)) {
        victim = s;
        victim_pinned = pinned;
      }
    }
    if (victim == NULL) return FAKE_NO_AVAILABLE_HANDLE;
    fake_event(&table->events, "removed", victim->key);
    free_slot(victim);
    table->evictions++;
  }
  return 0;
}

static shm_client *place(const pin_request *pins, uint64_t size, int64_t now, int *error) {
  shm_client *segment = preferred_live(pins, size, 1);
  if (segment == NULL) segment = oldest(has_room, size);
  if (segment != NULL) return segment;
  segment = preferred_live(pins, size, 0);
  if (segment == NULL) segment = oldest(can_hold, size);
  *error = segment == NULL ? FAKE_NO_AVAILABLE_HANDLE : evict_for(segment, size, now);
  return *error == 0 ? segment : NULL;
}

static shm_slot *new_slot(void) {
  uint32_t index;
  if (table->free_head != 0) {
    index = table->free_head - 1;
    table->free_head = slots[index].next;
  } else if (table->high_water < table->slot_count) {
    index = (uint32_t)table->high_water++;
  } else {
    return NULL;
  }
  return &slots[index];
}

/* Writes value at the start of block index, in place (what follows it stays); a fresh block's
 * file is sized to its capacity first. Outside the table's lock. */
static int write_block(uint32_t index, uint64_t resize_to, const void *value, size_t size) {
  char path[4200];
  block_path(index, path, sizeof path);
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  if (resize_to > 0 && ftruncate(fd, (off_t)resize_to) != 0) {
    close(fd);
    return -1;
  }
  const char *p = value;
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, p + done, size - done, (off_t)done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return -1;
    }
    done += (size_t)n;
  }
  return close(fd);
}

/* Copies size bytes from the start of block index, whatever they are now, outside the table's lock
 * (a block given to a smaller class meanwhile reads zeros past its end). -1 when the block's memory
 * is gone (its segment was dropped). */
static int read_block(uint32_t index, void *buffer, size_t size) {
  char path[4200];
  block_path(index, path, sizeof path);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t done = 0;
  int result = 0;
  while (done < size) {
    ssize_t n = pread(fd, (char *)buffer + done, size - done, (off_t)done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) result = -1;
    if (n <= 0) break;
    done += (size_t)n;
  }
  close(fd);
  if (result == 0 && done < size) memset((char *)buffer + done, 0, size - done);
  return result;
}

int fake_shm_put(shm_member *m, const char *key, const void *value, size_t size,
                 const pin_request *pins, int64_t delay_us) {
  size_t key_length = strlen(key);
  if (key_length > FAKE_SHM_KEY_MAX) {
    fprintf(stderr, "fake-mooncake: shared mode takes keys up to %d bytes, not %zu: -600\n",
            FAKE_SHM_KEY_MAX, key_length);
    return MCJ_INVALID_PARAMS;
  }
  if (enter(m) != 0) return MCJ_INTERNAL_ERROR;
  uint32_t hash = key_hash(key);
  uint32_t *link = find_link(key, hash);
  if (*link != 0) { /* create-only: present or in flight, the old value stays */
    shm_unlock();
    return 0;
  }
  int64_t now = fake_now_ms();
  int error = 0;
  shm_client *segment = place(pins, size, now, &error);
  shm_slot *s = segment != NULL ? new_slot() : NULL;
  int fresh = 0;
  int64_t block = s != NULL ? block_take(segment, size, &fresh) : -1;
  if (s != NULL && block < 0) { /* back to the free list, untouched */
    s->next = table->free_head;
    table->free_head = (uint32_t)(s - slots) + 1;
    s = NULL;
  }
  if (s == NULL) {
    shm_unlock();
    return error != 0 ? error : FAKE_NO_AVAILABLE_HANDLE;
  }
  uint64_t resize_to = fresh ? blocks[block].capacity : 0;
  link = find_link(key, hash); /* eviction may have changed the chain */
  uint64_t generation = table->next_generation++;
  s->generation = generation;
  s->segment_id = segment->id;
  s->writer_id = m->id;
  s->size = size;
  s->lease_until_ms = 0;
  s->soft_pin_until_ms = fake_soft_pin_until(pins, now);
  s->pins = *pins;
  s->pins.preferred = NULL;
  s->pins.preferred_count = 0;
  s->hash = hash;
  s->key_length = (uint32_t)key_length;
  memcpy(s->key, key, key_length + 1);
  s->block = (uint32_t)block + 1;
  s->next = 0;
  s->state = SLOT_WRITING; /* last: the slot is whole before it is linked */
  *link = (uint32_t)(s - slots) + 1;
  segment->used += size;
  table->objects++;
  shm_unlock();

  /* The transfer, outside the lock: others see the key in flight (-703) meanwhile. A writer
   * dropped meanwhile (paused past the TTL) still writes into the block, as a resumed transfer
   * would write into memory the master has handed out again. */
  fake_sleep_us(delay_us);
  int written = write_block((uint32_t)block, resize_to, value, size);

  if (enter(m) != 0) return MCJ_INTERNAL_ERROR;
  shm_slot *now_there = find(key);
  int result;
  if (now_there == NULL || now_there->generation != generation) {
    /* Our client was dropped while the put was in flight; the master forgot it (and its block). */
    result = FAKE_ILLEGAL_CLIENT;
  } else if (written != 0) {
    free_slot(now_there);
    result = FAKE_TRANSFER_FAIL;
  } else {
    now_there->state = SLOT_COMPLETE;
    fake_event(&table->events, "stored", key);
    result = 0;
  }
  shm_unlock();
  return result;
}

/* Whether process pid is stopped (SIGSTOP): state 'T' or 't' in /proc/<pid>/stat. */
static int process_stopped(int pid) {
  char path[64], stat[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  size_t n = fread(stat, 1, sizeof stat - 1, f);
  fclose(f);
  stat[n] = '\0';
  const char *end = strrchr(stat, ')'); /* the command name may hold spaces and parentheses */
  return end != NULL && end[1] == ' ' && (end[2] == 'T' || end[2] == 't');
}

/* The pid of the process whose segment holds s when it is another process and stopped, else 0. */
static int stopped_holder(const shm_slot *s) {
  shm_client *segment = client_by_id(s->segment_id);
  if (segment == NULL || segment->pid == own_pid) return 0;
  return process_stopped(segment->pid) ? segment->pid : 0;
}

/* Waits while pid stays stopped, until deadline_ms; 1 when it runs again, 0 at the deadline. */
static int await_running(int pid, int64_t deadline_ms) {
  while (process_stopped(pid)) {
    if (fake_now_ms() >= deadline_ms) return 0;
    struct timespec pause = {0, 5 * 1000000};
    nanosleep(&pause, NULL);
  }
  return 1;
}

int64_t fake_shm_get(shm_member *m, const char *key, void *buffer, size_t size, int64_t lease_ms,
                     int64_t delay_us) {
  int64_t deadline_ms = fake_now_ms() + env_number("MCJ_FAKE_STOPPED_READ_MS", 60000);
  if (enter(m) != 0) return MCJ_INTERNAL_ERROR;
  shm_slot *s = find(key);
  int stopped = s != NULL && s->state == SLOT_COMPLETE ? stopped_holder(s) : 0;
  while (stopped != 0) { /* the handshake with a stopped process: see the top of this file */
    shm_unlock();
    if (!await_running(stopped, deadline_ms)) return FAKE_TRANSFER_FAIL;
    if (enter(m) != 0) return MCJ_INTERNAL_ERROR;
    s = find(key);
    stopped = s != NULL && s->state == SLOT_COMPLETE ? stopped_holder(s) : 0;
  }
  int64_t result;
  uint32_t block = 0;
  if (s == NULL) {
    result = FAKE_OBJECT_NOT_FOUND;
  } else if (s->state != SLOT_COMPLETE) {
    result = FAKE_REPLICA_IS_NOT_READY;
  } else if (size < s->size) {
    result = MCJ_INVALID_PARAMS;
  } else {
    /* the master's answer: the replica's place, and a lease on the object */
    s->lease_until_ms = fake_now_ms() + lease_ms;
    block = s->block;
    result = (int64_t)s->size;
    __atomic_add_fetch(&table->reads_copying, 1, __ATOMIC_RELEASE);
  }
  shm_unlock();
  if (block == 0) return result;
  /* The transfer, outside the lock, from where the object was: a forced remove does not wait for
   * it, and the next put of the block's class in the segment writes into the same block. */
  fake_sleep_us(delay_us);
  if (read_block(block - 1, buffer, (size_t)result) != 0) result = FAKE_TRANSFER_FAIL;
  __atomic_sub_fetch(&table->reads_copying, 1, __ATOMIC_RELEASE);
  return result;
}

int fake_shm_exist(shm_member *m, const char *key, int64_t lease_ms) {
  if (enter(m) != 0) return MCJ_INTERNAL_ERROR;
  shm_slot *s = find(key);
  int result = 0;
  if (s != NULL && s->state == SLOT_COMPLETE) {
    s->lease_until_ms = fake_now_ms() + lease_ms;
    result = 1;
  }
  shm_unlock();
  return result;
}

int64_t fake_shm_size(shm_member *m, const char *key) {
  if (enter(m) != 0) return MCJ_INTERNAL_ERROR;
  shm_slot *s = find(key);
  int64_t result = s == NULL                     ? FAKE_OBJECT_NOT_FOUND
                   : s->state != SLOT_COMPLETE ? FAKE_REPLICA_IS_NOT_READY
                                               : (int64_t)s->size;
  shm_unlock();
  return result;
}

int fake_shm_remove(shm_member *m, const char *key, int force) {
  if (enter(m) != 0) return MCJ_INTERNAL_ERROR;
  uint32_t *link = find_link(key, key_hash(key));
  int result;
  if (*link == 0) {
    result = FAKE_OBJECT_NOT_FOUND;
  } else if (slots[*link - 1].state != SLOT_COMPLETE) {
    result = FAKE_REPLICA_IS_NOT_READY;
  } else if (!force && slots[*link - 1].lease_until_ms > fake_now_ms()) {
    result = FAKE_OBJECT_HAS_LEASE;
  } else {
    fake_event(&table->events, "removed", key);
    free_at(link);
    result = 0;
  }
  shm_unlock();
  return result;
}

int64_t fake_shm_remove_matching(shm_member *m, const regex_t *regex, int force) {
  if (enter(m) != 0) return MCJ_INTERNAL_ERROR;
  int64_t now = fake_now_ms();
  int64_t removed = 0;
  for (uint64_t b = 0; b < table->bucket_count; b++) {
    uint32_t *link = &buckets[b];
    while (*link != 0) {
      shm_slot *s = &slots[*link - 1];
      int match = s->state == SLOT_COMPLETE && (force || s->lease_until_ms <= now) &&
                  (regex == NULL || regexec(regex, s->key, 0, NULL, 0) == 0);
      if (match) { /* no event: the master publishes none for remove_by_regex / remove_all */
        free_at(link);
        removed++;
      } else {
        link = &s->next;
      }
    }
  }
  shm_unlock();
  return removed;
}

int fake_shm_pins_of(const char *key, pin_request *out) {
  if (enter(NULL) != 0) return MCJ_INTERNAL_ERROR;
  shm_slot *s = find(key);
  if (s != NULL) *out = s->pins;
  shm_unlock();
  return s != NULL ? 0 : FAKE_OBJECT_NOT_FOUND;
}

int fake_shm_hold_lock(int64_t ms) {
  if (enter(NULL) != 0) return MCJ_INTERNAL_ERROR;
  __atomic_store_n(&table->lock_holder_pid, own_pid, __ATOMIC_RELEASE);
  struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
  __atomic_store_n(&table->lock_holder_pid, 0, __ATOMIC_RELEASE);
  shm_unlock();
  return 0;
}

int64_t fake_shm_stat(const char *name) {
  if (strcmp(name, "lock_holder_pid") == 0) { /* read without the lock, which it may be holding */
    return __atomic_load_n(&table->lock_holder_pid, __ATOMIC_ACQUIRE);
  }
  if (strcmp(name, "registrations") == 0) { /* of this process's clients, over their lives */
    return __atomic_load_n(&registrations_total, __ATOMIC_RELAXED);
  }
  if (strcmp(name, "reads_copying") == 0) { /* every process's, so not under the lock either */
    return __atomic_load_n(&table->reads_copying, __ATOMIC_ACQUIRE);
  }
  if (enter(NULL) != 0) return MCJ_INTERNAL_ERROR;
  int64_t result = MCJ_INVALID_PARAMS;
  if (strcmp(name, "objects") == 0) {
    result = table->objects;
  } else if (strcmp(name, "clients") == 0 || strcmp(name, "segments") == 0) {
    result = 0;
    for (int i = 0; i < FAKE_SHM_CLIENTS; i++) {
      if (table->clients[i].live && (name[0] == 'c' || table->clients[i].capacity > 0)) result++;
    }
  } else if (strcmp(name, "clients_dropped") == 0) {
    result = table->clients_dropped;
  } else if (strcmp(name, "evictions") == 0) {
    result = table->evictions;
  } else if (strcmp(name, "owner_dead_recoveries") == 0) {
    result = table->owner_dead_recoveries;
  } else if (strcmp(name, "event_seq") == 0) {
    result = table->events.seq == 0 ? 0 : (int64_t)table->events.seq - 1;
  } else if (strcmp(name, "block_reuses") == 0) {
    result = table->block_reuses;
  } else if (strcmp(name, "used_bytes") == 0 || strcmp(name, "cached_bytes") == 0) {
    result = 0;
    for (int i = 0; i < FAKE_SHM_CLIENTS; i++) {
      const shm_client *c = &table->clients[i];
      if (c->live) result += (int64_t)(name[0] == 'u' ? c->used : c->cached);
    }
  } else if (strcmp(name, "free_blocks") == 0) {
    result = 0;
    for (uint64_t i = 0; i < table->block_high_water; i++) result += blocks[i].state == BLOCK_FREE;
  }
  shm_unlock();
  return result;
}
