/*
 * The raw C ABI peer of the Mooncake benchmarks: the same workloads as CacheBenchmark, straight on
 * libmooncake_store.so (dlopen + dlsym, no Mooncake headers: the ABI is native/src/main/c/
 * mooncake_store_abi.h, the one place that knows it).
 *
 *   mooncake-driver --library PATH --master HOST:PORT --workload readHeavy|writeHeavy|
 *                   readHeavyBatch|writeHeavyBatch|getOnly|putOnly --value-bytes N --keys N
 *                   --dist uniform|zipf --threads N --warmup SECONDS --iterations N
 *                   --iteration-seconds N --segment BYTES --buffer BYTES
 *                   [--copy none|by-value]
 *
 * One store handle shared by every thread (as the JVM provider shares its one). Every key is
 * filled first (batch_put_from in chunks). Then the threads run the mix: a get is get_into into
 * this thread's slice of one registered region; a put is remove(force) + put_from, because
 * Mooncake's put never overwrites (the provider's overwrite is the same two calls); a batch is
 * batch_get_into, or remove(force) per key + batch_put_from, of 64 distinct keys. Objects
 * prefer this client's own segment, as the provider's embedded mode does.
 *
 * --copy by-value does what a by-value get and put of a Java cache must do on top of the calls:
 * a get copies the value out of the registered buffer into a freshly allocated one (malloc +
 * memcpy + free: the caller gets a value of its own), a put copies the caller's value into the
 * registered buffer first (one memcpy from a pool of VALUE_POOL values built once per thread, as
 * CacheBenchmark's puts take pre-built values: building the value is the caller's work, not the
 * cache's, on both sides).
 * It is the floor for the provider's byte[] API; --copy none (the default) is the floor for its
 * zero-copy API.
 *
 * Prints "sample <ops/s>" once per measured iteration, then "misses <gets that found nothing>"
 * and "errors <failed calls>" (totals over the measured iterations), and "error-codes
 * <code>:<count>,…" (every failed call by status, warm-up included, e.g. -703 when a remove
 * meets another thread's put in flight: the raw ABI has no per-key coordination). Per-call errors are counted, not fatal; exits non-zero only
 * when the store cannot be set up or filled.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mooncake_store_abi.h"

#define BATCH 64
#define VALUE_POOL 8 /* CacheBenchmark.VALUE_POOL */
#define OBJECT_NOT_FOUND (-704)
#define REPLICA_NOT_READY (-703)

static mcj_store_api api;
static void *store;
static mcj_replicate_config replicate;
static const char *preferred[1];
static char hostname[512];

static struct {
  const char *library, *master, *workload, *dist;
  size_t value_bytes;
  int keys, threads, warmup, iterations, iteration_seconds;
  uint64_t segment, buffer;
  int by_value;
} opt = {NULL, "127.0.0.1:50051", "readHeavy", "uniform", 1024, 1000, 1, 2, 3, 1, 0, 0, 0};

static char **key_names;
static int put_percent;
static int batch_mode;
static _Atomic int stop_flag;

typedef struct {
  _Alignas(64) _Atomic uint64_t ops;
  _Atomic uint64_t misses;
  _Atomic uint64_t errors;
  int index;
  uint64_t rng;
  char *put_area;  /* BATCH values, filled with random bytes */
  char *get_area;  /* BATCH destinations */
  char *values;    /* --copy by-value: VALUE_POOL caller values, built once */
  unsigned next_value;
} worker;

static worker *workers;

/* ---------------------------------------------------------------------------------------------
 * Random numbers and key choice (uniform, or Zipfian with theta 0.99 as in Zipf.java). */

static uint64_t next_u64(uint64_t *s) { /* xorshift64* */
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1DULL;
}

static double next_double(uint64_t *s) { return (next_u64(s) >> 11) * (1.0 / 9007199254740992.0); }

static double zipf_theta = 0.99, zipf_zetan, zipf_eta, zipf_alpha, zipf_half_pow;
static int *rank_to_key;

