package dev.mooncake.jcache.nativebridge;

import java.util.List;

/** A native {@code replicate_config} passed to every put; owns its native copy. */
public final class ReplicaConfig extends NativeOwner {
  private final String description;

  private ReplicaConfig(long handle, String description) {
    super(handle, "replicate config");
    this.description = description;
  }

  /**
   * @param replicaNum replicas per object (Mooncake rejects 0 with -600)
   * @param preferredSegments segment names ({@code host:port} as {@code get_hostname} answers)
   */
  public static ReplicaConfig create(
      long replicaNum, boolean softPin, boolean hardPin, List<String> preferredSegments) {
    MooncakeNative.load();
    String[] segments = preferredSegments.toArray(new String[0]);
    long handle = MooncakeNative.newReplicaConfig(replicaNum, softPin, hardPin, segments);
    return new ReplicaConfig(
        handle,
        "replicas="
            + replicaNum
            + (softPin ? " soft-pin" : "")
            + (hardPin ? " hard-pin" : "")
            + (segments.length == 0 ? "" : " preferred=" + String.join(",", segments)));
  }

  long nativeHandle() {
    return handle();
  }

  @Override
  protected void dispose(long handle) {
    MooncakeNative.freeReplicaConfig(handle);
  }

  @Override
  public String toString() {
    return description;
  }
}
