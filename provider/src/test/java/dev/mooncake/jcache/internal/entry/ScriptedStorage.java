package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.config.ConfigLoader;
import dev.mooncake.jcache.internal.backend.ScriptedStore;
import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import dev.mooncake.jcache.internal.codec.DeserializationFilter;
import dev.mooncake.jcache.internal.codec.SerializationCodec;
import dev.mooncake.jcache.internal.codec.TypedCodec;
import dev.mooncake.jcache.internal.lane.Lanes;
import dev.mooncake.jcache.internal.time.FakeTicker;
import java.time.Duration;
import java.util.List;

/**
 * The entry layer's test fixture: an {@link EntryStorage} over a {@link ScriptedStore} on the
 * in-process store, a fake clock for its retry deadlines, one lane that runs calls inline.
 */
final class ScriptedStorage implements AutoCloseable {
  final FakeTicker ticker = new FakeTicker();
  final ScriptedStore store =
      new ScriptedStore(InProcessStore.open(ConfigLoader.defaults(), ticker));
  final EntryStorage storage;
  private final Lanes lanes;

  ScriptedStorage(String test, Duration operationTimeout) {
    lanes = new Lanes(1, java.util.Map.of(), false, false, test);
    storage =
        new EntryStorage(
            "orders",
            store,
            lanes,
            new TypedCodec(
                new SerializationCodec(
                    new DeserializationFilter(List.of()), getClass().getClassLoader())),
            ticker,
            operationTimeout,
            Object.class);
  }

  @Override
  public void close() {
    lanes.close();
    store.close();
  }
}
