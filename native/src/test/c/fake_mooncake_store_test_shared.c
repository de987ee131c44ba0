/*
 * The fake's cross-process mode (MCJ_FAKE_SHARED), tested with several processes. Each scenario
 * runs in a coordinator process exec()ed with its own table file and environment; it starts
 * workers (this binary again, exec()ed: a process must not inherit a fake it did not load) that
 * talk over pipes, one line per message. Waits poll with deadlines; nothing sleeps a fixed time
 * to let something happen.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_mooncake_store_test.h"

static const char *self_path;
static const char *library_path;
static fake_api api;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void open_fake(void) {
  void *library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    fprintf(stderr, "FAILED: dlopen %s: %s\n", library_path, dlerror());
    exit(2);
  }
  load_api(library, &api);
}

/* ---- workers: spawned processes with a line protocol ---- */

typedef struct worker {
  pid_t pid;
  int to;   /* its stdin */
  int from; /* its stdout */
  char pending[4096];
  size_t pending_length;
} worker;

/* Starts this binary as "--worker <role> <library> args..." with extra "NAME=value" settings. */
static void spawn(worker *w, const char *const *env_settings, const char *role, ...) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) exit(2);
  const char *argv[16] = {self_path, "--worker", role, library_path};
  int argc = 4;
  va_list args;
  va_start(args, role);
  for (const char *a; argc < 15 && (a = va_arg(args, const char *)) != NULL;) argv[argc++] = a;
  va_end(args);
  argv[argc] = NULL;
  pid_t pid = fork();
  if (pid < 0) exit(2);
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    for (const char *const *e = env_settings; e != NULL && *e != NULL; e++) putenv((char *)*e);
    execv(self_path, (char *const *)argv);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  memset(w, 0, sizeof *w);
  w->pid = pid;
  w->to = in[1];
  w->from = out[0];
}

static void tell(worker *w, const char *format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(line, sizeof line - 1, format, args);
  va_end(args);
  line[n++] = '\n';
  if (write(w->to, line, (size_t)n) != n) check(0, "writing to worker %d", (int)w->pid);
}

/* The worker's next line into line (without the newline); 0 on timeout or end. */
static int hear(worker *w, char *line, size_t len, int64_t timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    char *newline = memchr(w->pending, '\n', w->pending_length);
    if (newline != NULL) {
      size_t n = (size_t)(newline - w->pending);
      snprintf(line, len, "%.*s", (int)n, w->pending);
      memmove(w->pending, newline + 1, w->pending_length - n - 1);
      w->pending_length -= n + 1;
      return 1;
    }
    int64_t left = deadline - now_ms();
    if (left <= 0) return 0;
    struct pollfd p = {w->from, POLLIN, 0};
    if (poll(&p, 1, (int)left) <= 0) continue;
    ssize_t got = read(w->from, w->pending + w->pending_length,
                       sizeof w->pending - 1 - w->pending_length);
    if (got <= 0) return 0;
    w->pending_length += (size_t)got;
  }
}

/* Waits for a line that starts with prefix; returns it in line. */
static int expect_line(worker *w, const char *prefix, char *line, size_t len) {
  if (!hear(w, line, len, 20000)) {
    check(0, "worker %d said nothing (waiting for \"%s\")", (int)w->pid, prefix);
    return 0;
  }
  int ok = strncmp(line, prefix, strlen(prefix)) == 0;
  check(ok, "worker %d said \"%s\", expected \"%s...\"", (int)w->pid, line, prefix);
  return ok;
}

static int reap(worker *w) {
  int status = 0;
  close(w->to);
  close(w->from);
  if (waitpid(w->pid, &status, 0) != w->pid) return -1;
  return status;
}

static void finish(worker *w) {
  tell(w, "exit");
  int status = reap(w);
  check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker %d ended with status %d",
        (int)w->pid, status);
}

/* Polls until probe() == want or the deadline; returns the last value. */
static int64_t poll_until(int64_t (*probe)(void *, const char *), void *store, const char *key,
                          int64_t want, int64_t timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  int64_t got;
  while ((got = probe(store, key)) != want && now_ms() < deadline) {
    struct timespec pause = {0, 2 * 1000000};
    nanosleep(&pause, NULL);
  }
  return got;
}

static int64_t probe_exist(void *store, const char *key) { return api.is_exist(store, key); }

static int64_t probe_get(void *store, const char *key) {
  char buffer[256];
  return api.get_into(store, key, buffer, sizeof buffer);
}

static int64_t stat_of(void *store, const char *name) {
  char key[512];
  snprintf(key, sizeof key, "__fake_mc__/stat/%.200s", name);
  return api.get_size(store, key);
}

static int64_t probe_stat(void *store, const char *name) { return stat_of(store, name); }

static int put_text(void *store, const char *key, const char *value, const char *preferred) {
  const char *segments[] = {preferred};
  struct {
    size_t replica_num;
    int with_soft_pin;
    int with_hard_pin;
    const char **preferred_segments;
    size_t preferred_segments_count;
  } config = {1, 0, 0, preferred != NULL ? segments : NULL, preferred != NULL ? 1 : 0};
  return api.put(store, key, value, strlen(value) + 1, (void *)&config);
}

static void hostname_of(void *store, char *out, size_t len) {
  check(api.get_hostname(store, out, len) == 0, "get_hostname");
}

/* ---------------------------------------------------------------------------------------------
 * Workers
 * ------------------------------------------------------------------------------------------- */

