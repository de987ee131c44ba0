package dev.mooncake.jcache.store.mooncake;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.store.ObjectStore;
import dev.mooncake.jcache.store.StoreException;

/** The store on a Mooncake cluster, over the JNI bridge (placeholder). */
public final class MooncakeStore {
  private MooncakeStore() {}

  public static ObjectStore open(MooncakeConfig config) {
    throw new StoreException("the Mooncake backend is not built yet");
  }
}
