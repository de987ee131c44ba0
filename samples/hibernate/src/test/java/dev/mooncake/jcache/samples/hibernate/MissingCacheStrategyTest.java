package dev.mooncake.jcache.samples.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.Test;

/**
 * A region the Mooncake config does not declare ("books" is missing from
 * mooncake-hibernate-no-books.json) behaves as hibernate.javax.cache.missing_cache_strategy says.
 */
class MissingCacheStrategyTest {
  private static final String NO_BOOKS = "mooncake-hibernate-no-books.json";

  @Test
  void failRefusesToStartAndNamesTheRegion() {
    Exception e =
        assertThrows(
            Exception.class,
            () ->
                LibrarySessions.build(
                        Map.of(
                            "hibernate.javax.cache.uri",
                            NO_BOOKS,
                            "hibernate.javax.cache.missing_cache_strategy",
                            "fail"))
                    .close());

    String messages = messages(e);
    assertTrue(messages.contains("[books]"), messages);
  }

  @Test
  void createMakesTheCacheOnTheFlyAndItWorks() {
    try (SessionFactory sessionFactory =
        LibrarySessions.build(
            Map.of(
                "hibernate.javax.cache.uri",
                NO_BOOKS,
                "hibernate.javax.cache.missing_cache_strategy",
                "create"))) {
      Statistics stats = sessionFactory.getStatistics();
      Long id =
          sessionFactory.fromTransaction(
              session -> {
                Book book = new Book("978-0134685991", "Effective Java", "Joshua Bloch", 2018);
                session.persist(book);
                return book.getId();
              });
      sessionFactory.getCache().evictAllRegions();
      stats.clear();

      sessionFactory.inSession(session -> session.find(Book.class, id));
      sessionFactory.inSession(session -> session.find(Book.class, id));

      assertEquals(1, stats.getPrepareStatementCount());
      assertEquals(1, stats.getDomainDataRegionStatistics("books").getHitCount());
    }
  }

  private static String messages(Throwable t) {
    StringBuilder all = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      all.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
    }
    return all.toString();
  }
}