static void zipf_init(int n) {
  double zeta2 = 0;
  zipf_zetan = 0;
  for (int i = 1; i <= n; i++) {
    zipf_zetan += 1.0 / pow(i, zipf_theta);
  }
  for (int i = 1; i <= 2; i++) {
    zeta2 += 1.0 / pow(i, zipf_theta);
  }
  zipf_alpha = 1.0 / (1.0 - zipf_theta);
  zipf_eta = (1 - pow(2.0 / n, 1 - zipf_theta)) / (1 - zeta2 / zipf_zetan);
  zipf_half_pow = pow(0.5, zipf_theta);
  rank_to_key = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) {
    rank_to_key[i] = i;
  }
  uint64_t s = 0x5eed;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(next_u64(&s) % (uint64_t)(i + 1));
    int t = rank_to_key[i];
    rank_to_key[i] = rank_to_key[j];
    rank_to_key[j] = t;
  }
}

static int next_key(uint64_t *s) {
  if (strcmp(opt.dist, "uniform") == 0) {
    return (int)(next_u64(s) % (uint64_t)opt.keys);
  }
  double u = next_double(s);
  double uz = u * zipf_zetan;
  long rank;
  if (uz < 1.0) {
    rank = 0;
  } else if (uz < 1.0 + zipf_half_pow) {
    rank = 1;
  } else {
    rank = (long)(opt.keys * pow(zipf_eta * u - zipf_eta + 1, zipf_alpha));
  }
  if (rank >= opt.keys) {
    rank = opt.keys - 1;
  }
  return rank_to_key[rank];
}

/* ---------------------------------------------------------------------------------------------
 * Operations */

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

/* Failed calls by status code: a small open-addressed table shared by every thread. */
#define CODE_SLOTS 64
static struct {
  _Atomic long long code; /* 0: free */
  _Atomic uint64_t count;
} error_codes[CODE_SLOTS];
static _Atomic uint64_t other_codes; /* when more than CODE_SLOTS distinct codes were seen */

static void count_code(long long code) {
  unsigned start = (unsigned)((unsigned long long)code * 2654435761u) % CODE_SLOTS;
  for (unsigned i = 0; i < CODE_SLOTS; i++) {
    unsigned slot = (start + i) % CODE_SLOTS;
    long long seen = atomic_load(&error_codes[slot].code);
    if (seen == 0) {
      long long expected = 0;
      if (atomic_compare_exchange_strong(&error_codes[slot].code, &expected, code)) {
        seen = code;
      } else {
        seen = expected;
      }
    }
    if (seen == code) {
      atomic_fetch_add(&error_codes[slot].count, 1);
      return;
    }
  }
  atomic_fetch_add(&other_codes, 1);
}

static void count_error(worker *w, const char *what, const char *key, long long code) {
  uint64_t n = atomic_fetch_add(&w->errors, 1);
  count_code(code == 0 ? -1 : code);
  if (n < 5) {
    fprintf(stderr, "error: %s %s: %lld\n", what, key, code);
  }
}

static void print_error_codes(void) {
  printf("error-codes");
  const char *sep = " ";
  for (unsigned i = 0; i < CODE_SLOTS; i++) {
    long long code = atomic_load(&error_codes[i].code);
    if (code != 0) {
      printf("%s%lld:%llu", sep, code, (unsigned long long)atomic_load(&error_codes[i].count));
      sep = ",";
    }
  }
  if (atomic_load(&other_codes) > 0) {
    printf("%sother:%llu", sep, (unsigned long long)atomic_load(&other_codes));
  }
  printf("\n");
}

/* --copy by-value: the caller's value, in memory of its own, is copied in (one memcpy). */
static void copy_in(worker *w, void *registered) {
  const char *value = w->values + (size_t)(w->next_value++ & (VALUE_POOL - 1)) * opt.value_bytes;
  memcpy(registered, value, opt.value_bytes);
}

/* --copy by-value: the caller gets a value of its own, copied out. */
static void copy_out(const void *registered) {
  char *fresh = malloc(opt.value_bytes);
  memcpy(fresh, registered, opt.value_bytes);
  __asm__ volatile("" : : "r"(fresh) : "memory"); /* keep the copy */
  free(fresh);
}

static void put_one(worker *w, const char *key, void *value) {
  if (opt.by_value) {
    copy_in(w, value);
  }
  int removed = api.remove(store, key, 1);
  if (removed != 0 && removed != OBJECT_NOT_FOUND) {
    count_error(w, "remove", key, removed);
  }
  int put = api.put_from(store, key, value, opt.value_bytes, &replicate);
  if (put != 0) {
    count_error(w, "put_from", key, put);
  }
}

