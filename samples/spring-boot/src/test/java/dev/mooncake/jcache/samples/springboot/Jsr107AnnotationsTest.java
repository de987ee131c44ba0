package dev.mooncake.jcache.samples.springboot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import javax.cache.Cache;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.web.servlet.AutoConfigureMockMvc;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The JSR-107 annotations ({@code @CacheResult}, {@code @CachePut}, {@code @CacheRemove}) run
 * through Spring's JCache annotation support on the Mooncake provider: the entries they write are
 * in the Mooncake cache "stock" under the ISBN, and reads after them skip the slow method.
 * (Same Spring context as BookServiceCachingTest: same properties, so Spring's test context cache
 * reuses it.)
 */
@SpringBootTest(properties = "bookstore.catalog-latency=20ms")
@AutoConfigureMockMvc
class Jsr107AnnotationsTest {
  private static final String EFFECTIVE_JAVA = "978-0134685991";
  private static final String JCIP = "978-0321349606";

  @Autowired StockService stock;
  @Autowired javax.cache.CacheManager jcacheManager;
  @Autowired CacheStatisticsReader statisticsReader;
  @Autowired MockMvc mvc;

  private Cache<String, Integer> stockCache;

  @BeforeEach
  void startClean() {
    stockCache = jcacheManager.getCache("stock", String.class, Integer.class);
    stockCache.clear();
    statisticsReader.statistics("stock").clear();
    stock.resetWarehouseCounts();
  }

  @Test
  void cacheResultStoresTheResultInMooncakeAndAnswersLaterCallsFromIt() {
    assertThat(stock.inStock(EFFECTIVE_JAVA)).isEqualTo(12);
    assertThat(stock.inStock(EFFECTIVE_JAVA)).isEqualTo(12);

    assertThat(stock.warehouseCounts()).isEqualTo(1);
    assertThat(statisticsReader.statistics("stock").getCacheMisses()).isEqualTo(1);
    assertThat(statisticsReader.statistics("stock").getCacheHits()).isEqualTo(1);
    assertThat(statisticsReader.statistics("stock").getCachePuts()).isEqualTo(1);
    // The key is the ISBN itself (the one key parameter), the value the method's result.
    assertThat(stockCache.get(EFFECTIVE_JAVA)).isEqualTo(12);
  }

  @Test
  void cachePutWritesTheCacheValueParameterUnderTheOtherParameters() {
    try {
      stock.restock(EFFECTIVE_JAVA, 40);

      assertThat(stockCache.get(EFFECTIVE_JAVA)).isEqualTo(40);
      assertThat(stock.inStock(EFFECTIVE_JAVA)).isEqualTo(40);
      assertThat(stock.warehouseCounts()).isZero(); // answered by the entry @CachePut wrote

      stock.restock(EFFECTIVE_JAVA, 41); // replaces the cached level
      assertThat(stock.inStock(EFFECTIVE_JAVA)).isEqualTo(41);
      assertThat(stock.warehouseCounts()).isZero();
    } finally {
      stock.restock(EFFECTIVE_JAVA, 12);
    }
  }

  @Test
  void cacheRemoveDropsTheEntrySoTheNextCallRunsTheMethod() {
    assertThat(stock.inStock(JCIP)).isEqualTo(3);
    assertThat(stockCache.containsKey(JCIP)).isTrue();
    try {
      stock.discontinue(JCIP);

      assertThat(stockCache.containsKey(JCIP)).isFalse();
      assertThat(stock.inStock(JCIP)).isZero();
      assertThat(stock.warehouseCounts()).isEqualTo(2);
    } finally {
      stock.restock(JCIP, 3);
    }
  }

  @Test
  void httpEndpointsUseTheAnnotatedService() throws Exception {
    try {
      mvc.perform(get("/books/{isbn}/stock", EFFECTIVE_JAVA))
          .andExpect(status().isOk())
          .andExpect(content().string("12"));
      mvc.perform(put("/books/{isbn}/stock", EFFECTIVE_JAVA)
              .contentType(MediaType.APPLICATION_JSON).content("7"))
          .andExpect(status().isNoContent());
      mvc.perform(get("/books/{isbn}/stock", EFFECTIVE_JAVA)).andExpect(content().string("7"));
      assertThat(stock.warehouseCounts()).isEqualTo(1);

      mvc.perform(delete("/books/{isbn}/stock", EFFECTIVE_JAVA))
          .andExpect(status().isNoContent());
      assertThat(stockCache.containsKey(EFFECTIVE_JAVA)).isFalse();
    } finally {
      stock.restock(EFFECTIVE_JAVA, 12);
    }
  }
}
