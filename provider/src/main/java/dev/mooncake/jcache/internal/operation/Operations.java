package dev.mooncake.jcache.internal.operation;

import dev.mooncake.jcache.internal.integration.PendingLoads;
import dev.mooncake.jcache.internal.lane.Lanes;

/**
 * Every JCache operation of one cache, built once over its {@link CacheContext}: the synchronous
 * cache, its asynchronous view and the batch paths all call these, so each is written once.
 */
public final class Operations<K, V> {
  public final CacheContext<K, V> context;
  public final Reads<K, V> reads;
  public final KeyOperations<K, V> keys;
  public final Batches<K, V> batches;
  public final BackgroundLoads<K, V> loads;

  public Operations(CacheContext<K, V> context, PendingLoads pendingLoads, Lanes lanes) {
    this.context = context;
    this.reads = new Reads<>(context);
    this.keys = new KeyOperations<>(context);
    this.batches = new Batches<>(context, keys);
    this.loads = new BackgroundLoads<>(context, pendingLoads, lanes);
  }
}
