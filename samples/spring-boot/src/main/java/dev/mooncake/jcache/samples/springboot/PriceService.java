package dev.mooncake.jcache.samples.springboot;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

/**
 * A slow pricing call whose answers may be reused for a while: the "prices" cache expires entries
 * 30 seconds after they are created (mooncake.json), so a quote is at most that old.
 */
@Service
public class PriceService {
  private final BookService books;
  private final Clock clock;
  private final AtomicInteger quotes = new AtomicInteger();

  public PriceService(BookService books) {
    this.books = books;
    this.clock = Clock.systemUTC();
  }

  @Cacheable("prices")
  public PriceQuote quote(String isbn) {
    quotes.incrementAndGet();
    return new PriceQuote(isbn, books.find(isbn).price(), clock.instant());
  }

  /** How many quotes were computed (not served from the cache). */
  public int quotesComputed() {
    return quotes.get();
  }

  public void resetQuotesComputed() {
    quotes.set(0);
  }
}
