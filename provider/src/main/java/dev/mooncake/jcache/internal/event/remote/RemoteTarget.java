package dev.mooncake.jcache.internal.event.remote;

/**
 * What a cache lets {@link RemoteEvents} do with a remote change, called on an executor thread, in
 * order per key.
 */
public interface RemoteTarget {
  /** Whether any listener is registered (else changes need no reading at all). */
  boolean hasListeners();

  /**
   * Reads the key now and tells the listeners it was created or (if {@code updated}) updated;
   * nothing if it is absent or expired by now (its removal follows on the stream).
   */
  void stored(String storeKey, boolean updated);

  /** Tells the listeners the key was removed (the old value is not known). */
  void removed(String storeKey);

  /** Whether the key is present now (a removal followed by a put is a replace). */
  boolean exists(String storeKey);
}
