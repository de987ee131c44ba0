package dev.mooncake.jcache.internal.event.remote;

import dev.mooncake.jcache.internal.backend.ForwardingObjectStore;
import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.internal.backend.StoreStatus;
import dev.mooncake.jcache.internal.time.Deadline;
import java.nio.ByteBuffer;
import java.util.function.IntSupplier;

/**
 * A store seen through the KV events mooncake_master publishes for its calls, written once: a
 * {@code put} that succeeds publishes {@link KvEvent.Kind#STORED} for its key, a {@code batchPut}
 * one STORED per key that succeeded, a {@code remove} that succeeds {@link KvEvent.Kind#REMOVED}; a
 * {@code remove_by_regex} publishes nothing (measured; subclasses say what they do about it); reads
 * publish nothing and pass through.
 *
 * <p>Built on {@link ForwardingObjectStore}: reads and the rest pass through as they are.
 *
 * <p>{@link ObservedStore} uses it to expect its own echoes on the stream; the tests' stand-in for
 * the master uses it to publish them, so the two cannot disagree on what a call publishes.
 */
public abstract class EventedStore extends ForwardingObjectStore {
  protected final ObjectStore store;

  protected EventedStore(ObjectStore store) {
    super(store);
    this.store = store;
  }

  /**
   * Before a call after which the master publishes {@code kind} for {@code key}, if it succeeds.
   * What it answers is handed to {@link #changed}; {@code null}: the key is of no interest, and
   * {@link #changed} is not called for it.
   */
  protected abstract Object changing(String key, KvEvent.Kind kind);

  /** After that call; {@code succeeded}: its code was 0, so the master publishes {@code kind}. */
  protected abstract void changed(String key, KvEvent.Kind kind, Object token, boolean succeeded);

  /** The master publishes no event for this call: each subclass says what it does instead. */
  @Override
  public abstract long removeByRegex(String pattern, boolean force, Deadline deadline);

  @Override
  public int put(String key, ByteBuffer value, Deadline deadline) {
    return oneKey(key, KvEvent.Kind.STORED, () -> store.put(key, value, deadline));
  }

  /** A call on one key after which the master publishes {@code kind} if it answers 0. */
  private int oneKey(String key, KvEvent.Kind kind, IntSupplier call) {
    Object token = changing(key, kind);
    if (token == null) {
      return call.getAsInt();
    }
    int rc = Integer.MIN_VALUE;
    try {
      rc = call.getAsInt();
      return rc;
    } finally {
      changed(key, kind, token, StoreStatus.of(rc) == StoreStatus.OK);
    }
  }

  @Override
  public int[] batchPut(String[] keys, ByteBuffer[] values, Deadline deadline) {
    Object[] tokens = new Object[keys.length];
    boolean any = false;
    for (int i = 0; i < keys.length; i++) {
      tokens[i] = changing(keys[i], KvEvent.Kind.STORED);
      any |= tokens[i] != null;
    }
    if (!any) {
      return store.batchPut(keys, values, deadline);
    }
    int[] codes = null;
    try {
      codes = store.batchPut(keys, values, deadline);
      return codes;
    } finally {
      for (int i = 0; i < keys.length; i++) {
        if (tokens[i] != null) {
          changed(
              keys[i],
              KvEvent.Kind.STORED,
              tokens[i],
              codes != null && StoreStatus.of(codes[i]) == StoreStatus.OK);
        }
      }
    }
  }

  @Override
  public int remove(String key, boolean force, Deadline deadline) {
    return oneKey(key, KvEvent.Kind.REMOVED, () -> store.remove(key, force, deadline));
  }
}
