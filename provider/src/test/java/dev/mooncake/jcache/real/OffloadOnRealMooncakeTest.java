package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.spi.MooncakeCachingProvider;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SSD offload through the provider (issue 31): a master and a {@code mooncake_client} pool both
 * started with {@code --enable_offload=true}, the pool with an offload directory, 64 MiB of memory
 * and 160 MiB of values written into it by a {@code standalone-store} JVM. Every value read back is
 * either its own bytes or a miss, never other bytes; more are served than the pool's memory can
 * hold, so the rest came from the pool's SSD through its offload RPC. Own master (the wrapper's has
 * no offload) on port 50091. Skips, saying why, without MOONCAKE_* or the netns wrapper.
 */
class OffloadOnRealMooncakeTest {
  private static final int PORT = 50091; // no other test's (50051, 50061, 50071, 50081)
  private static final int VALUE_BYTES = 1 << 20;
  private static final int POOL_MIB = 64;
  private static final int VALUES = 160;

  /**
   * How long one put may wait for a full pool to make room: the pool offloads once a heartbeat (1 s
   * here) and the master evicts what is on SSD; measured a few hundred ms per wait, plus slack.
   */
  private static final long FULL_POOL_BOUND_MS = 60_000;

  @TempDir Path dir;

  @BeforeEach
  void available() {
    RealMooncake.assumeAvailable();
    StandalonePool.assumeAvailable();
  }

  @Test
  void valuesThatLeftThePoolsMemoryAreServedFromItsSsd() throws Exception {
    Path ssd = Files.createDirectories(dir.resolve("ssd"));
    try (RealMaster master =
            RealMaster.start(PORT, dir.resolve("master.log"), "--enable_offload=true");
        StandalonePool pool =
            StandalonePool.start(
                POOL_MIB + "MB",
                dir.resolve("pool.log"),
                master.port(),
                master.metricsPort(),
                Map.of(
                    "MOONCAKE_OFFLOAD_FILE_STORAGE_PATH",
                    ssd.toString(),
                    // one file per value: the bucket backend waits for 500 keys (or 256 MB) per
                    // bucket, more than this pool holds, so it would offload nothing in time
                    "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR",
                    "file_per_key_storage_backend",
                    "MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS",
                    "1",
                    "MOONCAKE_OFFLOAD_LOCAL_BUFFER_SIZE_BYTES",
                    String.valueOf(64 << 20)),
                List.of("--enable_offload=true"))) {
      Path config = dir.resolve("offload.json");
      Files.writeString(config, config(pool.segment()));
      MooncakeCachingProvider provider = new MooncakeCachingProvider();
      try (CacheManager manager =
          provider.getCacheManager(config.toUri(), getClass().getClassLoader())) {
        Cache<String, byte[]> cache =
            manager.createCache(
                "offload",
                new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
        int fullAnswers = 0;
        for (int i = 0; i < VALUES; i++) {
          fullAnswers += putWaitingForRoom(cache, "v" + i, value(i));
        }
        int served = 0;
        int missed = 0;
        for (int i = 0; i < VALUES; i++) {
          byte[] read = cache.get("v" + i);
          if (read == null) {
            missed++;
          } else {
            assertTrue(Arrays.equals(value(i), read), "v" + i + " came back with other bytes");
            served++;
          }
        }
        long files;
        try (Stream<Path> walk = Files.walk(ssd)) {
          files = walk.filter(Files::isRegularFile).count();
        }
        int beyondMemory = served - POOL_MIB;
        System.out.printf(
            "[offload] %d values of 1 MiB into a %d MiB pool: %d served, %d missed; at least %d"
                + " served from SSD (served minus what the memory holds); %d files in the offload"
                + " directory; %d puts answered pool-full and were retried%n",
            VALUES, POOL_MIB, served, missed, beyondMemory, files, fullAnswers);
        assertEquals(VALUES, served + missed);
        assertTrue(
            beyondMemory > 0,
            "no more values served ("
                + served
                + ") than the pool's memory holds: nothing came from SSD");
      }
    }
  }

  /** Puts, retrying while the pool answers full (-200); the number of such answers. */
  private static int putWaitingForRoom(Cache<String, byte[]> cache, String key, byte[] value)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FULL_POOL_BOUND_MS);
    for (int full = 0; ; full++) {
      try {
        cache.put(key, value);
        return full;
      } catch (CacheException e) {
        if (!String.valueOf(e.getMessage()).contains("-200") || System.nanoTime() > deadline) {
          throw e;
        }
        TimeUnit.MILLISECONDS.sleep(100); // the pool's offload and the master's eviction: no event
      }
    }
  }

  /** 1 MiB that names its index in its first bytes, the rest a byte of it. */
  private static byte[] value(int i) {
    byte[] value = new byte[VALUE_BYTES];
    Arrays.fill(value, (byte) (i * 7 + 1));
    ByteBuffer.wrap(value).putInt(i);
    return value;
  }

  private static String config(String poolSegment) {
    return """
        {
          "backend": "mooncake",
          "mode": "standalone-store",
          "preferred_segments": ["%s"],
          "master_server_address": "127.0.0.1:%d",
          "metadata_server": "%s",
          "protocol": "tcp",
          "local_hostname": "127.0.0.1",
          "global_segment_size": 0,
          "local_buffer_size": "16MB",
          "operation_timeout_ms": 20000,
          "tenant_id": "offload-%s"
        }
        """
        .formatted(poolSegment, PORT, RealMooncake.metadataServer(PORT), UUID.randomUUID());
  }
}
