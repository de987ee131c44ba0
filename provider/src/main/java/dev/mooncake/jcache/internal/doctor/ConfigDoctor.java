package dev.mooncake.jcache.internal.doctor;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mooncake.jcache.config.ConfigException;
import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.internal.backend.mooncake.MooncakeStore;
import dev.mooncake.jcache.internal.config.parse.ConfigJsonParser;
import dev.mooncake.jcache.internal.config.source.ConfigSourceReader;
import dev.mooncake.jcache.internal.config.source.DefaultConfigUri;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import dev.mooncake.jcache.nativebridge.NativeAccess;
import dev.mooncake.jcache.nativebridge.NativeLogs;
import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.io.PrintStream;
import java.net.URI;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;

/**
 * The config doctor: {@code java -jar mooncake-jcache-<version>-check.jar [config-uri]}. Says which
 * Java runs it and whether it grants the bridge native access, resolves the config exactly as the
 * provider would, prints every effective setting with where it came from, loads the library,
 * connects to the master with the configured timeout and does a put / get / remove round trip with
 * its timings. In {@code mode: standalone-store} it also checks the topology ({@link
 * TopologyCheck}): master, pool segments and their room, lock segment and a lock round trip, one
 * {@code MISSING} line per missing thing. Exits 0 when every step worked, otherwise with one line
 * {@code FAILED <step>: <cause>} and the step's exit code.
 */
public final class ConfigDoctor {
  public static final int OK = 0;
  public static final int CONFIG = 2;
  public static final int LIBRARY = 3;
  public static final int CONNECT = 4;
  public static final int ROUND_TRIP = 5;
  public static final int TOPOLOGY = 6;
  public static final int USAGE = 64;

  private static final String CACHE = "mooncake-doctor";

  private final PrintStream out;
  private final Function<String, String> environment;

  /** A doctor printing to {@code out}, reading the environment through {@code environment}. */
  public ConfigDoctor(PrintStream out, Function<String, String> environment) {
    this.out = out;
    this.environment = environment;
  }

  public static void main(String[] args) {
    // the provider's INFO lines would bury the doctor's own; warnings and errors still show
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    System.exit(new ConfigDoctor(System.out, System::getenv).run(args));
  }

  /** Runs every step; the exit code (0 when all worked). */
  public int run(String[] args) {
    if (args.length > 1 || Arrays.asList(args).contains("--help")) {
      out.println("usage: java -jar mooncake-jcache-<version>-check.jar [config-uri]");
      out.println(
          "  (no argument: the provider's default, as Caching.getCachingProvider() finds it)");
      return USAGE;
    }
    // before anything loads the bridge: whether this JVM will let it (JEP 472, Java 24+)
    out.println("java     " + NativeAccess.describe());
    ClassLoader loader = ConfigDoctor.class.getClassLoader();
    URI uri;
    MooncakeConfig config;
    ObjectNode file;
    try {
      uri = args.length == 1 ? uriOf(args[0]) : ConfigLoader.defaultUri(loader, environment);
      out.println(
          "config   " + uri + (args.length == 1 ? " (argument)" : " (" + defaultOrigin() + ")"));
      config = ConfigLoader.load(uri, loader);
      file =
          ConfigLoader.BUILT_IN_URI.equals(uri)
              ? null
              : ConfigJsonParser.parse(ConfigSourceReader.read(uri, loader), uri.toString());
    } catch (ConfigException | IllegalArgumentException e) {
      return failed("config", e, CONFIG);
    }
    for (EffectiveSettings.Setting s : EffectiveSettings.of(config, file, environment)) {
      out.printf(Locale.ROOT, "setting  %s = %s  [%s]%n", s.key(), s.value(), s.origin());
    }
    for (Map.Entry<String, String> e : mooncakeEnvironment().entrySet()) {
      out.printf(Locale.ROOT, "env      %s=%s%n", e.getKey(), e.getValue());
    }
    if (config.backend() == MooncakeConfig.Backend.MOONCAKE
        && config.consistency().level() == MooncakeConfig.Consistency.Level.CLUSTER
        && config.masterMetricsAddress() == null) {
      out.println(
          "WARNING  placement: consistency \"cluster\" without master_metrics_address: a lock"
              + " record that lands outside its holder's full segment is not detected, and"
              + " exclusion can break (set it to the master's --metrics_port;"
              + " docs/cluster-consistency.md, \"Placement fallback\")");
    }

    if (config.backend() == MooncakeConfig.Backend.MOONCAKE) {
      try {
        long start = System.nanoTime();
        MooncakeStore.configureNativeLog(config); // before the library is loaded
        MooncakeLibrary library =
            MooncakeLibrary.open(
                config.library(), environment.apply(MooncakeLibrary.ENVIRONMENT_VARIABLE));
        out.printf(
            Locale.ROOT,
            "library  %s (from %s) loaded in %s%n",
            library.path(),
            library.origin(),
            millis(start));
        NativeLogs.Applied log = NativeLogs.applied();
        if (log != null) {
          out.printf(
              Locale.ROOT,
              "log      Mooncake logs at %s to %s%s%n",
              log.effectiveLevel(),
              log.forwarded()
                  ? "SLF4J logger " + NativeLogs.LOGGER + " (via " + log.directory() + ")"
                  : log.directory() != null ? log.directory() : "stderr",
              log.setByUs().isEmpty()
                  ? ""
                  : "; set by the provider: " + String.join(" ", log.setByUs()));
        }
      } catch (RuntimeException | LinkageError e) {
        return failed("library", e, LIBRARY);
      }
    } else {
      out.println("library  none needed: the in-process store");
    }

    TopologyCheck topology = TopologyCheck.applies(config) ? new TopologyCheck(out, config) : null;
    if (topology != null) {
      topology.beforeConnect();
    }
    MooncakeCachingProvider provider = new MooncakeCachingProvider();
    try {
      CacheManager manager;
      long start = System.nanoTime();
      try {
        manager = provider.getCacheManager(uri, loader);
      } catch (RuntimeException e) {
        if (topology != null && !topology.missing().isEmpty()) {
          // the connect failed for what is missing (a store without a pool does not open)
          out.println(
              "FAILED topology: missing "
                  + String.join(", ", topology.missing())
                  + " (connect: "
                  + cause(e)
                  + ")");
          return TOPOLOGY;
        }
        return failed("connect", e, CONNECT);
      }
      out.printf(
          Locale.ROOT,
          "connect  %s in %s (operation timeout %d ms)%n",
          config.backend() == MooncakeConfig.Backend.MOONCAKE
              ? "master "
                  + config.masterServerAddress()
                  + ", metadata "
                  + config.metadataServer()
                  + ", "
                  + config.protocol()
              : "in-process store",
          millis(start),
          config.operationTimeout().toMillis());
      if (topology != null) {
        topology.afterConnect();
      }
      try {
        roundTrip(manager);
      } catch (RuntimeException e) {
        if (topology != null && !topology.missing().isEmpty()) {
          // what is missing fails it (a lock whose segment the master does not list, say)
          out.println("round trip failed: " + cause(e));
          out.println("FAILED topology: missing " + String.join(", ", topology.missing()));
          return TOPOLOGY;
        }
        return failed("round trip", e, ROUND_TRIP);
      }
      if (topology != null && !topology.missing().isEmpty()) {
        out.println("FAILED topology: missing " + String.join(", ", topology.missing()));
        return TOPOLOGY;
      }
    } finally {
      provider.close();
    }
    out.println("OK");
    return OK;
  }

