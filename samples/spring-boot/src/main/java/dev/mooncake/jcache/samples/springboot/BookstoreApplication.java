package dev.mooncake.jcache.samples.springboot;

import javax.cache.CacheManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;

/**
 * A small bookstore service whose {@code @Cacheable} methods are backed by Mooncake through JCache.
 * The only cache configuration is in application.properties (spring.cache.jcache.config) and the
 * Mooncake JSON file it names.
 */
@SpringBootApplication
@EnableCaching
public class BookstoreApplication {
  private static final Logger LOG = LoggerFactory.getLogger(BookstoreApplication.class);

  public static void main(String[] args) {
    SpringApplication.run(BookstoreApplication.class, args);
  }

  /** Says at start-up which JCache provider and config back Spring's caches. */
  @Bean
  ApplicationRunner describeCaches(CacheManager cacheManager) {
    return args ->
        LOG.info(
            "Spring caches {} are backed by {} with config {}",
            cacheManager.getCacheNames(),
            cacheManager.getCachingProvider().getClass().getName(),
            cacheManager.getURI());
  }
}
