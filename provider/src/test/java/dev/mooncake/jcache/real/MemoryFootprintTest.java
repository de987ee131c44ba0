package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory used once (issue 12): a manager's {@code local_buffer_size} is spent on the provider's
 * registered transfer region only, not a second time on Mooncake's own local buffer. Each size is
 * measured in a fresh JVM ({@link MemoryFootprintPeer}); the table printed here is the one in
 * docs/native-bridge.md. What can fail: between 64 MiB and 256 MiB the address space taken at open
 * must grow by about the 192 MiB of the region, not by twice that.
 */
class MemoryFootprintTest {
  private static final long MIB = 1 << 20;
  private static final int VALUES = 32;

  @TempDir Path dir;
  private Path config;

  @BeforeEach
  void cluster() throws Exception {
    RealMooncake.assumeAvailable();
    config = RealMooncake.config(dir, "memory-" + UUID.randomUUID());
  }

  @Test
  void localBufferSizeIsSpentOnce() throws Exception {
    Map<String, Long> small = measure(64);
    Map<String, Long> large = measure(256);
    long grown =
        (large.get("open.VmSize") - large.get("before.VmSize"))
            - (small.get("open.VmSize") - small.get("before.VmSize"));
    long region = (256 - 64) * MIB / 1024;
    assertTrue(
        grown > region * 3 / 4,
        "local_buffer_size 64 MiB -> 256 MiB grew the address space at open by only "
            + grown
            + " kB; the region alone is "
            + region
            + " kB: is local_buffer_size not allocated at all (the measure would see nothing)?");
    assertTrue(
        grown < region * 3 / 2,
        "local_buffer_size 64 MiB -> 256 MiB grew the address space at open by "
            + grown
            + " kB; the region alone is "
            + region
            + " kB: is local_buffer_size allocated twice (by Mooncake's setup too)?");
  }

  private Map<String, Long> measure(int localBufferMib) throws Exception {
    Path file = dir.resolve("memory-" + localBufferMib + ".json");
    Files.writeString(
        file,
        Files.readString(config)
            .replace(
                "\"local_buffer_size\": \"32MB\"",
                "\"local_buffer_size\": \"" + localBufferMib + "MB\""));
    ChildJvm peer =
        ChildJvm.run(
            MemoryFootprintPeer.class,
            List.of("-Xms64m", "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"),
            file.toString(),
            Integer.toString(VALUES));
    assertEquals(0, peer.exitCode(), "the peer failed: " + peer);
    List<String> lines = peer.out().lines().toList();
    Map<String, Long> figures = new HashMap<>();
    for (String line : lines) {
      if (!line.startsWith("MEM ")) {
        continue;
      }
      String[] parts = line.split(" ");
      for (int i = 2; i < parts.length; i++) {
        String[] pair = parts[i].split("=");
        figures.put(parts[1] + "." + pair[0], Long.parseLong(pair[1]));
      }
      System.out.println("local_buffer_size " + localBufferMib + " MiB: " + line);
    }
    assertEquals(12, figures.size(), "the peer printed " + lines);
    return figures;
  }
}
