/*
 * Regions: natives of NativeRegion, and MooncakeClient.registerRegion. One mmap'ed range outside
 * the Java heap and outside MaxDirectMemorySize, handed out as direct ByteBuffer views. The
 * mapping is only unmapped once no view of it is reachable any more (checked through weak
 * references), so a stale view can never point at unmapped memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dev_mooncake_jcache_nativebridge_MooncakeClient.h"
#include "dev_mooncake_jcache_nativebridge_NativeRegion.h"
#include "mcj_jni.h"

#define REGION_FN(name) MCJ_JNI(NativeRegion, name)

JNIEXPORT jlong JNICALL REGION_FN(bufferAddress)(JNIEnv *env, jclass cls, jobject buffer) {
  (void)cls;
  if (buffer == NULL) {
    mcj_throw_npe(env, "buffer is null");
    return 0;
  }
  if ((*env)->GetDirectBufferCapacity(env, buffer) < 0) return 0;
  return (jlong)(intptr_t)(*env)->GetDirectBufferAddress(env, buffer);
}

static void region_free(mcj_region *region) {
  if (region == NULL) return;
  if (region->base != NULL) munmap(region->base, region->size);
  free(region->views);
  pthread_mutex_destroy(&region->views_lock);
  free(region);
}

JNIEXPORT jlong JNICALL REGION_FN(regionAllocate)(JNIEnv *env, jclass cls, jlong size) {
  (void)cls;
  jlong handle = 0;
  mcj_region *region = NULL;
  if (size <= 0) {
    mcj_throw_iae(env, "region size must be positive, not %lld", (long long)size);
    goto cleanup;
  }
  region = calloc(1, sizeof *region);
  if (region == NULL) {
    mcj_throw_oom(env, "cannot allocate a region record");
    goto cleanup;
  }
  pthread_mutex_init(&region->views_lock, NULL);
  /* MAP_NORESERVE: the region is an upper bound; pages are committed when first touched (or
   * pinned by an RDMA registration). */
  void *base = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    int error = errno;
    mcj_throw_bridge(env, "cannot map a region of %lld bytes: %s", (long long)size,
                     strerror(error));
    goto cleanup;
  }
  region->base = base;
  region->size = (size_t)size;
  region->state = MCJ_REGION_OPEN;
  /* A forked child must not share registered (possibly pinned) pages. */
  madvise(base, (size_t)size, MADV_DONTFORK);
  handle = mcj_handle_new(MCJ_KIND_REGION, region);
  if (handle == 0) {
    mcj_throw_table_full(env);
    goto cleanup;
  }
  region = NULL; /* owned by the handle */
cleanup:
  region_free(region);
  return handle;
}

/* Makes room for one more view, dropping collected ones first; 0 when none can be had. */
static int views_reserve(JNIEnv *env, mcj_region *region) {
  if (region->view_count < region->view_capacity) return 1;
  int kept = 0;
  for (int i = 0; i < region->view_count; i++) {
    if ((*env)->IsSameObject(env, region->views[i], NULL)) {
      (*env)->DeleteWeakGlobalRef(env, region->views[i]);
    } else {
      region->views[kept++] = region->views[i];
    }
  }
  region->view_count = kept;
  if (region->view_count < region->view_capacity) return 1;
  int capacity = region->view_capacity == 0 ? 16 : region->view_capacity * 2;
  jweak *grown = realloc(region->views, sizeof(jweak) * (size_t)capacity);
  if (grown == NULL) return 0;
  region->views = grown;
  region->view_capacity = capacity;
  return 1;
}

JNIEXPORT jobject JNICALL REGION_FN(regionView)(JNIEnv *env, jclass cls, jlong handle,
                                                jlong offset, jint length) {
  (void)cls;
  jobject view = NULL;
  int locked = 0;
  mcj_slot *slot = NULL;
  mcj_region *region = mcj_region_enter_open(env, handle, &slot);
  if (region == NULL) goto cleanup;
  if (offset < 0 || length < 0 || (uint64_t)offset + (uint64_t)length > region->size) {
    /* The end is printed unsigned: offset + length may not fit a long long. */
    mcj_throw_iae(env, "view [%lld, %llu) is outside the region of %zu bytes", (long long)offset,
                  (unsigned long long)offset + (unsigned long long)length, region->size);
    goto cleanup;
  }
  pthread_mutex_lock(&region->views_lock);
  locked = 1;
  if (!views_reserve(env, region)) {
    mcj_throw_oom(env, "cannot track another region view");
    goto cleanup;
  }
  view = (*env)->NewDirectByteBuffer(env, region->base + offset, (jlong)length);
  if (view == NULL) goto cleanup;
  jweak weak = (*env)->NewWeakGlobalRef(env, view);
  if (weak == NULL) {
    view = NULL; /* OutOfMemoryError pending */
    goto cleanup;
  }
  region->views[region->view_count++] = weak;
cleanup:
  if (locked) pthread_mutex_unlock(&region->views_lock);
  mcj_leave(&slot);
  return view;
}

