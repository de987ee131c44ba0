package dev.mooncake.jcache.samples.hibernate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/**
 * Plain Hibernate bootstrap (no Spring, no persistence.xml): every setting the sample relies on is
 * in {@link #settings()}, the second-level cache ones marked.
 */
public final class LibrarySessions {
  /**
   * The Mooncake JSON config: a class path resource name, or a file: / jar: URL. Hibernate looks it
   * up with its class loader service, which does not understand "classpath:" prefixes.
   */
  public static final String CACHE_CONFIG = "mooncake-hibernate.json";

  private LibrarySessions() {}

  /** The sample's settings, on a fresh in-memory H2 database. */
  public static Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>();
    // An embedded H2 database, private to this session factory.
    s.put(
        "jakarta.persistence.jdbc.url",
        "jdbc:h2:mem:library-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    s.put("jakarta.persistence.jdbc.user", "sa");
    s.put("jakarta.persistence.schema-generation.database.action", "drop-and-create");

    // The second-level cache: Hibernate's JCache region factory on the Mooncake provider.
    s.put("hibernate.cache.use_second_level_cache", "true");
    s.put("hibernate.cache.use_query_cache", "true");
    s.put("hibernate.cache.region.factory_class", "jcache");
    s.put("hibernate.javax.cache.provider", "dev.mooncake.jcache.spi.MooncakeCachingProvider");
    // -Dhibernate.javax.cache.uri=mooncake-hibernate-cluster.json switches to a Mooncake cluster.
    s.put(
        "hibernate.javax.cache.uri", System.getProperty("hibernate.javax.cache.uri", CACHE_CONFIG));
    // Every region must be a cache declared in the config: a typo fails at start-up.
    s.put("hibernate.javax.cache.missing_cache_strategy", "fail");

    // Hit, miss and statement counts, read by the main program and the tests.
    s.put("hibernate.generate_statistics", "true");
    return s;
  }

  /** A session factory with the sample's settings, {@code overrides} replacing some of them. */
  public static SessionFactory build(Map<String, String> overrides) {
    Map<String, String> s = settings();
    s.putAll(overrides);
    Configuration configuration = new Configuration().addAnnotatedClass(Book.class);
    s.forEach(configuration::setProperty);
    return configuration.buildSessionFactory();
  }

  public static SessionFactory build() {
    return build(Map.of());
  }
}
