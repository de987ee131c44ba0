/*
 * Handles: what Java holds instead of raw pointers.
 *
 * A Java long is never dereferenced. It names a slot in a fixed table (index + generation), and a
 * slot is looked up and checked (index in range, generation and kind match, still open) under the
 * slot's read lock, which is held for the whole native call. Closing takes the write lock, so it
 * waits for calls in flight, and bumps the generation, so a stale or forged handle is refused
 * with an exception instead of crashing the JVM.
 */
#ifndef MCJ_HANDLES_H
#define MCJ_HANDLES_H

#include <pthread.h>
#include <stdint.h>

enum mcj_kind { MCJ_KIND_FREE = 0, MCJ_KIND_LIBRARY, MCJ_KIND_STORE, MCJ_KIND_REPLICA, MCJ_KIND_REGION };

#define MCJ_MAX_HANDLES 4096

typedef struct mcj_slot {
  pthread_rwlock_t lock;
  uint32_t generation;
  int kind;
  void *ptr;
} mcj_slot;

/* Once, from JNI_OnLoad. 0 on success. */
int mcj_handles_init(void);

/* A new handle for ptr, or 0 when the table is full. */
int64_t mcj_handle_new(int kind, void *ptr);

/* Read-locks the slot of a valid open handle and returns its pointer; NULL (nothing locked) for a
 * zero, forged, stale or closed handle, or one of another kind. */
void *mcj_handle_enter(int64_t handle, int kind, mcj_slot **slot_out);
void mcj_handle_leave(mcj_slot *slot);

/* Write-locks the slot (waiting for calls in flight) and returns its pointer, or NULL as above. */
void *mcj_handle_lock_exclusive(int64_t handle, int kind, mcj_slot **slot_out);
/* Ends an exclusive section; with free_slot the handle is dead from now on. */
void mcj_handle_unlock_exclusive(mcj_slot *slot, int free_slot);

const char *mcj_kind_name(int kind);

#endif