MCJ_READ_ENTRY(jlong, REGION_FN(regionAddress), MCJ_KIND_REGION, mcj_region,
               (intptr_t)object->base)

MCJ_READ_ENTRY(jlong, REGION_FN(regionSize), MCJ_KIND_REGION, mcj_region, object->size)

/* Views of the region still reachable from Java. */
static int live_views(JNIEnv *env, mcj_region *region) {
  int live = 0;
  pthread_mutex_lock(&region->views_lock);
  for (int i = 0; i < region->view_count; i++) {
    if (!(*env)->IsSameObject(env, region->views[i], NULL)) live++;
  }
  pthread_mutex_unlock(&region->views_lock);
  return live;
}

MCJ_READ_ENTRY(jint, REGION_FN(regionLiveViews), MCJ_KIND_REGION, mcj_region,
               live_views(env, object))

/* Registers the whole region with the store; MooncakeClient's destroy unregisters it. */
JNIEXPORT jint JNICALL MCJ_JNI(MooncakeClient, registerRegion)(JNIEnv *env, jclass cls,
                                                               jlong store_handle,
                                                               jlong region_handle) {
  (void)cls;
  jint result = 0;
  mcj_slot *store_slot = NULL, *region_slot = NULL;
  mcj_store *store = mcj_store_enter(env, store_handle, &store_slot);
  if (store == NULL) goto cleanup;
  mcj_region *region = mcj_region_enter_open(env, region_handle, &region_slot);
  if (region == NULL) goto cleanup;
  pthread_mutex_lock(&store->regions_lock);
  if (store->region_count == MCJ_MAX_STORE_REGIONS) {
    mcj_throw_ise(env, "a store can register at most %d regions", MCJ_MAX_STORE_REGIONS);
  } else {
    result = store->library->api.register_buffer(store->mc, region->base, region->size);
    if (result == 0) {
      store->regions[store->region_count++] = region;
      __atomic_fetch_add(&region->registrations, 1, __ATOMIC_SEQ_CST);
    }
  }
  pthread_mutex_unlock(&store->regions_lock);
cleanup:
  mcj_leave(&region_slot);
  mcj_leave(&store_slot);
  return result;
}

/* No more views or registrations; the pages are given back to the system now (a stale view reads
 * zeros from here on instead of faulting). The mapping stays until regionFree. */
JNIEXPORT void JNICALL REGION_FN(regionRelease)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  mcj_slot *slot = NULL;
  mcj_region *region = mcj_enter_exclusive(env, handle, MCJ_KIND_REGION, &slot);
  if (region == NULL) goto cleanup;
  int registrations = __atomic_load_n(&region->registrations, __ATOMIC_SEQ_CST);
  if (region->state != MCJ_REGION_OPEN) {
    mcj_throw_ise(env, "region is already released");
  } else if (registrations > 0) {
    mcj_throw_ise(env, "region is still registered with %d store(s); unregister it first",
                  registrations);
  } else {
    region->state = MCJ_REGION_RELEASED;
    madvise(region->base, region->size, MADV_DONTNEED);
  }
cleanup:
  mcj_leave_exclusive(&slot, 0);
}

/* Unmaps a released region once no view of it is reachable; JNI_FALSE (and nothing done) while
 * one still is. After JNI_TRUE the handle is dead. */
JNIEXPORT jboolean JNICALL REGION_FN(regionFree)(JNIEnv *env, jclass cls, jlong handle) {
  (void)cls;
  jboolean freed = JNI_FALSE;
  mcj_slot *slot = NULL;
  mcj_region *region = mcj_enter_exclusive(env, handle, MCJ_KIND_REGION, &slot);
  if (region == NULL) goto cleanup;
  if (region->state != MCJ_REGION_RELEASED) {
    mcj_throw_ise(env, "region must be released before it is freed");
    goto cleanup;
  }
  for (int i = 0; i < region->view_count; i++) {
    if (!(*env)->IsSameObject(env, region->views[i], NULL)) goto cleanup;
  }
  for (int i = 0; i < region->view_count; i++) (*env)->DeleteWeakGlobalRef(env, region->views[i]);
  freed = JNI_TRUE;
cleanup:
  mcj_leave_exclusive(&slot, freed);
  if (freed) region_free(region);
  return freed;
}
