package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.doctor.ConfigDoctor;
import dev.mooncake.jcache.testing.ChildJava;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JEP 472 on Java 25, as a future JDK will enforce it ({@code --illegal-native-access=deny}): with
 * the option docs/native-bridge.md documents, a store opens over the fake library; without it,
 * opening fails with the provider's message naming that option, not a bare {@link
 * IllegalCallerException}, and the config doctor says so before it fails. Child JVMs on a Java 25
 * (this JVM's, or {@code -Dmooncake.java25.home}); skipped, saying so, where there is none.
 */
class NativeAccessOnJava25Test {
  private static final String DENY = "--illegal-native-access=deny";

  @TempDir Path dir;

  private record Run(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  private Run run(List<String> options, Class<?> main) throws Exception {
    Path config = dir.resolve("native-access.json");
    Files.writeString(config, Fake.configJson("native-access", ""));
    List<String> command = new ArrayList<>();
    command.add(ChildJava.java25("JEP 472 restricts JNI from Java 24 on").toString());
    command.addAll(options);
    command.addAll(
        List.of(
            "-Dmooncake.jcache.clientLingerMillis=0",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp",
            System.getProperty("java.class.path"),
            main.getName(),
            config.toString()));
    Process child = new ProcessBuilder(command).start();
    CompletableFuture<String> out = ChildJava.readAll(child.getInputStream());
    CompletableFuture<String> err = ChildJava.readAll(child.getErrorStream());
    assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the child did not exit");
    return new Run(child.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
  }

  @Test
  void withTheDocumentedOptionTheStoreOpensUnderDeny() throws Exception {
    Run run = run(List.of(DENY, ChildJava.NATIVE_ACCESS), NativeAccessChild.class);
    assertEquals(0, run.exit(), run::toString);
    assertTrue(run.out().contains("OPENED v"), run::toString);
    assertFalse(run.err().contains("restricted method"), run::toString);
  }

  @Test
  void withoutItOpeningFailsWithOurMessageNamingTheOption() throws Exception {
    Run run = run(List.of(DENY), NativeAccessChild.class);
    assertEquals(NativeAccessChild.FAILED, run.exit(), run::toString);
    String failed =
        run.out().lines().filter(l -> l.startsWith("FAILED ")).findFirst().orElse(run.out());
    // what the application catches: the provider's StoreException (a CacheException), its
    // message saying what to add
    assertTrue(
        failed.startsWith(
            "FAILED dev.mooncake.jcache.internal.backend.StoreException: Mooncake store unavailable:"
                + " cannot load the Mooncake JCache native bridge "),
        run::toString);
    assertTrue(failed.contains("start java with --enable-native-access=ALL-UNNAMED"), failed);
    assertTrue(failed.contains("docs/native-bridge.md"), failed);
  }

  @Test
  void theDoctorSaysNativeAccessIsNotEnabledAndFailsTheLibraryStepNamingTheOption()
      throws Exception {
    Run run = run(List.of(DENY), ConfigDoctor.class);
    assertEquals(ConfigDoctor.LIBRARY, run.exit(), run::toString);
    assertTrue(
        run.out()
            .matches(
                "(?s)java     Java 2\\d[^\\n]*native access for the bridge \\(class path\\):"
                    + " NOT enabled[^\\n]*add --enable-native-access=ALL-UNNAMED.*"),
        run::toString);
    assertTrue(
        run.out().contains("FAILED library: ")
            && run.out().contains("start java with --enable-native-access=ALL-UNNAMED"),
        run::toString);

    Run granted = run(List.of(DENY, ChildJava.NATIVE_ACCESS), ConfigDoctor.class);
    assertEquals(ConfigDoctor.OK, granted.exit(), granted::toString);
    assertTrue(
        granted.out().contains("native access for the bridge (class path): enabled\n"),
        granted::toString);
  }
}
