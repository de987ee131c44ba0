package dev.mooncake.jcache.internal.backend.mooncake;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Keys as Mooncake takes them. A key Mooncake would refuse (null, empty, or holding a NUL, which C
 * would cut short) encodes to null: per-key failures are statuses, never exceptions (the
 * ObjectStore contract), so callers answer INVALID_PARAMS for it.
 */
final class MooncakeKeys {
  private MooncakeKeys() {}

  /** The key's UTF-8 bytes, or null when Mooncake would refuse it. */
  static byte[] encode(String key) {
    if (key == null || key.isEmpty() || key.indexOf('\0') >= 0) {
      return null;
    }
    return key.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The keys of a batch as Mooncake takes them, and which of them it can take: a key or buffer it
   * would refuse answers INVALID_PARAMS alone, and the others still go, as the in-process store
   * does it.
   */
  static final class Batch {
    final int[] positions; // of the valid entries, in the caller's arrays
    final byte[][] keys;

    /**
     * @param buffers one per key, or null for a batch without buffers
     * @param destinations whether the buffers are written (they must not be read-only) rather than
     *     read (they must have bytes remaining)
     * @throws IllegalArgumentException when there are not as many buffers as keys
     */
    Batch(String[] keys, ByteBuffer[] buffers, boolean destinations) {
      Objects.requireNonNull(keys, "keys");
      if (buffers != null && keys.length != buffers.length) {
        throw new IllegalArgumentException(
            keys.length + " keys but " + buffers.length + " buffers");
      }
      int[] positions = new int[keys.length];
      byte[][] encoded = new byte[keys.length][];
      int valid = 0;
      for (int i = 0; i < keys.length; i++) {
        byte[] k = encode(keys[i]);
        ByteBuffer buffer = buffers == null ? null : buffers[i];
        boolean usable =
            buffers == null
                || (buffer != null
                    && (destinations ? !buffer.isReadOnly() : buffer.hasRemaining()));
        if (k != null && usable) {
          positions[valid] = i;
          encoded[valid++] = k;
        }
      }
      this.positions = Arrays.copyOf(positions, valid);
      this.keys = Arrays.copyOf(encoded, valid);
    }

    /** Names the call in messages: {@code <call> of <n> keys from '<first valid key>'}. */
    String describe(String call, String[] callerKeys) {
      return call + " of " + keys.length + " keys from '" + callerKeys[positions[0]] + "'";
    }

    /** The buffers of the valid entries (null for a batch without buffers). */
    ByteBuffer[] select(ByteBuffer[] buffers) {
      if (buffers == null) {
        return null;
      }
      ByteBuffer[] selected = new ByteBuffer[positions.length];
      for (int i = 0; i < positions.length; i++) {
        selected[i] = buffers[positions[i]];
      }
      return selected;
    }

    /** The caller's answers: {@code answers} at the valid entries, {@code invalid} elsewhere. */
    long[] spread(long[] answers, int callerLength, long invalid) {
      long[] results = new long[callerLength];
      Arrays.fill(results, invalid);
      for (int i = 0; i < answers.length; i++) {
        results[positions[i]] = answers[i];
      }
      return results;
    }
  }
}
