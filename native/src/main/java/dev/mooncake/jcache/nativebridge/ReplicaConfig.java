package dev.mooncake.jcache.nativebridge;

import java.time.Duration;
import java.util.List;

/**
 * A native {@code replicate_config} passed to every put; owns its native copy. It is encoded once,
 * in the layout of the client it is made for ({@link MooncakeClient#abi()}), and only puts through
 * a client of that layout accept it. What cannot be said in that layout is refused here, with an
 * {@link IllegalArgumentException} naming the setting and the library: a hard pin on v1, a soft pin
 * TTL on v1 or v2, any pin when the layout is not named.
 */
public final class ReplicaConfig extends NativeOwner {
  private final String description;

  private ReplicaConfig(long handle, String description) {
    super(handle, "replicate config");
    this.description = description;
  }

  /**
   * @param replicaNum replicas per object (Mooncake rejects 0 with -600)
   * @param softPin evicted last
   * @param hardPin never evicted
   * @param softPinTtl how long the soft pin holds (v3 only); {@code null}: the master's default
   * @param preferredSegments segment names ({@code host:port} as {@code get_hostname} answers)
   */
  public static ReplicaConfig create(
      MooncakeClient client,
      long replicaNum,
      boolean softPin,
      boolean hardPin,
      Duration softPinTtl,
      List<String> preferredSegments) {
    String[] segments = preferredSegments.toArray(new String[0]);
    long ttlMs = softPinTtl == null ? -1 : softPinTtl.toMillis();
    if (softPinTtl != null && ttlMs <= 0) {
      throw new IllegalArgumentException("soft_pin_ttl must be at least 1 ms, not " + softPinTtl);
    }
    long handle = newReplicaConfig(client.handle(), replicaNum, softPin, hardPin, ttlMs, segments);
    return new ReplicaConfig(
        handle,
        "replicas="
            + replicaNum
            + (softPin ? " soft-pin" : "")
            + (softPinTtl != null ? " soft-pin-ttl=" + ttlMs + "ms" : "")
            + (hardPin ? " hard-pin" : "")
            + (segments.length == 0 ? "" : " preferred=" + String.join(",", segments))
            + " layout="
            + (client.abi() == null ? "common (abi not named)" : client.abi().key()));
  }

  long nativeHandle() {
    return handle();
  }

  /** The bytes Mooncake reads: the layout's struct (48 bytes when no layout is named). */
  byte[] encoded() {
    return encoded(handle());
  }

  @Override
  protected void dispose(long handle) {
    freeReplicaConfig(handle);
  }

  @Override
  public String toString() {
    return description;
  }

  // Natives (mcj_replica.c); package-private for the package's tests.

  /** softPinTtlMs {@code < 0}: none. */
  static native long newReplicaConfig(
      long store,
      long replicaNum,
      boolean softPin,
      boolean hardPin,
      long softPinTtlMs,
      String[] preferredSegments);

  static native void freeReplicaConfig(long config);

  static native byte[] encoded(long config);
}