  private void roundTrip(CacheManager manager) {
    Cache<String, byte[]> cache = manager.getCache(CACHE, String.class, byte[].class);
    if (cache == null) {
      cache =
          manager.createCache(
              CACHE,
              new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
    }
    String key = "probe-" + UUID.randomUUID();
    byte[] value = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    long start = System.nanoTime();
    cache.put(key, value);
    out.println("put      " + millis(start));
    start = System.nanoTime();
    byte[] read = cache.get(key);
    String took = millis(start);
    if (!Arrays.equals(value, read)) {
      throw new IllegalStateException(
          "get of "
              + key
              + " returned "
              + (read == null ? "nothing" : read.length + " other bytes")
              + " right after its put");
    }
    out.println("get      " + took + " (value matches)");
    start = System.nanoTime();
    if (!cache.remove(key)) {
      throw new IllegalStateException("remove of " + key + " found nothing right after its get");
    }
    out.println("remove   " + millis(start));
  }

  private int failed(String step, Throwable e, int code) {
    out.println("FAILED " + step + ": " + cause(e));
    return code;
  }

  /** The messages of an exception and its causes, each once, on one line. */
  static String cause(Throwable e) {
    StringBuilder line = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      if (line.indexOf(message) < 0) {
        line.append(line.length() == 0 ? "" : ": ").append(message);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return line.toString().replace('\n', ' ');
  }

  private String defaultOrigin() {
    if (System.getProperty(DefaultConfigUri.SYSTEM_PROPERTY) != null) {
      return "system property " + DefaultConfigUri.SYSTEM_PROPERTY;
    }
    if (environment.apply(DefaultConfigUri.ENV_VARIABLE) != null) {
      return "environment " + DefaultConfigUri.ENV_VARIABLE;
    }
    return "the provider's default";
  }

  /** Mooncake's own variables (MC_*) that change what the library does, as set here. */
  private Map<String, String> mooncakeEnvironment() {
    Map<String, String> found = new TreeMap<>();
    for (String name :
        new String[] {
          "MC_RPC_TIMEOUT_MS",
          "MC_RPC_CONNECT_TIMEOUT_MS",
          "MC_LOG_LEVEL",
          "MC_TCP_BIND_ADDRESS",
          "MC_MIN_RPC_PORT",
          "MC_MAX_RPC_PORT",
          "MC_LOG_DIR",
          "GLOG_minloglevel",
          "GLOG_logtostderr",
          "GLOG_log_dir",
          "GLOG_stderrthreshold"
        }) {
      String value = environment.apply(name);
      if (value != null) {
        found.put(name, value);
      }
    }
    return found;
  }

  /** A URI as given when it has a scheme (two letters or more), else a path made absolute. */
  private static URI uriOf(String argument) {
    return argument.matches("[A-Za-z][A-Za-z0-9+.-]+:.*")
        ? URI.create(argument)
        : java.nio.file.Path.of(argument).toAbsolutePath().normalize().toUri();
  }

  static String millis(long startNanos) {
    return String.format(Locale.ROOT, "%.1f ms", (System.nanoTime() - startNanos) / 1e6);
  }
}
