package dev.mooncake.jcache.nativebridge;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.scijava.nativelib.NativeLibraryUtil;
import org.scijava.nativelib.NativeLoader;

/**
 * Loads {@code libmooncake_jcache.so}, the JNI half of the bridge, once per class loader.
 *
 * <p>The library travels in the jar once per platform it is built for ({@link #BUILT}), at {@code
 * natives/<platform>/libmooncake_jcache.so}, the path scijava native-lib-loader picks by os.name
 * and os.arch; its extractor copies it to a temporary directory and we {@code System.load} it
 * ourselves so that a failure can name the file, the platform and the loader's own reason in one
 * line (the loader swallows the cause). The system property {@value #OVERRIDE_PROPERTY} names a
 * file to load instead, for development.
 */
final class JniLoader {
  static final String LIBRARY = "mooncake_jcache";
  static final String OVERRIDE_PROPERTY = "mooncake.jcache.native.library";

  /**
   * native-lib-loader's directories the build can fill: linux_64 (x86-64) always, linux_arm64
   * (aarch64) when a cross-compiler was there (native/pom.xml, execution jni-library-aarch64).
   */
  static final String[] BUILT = {"linux_64", "linux_arm64"};

  private static final Object LOCK = new Object();
  private static volatile boolean loaded;
  private static NativeBridgeException failure;

  private JniLoader() {}

  static void ensureLoaded() {
    if (loaded) {
      return;
    }
    synchronized (LOCK) {
      if (loaded) {
        return;
      }
      if (failure != null) {
        throw new NativeBridgeException(failure.getMessage(), failure);
      }
      try {
        load();
        loaded = true;
      } catch (NativeBridgeException e) {
        failure = e;
        throw e;
      }
    }
  }

  private static void load() {
    String override = System.getProperty(OVERRIDE_PROPERTY);
    if (override != null && !override.isBlank()) {
      loadFile(Path.of(override), "named by -D" + OVERRIDE_PROPERTY);
      return;
    }
    loadFromJar(resourceDir());
  }

  /** Extracts and loads the jar's bridge in one of native-lib-loader's directories. */
  static void loadFromJar(String resourceDir) {
    String resource = resourceIn(resourceDir);
    if (!inJar(resource)) {
      throw new NativeBridgeException(missingPlatformMessage(resourceDir));
    }
    File file;
    try {
      file = NativeLoader.getJniExtractor().extractJni(resourceDir, LIBRARY);
    } catch (IOException | RuntimeException e) {
      throw new NativeBridgeException(
          message(resource, "from the jar", "cannot extract it: " + e), e);
    }
    if (file == null) {
      throw new NativeBridgeException(
          message(resource, "from the jar", "the extractor did not find it"));
    }
    loadFile(file.toPath(), "extracted from the jar's " + resource);
  }

  private static String resourceIn(String resourceDir) {
    return resourceDir + System.mapLibraryName(LIBRARY);
  }

  private static boolean inJar(String resource) {
    return JniLoader.class.getClassLoader().getResource(resource) != null;
  }

  /**
   * The one line for a platform this jar has no bridge for: the platform, the directory looked in,
   * the platforms the jar does carry and the two ways out. Package-visible so a test can ask for a
   * platform directory that does not exist.
   */
  static String missingPlatformMessage(String resourceDir) {
    StringBuilder carried = new StringBuilder();
    for (String dir : BUILT) {
      if (inJar(resourceIn("natives/" + dir + "/"))) {
        carried.append(carried.length() == 0 ? "" : ", ").append(dir);
      }
    }
    return "cannot load the Mooncake JCache native bridge: this jar has no "
        + resourceIn(resourceDir)
        + " for platform "
        + platform()
        + " (it carries "
        + (carried.length() == 0 ? "none" : carried)
        + "); build libmooncake_jcache.so for this platform from native/src/main/c"
        + " (docs/native-bridge.md) and name it with -D"
        + OVERRIDE_PROPERTY
        + "=/path/to/libmooncake_jcache.so";
  }

  /** Loads one file; public to the package for tests of the failure message. */
  static void loadFile(Path file, String origin) {
    Path absolute = file.toAbsolutePath();
    if (!Files.isRegularFile(absolute)) {
      throw new NativeBridgeException(message(absolute.toString(), origin, "no such file"));
    }
    try {
      System.load(absolute.toString());
    } catch (IllegalCallerException e) {
      // Java 24+ without native access for the bridge, under --illegal-native-access=deny
      throw new NativeBridgeException(
          message(absolute.toString(), origin, NativeAccess.refusedCause(e)), e);
    } catch (UnsatisfiedLinkError | SecurityException e) {
      throw new NativeBridgeException(message(absolute.toString(), origin, e.getMessage()), e);
    }
  }

  static String message(String file, String origin, String cause) {
    return "cannot load the Mooncake JCache native bridge "
        + file
        + " ("
        + origin
        + ") on "
        + platform()
        + ": "
        + (cause == null ? "unknown cause" : cause.replace('\n', ' '));
  }

  /** natives/linux_64/ and friends: native-lib-loader's directory for this platform. */
  static String resourceDir() {
    return NativeLibraryUtil.getPlatformLibraryPath("natives/");
  }

  static String platform() {
    return System.getProperty("os.name", "?").toLowerCase(Locale.ROOT)
        + "/"
        + System.getProperty("os.arch", "?")
        + " (native-lib-loader: "
        + NativeLibraryUtil.getArchitecture().name().toLowerCase(Locale.ROOT)
        + ")";
  }
}
