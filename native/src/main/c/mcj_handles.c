#define _GNU_SOURCE
#include "mcj_handles.h"

#include <stddef.h>

static mcj_slot slots[MCJ_MAX_HANDLES];
static pthread_mutex_t allocation_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char used[MCJ_MAX_HANDLES]; /* guarded by allocation_lock */

int mcj_handles_init(void) {
  pthread_rwlockattr_t attr;
  if (pthread_rwlockattr_init(&attr) != 0) return -1;
  /* A close must not starve behind a steady stream of calls. */
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  for (int i = 0; i < MCJ_MAX_HANDLES; i++) {
    if (pthread_rwlock_init(&slots[i].lock, &attr) != 0) return -1;
    slots[i].generation = 1;
    slots[i].kind = MCJ_KIND_FREE;
    slots[i].ptr = NULL;
  }
  pthread_rwlockattr_destroy(&attr);
  return 0;
}

static int64_t encode(uint32_t index, uint32_t generation) {
  return (int64_t)(((uint64_t)generation << 32) | (uint64_t)(index + 1));
}

static mcj_slot *decode(int64_t handle, uint32_t *generation) {
  uint64_t raw = (uint64_t)handle;
  uint64_t index_plus_one = raw & 0xffffffffu;
  if (index_plus_one == 0 || index_plus_one > MCJ_MAX_HANDLES) return NULL;
  *generation = (uint32_t)(raw >> 32);
  return &slots[index_plus_one - 1];
}

int64_t mcj_handle_new(int kind, void *ptr) {
  /* Slots are picked by `used`, under allocation_lock only: never wait on the lock of a slot
   * whose handle is busy in a long native call. */
  int64_t handle = 0;
  uint32_t index = MCJ_MAX_HANDLES;
  pthread_mutex_lock(&allocation_lock);
  for (uint32_t i = 0; i < MCJ_MAX_HANDLES; i++) {
    if (!used[i]) {
      used[i] = 1;
      index = i;
      break;
    }
  }
  pthread_mutex_unlock(&allocation_lock);
  if (index == MCJ_MAX_HANDLES) return 0;
  mcj_slot *slot = &slots[index];
  pthread_rwlock_wrlock(&slot->lock);
  slot->kind = kind;
  slot->ptr = ptr;
  handle = encode(index, slot->generation);
  pthread_rwlock_unlock(&slot->lock);
  return handle;
}

void *mcj_handle_enter(int64_t handle, int kind, mcj_slot **slot_out) {
  uint32_t generation;
  mcj_slot *slot = decode(handle, &generation);
  if (slot == NULL) return NULL;
  pthread_rwlock_rdlock(&slot->lock);
  if (slot->generation != generation || slot->kind != kind) {
    pthread_rwlock_unlock(&slot->lock);
    return NULL;
  }
  *slot_out = slot;
  return slot->ptr;
}

void mcj_handle_leave(mcj_slot *slot) { pthread_rwlock_unlock(&slot->lock); }

void *mcj_handle_lock_exclusive(int64_t handle, int kind, mcj_slot **slot_out) {
  uint32_t generation;
  mcj_slot *slot = decode(handle, &generation);
  if (slot == NULL) return NULL;
  pthread_rwlock_wrlock(&slot->lock);
  if (slot->generation != generation || slot->kind != kind) {
    pthread_rwlock_unlock(&slot->lock);
    return NULL;
  }
  *slot_out = slot;
  return slot->ptr;
}

void mcj_handle_unlock_exclusive(mcj_slot *slot, int free_slot) {
  if (!free_slot) {
    pthread_rwlock_unlock(&slot->lock);
    return;
  }
  slot->kind = MCJ_KIND_FREE;
  slot->ptr = NULL;
  slot->generation++;
  if (slot->generation == 0) slot->generation = 1;
  pthread_rwlock_unlock(&slot->lock);
  pthread_mutex_lock(&allocation_lock);
  used[slot - slots] = 0;
  pthread_mutex_unlock(&allocation_lock);
}

const char *mcj_kind_name(int kind) {
  switch (kind) {
    case MCJ_KIND_LIBRARY: return "library";
    case MCJ_KIND_STORE: return "store";
    case MCJ_KIND_REPLICA: return "replicate-config";
    case MCJ_KIND_REGION: return "region";
    default: return "free";
  }
}