static int worker_main(const char *role, int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  open_fake();
  char line[512];
  void *store = set_up_client(&api, 1 << 20);
  char name[256];
  hostname_of(store, name, sizeof name);
  worker self = {.from = 0};
  if (strcmp(role, "racer") == 0) {
    /* argv: <index> <keys>: puts race/<j> = "w<index>", reads each back, reports its wins. */
    int index = atoi(argv[0]), keys = atoi(argv[1]);
    char value[32];
    snprintf(value, sizeof value, "w%d", index);
    printf("ready\n");
    if (!hear(&self, line, sizeof line, 30000)) return 3;
    int errors = 0, wins = 0;
    for (int j = 0; j < keys; j++) {
      char key[64];
      snprintf(key, sizeof key, "race/%d", j);
      if (put_text(store, key, value, NULL) != 0) errors++;
    }
    for (int j = 0; j < keys; j++) {
      char key[64], got[64] = {0};
      snprintf(key, sizeof key, "race/%d", j);
      int64_t deadline = now_ms() + 10000, n;
      while ((n = api.get_into(store, key, got, sizeof got)) == -703 && now_ms() < deadline) {
      }
      if (n <= 0) {
        errors++;
      } else if (strcmp(got, value) == 0) {
        wins++;
      }
    }
    printf("wins %d errors %d\n", wins, errors);
  } else if (strcmp(role, "putter") == 0) {
    /* argv: <key> <value> <preferred: own|none>: on "go" puts, then reports the result. */
    printf("ready %s\n", name);
    if (!hear(&self, line, sizeof line, 30000)) return 3;
    int result = put_text(store, argv[0], argv[1], strcmp(argv[2], "own") == 0 ? name : NULL);
    printf("put %d\n", result);
  } else if (strcmp(role, "reader") == 0) {
    /* argv: <key>: on each "read" reads the key (granting a lease), reports the result. */
    printf("ready %s\n", name);
    while (hear(&self, line, sizeof line, 30000) && strcmp(line, "read") == 0) {
      printf("read %lld\n", (long long)probe_get(store, argv[0]));
    }
    return 0;
  } else if (strcmp(role, "copier") == 0) {
    /* On "read <key>" reads the key (with the read delay its environment gives) and reports
     * "read <rc> <first byte> <how many bytes equal the first>". */
    static char buffer[64 << 10];
    printf("ready %s\n", name);
    while (hear(&self, line, sizeof line, 30000) && strncmp(line, "read ", 5) == 0) {
      memset(buffer, 0, sizeof buffer);
      int64_t n = api.get_into(store, line + 5, buffer, sizeof buffer);
      int64_t same = 0;
      while (n > 0 && same < n && buffer[same] == buffer[0]) same++;
      printf("read %lld %c %lld\n", (long long)n, n > 0 ? buffer[0] : '-', (long long)same);
    }
    return 0;
  } else if (strcmp(role, "owner") == 0) {
    /* Commands: "put <key> own|none" (reports "put <rc> <hostname>"), "stat <name>", "hold <ms>". */
    printf("ready %s\n", name);
    while (hear(&self, line, sizeof line, 60000) && strcmp(line, "exit") != 0) {
      char key[256], where[16];
      long long ms;
      if (sscanf(line, "put %255s %15s", key, where) == 2) {
        int result = put_text(store, key, key, strcmp(where, "own") == 0 ? name : NULL);
        hostname_of(store, name, sizeof name);
        printf("put %d %s\n", result, name);
      } else if (sscanf(line, "remove %255s", key) == 1) {
        printf("remove %d\n", api.remove(store, key, 1));
      } else if (sscanf(line, "stat %255s", key) == 1) {
        printf("stat %lld\n", (long long)stat_of(store, key));
      } else if (sscanf(line, "hold %lld", &ms) == 1) {
        printf("holding\n");
        char control[64];
        snprintf(control, sizeof control, "__fake_mc__/ctl/hold_shared_lock_ms=%lld", ms);
        api.remove(store, control, 1);
        printf("held\n");
      }
    }
    return 0;
  } else {
    fprintf(stderr, "unknown worker role %s\n", role);
    return 2;
  }
  (void)argc;
  while (hear(&self, line, sizeof line, 30000) && strcmp(line, "exit") != 0) {
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Scenarios (each in its own coordinator process and table)
 * ------------------------------------------------------------------------------------------- */

static void scenario_create_only_race(void) {
  enum { RACERS = 5, KEYS = 60 };
  void *store = set_up_client(&api, 64 << 20); /* the oldest segment: every racer's puts land here */
  static const char *const env[] = {"MCJ_FAKE_PUT_DELAY_US=200", NULL};
  worker racers[RACERS];
  char line[512];
  for (int i = 0; i < RACERS; i++) {
    char index[8], keys[8];
    snprintf(index, sizeof index, "%d", i);
    snprintf(keys, sizeof keys, "%d", KEYS);
    spawn(&racers[i], env, "racer", index, keys, NULL);
  }
  for (int i = 0; i < RACERS; i++) expect_line(&racers[i], "ready", line, sizeof line);
  for (int i = 0; i < RACERS; i++) tell(&racers[i], "go");
  int wins = 0;
  for (int i = 0; i < RACERS; i++) {
    int w = -1, e = -1;
    if (expect_line(&racers[i], "wins", line, sizeof line)) sscanf(line, "wins %d errors %d", &w, &e);
    check(e == 0, "racer %d: %d puts or reads failed", i, e);
    wins += w;
  }
  check(wins == KEYS, "create-only: %d winners for %d keys", wins, KEYS);
  for (int j = 0; j < KEYS; j++) {
    char key[64], got[64] = {0};
    snprintf(key, sizeof key, "race/%d", j);
    check(api.get_into(store, key, got, sizeof got) > 0 && got[0] == 'w', "race/%d = %s", j, got);
  }
  for (int i = 0; i < RACERS; i++) finish(&racers[i]);
  check(stat_of(store, "objects") == KEYS, "objects after the race: %lld",
        (long long)stat_of(store, "objects"));
  api.destroy(store);
}

static void scenario_in_flight(void) {
  void *store = set_up_client(&api, 64 << 20);
  static const char *const env[] = {"MCJ_FAKE_PUT_DELAY_US=1500000", NULL};
  worker putter;
  char line[512];
  spawn(&putter, env, "putter", "flight/k", "theirs", "none", NULL);
  expect_line(&putter, "ready", line, sizeof line);
  tell(&putter, "go");
  check(poll_until(probe_get, store, "flight/k", -703, 5000) == -703, "get_into in flight → -703");
  check(api.remove(store, "flight/k", 1) == -703, "remove(force) in flight → -703");
  check(api.remove(store, "flight/k", 0) == -703, "remove in flight → -703");
  check(api.is_exist(store, "flight/k") == 0, "is_exist in flight → 0");
  check(api.get_size(store, "flight/k") == -703, "get_size in flight → -703");
  check(put_text(store, "flight/k", "ours", NULL) == 0, "a put on a key in flight answers 0");
  check(api.remove_by_regex(store, "^flight/", 1) == 0, "remove_by_regex skips a key in flight");
  expect_line(&putter, "put 0", line, sizeof line);
  char got[64] = {0};
  check(api.get_into(store, "flight/k", got, sizeof got) == 7 && strcmp(got, "theirs") == 0,
        "after the put completes: \"%s\", expected the first put's value", got);
  finish(&putter);
  api.destroy(store);
}

static void scenario_leases(void) {
  void *store = set_up_client(&api, 64 << 20);
  static const char *const env[] = {"FAKE_MC_LEASE_MS=1500", NULL};
  worker reader;
  char line[512];
  spawn(&reader, env, "reader", "lease/k", NULL);
  expect_line(&reader, "ready", line, sizeof line);
  check(put_text(store, "lease/k", "v", NULL) == 0, "put lease/k");
  tell(&reader, "read");
  expect_line(&reader, "read 2", line, sizeof line);
  int64_t start = now_ms();
  check(api.remove(store, "lease/k", 0) == -706, "remove inside another process's lease → -706");
  int64_t deadline = now_ms() + 10000;
  int result;
  while ((result = api.remove(store, "lease/k", 0)) == -706 && now_ms() < deadline) {
    struct timespec pause = {0, 5 * 1000000};
    nanosleep(&pause, NULL);
  }
  check(result == 0, "remove after the lease → %d", result);
  check(now_ms() - start >= 1000, "the lease ended after %lld ms, not ~1500",
        (long long)(now_ms() - start));
  check(put_text(store, "lease/k", "v", NULL) == 0, "put lease/k again");
  tell(&reader, "read");
  expect_line(&reader, "read 2", line, sizeof line);
  check(api.remove(store, "lease/k", 1) == 0, "force remove inside the lease → 0");
  finish(&reader);
  api.destroy(store);
}

static void scenario_killed_owner(void) {
  void *store = set_up_client(&api, 64 << 20);
  worker owner;
  char line[512];
  spawn(&owner, NULL, "owner", NULL);
  expect_line(&owner, "ready", line, sizeof line);
  char name[256];
  sscanf(line, "ready %255s", name);
  tell(&owner, "put own/0 own");
  expect_line(&owner, "put 0", line, sizeof line);
  tell(&owner, "put elsewhere/0 none");
  expect_line(&owner, "put 0", line, sizeof line);
  check(api.is_exist(store, "own/0") == 1, "own/0 stored");
  char text[256];
  check(api.config_of("own/0", text, sizeof text) > 0 &&
            strcmp(text, "layout=v2 replica_num=1 soft_pin=0 hard_pin=0") == 0,
        "per-key config in the shared table: %s", text);
  int64_t dropped = stat_of(store, "clients_dropped");
  kill(owner.pid, SIGKILL);
  reap(&owner);
  check(poll_until(probe_exist, store, "own/0", 0, 3000) == 0,
        "the killed owner's object is gone with its segment (well inside the 10 s TTL)");
  check(stat_of(store, "clients_dropped") == dropped + 1, "one client dropped");
  check(api.is_exist(store, "elsewhere/0") == 1, "an object in another segment stays");
  check(stat_of(store, "clients") == 1, "one client left");
  api.destroy(store);
}

static void scenario_paused_owner(void) {
  /* MCJ_FAKE_CLIENT_TTL_MS=400 for every process of this scenario (set by the caller). */
  void *store = set_up_client(&api, 64 << 20);
  worker owner;
  char line[512], name[256], name_after[256];
  spawn(&owner, NULL, "owner", NULL);
  expect_line(&owner, "ready", line, sizeof line);
  sscanf(line, "ready %255s", name);
  tell(&owner, "put paused/0 own");
  expect_line(&owner, "put 0", line, sizeof line);
  check(stat_of(store, "segments") == 2, "two segments");
  kill(owner.pid, SIGSTOP);
  int64_t stopped_at = now_ms();
  check(poll_until(probe_exist, store, "paused/0", 0, 5000) == 0,
        "a paused owner's objects are gone after the client TTL");
  check(now_ms() - stopped_at >= 300, "dropped after %lld ms, before the 400 ms TTL",
        (long long)(now_ms() - stopped_at));
  check(stat_of(store, "segments") == 1, "its segment is gone");
  kill(owner.pid, SIGCONT);
  tell(&owner, "put paused/1 own");
  expect_line(&owner, "put 0", line, sizeof line);
  sscanf(line, "put 0 %255s", name_after);
  check(strcmp(name, name_after) == 0, "re-registered under its name: %s, was %s", name_after, name);
  check(api.is_exist(store, "paused/1") == 1, "stored in the re-registered segment");
  check(api.is_exist(store, "paused/0") == 0, "the old segment's objects stay gone");
  tell(&owner, "stat registrations");
  expect_line(&owner, "stat 2", line, sizeof line);
  check(stat_of(store, "segments") == 2, "two segments again");
  finish(&owner);
  check(poll_until(probe_stat, store, "segments", 1, 5000) == 1, "an exited owner's segment goes");
  api.destroy(store);
}

typedef struct background_read {
  void *store;
  const char *key;
  int64_t result;
  int done; /* set with __atomic_store_n once result is there */
} background_read;

static void *read_in_background(void *arg) {
  background_read *r = arg;
  char buffer[256];
  r->result = api.get_into(r->store, r->key, buffer, sizeof buffer);
  __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* Waits until pid is stopped (a signal takes effect asynchronously); 1 when it is. */
static int await_stopped(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int64_t deadline = now_ms() + 5000;
  while (now_ms() < deadline) {
    char stat[512] = {0};
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *end = strrchr(stat, ')');
    if (end != NULL && end[1] == ' ' && end[2] == 'T') return 1;
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
  return 0;
}

static void scenario_stopped_segment_read(void) {
  /* A read from a stopped process's segment blocks as a real Mooncake's handshake does. */
  void *store = set_up_client(&api, 64 << 20);
  worker owner;
  char line[512];
  spawn(&owner, NULL, "owner", NULL);
  expect_line(&owner, "ready", line, sizeof line);
  tell(&owner, "put stopped/0 own");
  expect_line(&owner, "put 0", line, sizeof line);
  check(probe_get(store, "stopped/0") == 10, "read while the owner runs");
  kill(owner.pid, SIGSTOP);
  check(await_stopped(owner.pid), "the owner stopped");
  setenv("MCJ_FAKE_STOPPED_READ_MS", "300", 1);
  int64_t start = now_ms();
  int64_t got = probe_get(store, "stopped/0");
  int64_t took = now_ms() - start;
  check(got == -800, "a read from the stopped owner's segment after the bound: %lld", (long long)got);
  check(took >= 300, "it gave up after %lld ms, before the 300 ms bound", (long long)took);
  start = now_ms();
  check(api.is_exist(store, "stopped/0") == 1, "is_exist answers from the table");
  check(api.get_size(store, "stopped/0") == 10, "get_size answers from the table");
  check(now_ms() - start < 250, "the master's answers waited %lld ms", (long long)(now_ms() - start));
  setenv("MCJ_FAKE_STOPPED_READ_MS", "60000", 1);
  background_read r = {store, "stopped/0", 0, 0};
  pthread_t reader;
  check(pthread_create(&reader, NULL, read_in_background, &r) == 0, "pthread_create");
  int64_t until = now_ms() + 300;
  while (now_ms() < until && !__atomic_load_n(&r.done, __ATOMIC_ACQUIRE)) {
    struct timespec pause = {0, 5 * 1000000};
    nanosleep(&pause, NULL);
  }
  check(!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE), "the read did not wait for the stopped owner");
  kill(owner.pid, SIGCONT);
  pthread_join(reader, NULL);
  check(r.result == 10, "once the owner runs again the read goes on: %lld", (long long)r.result);
  finish(&owner);
  api.destroy(store);
}

static void scenario_paused_in_flight(void) {
  void *store = set_up_client(&api, 64 << 20);
  static const char *const env[] = {"MCJ_FAKE_PUT_DELAY_US=1500000", NULL};
  worker putter;
  char line[512];
  spawn(&putter, env, "putter", "stopped/k", "v", "none", NULL); /* in our segment: only its writer ties it to the paused process */
  expect_line(&putter, "ready", line, sizeof line);
  tell(&putter, "go");
  check(poll_until(probe_get, store, "stopped/k", -703, 5000) == -703, "in flight");
  kill(putter.pid, SIGSTOP);
  check(poll_until(probe_get, store, "stopped/k", -704, 5000) == -704,
        "the paused writer's put is discarded after the TTL");
  kill(putter.pid, SIGCONT);
  expect_line(&putter, "put -601", line, sizeof line);
  check(api.is_exist(store, "stopped/k") == 0, "nothing stored by the discarded put");
  finish(&putter);
  api.destroy(store);
}

static void scenario_lock_owner_killed(void) {
  void *store = set_up_client(&api, 64 << 20);
  check(put_text(store, "survivor", "v", NULL) == 0, "put survivor");
  check(put_text(store, "freed", "w", NULL) == 0 && api.remove(store, "freed", 1) == 0,
        "put and remove freed (its block is FREE)");
  worker owner;
  char line[512];
  spawn(&owner, NULL, "owner", NULL);
  expect_line(&owner, "ready", line, sizeof line);
  tell(&owner, "hold 60000");
  expect_line(&owner, "holding", line, sizeof line);
  check(poll_until(probe_stat, store, "lock_holder_pid", owner.pid, 5000) == owner.pid,
        "the worker holds the table's lock");
  kill(owner.pid, SIGKILL);
  reap(&owner);
  int64_t start = now_ms();
  check(api.is_exist(store, "survivor") == 1, "the table works after its lock owner died");
  check(now_ms() - start < 5000, "took %lld ms", (long long)(now_ms() - start));
  check(stat_of(store, "owner_dead_recoveries") == 1, "one EOWNERDEAD recovery");
  char got[8] = {0};
  check(api.get_into(store, "survivor", got, sizeof got) == 2 && strcmp(got, "v") == 0 &&
            stat_of(store, "used_bytes") == 2 && stat_of(store, "free_blocks") == 1,
        "the rebuilt blocks: survivor reads \"%s\", used %lld, %lld free", got,
        (long long)stat_of(store, "used_bytes"), (long long)stat_of(store, "free_blocks"));
  check(put_text(store, "after", "v", NULL) == 0 && api.is_exist(store, "after") == 1,
        "puts work after the recovery");
  api.destroy(store);
}

/* The capacity of size's class, as the fake bins sizes (3 significant bits, rounded up). */
static size_t class_capacity(size_t size) {
  size_t unit = 1;
  while ((size + unit - 1) / unit > 15) unit *= 2;
  return (size + unit - 1) / unit * unit;
}

/* The defect a real Mooncake showed (shared/MOONCAKE.md, 2026-12-03): a read of key A in another
 * process copies from A's block outside the table's lock; meanwhile A is removed with force (which
 * does not wait for reads) and B, of the same size, is put: B takes A's freed block and is written
 * into it, so A's reader gets B's whole object. */
static void scenario_reuse_mid_read(void) {
  enum { SIZE = 4096 };
  void *store = set_up_client(&api, 64 << 20); /* the oldest segment: both puts land here */
  static const char *const env[] = {"MCJ_FAKE_READ_DELAY_US=2000000", NULL};
  static char a[SIZE], b[SIZE], back[SIZE];
  memset(a, 'A', sizeof a);
  memset(b, 'B', sizeof b);
  worker copier;
  char line[512];
  spawn(&copier, env, "copier", NULL);
  expect_line(&copier, "ready", line, sizeof line);
  check(api.put(store, "reuse/a", a, sizeof a, NULL) == 0, "put reuse/a");
  tell(&copier, "read reuse/a");
  check(poll_until(probe_stat, store, "reads_copying", 1, 5000) == 1,
        "the other process's read has its lease and waits before its copy");
  check(api.remove(store, "reuse/a", 0) == -706, "its lease is there: a plain remove → -706");
  int64_t reuses = stat_of(store, "block_reuses");
  check(api.remove(store, "reuse/a", 1) == 0, "a forced remove does not wait for the read");
  check(stat_of(store, "free_blocks") == 1, "reuse/a's block is free");
  check(api.put(store, "reuse/b", b, sizeof b, NULL) == 0, "put reuse/b, of the same size");
  check(stat_of(store, "block_reuses") == reuses + 1 && stat_of(store, "free_blocks") == 0,
        "reuse/b took reuse/a's block");
  check(stat_of(store, "reads_copying") == 1, "all of it before the read copied");
  long long n = 0, same = 0;
  char first = '?';
  if (expect_line(&copier, "read", line, sizeof line)) sscanf(line, "read %lld %c %lld", &n, &first, &same);
  check(n == SIZE && first == 'B' && same == SIZE,
        "the read of reuse/a answered %lld bytes, %lld of them '%c': reuse/b's whole object", n,
        same, first);
  check(api.get_into(store, "reuse/b", back, sizeof back) == SIZE && memcmp(back, b, SIZE) == 0,
        "reuse/b reads its own bytes");
  check(api.get_into(store, "reuse/a", back, sizeof back) == -704, "reuse/a is gone");
  /* Without a put in between, the freed block still holds A: the late copy gets A. */
  check(api.put(store, "reuse/c", a, sizeof a, NULL) == 0, "put reuse/c");
  tell(&copier, "read reuse/c");
  check(poll_until(probe_stat, store, "reads_copying", 1, 5000) == 1, "the read of reuse/c waits");
  check(api.remove(store, "reuse/c", 1) == 0, "forced remove of reuse/c");
  if (expect_line(&copier, "read", line, sizeof line)) sscanf(line, "read %lld %c %lld", &n, &first, &same);
  check(n == SIZE && first == 'A' && same == SIZE,
        "a read whose block was freed and not reused copies what was there: %lld, %lld '%c'", n,
        same, first);
  finish(&copier);
  api.destroy(store);
}

/* Blocks and the segment's accounting: used counts objects (not FREE blocks), reuse and eviction
 * keep it, FREE blocks that no longer fit beside the objects go, a segment's blocks go with it.
 * MCJ_FAKE_SHARED_SLOTS=16 (32 block records): the records are recycled, too. */
static void scenario_block_accounting(void) {
  enum { K16 = 16 << 10 };
  void *store = set_up_client(&api, 64 << 10);
  static char value[5][K16], back[32 << 10];
  char key[64];
  for (int i = 0; i < 5; i++) memset(value[i], '0' + i, K16);
  for (int i = 0; i < 4; i++) {
    snprintf(key, sizeof key, "acct/%d", i);
    check(api.put(store, key, value[i], K16, NULL) == 0, "put %s", key);
  }
  check(stat_of(store, "used_bytes") == 4 * K16, "4 objects: used %lld",
        (long long)stat_of(store, "used_bytes"));
  check(api.remove(store, "acct/1", 1) == 0 && api.remove(store, "acct/2", 1) == 0, "remove 2");
  check(stat_of(store, "used_bytes") == 2 * K16 && stat_of(store, "free_blocks") == 2 &&
            stat_of(store, "cached_bytes") == 2 * K16,
        "2 removed: used %lld, %lld free blocks of %lld bytes", (long long)stat_of(store, "used_bytes"),
        (long long)stat_of(store, "free_blocks"), (long long)stat_of(store, "cached_bytes"));
  int64_t reuses = stat_of(store, "block_reuses");
  check(api.put(store, "acct/1", value[1], K16, NULL) == 0 &&
            api.put(store, "acct/2", value[2], K16, NULL) == 0,
        "put 2 again");
  check(stat_of(store, "block_reuses") == reuses + 2 && stat_of(store, "free_blocks") == 0 &&
            stat_of(store, "used_bytes") == 4 * K16,
        "both took freed blocks; used %lld", (long long)stat_of(store, "used_bytes"));
  int64_t evictions = stat_of(store, "evictions");
  check(api.put(store, "acct/4", value[4], K16, NULL) == 0, "a fifth put evicts");
  check(stat_of(store, "evictions") == evictions + 1 && stat_of(store, "objects") == 4 &&
            stat_of(store, "used_bytes") == 4 * K16 && stat_of(store, "block_reuses") == reuses + 3,
        "one eviction, its block taken: %lld objects, used %lld",
        (long long)stat_of(store, "objects"), (long long)stat_of(store, "used_bytes"));
  for (int i = 0; i < 5; i++) {
    snprintf(key, sizeof key, "acct/%d", i);
    int64_t n = api.get_into(store, key, back, sizeof back);
    check(n == -704 || (n == K16 && memcmp(back, value[i], K16) == 0), "%s: %lld, its own bytes",
          key, (long long)n);
  }
  check(api.remove_all(store, 1) == 4 && stat_of(store, "used_bytes") == 0 &&
            stat_of(store, "free_blocks") == 4,
        "remove_all: used 0, 4 free blocks");
  /* 20 KiB is another class: the FREE blocks would not fit beside it, so they go */
  check(api.put(store, "acct/20k", back, 20 << 10, NULL) == 0, "a put of another class");
  check(stat_of(store, "free_blocks") == 0 && stat_of(store, "cached_bytes") == 0 &&
            stat_of(store, "used_bytes") == 20 << 10,
        "the FREE blocks went: %lld left, used %lld", (long long)stat_of(store, "free_blocks"),
        (long long)stat_of(store, "used_bytes"));
  check(api.remove_all(store, 1) == 1, "remove_all");
  /* another process's segment: its blocks go with it */
  worker owner;
  char line[512];
  spawn(&owner, NULL, "owner", NULL);
  expect_line(&owner, "ready", line, sizeof line);
  int64_t free_before = stat_of(store, "free_blocks");
  tell(&owner, "put own/x own");
  expect_line(&owner, "put 0", line, sizeof line);
  tell(&owner, "remove own/x");
  expect_line(&owner, "remove 0", line, sizeof line);
  check(stat_of(store, "free_blocks") == free_before + 1, "its removed object's block is FREE");
  finish(&owner);
  check(poll_until(probe_stat, store, "segments", 1, 5000) == 1, "its segment is gone");
  check(stat_of(store, "free_blocks") == free_before, "and its FREE block with it");
  /* 48 small objects of 48 classes, each put, read and removed, through 32 block records: the
   * FREE blocks fit beside the objects, so every record is used and then recycled */
  static char sized[1 << 10];
  size_t size = 1;
  for (int i = 0; i < 48; i++) {
    char fill = (char)('a' + i % 26);
    memset(sized, fill, size);
    snprintf(key, sizeof key, "class/%d", i);
    check(api.put(store, key, sized, size, NULL) == 0, "put %s", key);
    check(api.get_into(store, key, back, sizeof back) == (int64_t)size && back[0] == fill &&
              back[size - 1] == fill,
          "%s (%zu bytes) reads back", key, size);
    check(api.remove(store, key, 1) == 0, "remove %s", key);
    size = class_capacity(size) + 1; /* the smallest size of the next class */
  }
  check(size < sizeof sized, "the classes stayed small (%zu)", size);
  check(stat_of(store, "used_bytes") == 0, "used 0 after the classes");
  check(stat_of(store, "free_blocks") == 32, "32 block records, all FREE: %lld",
        (long long)stat_of(store, "free_blocks"));
  api.destroy(store);
}

/* One process: capacity, pins, eviction, limits, batches, regex, in the shared table. */
static void scenario_one_process(void) {
  void *store = set_up_client(&api, 64 << 10);
  static char value[16 << 10];
  memset(value, 'x', sizeof value);
  struct {
    size_t replica_num;
    int with_soft_pin;
    int with_hard_pin;
    const char **preferred_segments;
    size_t preferred_segments_count;
  } hard = {1, 0, 1, NULL, 0}, soft = {1, 1, 0, NULL, 0};
  char key[64];
  for (int i = 0; i < 4; i++) {
    snprintf(key, sizeof key, "hard/%d", i);
    check(api.put(store, key, value, sizeof value, (void *)&hard) == 0, "hard-pinned put %d", i);
  }
  check(api.put(store, "hard/4", value, sizeof value, (void *)&hard) == -200,
        "a pool full of hard-pinned objects → -200");
  check(api.put(store, "plain/0", value, sizeof value, NULL) == -200,
        "nothing evictable → -200");
  check(api.remove_all(store, 1) == 4, "remove_all");
  for (int i = 0; i < 8; i++) {
    snprintf(key, sizeof key, "plain/%d", i);
    check(api.put(store, key, value, sizeof value, NULL) == 0, "evicting put %d", i);
  }
  check(stat_of(store, "objects") == 4 && stat_of(store, "evictions") == 4,
        "eviction keeps the pool at 4 objects (%lld objects, %lld evictions)",
        (long long)stat_of(store, "objects"), (long long)stat_of(store, "evictions"));
  check(api.is_exist(store, "plain/7") == 1, "the newest object stays");
  check(api.remove_all(store, 1) == 4, "remove_all again");
  for (int i = 0; i < 3; i++) {
    snprintf(key, sizeof key, "soft/%d", i);
    check(api.put(store, key, value, sizeof value, (void *)&soft) == 0, "soft-pinned put %d", i);
  }
  check(api.put(store, "plain/a", value, sizeof value, NULL) == 0, "plain put");
  check(api.put(store, "plain/b", value, sizeof value, NULL) == 0, "a put that evicts");
  check(api.get_size(store, "plain/a") == -704, "the unpinned object goes first");
  for (int i = 0; i < 3; i++) {
    snprintf(key, sizeof key, "soft/%d", i);
    check(api.get_size(store, key) == (int64_t)sizeof value, "soft-pinned %d stays", i);
  }
  check(api.put(store, "plain/c", value, sizeof value, NULL) == 0 &&
            api.get_size(store, "plain/b") == -704,
        "again the unpinned object goes, not a soft-pinned one");
  api.remove_all(store, 1);
  api.destroy(store);

  store = set_up_client(&api, 8 << 20);
  static char big[1 << 20], back[1 << 20];
  for (size_t i = 0; i < sizeof big; i++) big[i] = (char)(i * 31 + 7);
  check(api.put_from(store, "big", big, sizeof big, NULL) == 0, "1 MiB put");
  check(api.get_into(store, "big", back, sizeof back) == (int64_t)sizeof big &&
            memcmp(big, back, sizeof big) == 0,
        "1 MiB round trip");
  check(api.get_into(store, "big", back, 100) == -600, "buffer too small → -600");
  static char long_key[4098];
  memset(long_key, 'k', 4096);
  long_key[4096] = '\0';
  check(put_text(store, long_key, "v", NULL) == 0 && api.is_exist(store, long_key) == 1,
        "a 4096-byte key");
  long_key[4096] = 'k';
  long_key[4097] = '\0';
  check(put_text(store, long_key, "v", NULL) == -600, "a 4097-byte key → -600");
  const char *keys[] = {"b/0", "b/1", "b/2"};
  char v0[] = "zero", v1[] = "one", v2[] = "two";
  void *buffers[] = {v0, v1, v2};
  size_t sizes[] = {sizeof v0, sizeof v1, sizeof v2};
  int results[3] = {9, 9, 9};
  check(api.batch_put_from(store, keys, buffers, sizes, 3, NULL, results) == 0 && results[0] == 0 &&
            results[1] == 0 && results[2] == 0,
        "batch_put_from");
  char o0[8], o1[8], o2[8];
  void *outs[] = {o0, o1, o2};
  size_t out_sizes[] = {8, 8, 8};
  int64_t got[3];
  check(api.batch_get_into(store, keys, outs, out_sizes, 3, got) == 0 && got[0] == 5 &&
            got[1] == 4 && strcmp(o2, "two") == 0,
        "batch_get_into");
  int exist[3];
  const char *some[] = {"b/0", "none", "b/2"};
  check(api.batch_is_exist(store, some, 3, exist) == 0 && exist[0] == 1 && exist[1] == 0 &&
            exist[2] == 1,
        "batch_is_exist");
  check(api.remove_by_regex(store, "^b/[01]$", 1) == 2, "remove_by_regex");
  check(api.is_exist(store, "b/2") == 1 && api.is_exist(store, "b/0") == 0, "regex removed b/0, b/1");
  check(api.remove(store, "none", 1) == -704, "remove of a missing key → -704");
  api.remove_all(store, 1);
  api.destroy(store);
}


/* ---------------------------------------------------------------------------------------------
 * KV events: the records of the events file, decoded as a consumer would
 * ------------------------------------------------------------------------------------------- */

typedef struct event_record {
  uint64_t seq;
  uint64_t event_id;
  uint64_t timestamp;
  int map_size;
  int batch_count;
  char type[256];
  char legacy_type[256]; /* "type": BlockStored / BlockRemoved */
  char key[256];
  char tenant[256];
  char medium[256];
  char backend[256];
} event_record;

typedef struct reader {
  const unsigned char *p, *end;
  int bad;
} reader;

static uint64_t be(reader *r, int n) {
  uint64_t v = 0;
  if (r->end - r->p < n) {
    r->bad = 1;
    return 0;
  }
  for (int i = 0; i < n; i++) v = v << 8 | *r->p++;
  return v;
}

static unsigned char tag(reader *r) { return (unsigned char)be(r, 1); }

static uint64_t read_uint(reader *r) {
  unsigned char t = tag(r);
  if (t < 0x80) return t;
  if (t == 0xcc) return be(r, 1);
  if (t == 0xcd) return be(r, 2);
  if (t == 0xce) return be(r, 4);
  if (t == 0xcf) return be(r, 8);
  r->bad = 1;
  return 0;
}

/* A str into out, or nil (out = "nil"); anything else is a decoding failure. */
static void read_str(reader *r, char *out, size_t len) {
  unsigned char t = tag(r);
  size_t n;
  if (t == 0xc0) {
    snprintf(out, len, "nil");
    return;
  }
  if ((t & 0xe0) == 0xa0) {
    n = t & 0x1f;
  } else if (t == 0xd9) {
    n = be(r, 1);
  } else if (t == 0xda) {
    n = be(r, 2);
  } else {
    r->bad = 1;
    return;
  }
  if ((size_t)(r->end - r->p) < n) {
    r->bad = 1;
    return;
  }
  snprintf(out, len, "%.*s", (int)n, (const char *)r->p);
  r->p += n;
}

static int read_container(reader *r, unsigned char fix, unsigned char wide) {
  unsigned char t = tag(r);
  if ((t & 0xf0) == fix) return t & 0x0f;
  if (t == wide) return (int)be(r, 2);
  r->bad = 1;
  return 0;
}

static int decode_event(const unsigned char *payload, size_t n, event_record *e) {
  reader r = {payload, payload + n, 0};
  if (read_container(&r, 0x90, 0xdc) != 3) return 0;
  e->timestamp = read_uint(&r);
  e->batch_count = read_container(&r, 0x90, 0xdc);
  e->map_size = read_container(&r, 0x80, 0xde);
  for (int i = 0; i < e->map_size && !r.bad; i++) {
    char name[64], text[256];
    read_str(&r, name, sizeof name);
    if (strcmp(name, "event_id") == 0 || strcmp(name, "timestamp") == 0) {
      uint64_t v = read_uint(&r);
      if (name[0] == 'e') e->event_id = v;
    } else if (strcmp(name, "seq_hashes") == 0 || strcmp(name, "block_hashes") == 0) {
      if (read_container(&r, 0x90, 0xdc) != 0) r.bad = 1;
    } else if (strcmp(name, "base_block_idx") == 0) {
      if (*r.p == 0xc0) {
        r.p++;
      } else if (read_uint(&r) != 0) {
        r.bad = 1;
      }
    } else {
      read_str(&r, text, sizeof text);
      if (strcmp(name, "event_type") == 0) snprintf(e->type, sizeof e->type, "%s", text);
      if (strcmp(name, "type") == 0) snprintf(e->legacy_type, sizeof e->legacy_type, "%s", text);
      if (strcmp(name, "object_key") == 0) snprintf(e->key, sizeof e->key, "%s", text);
      if (strcmp(name, "tenant_id") == 0) snprintf(e->tenant, sizeof e->tenant, "%s", text);
      if (strcmp(name, "medium") == 0) snprintf(e->medium, sizeof e->medium, "%s", text);
      if (strcmp(name, "backend_id") == 0) snprintf(e->backend, sizeof e->backend, "%s", text);
    }
  }
  if (read_uint(&r) != 0) r.bad = 1; /* batch dp_rank */
  return !r.bad && r.p == r.end;
}

/* Reads every record of the events file into events; returns how many. */
static int read_events(const char *path, event_record *events, int max) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  static unsigned char data[1 << 20];
  size_t n = fread(data, 1, sizeof data, f);
  fclose(f);
  int count = 0;
  size_t at = 0;
  while (at + 12 <= n && count < max) {
    reader header = {data + at, data + at + 12, 0};
    event_record *e = &events[count];
    memset(e, 0, sizeof *e);
    e->seq = be(&header, 8);
    size_t length = be(&header, 4);
    if (at + 12 + length > n) break;
    check(decode_event(data + at + 12, length, e), "event record %d decodes", count);
    at += 12 + length;
    count++;
  }
  check(at == n, "the events file ends with a whole record");
  return count;
}

static void expect_event(const event_record *e, uint64_t seq, uint64_t id, const char *type,
                         const char *key) {
  check(e->seq == seq && e->event_id == id && strcmp(e->type, type) == 0 &&
            strcmp(e->key, key) == 0,
        "event seq=%llu id=%llu %s %s, expected seq=%llu id=%llu %s %s",
        (unsigned long long)e->seq, (unsigned long long)e->event_id, e->type, e->key,
        (unsigned long long)seq, (unsigned long long)id, type, key);
  int stored = strcmp(type, "stored") == 0;
  check(strcmp(e->legacy_type, stored ? "BlockStored" : "BlockRemoved") == 0,
        "event %llu: type %s", (unsigned long long)e->seq, e->legacy_type);
  check(e->batch_count == 1 && e->map_size == (stored ? 20 : 17) &&
            strcmp(e->tenant, "default") == 0 && strcmp(e->medium, "cpu") == 0 &&
            strcmp(e->backend, "fake-test") == 0 && e->timestamp > 1600000000000ULL,
        "event %llu: batch of %d, %d fields, tenant %s, medium %s, backend %s",
        (unsigned long long)e->seq, e->batch_count, e->map_size, e->tenant, e->medium, e->backend);
}

static void scenario_events(void) {
  const char *path = getenv("MCJ_FAKE_EVENTS");
  void *store = set_up_client(&api, 64 << 10);
  worker owner;
  char line[512];
  spawn(&owner, NULL, "owner", NULL);
  expect_line(&owner, "ready", line, sizeof line);
  check(put_text(store, "e/1", "v", NULL) == 0, "put e/1");                 /* seq 1 */
  check(put_text(store, "e/1", "w", NULL) == 0, "put e/1 again: no event"); /* none */
  tell(&owner, "put e/2 none");                                             /* seq 2 */
  expect_line(&owner, "put 0", line, sizeof line);
  check(api.remove(store, "e/1", 1) == 0, "remove e/1");                    /* seq 3 */
  check(api.remove(store, "e/2", 1) == 0, "remove e/2");                    /* seq 4: dropped */
  check(put_text(store, "e/3", "v", NULL) == 0, "put e/3");                 /* seq 5 */
  check(api.remove_by_regex(store, "^e/3$", 1) == 1, "remove_by_regex: no event");
  check(api.remove(store, "__fake_mc__/ctl/events_drop_next=1", 1) == 0, "ctl");
  check(put_text(store, "e/4", "v", NULL) == 0, "put e/4");                 /* seq 6: dropped */
  check(put_text(store, "e/5", "v", NULL) == 0, "put e/5");                 /* seq 7 */
  finish(&owner); /* its segment goes (no event): only ours is left, for the eviction below */
  check(poll_until(probe_stat, store, "segments", 1, 5000) == 1, "one segment left");
  static char value[40 << 10];
  check(api.put(store, "e/big1", value, sizeof value, NULL) == 0, "put e/big1"); /* seq 8 */
  check(api.put(store, "e/big2", value, sizeof value, NULL) == 0, "put evicting"); /* 9.. */
  check(api.remove_all(store, 1) >= 1, "remove_all: no event");
  check(stat_of(store, "event_seq") >= 10, "event_seq %lld", (long long)stat_of(store, "event_seq"));

  event_record events[32];
  int n = read_events(path, events, 32);
  check(n >= 7, "%d events", n);
  if (n < 7) return;
  expect_event(&events[0], 1, 1, "stored", "e/1");
  expect_event(&events[1], 2, 2, "stored", "e/2");
  expect_event(&events[2], 3, 3, "removed", "e/1");
  expect_event(&events[3], 5, 4, "stored", "e/3");
  expect_event(&events[4], 7, 5, "stored", "e/5");
  expect_event(&events[5], 8, 6, "stored", "e/big1");
  /* e/big2 needs 40 KiB of the 64: eviction removes e/5 and/or e/big1 first, then stores it */
  int evicted = 0, i = 6;
  for (; i < n && strcmp(events[i].type, "removed") == 0; i++) evicted++;
  check(evicted >= 1 && evicted == stat_of(store, "evictions"), "%d eviction events, %lld evictions",
        evicted, (long long)stat_of(store, "evictions"));
  check(i == n - 1 && strcmp(events[i].type, "stored") == 0 && strcmp(events[i].key, "e/big2") == 0,
        "the evicting put's own event comes last");
  for (int j = 1; j < n; j++) {
    check(events[j].seq > events[j - 1].seq, "sequence numbers increase");
  }
  api.destroy(store);
}

static void scenario_events_one_process(void) {
  const char *path = getenv("MCJ_FAKE_EVENTS");
  void *store = set_up_client(&api, 1 << 20);
  check(put_text(store, "o/1", "v", NULL) == 0, "put o/1");
  check(put_text(store, "o/1", "w", NULL) == 0, "put o/1 again");
  check(api.remove(store, "o/1", 1) == 0, "remove o/1");
  check(put_text(store, "o/2", "v", NULL) == 0, "put o/2");
  check(api.remove_all(store, 1) == 1, "remove_all");
  event_record events[8];
  int n = read_events(path, events, 8);
  check(n == 3, "%d events in the one-process mode, expected 3", n);
  if (n != 3) return;
  expect_event(&events[0], 1, 1, "stored", "o/1");
  expect_event(&events[1], 2, 2, "removed", "o/1");
  expect_event(&events[2], 3, 3, "stored", "o/2");
  api.destroy(store);
}

/* The table file held garbage before the first process came (a stale file of another run): the
 * first process re-initialises it, and every bucket reads empty. */
static void scenario_stale_file(void) {
  void *store = set_up_client(&api, 1 << 20);
  char key[32], got[32];
  for (int i = 0; i < 200; i++) {
    snprintf(key, sizeof key, "stale/%d", i);
    check(api.is_exist(store, key) == 0, "%s absent in a fresh table", key);
    check(put_text(store, key, key, NULL) == 0, "put %s", key);
  }
  for (int i = 0; i < 200; i++) {
    snprintf(key, sizeof key, "stale/%d", i);
    check(api.get_into(store, key, got, sizeof got) > 0 && strcmp(got, key) == 0, "get %s", key);
  }
  check(stat_of(store, "objects") == 200, "200 objects");
  api.destroy(store);
}

typedef struct scenario {
  const char *name;
  void (*run)(void);
  const char *env[4];
  int one_process_mode; /* without MCJ_FAKE_SHARED */
  int garbage_file;     /* the table file holds 256 KiB of 0xff bytes before the scenario */
} scenario;

static const scenario scenarios[] = {
    {"create_only_race", scenario_create_only_race, {NULL}, 0, 0},
    {"in_flight", scenario_in_flight, {NULL}, 0, 0},
    {"leases", scenario_leases, {NULL}, 0, 0},
    /* the default 10 s client TTL: a dead process is noticed by its pid, long before */
    {"killed_owner", scenario_killed_owner, {NULL}, 0, 0},
    {"paused_owner", scenario_paused_owner, {"MCJ_FAKE_CLIENT_TTL_MS=400", NULL}, 0, 0},
    {"paused_in_flight", scenario_paused_in_flight, {"MCJ_FAKE_CLIENT_TTL_MS=400", NULL}, 0, 0},
    {"stopped_segment_read", scenario_stopped_segment_read, {NULL}, 0, 0},
    {"lock_owner_killed", scenario_lock_owner_killed, {NULL}, 0, 0},
    {"one_process", scenario_one_process, {NULL}, 0, 0},
    {"reuse_mid_read", scenario_reuse_mid_read, {NULL}, 0, 0},
    {"block_accounting", scenario_block_accounting, {"MCJ_FAKE_SHARED_SLOTS=16", NULL}, 0, 0},
    {"events", scenario_events, {"MCJ_FAKE_EVENTS_DROP=4", "MCJ_FAKE_EVENTS_BACKEND_ID=fake-test", NULL}, 0, 0},
    {"events_one_process", scenario_events_one_process, {"MCJ_FAKE_EVENTS_BACKEND_ID=fake-test", NULL}, 1, 0},
    {"stale_file", scenario_stale_file, {NULL}, 0, 1},
};

/* Runs every scenario in its own exec()ed coordinator with a fresh table; 0 when all pass. */
int run_shared_scenarios(const char *self, const char *library) {
  int failed = 0;
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
    const scenario *s = &scenarios[i];
    char table[256], values[300], events[300];
    snprintf(table, sizeof table, "/dev/shm/mcj-fake-test-%d-%s", (int)getpid(), s->name);
    snprintf(values, sizeof values, "%s.values", table);
    snprintf(events, sizeof events, "%s.events", table);
    if (s->garbage_file) {
      static unsigned char garbage[256 << 10];
      memset(garbage, 0xff, sizeof garbage);
      FILE *f = fopen(table, "wb");
      if (f == NULL || fwrite(garbage, 1, sizeof garbage, f) != sizeof garbage) exit(2);
      fclose(f);
    }
    int64_t start = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
      if (!s->one_process_mode) setenv("MCJ_FAKE_SHARED", table, 1);
      setenv("MCJ_FAKE_EVENTS", events, 1);
      for (const char *const *e = s->env; *e != NULL; e++) putenv((char *)*e);
      execl(self, self, "--scenario", s->name, library, (char *)NULL);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    printf("shared scenario %s: %s (%lld ms)\n", s->name, ok ? "passed" : "FAILED",
           (long long)(now_ms() - start));
    if (!ok) failed++;
    /* the table is the test's to clean: the fake never deletes it */
    char command[1000];
    snprintf(command, sizeof command, "rm -rf '%s' '%s' '%s'", table, values, events);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", table);
  }
  return failed;
}

/* "--scenario <name> <library>" and "--worker <role> <library> args..." */
int shared_main(int argc, char **argv) {
  self_path = argv[0];
  library_path = argv[3];
  if (strcmp(argv[1], "--worker") == 0) return worker_main(argv[2], argc - 4, argv + 4);
  setvbuf(stdout, NULL, _IONBF, 0);
  open_fake();
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
    if (strcmp(scenarios[i].name, argv[2]) == 0) {
      scenarios[i].run();
      if (failures > 0) fprintf(stderr, "scenario %s: %d check(s) failed\n", argv[2], failures);
      return failures > 0 ? 1 : 0;
    }
  }
  fprintf(stderr, "unknown scenario %s\n", argv[2]);
  return 2;
}
