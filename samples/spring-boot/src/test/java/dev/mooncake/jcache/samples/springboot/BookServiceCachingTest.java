package dev.mooncake.jcache.samples.springboot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.management.CacheStatisticsMXBean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.web.servlet.AutoConfigureMockMvc;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.CacheManager;
import org.springframework.cache.jcache.JCacheCacheManager;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Proves that Spring's cache annotations run on the Mooncake provider, configured only by
 * application.properties and mooncake.json: hits skip the slow catalog, {@code @CachePut} replaces
 * the cached value, {@code @CacheEvict} removes it, and the provider's JSR-107 statistics count it.
 */
@SpringBootTest(properties = "bookstore.catalog-latency=20ms")
@AutoConfigureMockMvc
class BookServiceCachingTest {
  private static final String EFFECTIVE_JAVA = "978-0134685991";
  private static final String JCIP = "978-0321349606";

  @Autowired BookService books;
  @Autowired PriceService prices;
  @Autowired BookCatalog catalog;
  @Autowired CacheManager springCacheManager;
  @Autowired javax.cache.CacheManager jcacheManager;
  @Autowired CacheStatisticsReader statisticsReader;
  @Autowired MockMvc mvc;

  @BeforeEach
  void startClean() {
    for (String name : List.of("books", "prices")) {
      jcacheManager.getCache(name).clear();
      statisticsReader.statistics(name).clear();
    }
    catalog.resetLookups();
    prices.resetQuotesComputed();
  }

  @Test
  void springCachesAreMooncakeCachesDeclaredInTheConfigFile() {
    assertThat(springCacheManager).isInstanceOf(JCacheCacheManager.class);
    assertThat(jcacheManager.getCachingProvider().getClass().getName())
        .isEqualTo("dev.mooncake.jcache.spi.MooncakeCachingProvider");
    assertThat(jcacheManager.getURI().toString()).endsWith("mooncake.json");
    // Declared in mooncake.json; nobody called createCache.
    assertThat(StreamSupport.stream(jcacheManager.getCacheNames().spliterator(), false))
        .contains("books", "prices");
    assertThat(springCacheManager.getCacheNames()).contains("books", "prices");

    @SuppressWarnings("unchecked")
    CompleteConfiguration<String, Book> bookConfig =
        jcacheManager.getCache("books").getConfiguration(CompleteConfiguration.class);
    assertThat(bookConfig.getKeyType()).isEqualTo(String.class);
    assertThat(bookConfig.getValueType()).isEqualTo(Book.class);
    assertThat(bookConfig.isStatisticsEnabled()).isTrue();
    assertThat(bookConfig.isStoreByValue()).isTrue();

    @SuppressWarnings("unchecked")
    CompleteConfiguration<String, PriceQuote> priceConfig =
        jcacheManager.getCache("prices").getConfiguration(CompleteConfiguration.class);
    assertThat(priceConfig.getExpiryPolicyFactory().create())
        .isInstanceOf(CreatedExpiryPolicy.class);
    assertThat(priceConfig.getExpiryPolicyFactory().create().getExpiryForCreation())
        .isEqualTo(new Duration(TimeUnit.SECONDS, 30));
  }

  @Test
  void secondCallIsAnsweredByTheCacheNotTheSlowCatalog() {
    Book first = books.find(EFFECTIVE_JAVA);
    Book second = books.find(EFFECTIVE_JAVA);

    assertThat(second).isEqualTo(first);
    assertThat(catalog.lookups()).isEqualTo(1);
    // The value lives in the Mooncake cache, visible through plain JCache.
    assertThat(jcacheManager.<String, Book>getCache("books").get(EFFECTIVE_JAVA)).isEqualTo(first);

    books.find(JCIP);
    assertThat(catalog.lookups()).isEqualTo(2);
  }

  @Test
  void cachePutReplacesTheCachedValue() {
    Book original = books.find(EFFECTIVE_JAVA);
    Book repriced =
        new Book(original.isbn(), original.title(), original.author(), new BigDecimal("39.99"));
    try {
      books.update(repriced);

      assertThat(books.find(EFFECTIVE_JAVA)).isEqualTo(repriced);
      assertThat(catalog.lookups()).isEqualTo(1); // the update did not force a reload
      assertThat(statisticsReader.statistics("books").getCachePuts()).isEqualTo(2);
    } finally {
      catalog.save(original);
    }
  }

  @Test
  void cacheEvictRemovesTheEntrySoTheNextCallReachesTheCatalog() {
    Book original = books.find(JCIP);
    assertThat(jcacheManager.getCache("books").containsKey(JCIP)).isTrue();
    try {
      books.delete(JCIP);

      assertThat(jcacheManager.getCache("books").containsKey(JCIP)).isFalse();
      assertThatThrownBy(() -> books.find(JCIP)).isInstanceOf(BookNotFoundException.class);
      assertThat(catalog.lookups()).isEqualTo(2);
      // Not-found is an exception, so nothing was cached for it.
      assertThat(jcacheManager.getCache("books").containsKey(JCIP)).isFalse();
    } finally {
      catalog.save(original);
    }
  }

  @Test
  void providerStatisticsCountHitsMissesPutsAndRemovals() {
    books.find(EFFECTIVE_JAVA); // miss, put
    books.find(EFFECTIVE_JAVA); // hit
    books.find(EFFECTIVE_JAVA); // hit
    Book jcip = books.find(JCIP); // miss, put
    books.update(books.find(JCIP)); // hit, then put

    CacheStatisticsMXBean stats = statisticsReader.statistics("books");
    assertThat(stats.getCacheHits()).isEqualTo(3);
    assertThat(stats.getCacheMisses()).isEqualTo(2);
    assertThat(stats.getCacheGets()).isEqualTo(5);
    assertThat(stats.getCachePuts()).isEqualTo(3);
    assertThat(stats.getCacheRemovals()).isZero();
    assertThat(stats.getCacheHitPercentage()).isEqualTo(60.0f);
    assertThat(catalog.lookups()).isEqualTo(2);

    try {
      books.delete(JCIP);
      assertThat(stats.getCacheRemovals()).isEqualTo(1);
    } finally {
      catalog.save(jcip);
    }
  }

  @Test
  void priceQuotesAreReusedWithinTheirTimeToLive() {
    PriceQuote quote = prices.quote(EFFECTIVE_JAVA);
    assertThat(prices.quote(EFFECTIVE_JAVA)).isEqualTo(quote);
    assertThat(prices.quotesComputed()).isEqualTo(1);
    assertThat(statisticsReader.statistics("prices").getCacheHits()).isEqualTo(1);
  }

  @Test
  void httpEndpointsGoThroughTheCacheAndReportItsStatistics() throws Exception {
    mvc.perform(get("/books/{isbn}", EFFECTIVE_JAVA))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.title").value("Effective Java"));
    mvc.perform(get("/books/{isbn}", EFFECTIVE_JAVA)).andExpect(status().isOk());
    mvc.perform(get("/books/{isbn}", "000-0000000000")).andExpect(status().isNotFound());

    assertThat(catalog.lookups()).isEqualTo(2);
    mvc.perform(get("/cache-stats"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.books.hits").value(1))
        .andExpect(jsonPath("$.books.misses").value(2))
        .andExpect(jsonPath("$.books.puts").value(1));
  }
}
