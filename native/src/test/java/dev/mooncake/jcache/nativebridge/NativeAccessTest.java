package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What the bridge tells users about JEP 472: the option naming its module (the class path's
 * ALL-UNNAMED here; a module's name on the module path), and the status line's three cases. The
 * refusal itself, on Java 25 under {@code --illegal-native-access=deny}, is the provider's
 * NativeAccessOnJava25Test (a child JVM that opens a store).
 */
class NativeAccessTest {
  /** The option this module's child JVMs pass, as docs/native-bridge.md tells users to. */
  static final String CLASS_PATH_FLAG = "--enable-native-access=ALL-UNNAMED";

  @Test
  void onTheClassPathTheFlagNamesAllUnnamed() {
    assertEquals(CLASS_PATH_FLAG, NativeAccess.flag());
  }

  @Test
  void onTheModulePathTheFlagNamesTheModule() {
    assertEquals(
        "--enable-native-access=java.base", NativeAccess.flagFor(Object.class.getModule()));
  }

  @Test
  void beforeJava24NothingIsRestricted() {
    Module unnamed = NativeAccessTest.class.getModule();
    assertEquals(NativeAccess.Status.NOT_RESTRICTED, NativeAccess.statusOf(17, unnamed));
    assertEquals(NativeAccess.Status.NOT_RESTRICTED, NativeAccess.statusOf(23, unnamed));
  }

  @Test
  void onThisJvmTheStatusFollowsTheGrantSurefireGives() {
    // surefire starts every test JVM with the class-path flag (the parent POM's argLine)
    NativeAccess.Status expected =
        Runtime.version().feature() >= 24
            ? NativeAccess.Status.ENABLED
            : NativeAccess.Status.NOT_RESTRICTED;
    assertEquals(expected, NativeAccess.status());
    String line = NativeAccess.describe();
    assertTrue(line.startsWith("Java " + Runtime.version() + " ("), line);
    assertTrue(line.contains("native access for the bridge (class path): "), line);
  }

  @Test
  void notEnabledSaysWhatToAdd() {
    String text = NativeAccess.explain(NativeAccess.Status.NOT_ENABLED, CLASS_PATH_FLAG);
    assertTrue(text.startsWith("NOT enabled"), text);
    assertTrue(text.contains("add " + CLASS_PATH_FLAG), text);
    assertTrue(text.contains("--illegal-native-access=deny"), text);
    assertFalse(text.contains("\n"), text);
    assertEquals("enabled", NativeAccess.explain(NativeAccess.Status.ENABLED, CLASS_PATH_FLAG));
  }
}
