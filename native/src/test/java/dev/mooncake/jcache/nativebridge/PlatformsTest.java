package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The bridge is packaged per platform at native-lib-loader's paths, and a platform without one gets
 * one line saying so. Runs on x86-64 and, under qemu-user, on aarch64 (-P aarch64-qemu).
 */
class PlatformsTest {

  /** native-lib-loader's directory for the JVM running this test. */
  static String expectedDir() {
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    switch (arch) {
      case "amd64":
      case "x86_64":
        return "linux_64";
      case "aarch64":
        return "linux_arm64";
      default:
        throw new AssertionError("no bridge is built for os.arch " + arch);
    }
  }

  @Test
  void theBridgeForThisJvmIsWhereTheLoaderLooks() {
    assertEquals("natives/" + expectedDir() + "/", JniLoader.resourceDir());
    assertNotNull(
        getClass().getClassLoader().getResource(JniLoader.resourceDir() + "libmooncake_jcache.so"),
        JniLoader.resourceDir() + "libmooncake_jcache.so on the class path");
  }

  /**
   * Both platforms' bridges are in target/classes when the cross-compiler is installed; the
   * aarch64-qemu run sets mooncake.expect.aarch64 so that a skipped cross-build cannot pass it.
   */
  @Test
  void theAarch64BridgeIsPackagedWhenItWasBuilt() {
    assumeTrue(
        Boolean.getBoolean("mooncake.expect.aarch64"),
        "skipped: the aarch64 bridge is built only where aarch64-linux-gnu-gcc is installed");
    assertNotNull(
        getClass().getClassLoader().getResource("natives/linux_arm64/libmooncake_jcache.so"));
    assertNotNull(
        getClass().getClassLoader().getResource("natives/linux_64/libmooncake_jcache.so"));
  }

  /** Each packaged bridge is an ELF shared object for its directory's machine. */
  @Test
  void eachPackagedBridgeIsBuiltForItsPlatform() throws IOException {
    assertEquals(EM_X86_64, machineOf("linux_64"));
    if (getClass().getClassLoader().getResource("natives/linux_arm64/libmooncake_jcache.so")
        != null) {
      assertEquals(EM_AARCH64, machineOf("linux_arm64"));
    }
  }

  private static final int EM_X86_64 = 62;
  private static final int EM_AARCH64 = 183;

  /** e_machine of natives/DIR/libmooncake_jcache.so (little-endian ELF64 header, offset 18). */
  private int machineOf(String dir) throws IOException {
    String resource = "natives/" + dir + "/libmooncake_jcache.so";
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(resource)) {
      assertNotNull(in, resource);
      byte[] header = in.readNBytes(20);
      assertEquals(20, header.length, resource);
      assertEquals(0x7f, header[0], resource + " is no ELF file");
      assertEquals('E', header[1], resource);
      assertEquals(2, header[4], resource + " is not ELF64");
      assertEquals(1, header[5], resource + " is not little-endian");
      return (header[18] & 0xff) | (header[19] & 0xff) << 8;
    }
  }

  @Test
  void aPlatformWithoutABridgeGetsOneLineNamingItAndWhatToDo() {
    NativeBridgeException e =
        assertThrows(
            NativeBridgeException.class, () -> JniLoader.loadFromJar("natives/linux_riscv64/"));
    String message = e.getMessage();
    assertFalse(message.contains("\n"), message);
    assertTrue(message.contains("natives/linux_riscv64/libmooncake_jcache.so"), message);
    assertTrue(message.contains(System.getProperty("os.arch")), message); // the platform
    assertTrue(
        message.contains("it carries " + expectedDir()) || message.contains(", " + expectedDir()),
        message);
    assertTrue(message.contains("native/src/main/c"), message); // what to build
    assertTrue(
        message.contains("-D" + JniLoader.OVERRIDE_PROPERTY + "="), message); // how to use it
  }
}
