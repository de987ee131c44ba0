package dev.mooncake.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mooncake.jcache.internal.backend.inprocess.InProcessStore;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Expired entries nobody reads again are removed from the store and reported. */
class ActiveExpiryTest {
  private final JCacheFixture fixture = new JCacheFixture();

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  static final class ExpiredLatch
      implements CacheEntryExpiredListener<String, String>, java.io.Serializable {
    private static final long serialVersionUID = 1L;
    final transient CountDownLatch expired;

    ExpiredLatch(int count) {
      this.expired = new CountDownLatch(count);
    }

    @Override
    public void onExpired(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      events.forEach(e -> expired.countDown());
    }
  }

  @Test
  void unreadExpiredEntriesAreRemovedFromTheStore() throws Exception {
    RecordingStore store = new RecordingStore(InProcessStore.open(TestConfigs.inProcess()));
    ExpiredLatch listener = new ExpiredLatch(20);
    MooncakeCacheManager manager = fixture.manager(TestConfigs.inProcess(), store);
    Cache<String, String> cache =
        manager.createCache(
            "short-lived",
            new MutableConfiguration<String, String>()
                .setTypes(String.class, String.class)
                .setExpiryPolicyFactory(
                    CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, 100)))
                .addCacheEntryListenerConfiguration(
                    new MutableCacheEntryListenerConfiguration<>(
                        FactoryBuilder.factoryOf(listener), null, true, false)));
    for (int i = 0; i < 20; i++) {
      cache.put("k" + i, "v" + i);
    }
    assertEquals(20, store.putKeys().size());
    assertEquals(1, store.isExist(store.putKeys().get(0)));

    manager.sweepExpired();
    assertEquals(20, listener.expired.getCount(), "swept before the entries expired");
    fixture.ticker.advanceMillis(100);
    manager.sweepExpired();
    assertTrue(
        listener.expired.await(5, TimeUnit.SECONDS),
        "expired entries were not swept; left: " + listener.expired.getCount());
    for (String storeKey : store.putKeys()) {
      // every key put is gone from the store without anyone reading it through the cache
      assertEquals(0, store.isExist(storeKey), "still stored: " + storeKey);
    }
  }
}
