package dev.mooncake.jcache.nativebridge;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Log directories of killed processes are removed by the next start; live ones are kept. */
class NativeLogsSweepTest {
  @Test
  void onlyDirectoriesOfEndedProcessesAreRemoved(@TempDir Path parent) throws Exception {
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    Path dead =
        Files.createDirectory(parent.resolve(NativeLogs.DIRECTORY_PREFIX + ended.pid() + "-1"));
    Files.writeString(dead.resolve("p.h.u.log.INFO.20261201-000000." + ended.pid()), "x\n");
    Path self =
        Files.createDirectory(
            parent.resolve(NativeLogs.DIRECTORY_PREFIX + ProcessHandle.current().pid() + "-2"));
    long parentPid = ProcessHandle.current().parent().orElseThrow().pid();
    Path live =
        Files.createDirectory(parent.resolve(NativeLogs.DIRECTORY_PREFIX + parentPid + "-3"));
    Path other = Files.createDirectory(parent.resolve("mooncake-native-logs-x-4"));

    NativeLogs.removeStaleDirectories(parent);

    assertFalse(Files.exists(dead), "the ended process's directory is removed");
    assertTrue(Files.exists(self) && Files.exists(live) && Files.exists(other));
  }
}