static void get_one(worker *w, const char *key, void *destination) {
  int64_t got = api.get_into(store, key, destination, opt.value_bytes);
  if (got == OBJECT_NOT_FOUND || got == REPLICA_NOT_READY) {
    atomic_fetch_add(&w->misses, 1);
  } else if (got < 0) {
    count_error(w, "get_into", key, got);
  } else if ((size_t)got != opt.value_bytes) {
    count_error(w, "get_into (size)", key, got);
  } else if (opt.by_value) {
    copy_out(destination);
  }
}

/* 64 distinct keys. */
static int draw_batch(worker *w, const char **keys) {
  int idx[BATCH];
  int n = 0;
  int target = opt.keys < BATCH ? opt.keys : BATCH;
  while (n < target) {
    int k = next_key(&w->rng);
    int dup = 0;
    for (int i = 0; i < n; i++) {
      if (idx[i] == k) {
        dup = 1;
        break;
      }
    }
    if (!dup) {
      idx[n] = k;
      keys[n] = key_names[k];
      n++;
    }
  }
  return n;
}

static void batch_op(worker *w, int is_put) {
  const char *keys[BATCH] = {0};
  void *buffers[BATCH] = {0};
  size_t sizes[BATCH] = {0};
  int n = draw_batch(w, keys);
  for (int i = 0; i < n; i++) {
    buffers[i] = (is_put ? w->put_area : w->get_area) + (size_t)i * opt.value_bytes;
    sizes[i] = opt.value_bytes;
  }
  if (is_put) {
    int results[BATCH];
    for (int i = 0; i < n && opt.by_value; i++) {
      copy_in(w, buffers[i]);
    }
    for (int i = 0; i < n; i++) {
      int removed = api.remove(store, keys[i], 1);
      if (removed != 0 && removed != OBJECT_NOT_FOUND) {
        count_error(w, "remove", keys[i], removed);
      }
    }
    int rc = api.batch_put_from(store, keys, buffers, sizes, n, &replicate, results);
    if (rc != 0) {
      count_error(w, "batch_put_from", keys[0], rc);
    }
    for (int i = 0; i < n; i++) {
      if (results[i] != 0) {
        count_error(w, "batch_put_from (key)", keys[i], results[i]);
      }
    }
  } else {
    int64_t results[BATCH];
    int rc = api.batch_get_into(store, keys, buffers, sizes, n, results);
    if (rc != 0) {
      count_error(w, "batch_get_into", keys[0], rc);
    }
    for (int i = 0; i < n; i++) {
      if (results[i] == OBJECT_NOT_FOUND || results[i] == REPLICA_NOT_READY) {
        atomic_fetch_add(&w->misses, 1);
      } else if (results[i] < 0) {
        count_error(w, "batch_get_into (key)", keys[i], results[i]);
      } else if (opt.by_value) {
        copy_out(buffers[i]);
      }
    }
  }
}

static void *run_worker(void *arg) {
  worker *w = arg;
  while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) {
    int is_put = (int)(next_u64(&w->rng) % 100) < put_percent;
    if (batch_mode) {
      batch_op(w, is_put);
    } else {
      const char *key = key_names[next_key(&w->rng)];
      if (is_put) {
        put_one(w, key, w->put_area + (size_t)(w->rng & (BATCH - 1)) * opt.value_bytes);
      } else {
        get_one(w, key, w->get_area);
      }
    }
    atomic_fetch_add_explicit(&w->ops, 1, memory_order_relaxed);
  }
  return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Set-up */

static void die(const char *fmt, const char *arg) {
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  exit(2);
}

