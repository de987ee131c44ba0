package dev.mooncake.jcache.samples.hibernate;

import java.io.PrintStream;
import java.util.List;
import javax.cache.CacheManager;
import org.hibernate.SessionFactory;
import org.hibernate.cache.jcache.internal.JCacheRegionFactory;
import org.hibernate.cache.spi.RegionFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.stat.CacheRegionStatistics;
import org.hibernate.stat.Statistics;

/**
 * Runs Hibernate with its second-level cache on Mooncake: loads an entity in two sessions (the
 * second issues no SQL), runs a cacheable query twice (the second is a query-cache hit), updates
 * the entity (the cached query goes stale), and prints Hibernate's statistics along the way.
 */
public final class LibraryApp {

  /** What one run saw, for the test of this program. */
  public record Summary(
      long secondLoadStatements,
      long entityCacheHits,
      long queryCacheHits,
      long queryCacheMissesAfterUpdate) {}

  public static void main(String[] args) {
    // Hibernate logs through JBoss Logging; route it to SLF4J so simplelogger.properties applies.
    if (System.getProperty("org.jboss.logging.provider") == null) {
      System.setProperty("org.jboss.logging.provider", "slf4j");
    }
    run(System.out);
  }

  public static Summary run(PrintStream out) {
    try (SessionFactory sessionFactory = LibrarySessions.build()) {
      Statistics stats = sessionFactory.getStatistics();

      Long id =
          sessionFactory.fromTransaction(
              session -> {
                Book first = new Book("978-0134685991", "Effective Java", "Joshua Bloch", 2018);
                session.persist(first);
                session.persist(
                    new Book("978-0321356680", "Effective Java (2nd ed.)", "Joshua Bloch", 2008));
                session.persist(
                    new Book(
                        "978-0321349606", "Java Concurrency in Practice", "Brian Goetz", 2006));
                return first.getId();
              });
      CacheManager caches = cacheManager(sessionFactory);
      out.printf(
          "stored 3 books in H2; second-level cache: %s on %s, caches %s%n",
          caches.getCachingProvider().getClass().getSimpleName(),
          caches.getURI(),
          caches.getCacheNames());

      // Start from a cold cache, so that the first load has to go to the database.
      sessionFactory.getCache().evictAllRegions();
      stats.clear();

      Book loaded = sessionFactory.fromSession(session -> session.find(Book.class, id));
      out.printf(
          "load 1 (new session): %s -> %d SQL statement(s), L2 misses %d, puts %d%n",
          loaded,
          stats.getPrepareStatementCount(),
          stats.getSecondLevelCacheMissCount(),
          stats.getSecondLevelCachePutCount());

      long before = stats.getPrepareStatementCount();
      Book again = sessionFactory.fromSession(session -> session.find(Book.class, id));
      long secondLoadStatements = stats.getPrepareStatementCount() - before;
      out.printf(
          "load 2 (new session): %s -> %d SQL statement(s), L2 hits %d%n",
          again, secondLoadStatements, stats.getSecondLevelCacheHitCount());

      String query = "from Book where author = :author order by published";
      for (int run = 1; run <= 2; run++) {
        before = stats.getPrepareStatementCount();
        List<Book> bloch =
            sessionFactory.fromSession(
                session ->
                    session
                        .createSelectionQuery(query, Book.class)
                        .setParameter("author", "Joshua Bloch")
                        .setCacheable(true)
                        .getResultList());
        out.printf(
            "cacheable query, run %d: %d book(s) -> %d SQL statement(s);"
                + " query cache hits %d, misses %d%n",
            run,
            bloch.size(),
            stats.getPrepareStatementCount() - before,
            stats.getQueryCacheHitCount(),
            stats.getQueryCacheMissCount());
      }

      sessionFactory.inTransaction(
          session -> session.find(Book.class, id).setTitle("Effective Java, Third Edition"));
      long missesBefore = stats.getQueryCacheMissCount();
      sessionFactory.inSession(
          session ->
              session
                  .createSelectionQuery(query, Book.class)
                  .setParameter("author", "Joshua Bloch")
                  .setCacheable(true)
                  .getResultList());
      long missesAfterUpdate = stats.getQueryCacheMissCount() - missesBefore;
      out.printf(
          "after updating a book, the cached query is stale: %d query cache miss(es)%n",
          missesAfterUpdate);

      CacheRegionStatistics books = stats.getDomainDataRegionStatistics("books");
      out.printf(
          "region 'books': hits %d, misses %d, puts %d%n",
          books.getHitCount(), books.getMissCount(), books.getPutCount());
      return new Summary(
          secondLoadStatements,
          stats.getSecondLevelCacheHitCount(),
          stats.getQueryCacheHitCount(),
          missesAfterUpdate);
    }
  }

  /** The JCache manager behind Hibernate's regions. */
  public static CacheManager cacheManager(SessionFactory sessionFactory) {
    RegionFactory regionFactory =
        sessionFactory
            .unwrap(SessionFactoryImplementor.class)
            .getServiceRegistry()
            .requireService(RegionFactory.class);
    return ((JCacheRegionFactory) regionFactory).getCacheManager();
  }

  private LibraryApp() {}
}
