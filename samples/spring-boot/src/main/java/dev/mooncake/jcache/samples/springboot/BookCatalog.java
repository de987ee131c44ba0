package dev.mooncake.jcache.samples.springboot;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Repository;

/**
 * Stands in for a slow system of record (a database or a remote catalog): every lookup takes {@code
 * bookstore.catalog-latency} and is counted, so tests can tell whether a call reached it.
 */
@Repository
public class BookCatalog {
  private final Map<String, Book> books = new ConcurrentHashMap<>();
  private final AtomicInteger lookups = new AtomicInteger();
  private final Duration latency;

  public BookCatalog(@Value("${bookstore.catalog-latency:500ms}") Duration latency) {
    this.latency = latency;
    save(new Book("978-0134685991", "Effective Java", "Joshua Bloch", new BigDecimal("45.99")));
    save(
        new Book(
            "978-0321349606",
            "Java Concurrency in Practice",
            "Brian Goetz",
            new BigDecimal("52.50")));
    save(new Book("978-1617294945", "Spring in Action", "Craig Walls", new BigDecimal("49.99")));
  }

  /** The slow part. */
  public Optional<Book> lookup(String isbn) {
    lookups.incrementAndGet();
    pause();
    return Optional.ofNullable(books.get(isbn));
  }

  public void save(Book book) {
    books.put(book.isbn(), book);
  }

  public void delete(String isbn) {
    books.remove(isbn);
  }

  /** How many times {@link #lookup} ran. */
  public int lookups() {
    return lookups.get();
  }

  public void resetLookups() {
    lookups.set(0);
  }

  private void pause() {
    try {
      Thread.sleep(latency.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
