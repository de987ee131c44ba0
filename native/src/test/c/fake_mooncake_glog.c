/*
 * The fake's log lines, written the way Mooncake's would be through glog 0.6 under the same
 * variables (so that the bridge's log settings can be tested without Mooncake):
 *  - when the library is loaded glog reads GLOG_minloglevel; GLOG_stderrthreshold is NOT read
 *    (glog 0.6, google/glog#558): the threshold is the variable FLAGS_stderrthreshold exported
 *    under glog's symbol (default 2, ERROR), which the bridge writes through dlsym;
 *  - Mooncake's config, read while the library is loaded (3b5a594: a static initialiser calls
 *    globalConfig()), sets the minimum level from
 *    MC_LOG_LEVEL (exactly TRACE, INFO, WARNING or ERROR; anything else INFO); with MC_LOG_DIR
 *    set it initialises glog under the program name "mooncake-transfer-engine" and, when it is a
 *    writable directory, logs to files there: a line goes to the file of its severity and of
 *    every lower one, each file named <program>.<host>.<user>.log.<SEVERITY>.<yyyymmdd>-<hhmmss>.
 *    <pid> with a symlink <program>.<SEVERITY> and glog's four header lines, and is copied to
 *    stderr from the threshold up. Otherwise lines go to stderr (before initialisation after
 *    glog's one "WARNING: Logging before InitGoogleLogging() ..." line);
 *  - every line is written at once (glog buffers INFO lines unless GLOG_logbufsecs=0; the fake
 *    does not).
 * A line: "<I|W|E|F>yyyymmdd hh:mm:ss.uuuuuu <tid> <file>:<line>] <message>".
 * What the fake logs: at a setup, an I line; in P2P handshake mode also the E line "Local segment
 * descriptor not found" that Mooncake prints on healthy starts; an E line for a failed setup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "fake_mooncake_internal.h"

#define PROGRAM "mooncake-transfer-engine"

static const char *const severity_names[] = {"INFO", "WARNING", "ERROR", "FATAL"};

/* glog's flag, under its own (mangled fLI::FLAGS_stderrthreshold) name, as libglog exports it. */
__attribute__((visibility("default"))) int _ZN3fLI21FLAGS_stderrthresholdE = 2;

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int min_level;          /* guarded by log_lock */
static int initialised;        /* InitGoogleLogging was called */
static char log_dir[4096];     /* "" : stderr */
static int files[4] = {-1, -1, -1, -1};
static int warned_before_init;

__attribute__((constructor)) static void fake_glog_load(void) {
  const char *level = getenv("GLOG_minloglevel");
  if (level != NULL) min_level = atoi(level);
  fake_log_config(); /* Mooncake's global config, also read during the dlopen */
}

static void write_all(int fd, const char *text, size_t length) {
  while (length > 0) {
    ssize_t n = write(fd, text, length);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) {
      text += n;
      length -= (size_t)n;
    }
  }
}

/* Caller holds log_lock. The file of severity s, created on its first line as glog does. */
static int file_of(int s) {
  if (files[s] >= 0) return files[s];
  char host[256] = "(unknown)";
  gethostname(host, sizeof host);
  host[sizeof host - 1] = '\0';
  const char *user = getenv("USER");
  struct passwd *pw = user == NULL ? getpwuid(getuid()) : NULL;
  if (user == NULL) user = pw != NULL ? pw->pw_name : "invalid-user";
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  char name[8192];
  int length = snprintf(name, sizeof name, "%s/%s.%s.%s.log.%s.%04d%02d%02d-%02d%02d%02d.%d", log_dir, PROGRAM,
           host, user, severity_names[s], tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
           tm.tm_min, tm.tm_sec, (int)getpid());
  if (length < 0 || (size_t)length >= sizeof name) return -1;
  int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0664);
  if (fd < 0) return -1;
  char link[8192];
  length = snprintf(link, sizeof link, "%s/%s.%s", log_dir, PROGRAM, severity_names[s]);
  if (length > 0 && (size_t)length < sizeof link) {
    unlink(link);
    if (symlink(strrchr(name, '/') + 1, link) != 0) { /* glog goes on without it too */ }
  }
  char header[1024];
  int n = snprintf(header, sizeof header,
                   "Log file created at: %04d/%02d/%02d %02d:%02d:%02d\n"
                   "Running on machine: %s\n"
                   "Running duration (h:mm:ss): 0:00:00\n"
                   "Log line format: [IWEF]yyyymmdd hh:mm:ss.uuuuuu threadid file:line] msg\n",
                   tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                   host);
  write_all(fd, header, (size_t)n);
  files[s] = fd;
  return fd;
}

void fake_log_config(void) {
  pthread_mutex_lock(&log_lock);
  const char *level = getenv("MC_LOG_LEVEL");
  min_level = 0;
  if (level != NULL && strcmp(level, "WARNING") == 0) min_level = 1;
  if (level != NULL && strcmp(level, "ERROR") == 0) min_level = 2;
  const char *dir = getenv("MC_LOG_DIR");
  int bad_dir = 0;
  if (dir != NULL) {
    initialised = 1;
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && access(dir, W_OK) == 0 &&
        strlen(dir) < sizeof log_dir) {
      snprintf(log_dir, sizeof log_dir, "%s", dir);
    } else {
      bad_dir = 1;
    }
  }
  pthread_mutex_unlock(&log_lock);
  if (bad_dir) fake_log('W', "config.cpp", 450, "fake: MC_LOG_DIR=%s is not a writable directory", dir);
}

void fake_log(char severity, const char *file, int line, const char *format, ...) {
  int s = severity == 'I' ? 0 : severity == 'W' ? 1 : severity == 'E' ? 2 : 3;
  char text[2048];
  struct timeval tv;
  gettimeofday(&tv, NULL);
  struct tm tm;
  localtime_r(&tv.tv_sec, &tm);
  int n = snprintf(text, sizeof text, "%c%04d%02d%02d %02d:%02d:%02d.%06ld %5d %s:%d] ", severity,
                   tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                   (long)tv.tv_usec, (int)syscall(SYS_gettid), file, line);
  va_list args;
  va_start(args, format);
  if (n > 0 && (size_t)n < sizeof text) n += vsnprintf(text + n, sizeof text - (size_t)n, format, args);
  va_end(args);
  if (n < 0) return;
  if ((size_t)n >= sizeof text - 1) n = (int)sizeof text - 2;
  text[n++] = '\n';
  pthread_mutex_lock(&log_lock);
  if (s < min_level) {
    pthread_mutex_unlock(&log_lock);
    return;
  }
  if (log_dir[0] == '\0') {
    if (!initialised && !warned_before_init) {
      const char *w = "WARNING: Logging before InitGoogleLogging() is written to STDERR\n";
      write_all(2, w, strlen(w));
      warned_before_init = 1;
    }
    write_all(2, text, (size_t)n);
  } else {
    for (int i = s; i >= 0; i--) {
      int fd = file_of(i);
      if (fd >= 0) write_all(fd, text, (size_t)n);
    }
    if (s >= _ZN3fLI21FLAGS_stderrthresholdE) write_all(2, text, (size_t)n);
  }
  pthread_mutex_unlock(&log_lock);
}
