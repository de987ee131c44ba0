package dev.mooncake.jcache.internal.integrity;

/**
 * A fixed number of slots remembering a value per {@code String} key met lately: what the owner
 * hash's memo ({@link StoreKeyHash}) and the store key's ({@code entry.StoreKeyMemo}) share. A slot
 * is chosen by the key's {@code hashCode} (high bits after a multiply by the golden ratio, which
 * spreads keys that differ only in their last characters) and holds the last key put there.
 *
 * <p>Written without a lock: a slot holds an immutable entry (final fields) or null, a reader
 * checks the entry's key, so a race only costs the caller computing the value again. The values
 * must be pure functions of their keys.
 *
 * @param <V> what is remembered per key
 */
public final class RecentKeys<V> {
  private final Known<V>[] slots;
  private final int shift;

  /**
   * @param slots a power of two
   */
  @SuppressWarnings("unchecked")
  public RecentKeys(int slots) {
    if (Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two: " + slots);
    }
    this.slots = (Known<V>[]) new Known<?>[slots];
    this.shift = Integer.SIZE - Integer.numberOfTrailingZeros(slots);
  }

  /** What was remembered for {@code key}, or null. */
  public V get(String key) {
    Known<V> known = slots[slot(key.hashCode())];
    return known != null && known.key.equals(key) ? known.value : null;
  }

  /** Remembers {@code value} for {@code key}, in place of whatever shared its slot. */
  public void put(String key, V value) {
    slots[slot(key.hashCode())] = new Known<>(key, value);
  }

  /** The slot of a key's {@code hashCode} (Fibonacci hashing). */
  int slot(int hashCode) {
    return slots.length == 1 ? 0 : (hashCode * 0x9E3779B9) >>> shift;
  }

  /** A key and its value, published whole. */
  private static final class Known<V> {
    final String key;
    final V value;

    Known(String key, V value) {
      this.key = key;
      this.value = value;
    }
  }
}
