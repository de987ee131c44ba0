package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoadingTest {

  @Test
  void jniLibraryLoadsFromTheNativesDirectory() {
    MooncakeLibrary.load();
    MooncakeLibrary.load(); // idempotent
    assertEquals(19, MooncakeLibrary.symbolCount());
    assertEquals("natives/" + PlatformsTest.expectedDir() + "/", JniLoader.resourceDir());
    assertTrue(
        LoadingTest.class
                .getClassLoader()
                .getResource("natives/" + PlatformsTest.expectedDir() + "/libmooncake_jcache.so")
            != null);
  }

  /** The sanitizer run (surefire execution "sanitizers") really runs over instrumented code. */
  @Test
  void theSanitizerRunLoadsTheInstrumentedLibraries() throws IOException {
    assumeTrue(Boolean.getBoolean("mooncake.sanitizers"), "skipped: not the sanitizer run");
    FakeStore.open();
    String maps = Files.readString(Path.of("/proc/self/maps"));
    assertTrue(maps.contains("libasan.so"), "libasan preloaded");
    assertTrue(maps.contains("libubsan.so"), "libubsan preloaded");
    assertTrue(maps.contains(System.getProperty(JniLoader.OVERRIDE_PROPERTY)), "sanitized bridge");
    assertTrue(maps.contains(FakeStore.library()), "sanitized fake");
    assertTrue(FakeStore.library().contains("/sanitizers/"), FakeStore.library());
  }

  @Test
  void jniLoadFailureNamesFilePlatformAndCauseInOneLine(@TempDir Path dir) throws IOException {
    Path garbage = dir.resolve("libmooncake_jcache.so");
    Files.writeString(garbage, "not an ELF file ".repeat(256));
    NativeBridgeException e =
        assertThrows(NativeBridgeException.class, () -> JniLoader.loadFile(garbage, "a test"));
    String message = e.getMessage();
    assertTrue(message.contains(garbage.toString()), message);
    assertTrue(message.contains("linux/"), message);
    assertTrue(message.contains(PlatformsTest.expectedDir()), message);
    assertTrue(message.contains("a test"), message);
    assertTrue(message.toLowerCase().contains("elf"), message); // dlerror's "invalid ELF header"
    assertFalse(message.contains("\n"), message);

    Path missing = dir.resolve("absent.so");
    e = assertThrows(NativeBridgeException.class, () -> JniLoader.loadFile(missing, "a test"));
    assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("no such file"), e.getMessage());
  }

  @Test
  void fixtureLoadsAndIsCachedByPath() {
    MooncakeLibrary first = MooncakeLibrary.open(FakeStore.library(), null);
    MooncakeLibrary second =
        MooncakeLibrary.open(FakeStore.library(), "/ignored/because/config/wins.so");
    assertEquals(first.handle(), second.handle());
    assertEquals(FakeStore.library(), first.path());
    assertTrue(first.origin().contains("config"), first.origin());
  }

  @Test
  void environmentVariableIsUsedWhenTheConfigNamesNoLibrary() {
    MooncakeLibrary library = MooncakeLibrary.open(null, FakeStore.library());
    assertEquals(FakeStore.library(), library.path());
    assertTrue(library.origin().contains("MOONCAKE_STORE_LIBRARY"), library.origin());

    NativeBridgeException e =
        assertThrows(
            NativeBridgeException.class,
            () -> MooncakeLibrary.open("  ", "/no/such/dir/libmooncake_store.so"));
    assertTrue(e.getMessage().contains("/no/such/dir/libmooncake_store.so"), e.getMessage());
    assertTrue(e.getMessage().contains("$MOONCAKE_STORE_LIBRARY"), e.getMessage());
    assertTrue(e.getMessage().contains("No such file"), e.getMessage()); // dlerror
  }

  @Test
  void defaultSonameIsTriedLast() {
    // No Mooncake is installed on a CI machine; the message must say what was tried.
    NativeBridgeException e =
        assertThrows(NativeBridgeException.class, () -> MooncakeLibrary.open(null, null));
    assertTrue(e.getMessage().contains("'libmooncake_store.so'"), e.getMessage());
    assertTrue(e.getMessage().contains("default soname"), e.getMessage());
    assertTrue(e.getMessage().contains("MOONCAKE_STORE_LIBRARY"), e.getMessage());
  }

  @Test
  void missingSymbolsAreAllNamed() {
    NativeBridgeException e =
        assertThrows(
            NativeBridgeException.class,
            () -> MooncakeLibrary.open(FakeStore.partialLibrary(), null));
    String message = e.getMessage();
    assertTrue(message.contains(FakeStore.partialLibrary()), message);
    assertTrue(message.contains("lacks 3 of the 19"), message);
    assertTrue(message.contains("mooncake_store_batch_is_exist"), message);
    assertTrue(message.contains("mooncake_store_remove_all"), message);
    assertTrue(message.contains("mooncake_store_unregister_buffer"), message);
    assertTrue(message.contains("dlerror: "), message);
    assertTrue(message.contains("undefined symbol"), message);
    assertFalse(message.contains("mooncake_store_put,"), message);
  }

  @Test
  void aFileThatIsNoLibraryIsRefusedWithDlerror(@TempDir Path dir) throws IOException {
    Path text = dir.resolve("libmooncake_store.so");
    Files.writeString(text, "hello");
    NativeBridgeException e =
        assertThrows(
            NativeBridgeException.class, () -> MooncakeLibrary.open(text.toString(), null));
    assertTrue(e.getMessage().contains(text.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("the config's 'library'"), e.getMessage());
  }
}
