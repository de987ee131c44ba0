package dev.mooncake.jcache.samples.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.StreamSupport;
import javax.cache.CacheManager;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sample's configuration: entity and query caches on Mooncake, counted by Hibernate. */
class SecondLevelCacheTest {
  private static final String QUERY = "from Book where author = :author order by published";

  static SessionFactory sessionFactory;
  static Statistics stats;
  static Long effectiveJava;

  @BeforeAll
  static void start() {
    sessionFactory = LibrarySessions.build();
    stats = sessionFactory.getStatistics();
    effectiveJava =
        sessionFactory.fromTransaction(
            session -> {
              Book book = new Book("978-0134685991", "Effective Java", "Joshua Bloch", 2018);
              session.persist(book);
              session.persist(
                  new Book("978-0321356680", "Effective Java (2nd ed.)", "Joshua Bloch", 2008));
              session.persist(
                  new Book("978-0321349606", "Java Concurrency in Practice", "Brian Goetz", 2006));
              return book.getId();
            });
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  @BeforeEach
  void coldCache() {
    sessionFactory.getCache().evictAllRegions();
    stats.clear();
  }

  @Test
  void regionsAreMooncakeCachesDeclaredInTheConfig() {
    CacheManager cacheManager = LibraryApp.cacheManager(sessionFactory);

    assertEquals(
        "dev.mooncake.jcache.spi.MooncakeCachingProvider",
        cacheManager.getCachingProvider().getClass().getName());
    assertTrue(
        cacheManager.getURI().toString().endsWith(LibrarySessions.CACHE_CONFIG),
        cacheManager.getURI().toString());
    List<String> names =
        StreamSupport.stream(cacheManager.getCacheNames().spliterator(), false).toList();
    assertTrue(
        names.containsAll(
            List.of("books", "default-query-results-region", "default-update-timestamps-region")),
        names.toString());
  }

  @Test
  void secondLoadInANewSessionIssuesNoSql() {
    Book first = sessionFactory.fromSession(session -> session.find(Book.class, effectiveJava));
    assertEquals(1, stats.getPrepareStatementCount());
    assertEquals(1, stats.getSecondLevelCacheMissCount());
    assertEquals(1, stats.getSecondLevelCachePutCount());

    Book second = sessionFactory.fromSession(session -> session.find(Book.class, effectiveJava));

    assertEquals(first.getTitle(), second.getTitle());
    assertEquals(1, stats.getPrepareStatementCount(), "the second load must not reach H2");
    assertEquals(1, stats.getSecondLevelCacheHitCount());
    assertEquals(1, stats.getDomainDataRegionStatistics("books").getHitCount());
  }

  @Test
  void cacheableQueryIsAnsweredFromTheQueryCache() {
    List<Book> first = runQuery("Joshua Bloch");
    long statements = stats.getPrepareStatementCount();
    assertEquals(2, first.size());
    assertEquals(1, stats.getQueryCacheMissCount());
    assertEquals(1, stats.getQueryCachePutCount());

    List<Book> second = runQuery("Joshua Bloch");

    assertEquals(2, second.size());
    assertEquals(1, stats.getQueryCacheHitCount());
    // The ids come from the query cache and the books from the entity cache: no SQL at all.
    assertEquals(statements, stats.getPrepareStatementCount());

    runQuery("Brian Goetz"); // other parameters, other entry
    assertEquals(2, stats.getQueryCacheMissCount());
  }

  @Test
  void anUpdateMakesTheCachedQueryStaleAndRefreshesTheEntityCache() {
    runQuery("Joshua Bloch");
    runQuery("Joshua Bloch");
    assertEquals(1, stats.getQueryCacheHitCount());

    String oldTitle = sessionFactory.fromSession(s -> s.find(Book.class, effectiveJava)).getTitle();
    try {
      sessionFactory.inTransaction(
          session ->
              session.find(Book.class, effectiveJava).setTitle("Effective Java, Third Edition"));

      List<Book> after = runQuery("Joshua Bloch");
      assertEquals(2, stats.getQueryCacheMissCount(), "the books table changed after the put");
      assertEquals("Effective Java, Third Edition", after.get(1).getTitle());

      long statements = stats.getPrepareStatementCount();
      Book reloaded = sessionFactory.fromSession(s -> s.find(Book.class, effectiveJava));
      assertEquals("Effective Java, Third Edition", reloaded.getTitle());
      assertEquals(statements, stats.getPrepareStatementCount());
    } finally {
      sessionFactory.inTransaction(
          session -> session.find(Book.class, effectiveJava).setTitle(oldTitle));
    }
  }

  private static List<Book> runQuery(String author) {
    return sessionFactory.fromSession(
        session ->
            session
                .createSelectionQuery(QUERY, Book.class)
                .setParameter("author", author)
                .setCacheable(true)
                .getResultList());
  }
}
