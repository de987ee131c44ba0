package dev.mooncake.jcache.internal.backend.inprocess;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.config.MooncakeConfig.EvictionSettings;
import dev.mooncake.jcache.config.MooncakeConfig.ReplicaSettings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** Configs and values for the in-process store's tests. */
final class TestConfigs {
  static final long KIB = 1024;
  static final long MIB = 1024 * KIB;

  private TestConfigs() {}

  static MooncakeConfig config(
      long segment,
      long localBuffer,
      EvictionSettings eviction,
      ReplicaSettings replica,
      Duration timeout) {
    return ConfigLoader.defaults().toBuilder()
        .globalSegmentSize(segment)
        .localBufferSize(localBuffer)
        .replica(replica)
        .operationTimeout(timeout)
        .eviction(eviction)
        .build();
  }

  static MooncakeConfig segment(long segment) {
    return config(
        segment, 4 * MIB, EvictionSettings.DEFAULT, ReplicaSettings.DEFAULT, Duration.ofSeconds(5));
  }

  static MooncakeConfig hardPinned(long segment) {
    return config(
        segment,
        4 * MIB,
        EvictionSettings.DEFAULT,
        new ReplicaSettings(1, false, true, List.of()),
        Duration.ofSeconds(5));
  }

  static MooncakeConfig buffers(long localBuffer, Duration timeout) {
    return config(
        16 * MIB, localBuffer, EvictionSettings.DEFAULT, ReplicaSettings.DEFAULT, timeout);
  }

  static ByteBuffer utf8(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code size} bytes, each {@code fill}. */
  static ByteBuffer filled(int size, int fill) {
    ByteBuffer buffer = ByteBuffer.allocate(size); // heap: leaves no direct garbage behind
    for (int i = 0; i < size; i++) {
      buffer.put(i, (byte) fill);
    }
    return buffer;
  }

  static String text(ByteBuffer buffer, int position, int length) {
    byte[] bytes = new byte[length];
    buffer.duplicate().clear().get(position, bytes); // whatever the buffer's limit
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
