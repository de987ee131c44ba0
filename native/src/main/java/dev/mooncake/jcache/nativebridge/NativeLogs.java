package dev.mooncake.jcache.nativebridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where Mooncake's own (glog) log lines go and from which level, for the whole process. glog reads
 * its {@code GLOG_*} variables and Mooncake its {@code MC_LOG_*} (its global config, read once per
 * process by a static initialiser) while the library is loaded, so the variables are set in the C
 * environment just before the first {@code dlopen} ({@link MooncakeLibrary#open}) and unset right
 * after it ({@link #restoreEnvironment}): child processes of the application (a {@link
 * ProcessBuilder} whose environment is not touched passes the live C environment) see only the
 * user's environment. A {@code mooncake_client} that inherited {@code MC_LOG_DIR} aborted at start
 * (glog initialised twice), and a child JVM with this provider took the parent's directory for the
 * user's. {@link #configure} chooses the settings, else {@link Settings#DEFAULT}. Every variable
 * the user has set in the environment is left as it is.
 *
 * <ul>
 *   <li>{@code slf4j} (default): {@code MC_LOG_DIR} is pointed at a directory this process owns
 *       (removed when it exits), nothing is copied to stderr ({@code GLOG_stderrthreshold=3},
 *       written into glog's flag too, as glog 0.6 ignores the variable), glog flushes every line
 *       ({@code GLOG_logbufsecs=0}), and a daemon thread forwards each line to the SLF4J logger
 *       {@value #LOGGER} at its glog severity (I info, W warn, E and F error), with the known
 *       benign lines ({@link GlogToSlf4j#BENIGN}) at debug.
 *   <li>{@code stderr}: Mooncake's own behaviour (everything on stderr), only the level applied.
 *   <li>an absolute directory: glog's files stay there ({@code <program>.<host>.<user>.log.
 *       <SEVERITY>.<date>-<time>.<pid>}), nothing on stderr, nothing forwarded.
 * </ul>
 *
 * <p>Level: {@code MC_LOG_LEVEL} (Mooncake's; it overrides glog's {@code minloglevel} when its
 * config is read) and {@code GLOG_minloglevel} (for the lines before that). A user's {@code
 * MC_LOG_DIR} is kept and then nothing is forwarded: the user reads the files.
 */
public final class NativeLogs {
  private static final Logger LOG = LoggerFactory.getLogger(NativeLogs.class);

  /** The SLF4J logger Mooncake's lines are forwarded to. */
  public static final String LOGGER = "mooncake.native";

  public static final String SLF4J = "slf4j";
  public static final String STDERR = "stderr";

  /** Prefix of the directories this provider makes under {@code java.io.tmpdir}. */
  static final String DIRECTORY_PREFIX = "mooncake-native-logs-";

  /** glog's stderrthreshold that copies nothing to stderr (FATAL is 3; a FATAL aborts anyway). */
  private static final int NO_STDERR = 3;

  /** Mooncake's MC_LOG_LEVEL values (anything else silently means INFO to Mooncake). */
  public enum Level {
    TRACE(0),
    INFO(0),
    WARNING(1),
    ERROR(2);

    private final int glogSeverity;

    Level(int glogSeverity) {
      this.glogSeverity = glogSeverity;
    }

    /**
     * The level a config names, case-insensitively; IllegalArgumentException naming the choices.
     */
    public static Level parse(String text) {
      String name = text == null ? "" : text.strip().toUpperCase(Locale.ROOT);
      for (Level level : values()) {
        if (level.name().equals(name)) {
          return level;
        }
      }
      throw new IllegalArgumentException(
          "unknown Mooncake log level '"
              + text
              + "'; use TRACE, INFO, WARNING or ERROR"
              + (name.equals("WARN") ? " (glog spells it WARNING)" : ""));
    }

    /** Mooncake's own reading of MC_LOG_LEVEL: exact names, anything else is INFO. */
    static Level asMooncakeReads(String value) {
      for (Level level : values()) {
        if (level.name().equals(value)) {
          return level;
        }
      }
      return INFO;
    }
  }

  /**
   * @param level Mooncake's log level
   * @param destination {@link #SLF4J}, {@link #STDERR}, or an absolute directory path
   */
  public record Settings(Level level, String destination) {
    public static final Settings DEFAULT = new Settings(Level.WARNING, SLF4J);

    public Settings {
      Objects.requireNonNull(level, "level");
      destination = checkDestination(destination);
    }

    /** From config text; IllegalArgumentException naming what is wrong. */
    public static Settings of(String level, String destination) {
      return new Settings(Level.parse(level), destination);
    }

    static String checkDestination(String destination) {
      String d = destination == null ? "" : destination.strip();
      if (d.equalsIgnoreCase(SLF4J) || d.equalsIgnoreCase(STDERR)) {
        return d.toLowerCase(Locale.ROOT);
      }
      if (!d.startsWith("/")) {
        throw new IllegalArgumentException(
            "log destination '"
                + destination
                + "' is neither \"slf4j\", \"stderr\" nor an"
                + " absolute directory path");
      }
      return d;
    }
  }

  /**
   * What was applied: the settings, the effective level (the user's MC_LOG_LEVEL wins), the log
   * directory (null for stderr), whether lines are forwarded to SLF4J, and the variables this
   * provider sets for the library load ({@code NAME=VALUE}; the others were the user's).
   */
  public record Applied(
      Settings settings,
      Level effectiveLevel,
      Path directory,
      boolean forwarded,
      List<String> setByUs) {}

  private static Settings chosen;
  private static Applied applied;
  private static Integer stderrThreshold; // to write into glog's flag after each dlopen
  private static GlogTailer tailer;
  private static final List<String> setForLoad = new ArrayList<>(); // set now, to be restored

  private NativeLogs() {}

  /**
   * Chooses the settings applied before the library is first loaded. Returns false (and warns when
   * they differ) once they have been applied: they are process-wide and glog reads them once.
   */
  public static synchronized boolean configure(Settings settings) {
    Objects.requireNonNull(settings, "settings");
    if (applied != null) {
      if (!applied.settings().equals(settings)) {
        LOG.warn(
            "native_log {} ignored: Mooncake's logging is process-wide and was set up with {}",
            settings,
            applied.settings());
      }
      return false;
    }
    chosen = settings;
    return true;
  }

  /** What was applied, or null before the first library load. */
  public static synchronized Applied applied() {
    return applied;
  }

  /**
   * Chooses the variables once, then sets those still unset in the C environment; called before a
   * dlopen, which must be followed by {@link #restoreEnvironment}.
   */
  static synchronized void beforeLoad() {
    if (applied == null) {
      apply();
    }
    for (String assignment : applied.setByUs()) {
      int equals = assignment.indexOf('=');
      String name = assignment.substring(0, equals);
      if (replaceEnv(name, null, assignment.substring(equals + 1))) {
        setForLoad.add(assignment);
      }
    }
  }

  /**
   * Unsets what {@link #beforeLoad} set, where it still holds our value: glog and Mooncake's config
   * have read it during the dlopen, and a child process must not inherit it. Called after every
   * dlopen, failed ones too (the next attempt sets them again).
   */
  static synchronized void restoreEnvironment() {
    for (String assignment : setForLoad) {
      int equals = assignment.indexOf('=');
      replaceEnv(assignment.substring(0, equals), assignment.substring(equals + 1), null);
    }
    setForLoad.clear();
  }

  private static void apply() {
    JniLoader.ensureLoaded();
    Settings settings = chosen == null ? Settings.DEFAULT : chosen;
    Environment env = new Environment();
    String userLevel = env.user("MC_LOG_LEVEL");
    Level effective = settings.level();
    if (userLevel != null) {
      effective = Level.asMooncakeReads(userLevel);
      if (!effective.name().equals(userLevel)) {
        LOG.warn(
            "MC_LOG_LEVEL={} is not a level Mooncake knows (TRACE, INFO, WARNING, ERROR):"
                + " it logs at INFO",
            userLevel);
      }
    }
    env.set("MC_LOG_LEVEL", settings.level().name());
    env.set("GLOG_minloglevel", Integer.toString(effective.glogSeverity));

    Path directory = null;
    boolean forward = false;
    String userDirectory = env.user("MC_LOG_DIR");
    if (!settings.destination().equals(STDERR)) {
      if (userDirectory != null) {
        directory = Path.of(userDirectory);
      } else {
        directory =
            settings.destination().equals(SLF4J)
                ? ownedDirectory()
                : existingDirectory(Path.of(settings.destination()));
        forward = settings.destination().equals(SLF4J) && directory != null;
        if (directory != null) {
          env.set("MC_LOG_DIR", directory.toString());
        }
      }
      if (directory != null) {
        stderrThreshold = stderrThreshold(env);
        if (forward) {
          env.set("GLOG_logbufsecs", "0");
        }
      }
    }
    if (forward) {
      tailer = new GlogTailer(directory, new GlogToSlf4j(LoggerFactory.getLogger(LOGGER)));
      tailer.start();
      Runtime.getRuntime().addShutdownHook(new Thread(tailer::close, "mooncake-native-log-drain"));
    }
    applied = new Applied(settings, effective, directory, forward, List.copyOf(env.assignments));
    LOG.debug("Mooncake native log: {}", applied);
  }

  /** After each dlopen: glog 0.6 ignores GLOG_stderrthreshold, so its flag is written. */
  static synchronized void afterLoad(long library) {
    if (stderrThreshold == null) {
      return;
    }
    int previous = setGlogFlag(library, "stderrthreshold", stderrThreshold);
    if (previous == Integer.MIN_VALUE) {
      LOG.debug(
          "glog's FLAGS_stderrthreshold is not visible from the library; relying on"
              + " GLOG_stderrthreshold (read by glog 0.7 and later)");
    }
  }

  /**
   * Reads everything Mooncake wrote so far and forwards it, before returning (the thread does it by
   * itself within a second, which a closing store or an exiting JVM may not wait for). Called by a
   * store after it destroyed its client, at close and in its shutdown hook; does nothing when the
   * lines are not forwarded.
   */
  public static void drain() {
    GlogTailer t;
    synchronized (NativeLogs.class) {
      t = tailer;
    }
    if (t != null) {
      t.drain();
    }
  }

  /** The user's GLOG_stderrthreshold when it is a number (it wins), else ours, set in the env. */
  private static int stderrThreshold(Environment env) {
    String user = env.user("GLOG_stderrthreshold");
    if (user != null) {
      try {
        return Integer.parseInt(user.strip());
      } catch (NumberFormatException e) {
        LOG.warn("GLOG_stderrthreshold={} is not a number; glog ignores it", user);
      }
    }
    env.set("GLOG_stderrthreshold", Integer.toString(NO_STDERR));
    return NO_STDERR;
  }

  /** The variables as the user set them, and the ones this provider adds where they are unset. */
  private static final class Environment {
    private final List<String> assignments = new ArrayList<>();

    /** The user's value, or null. */
    String user(String name) {
      return environment(name);
    }

    /** Adds the variable for the library load unless the user has set it. */
    void set(String name, String value) {
      if (environment(name) == null) {
        assignments.add(name + "=" + value);
      }
    }
  }

  /**
   * A fresh owner-only directory; null (Mooncake keeps logging to stderr) when none can be made.
   */
  private static Path ownedDirectory() {
    Path parent = Path.of(System.getProperty("java.io.tmpdir"));
    removeStaleDirectories(parent);
    try {
      Path directory =
          Files.createTempDirectory(
              parent,
              DIRECTORY_PREFIX + ProcessHandle.current().pid() + "-",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      removeAtExit(directory.toString());
      return directory;
    } catch (IOException | UnsupportedOperationException e) {
      LOG.warn(
          "cannot make a directory for Mooncake's log files under {} ({}); Mooncake logs to"
              + " stderr",
          parent,
          e.toString());
      return null;
    }
  }

  private static Path existingDirectory(Path directory) {
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new NativeBridgeException(
          "native_log destination " + directory + ": cannot create the directory: " + e, e);
    }
    if (!Files.isWritable(directory)) {
      throw new NativeBridgeException(
          "native_log destination "
              + directory
              + " is not writable: Mooncake would log to stderr instead");
    }
    return directory;
  }

  /** Directories of this provider left by processes that are gone (killed before their exit). */
  static void removeStaleDirectories(Path parent) {
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(parent, DIRECTORY_PREFIX + "*")) {
      for (Path candidate : stream) {
        String rest = candidate.getFileName().toString().substring(DIRECTORY_PREFIX.length());
        int dash = rest.indexOf('-');
        if (dash <= 0 || !Files.isDirectory(candidate, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        long pid;
        try {
          pid = Long.parseLong(rest.substring(0, dash));
        } catch (NumberFormatException e) {
          continue;
        }
        // Only this user's, of processes not alive (in this PID namespace: a /tmp shared with
        // containers of other PID namespaces would need its own java.io.tmpdir).
        if (pid != ProcessHandle.current().pid()
            && ProcessHandle.of(pid).isEmpty()
            && Files.getOwner(candidate, LinkOption.NOFOLLOW_LINKS)
                .getName()
                .equals(System.getProperty("user.name"))) {
          deleteTree(candidate);
        }
      }
    } catch (IOException | UncheckedIOException e) {
      LOG.debug("cannot sweep old Mooncake log directories in {}: {}", parent, e.toString());
    }
  }

  private static void deleteTree(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | UncheckedIOException e) {
      LOG.debug("cannot remove {}: {}", directory, e.toString());
    }
  }

  // Natives (mcj_logs.c).

  /**
   * Sets {@code name} to {@code value} (unsets it when null) if it holds {@code expected} (is unset
   * when null); true when it changed.
   */
  private static native boolean replaceEnv(String name, String expected, String value);

  /** The C environment's value (System.getenv does not see what was set after the JVM started). */
  static native String environment(String name);

  private static native int setGlogFlag(long library, String flag, int value);

  private static native boolean removeAtExit(String directory);
}
