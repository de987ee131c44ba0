package dev.mooncake.jcache.backend.open;

import dev.mooncake.jcache.backend.ObjectStore;
import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.backend.mooncake.SharedMooncakeStores;

/** Opens the store a config names. */
public final class StoreFactory {
  private StoreFactory() {}

  public static ObjectStore open(MooncakeConfig config) {
    return switch (config.backend()) {
      case IN_PROCESS -> InProcessStore.open(config);
      case MOONCAKE -> SharedMooncakeStores.open(config);
    };
  }
}
