package dev.mooncake.jcache.samples.springboot;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.annotation.CacheDefaults;
import javax.cache.annotation.CachePut;
import javax.cache.annotation.CacheRemove;
import javax.cache.annotation.CacheResult;
import javax.cache.annotation.CacheValue;
import org.springframework.stereotype.Service;

/**
 * Stock levels, cached with the standard JSR-107 annotations ({@code javax.cache.annotation})
 * instead of Spring's: {@code @EnableCaching} handles both kinds once the JCache API and
 * spring-context-support are on the class path. The "stock" cache is declared in mooncake.json.
 * Keys are the method's parameters other than the {@code @CacheValue} one (here the ISBN).
 */
@Service
@CacheDefaults(cacheName = "stock")
public class StockService {
  private final Map<String, Integer> warehouse = new ConcurrentHashMap<>();
  private final AtomicInteger counts = new AtomicInteger();

  public StockService() {
    warehouse.put("978-0134685991", 12);
    warehouse.put("978-0321349606", 3);
  }

  /** Counting the warehouse is slow; the first call per ISBN does it, later ones hit the cache. */
  @CacheResult
  public Integer inStock(String isbn) {
    counts.incrementAndGet();
    return warehouse.getOrDefault(isbn, 0);
  }

  /** Records a delivery and puts the new level into the cache (the method's return is ignored). */
  @CachePut
  public void restock(String isbn, @CacheValue Integer count) {
    warehouse.put(isbn, count);
  }

  /** No longer sold: forgets the level and its cached copy. */
  @CacheRemove
  public void discontinue(String isbn) {
    warehouse.remove(isbn);
  }

  /** How many times the warehouse was counted (not answered by the cache). */
  public int warehouseCounts() {
    return counts.get();
  }

  public void resetWarehouseCounts() {
    counts.set(0);
  }
}
