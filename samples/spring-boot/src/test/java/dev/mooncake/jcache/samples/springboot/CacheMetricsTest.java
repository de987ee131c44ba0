package dev.mooncake.jcache.samples.springboot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.hasItem;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.web.servlet.AutoConfigureMockMvc;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;

/**
 * Cache traffic shows in Spring Boot Actuator's {@code /actuator/metrics}: Micrometer's
 * JCacheMetrics reads the provider's CacheStatistics MBean, for a cache declared in mooncake.json
 * (bound by Spring Boot at start-up) and for one created later (bound by the application through
 * {@link RuntimeCaches}). Metric tags: {@code name} (Spring Boot's; Micrometer's own {@code cache}
 * carries the same), {@code cache.manager}, and {@code result=hit|miss} on {@code cache.gets}.
 */
@SpringBootTest(properties = "bookstore.catalog-latency=20ms")
@AutoConfigureMockMvc
class CacheMetricsTest {
  private static final String EFFECTIVE_JAVA = "978-0134685991";
  private static final String JCIP = "978-0321349606";

  @Autowired BookService books;
  @Autowired javax.cache.CacheManager jcacheManager;
  @Autowired CacheManager springCacheManager;
  @Autowired CacheStatisticsReader statisticsReader;
  @Autowired RuntimeCaches runtimeCaches;
  @Autowired MockMvc mvc;

  @BeforeEach
  void startClean() {
    jcacheManager.getCache("books").clear();
    statisticsReader.statistics("books").clear();
  }

  @Test
  void declaredCacheCountsHitsMissesAndPuts() throws Exception {
    books.find(EFFECTIVE_JAVA); // miss, put
    books.find(EFFECTIVE_JAVA); // hit
    books.find(EFFECTIVE_JAVA); // hit
    books.find(JCIP);           // miss, put
    books.find(JCIP);           // hit

    metric("cache.gets", "books", "result:hit")
        .andExpect(jsonPath("$.measurements[0].statistic").value("COUNT"))
        .andExpect(jsonPath("$.measurements[0].value").value(3.0))
        .andExpect(jsonPath("$.availableTags[*].tag", hasItem("cache.manager")))
        .andExpect(jsonPath("$.availableTags[*].tag", hasItem("cache")));
    metric("cache.gets", "books", "result:miss")
        .andExpect(jsonPath("$.measurements[0].value").value(2.0));
    metric("cache.gets", "books").andExpect(jsonPath("$.measurements[0].value").value(5.0));
    metric("cache.puts", "books").andExpect(jsonPath("$.measurements[0].value").value(2.0));
  }

  @Test
  void cacheCreatedAfterStartUpHasMetricsOnceTheApplicationBindsIt() throws Exception {
    // Created directly: usable through Spring, but Spring Boot bound caches only at start-up.
    jcacheManager.createCache("unbound", new javax.cache.configuration.MutableConfiguration<
        String, String>().setTypes(String.class, String.class).setStatisticsEnabled(true));
    Cache searches = null;
    try {
      springCacheManager.getCache("unbound").put("q", "r");
      mvc.perform(get("/actuator/metrics/cache.puts").param("tag", "name:unbound"))
          .andExpect(status().isNotFound());

      searches = runtimeCaches.create("searches", String.class, String.class);
      assertThat(searches.get("mooncake")).isNull();          // miss
      searches.put("mooncake", "3 results");                  // put
      assertThat(searches.get("mooncake").get()).isEqualTo("3 results"); // hit
      assertThat(searches.get("mooncake", String.class)).isEqualTo("3 results"); // hit
      // Through the provider, not a Spring-side copy.
      assertThat(jcacheManager.getCache("searches", String.class, String.class).get("mooncake"))
          .isEqualTo("3 results"); // hit

      metric("cache.gets", "searches", "result:hit")
          .andExpect(jsonPath("$.measurements[0].value").value(3.0));
      metric("cache.gets", "searches", "result:miss")
          .andExpect(jsonPath("$.measurements[0].value").value(1.0));
      metric("cache.puts", "searches").andExpect(jsonPath("$.measurements[0].value").value(1.0));
      metric("cache.puts", "searches", "cache.manager:cacheManager")
          .andExpect(jsonPath("$.measurements[0].value").value(1.0));
    } finally {
      jcacheManager.destroyCache("unbound");
      if (searches != null) {
        jcacheManager.destroyCache("searches");
      }
    }
  }

  /** {@code GET /actuator/metrics/<name>?tag=name:<cache>&tag=<more>}, expecting 200. */
  private ResultActions metric(String name, String cache, String... moreTags) throws Exception {
    var request = get("/actuator/metrics/{name}", name).param("tag", "name:" + cache);
    for (String tag : moreTags) {
      request = request.param("tag", tag);
    }
    return mvc.perform(request)
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.name").value(name));
  }
}