static void load_library(void) {
  if (opt.library == NULL) {
    opt.library = getenv("MOONCAKE_STORE_LIBRARY");
  }
  if (opt.library == NULL) {
    die("no library: pass --library or set MOONCAKE_STORE_LIBRARY%s", "");
  }
  void *lib = dlopen(opt.library, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    die("cannot load the Mooncake library: %s", dlerror());
  }
  int missing = 0;
#define RESOLVE(ret, name, params)                                                \
  *(void **)&api.name = dlsym(lib, "mooncake_store_" #name);                      \
  if (api.name == NULL) {                                                         \
    fprintf(stderr, "%s lacks mooncake_store_%s\n", opt.library, #name);          \
    missing++;                                                                    \
  }
  MCJ_STORE_FUNCTIONS(RESOLVE)
#undef RESOLVE
  if (missing) {
    exit(2);
  }
}

static size_t parse_size(const char *text) { return (size_t)strtoull(text, NULL, 10); }

static void parse_args(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *name = argv[i];
    if (i + 1 >= argc) {
      die("%s needs a value", name);
    }
    const char *v = argv[++i];
    if (!strcmp(name, "--library")) opt.library = v;
    else if (!strcmp(name, "--master")) opt.master = v;
    else if (!strcmp(name, "--workload")) opt.workload = v;
    else if (!strcmp(name, "--dist")) opt.dist = v;
    else if (!strcmp(name, "--value-bytes")) opt.value_bytes = parse_size(v);
    else if (!strcmp(name, "--keys")) opt.keys = atoi(v);
    else if (!strcmp(name, "--threads")) opt.threads = atoi(v);
    else if (!strcmp(name, "--warmup")) opt.warmup = atoi(v);
    else if (!strcmp(name, "--iterations")) opt.iterations = atoi(v);
    else if (!strcmp(name, "--iteration-seconds")) opt.iteration_seconds = atoi(v);
    else if (!strcmp(name, "--segment")) opt.segment = parse_size(v);
    else if (!strcmp(name, "--buffer")) opt.buffer = parse_size(v);
    else if (!strcmp(name, "--copy")) {
      if (!strcmp(v, "by-value")) opt.by_value = 1;
      else if (strcmp(v, "none")) die("unknown --copy %s (none or by-value)", v);
    }
    else die("unknown option %s", name);
  }
  if (opt.value_bytes == 0 || opt.keys < 1 || opt.threads < 1 || opt.iterations < 1) {
    die("bad options%s", "");
  }
  const char *w = opt.workload;
  if (!strcmp(w, "readHeavy")) put_percent = 10;
  else if (!strcmp(w, "writeHeavy")) put_percent = 50;
  else if (!strcmp(w, "readHeavyBatch")) put_percent = 10, batch_mode = 1;
  else if (!strcmp(w, "writeHeavyBatch")) put_percent = 50, batch_mode = 1;
  else if (!strcmp(w, "getOnly")) put_percent = 0;
  else if (!strcmp(w, "putOnly")) put_percent = 100;
  else die("unknown workload %s", w);
  if (strcmp(opt.dist, "uniform") && strcmp(opt.dist, "zipf")) {
    die("unknown distribution %s", opt.dist);
  }
  if (opt.segment == 0) {
    opt.segment = (uint64_t)opt.keys * opt.value_bytes * 3 / 2 + (256ULL << 20);
  }
  if (opt.buffer == 0) {
    opt.buffer = 512ULL << 20;
  }
}

static void fill(char *values) {
  const char *keys[BATCH];
  void *buffers[BATCH];
  size_t sizes[BATCH];
  int results[BATCH];
  for (int start = 0; start < opt.keys; start += BATCH) {
    int n = opt.keys - start < BATCH ? opt.keys - start : BATCH;
    for (int i = 0; i < n; i++) {
      keys[i] = key_names[start + i];
      buffers[i] = values + (size_t)i * opt.value_bytes;
      sizes[i] = opt.value_bytes;
    }
    int rc = api.batch_put_from(store, keys, buffers, sizes, n, &replicate, results);
    for (int i = 0; i < n; i++) {
      if (rc != 0 || results[i] != 0) {
        fprintf(stderr, "fill: batch_put_from %s: %d / %d\n", keys[i], rc, results[i]);
        exit(3);
      }
    }
  }
}

int main(int argc, char **argv) {
  parse_args(argc, argv);
  load_library();
  if (strcmp(opt.dist, "zipf") == 0) {
    zipf_init(opt.keys);
  }

  store = api.create();
  if (store == NULL) {
    die("mooncake_store_create failed%s", "");
  }
  int rc = api.setup(store, "127.0.0.1", "P2PHANDSHAKE", opt.segment, opt.buffer, "tcp", "",
                     opt.master);
  if (rc != 0) {
    fprintf(stderr, "mooncake_store_setup (master %s) failed: %d\n", opt.master, rc);
    return 2;
  }
  if (api.get_hostname(store, hostname, sizeof hostname) == 0 && hostname[0]) {
    preferred[0] = hostname;
    replicate.preferred_segments = preferred;
    replicate.preferred_segments_count = 1;
  }
  replicate.replica_num = 1;

  /* one registered region: per thread BATCH values to put and BATCH destinations */
  size_t per_thread = 2 * (size_t)BATCH * opt.value_bytes;
  size_t region_size = per_thread * (size_t)opt.threads;
  char *region = NULL;
  if (posix_memalign((void **)&region, 4096, region_size) != 0) {
    die("cannot allocate the %s region", "buffer");
  }
  uint64_t fill_rng = 42;
  for (size_t i = 0; i < region_size; i += 8) {
    uint64_t r = next_u64(&fill_rng);
    memcpy(region + i, &r, region_size - i < 8 ? region_size - i : 8);
  }
  rc = api.register_buffer(store, region, region_size);
  if (rc != 0) {
    fprintf(stderr, "register_buffer (%zu bytes) failed: %d\n", region_size, rc);
    return 2;
  }

  key_names = malloc(sizeof(char *) * opt.keys);
  for (int i = 0; i < opt.keys; i++) {
    char name[64];
    snprintf(name, sizeof name, "bench/c-abi/key-%d", i);
    key_names[i] = strdup(name);
  }
  double t0 = now_seconds();
  fill(region);
  fprintf(stderr, "filled %d keys of %zu bytes in %.1f s\n", opt.keys, opt.value_bytes,
          now_seconds() - t0);

  workers = calloc(opt.threads, sizeof(worker));
  pthread_t *threads = calloc(opt.threads, sizeof(pthread_t));
  for (int t = 0; t < opt.threads; t++) {
    workers[t].index = t;
    workers[t].rng = 1000 + t;
    workers[t].put_area = region + per_thread * t;
    workers[t].get_area = workers[t].put_area + (size_t)BATCH * opt.value_bytes;
    if (opt.by_value) {
      workers[t].values = malloc((size_t)VALUE_POOL * opt.value_bytes);
      if (workers[t].values == NULL) {
        fprintf(stderr, "out of memory for %d values of %zu bytes\n", VALUE_POOL, opt.value_bytes);
        return 1;
      }
      for (size_t b = 0; b < (size_t)VALUE_POOL * opt.value_bytes; b++) {
        workers[t].values[b] = (char)(b * 31 + t);
      }
    }
    pthread_create(&threads[t], NULL, run_worker, &workers[t]);
  }

  sleep(opt.warmup);
  uint64_t misses_start = 0, errors_start = 0;
  for (int t = 0; t < opt.threads; t++) {
    misses_start += atomic_load(&workers[t].misses);
    errors_start += atomic_load(&workers[t].errors);
  }
  for (int it = 0; it < opt.iterations; it++) {
    uint64_t before = 0, after = 0;
    for (int t = 0; t < opt.threads; t++) before += atomic_load(&workers[t].ops);
    double start = now_seconds();
    sleep(opt.iteration_seconds);
    for (int t = 0; t < opt.threads; t++) after += atomic_load(&workers[t].ops);
    double took = now_seconds() - start;
    printf("sample %.3f\n", (after - before) / took);
    fflush(stdout);
  }
  atomic_store(&stop_flag, 1);
  uint64_t misses = 0, errors = 0;
  for (int t = 0; t < opt.threads; t++) {
    pthread_join(threads[t], NULL);
    misses += atomic_load(&workers[t].misses);
    errors += atomic_load(&workers[t].errors);
  }
  /* totals over the measured iterations (the reader divides by the number of samples) */
  printf("misses %llu\n", (unsigned long long)(misses - misses_start));
  printf("errors %llu\n", (unsigned long long)(errors - errors_start));
  print_error_codes();
  fflush(stdout);

  api.remove_by_regex(store, "^bench/c-abi/", 1);
  api.unregister_buffer(store, region);
  api.destroy(store);
  free(region);
  return 0; /* per-call errors are results (error-codes above), not a failed run */
}
