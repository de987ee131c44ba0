package dev.mooncake.jcache.nativebridge;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Locale;

/**
 * The bridge under JEP 472 (Java 24 on): {@code System.load}, which loads the JNI library, is a
 * restricted method. A JVM that has not granted native access to the bridge's module warns on the
 * first load and, under {@code --illegal-native-access=deny} (the default of a future release),
 * refuses it with an {@link IllegalCallerException}. The user grants it with {@link #flag()}: the
 * bridge's module name on the module path, {@code ALL-UNNAMED} on the class path (an executable jar
 * may instead say {@code Enable-Native-Access: ALL-UNNAMED} in its manifest). Java 17 accepts the
 * option and ignores it (JNI is not restricted there), so one launcher line serves both.
 */
public final class NativeAccess {
  /** The first Java release whose JNI loads are restricted methods (JEP 472). */
  static final int RESTRICTED_SINCE = 24;

  /** Whether this JVM lets the bridge load its library without a warning or a refusal. */
  public enum Status {
    /** Before Java 24: JNI needs no grant. */
    NOT_RESTRICTED,
    ENABLED,
    /** Loading warns, or fails under {@code --illegal-native-access=deny}. */
    NOT_ENABLED
  }

  private NativeAccess() {}

  /**
   * The option that grants the bridge native access in this JVM's layout (class or module path).
   */
  public static String flag() {
    return flagFor(bridgeModule());
  }

  static String flagFor(Module module) {
    return "--enable-native-access=" + (module.isNamed() ? module.getName() : "ALL-UNNAMED");
  }

  public static Status status() {
    return statusOf(Runtime.version().feature(), bridgeModule());
  }

  static Status statusOf(int javaFeature, Module module) {
    if (javaFeature < RESTRICTED_SINCE) {
      return Status.NOT_RESTRICTED;
    }
    return isNativeAccessEnabled(module) ? Status.ENABLED : Status.NOT_ENABLED;
  }

  /**
   * One line on this JVM: its version and vendor, and whether the bridge may load its library, e.g.
   * {@code Java 25.0.3 (Eclipse Adoptium); native access for the bridge (class path): enabled}.
   */
  public static String describe() {
    return "Java "
        + Runtime.version()
        + " ("
        + System.getProperty("java.vendor", "unknown vendor")
        + "); native access for the bridge ("
        + (bridgeModule().isNamed() ? "module " + bridgeModule().getName() : "class path")
        + "): "
        + explain(status(), flag());
  }

  static String explain(Status status, String flag) {
    return switch (status) {
      case NOT_RESTRICTED ->
          "not restricted before Java " + RESTRICTED_SINCE + " (" + flag + " is harmless)";
      case ENABLED -> "enabled";
      case NOT_ENABLED ->
          "NOT enabled: loading the bridge warns, and fails under"
              + " --illegal-native-access=deny; add "
              + flag
              + " to the java command line (docs/native-bridge.md)";
    };
  }

  /** Why a load was refused, and the option that allows it (the cause in JniLoader's message). */
  static String refusedCause(IllegalCallerException e) {
    return String.format(
        Locale.ROOT,
        "this JVM denies the bridge native access (JEP 472, --illegal-native-access=deny): start"
            + " java with %s (docs/native-bridge.md) [%s]",
        flag(),
        e.getMessage());
  }

  private static Module bridgeModule() {
    return NativeAccess.class.getModule();
  }

  /** Module.isNativeAccessEnabled() exists from Java 22 on; the jar is built for Java 17. */
  private static boolean isNativeAccessEnabled(Module module) {
    try {
      Method method = Module.class.getMethod("isNativeAccessEnabled");
      return (Boolean) method.invoke(module);
    } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException e) {
      return false;
    }
  }
}
