package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.integrity.RecentKeys;
import java.util.function.Function;

/**
 * The store keys of the {@code String} cache keys one namespace met last. Every call turns its key
 * into a store key (encode, base64url, a new {@code String}), and the owner hash then hashes that
 * new string again to find its SHA-256 in {@code StoreKeyHash}'s memo. Answering a key met before
 * with the same store key <em>instance</em> saves the building, and makes the owner hash's lookup
 * an identity hit on a cached {@code hashCode} (the in-process store's map meets it the same way):
 * the integrity checks of a hot key's read are then the checksum alone.
 *
 * <p>Only {@code String} keys: the class is final, its {@code equals} is its content, and the codec
 * encodes equal strings to equal bytes, so a remembered store key is the one the building would
 * give. Keys of other classes may be equal while encoding differently (a key whose {@code equals}
 * ignores a field), so they are always built; so are keys longer than {@link #MAX_KEY_LENGTH}
 * characters, so the memo holds at most {@link #SLOTS} keys of bounded length.
 *
 * <p>{@link RecentKeys}, as the owner hash's memo: a race only costs a building.
 */
final class StoreKeyMemo {
  static final int SLOTS = 256;
  static final int MAX_KEY_LENGTH = 128;

  private final RecentKeys<String> slots = new RecentKeys<>(SLOTS);
  private final Function<String, String> build;

  /**
   * @param build the store key of a key, built (a pure function of the key)
   */
  StoreKeyMemo(Function<String, String> build) {
    this.build = build;
  }

  /** The store key of {@code key}: remembered, or built and remembered. */
  String storeKey(String key) {
    String storeKey = slots.get(key);
    if (storeKey == null) {
      storeKey = build.apply(key);
      if (key.length() <= MAX_KEY_LENGTH) {
        slots.put(key, storeKey);
      }
    }
    return storeKey;
  }
}
