package dev.mooncake.jcache.samples.springboot;

import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The HTTP face of the service. */
@RestController
public class BookController {
  private final BookService books;
  private final PriceService prices;
  private final StockService stock;
  private final CacheStatisticsReader statistics;

  public BookController(BookService books, PriceService prices, StockService stock,
      CacheStatisticsReader statistics) {
    this.books = books;
    this.prices = prices;
    this.stock = stock;
    this.statistics = statistics;
  }

  @GetMapping("/books/{isbn}")
  public Book get(@PathVariable String isbn) {
    return books.find(isbn);
  }

  @PutMapping("/books/{isbn}")
  public Book put(@PathVariable String isbn, @RequestBody Book book) {
    return books.update(new Book(isbn, book.title(), book.author(), book.price()));
  }

  @DeleteMapping("/books/{isbn}")
  public ResponseEntity<Void> delete(@PathVariable String isbn) {
    books.delete(isbn);
    return ResponseEntity.noContent().build();
  }

  @GetMapping("/books/{isbn}/price")
  public PriceQuote price(@PathVariable String isbn) {
    return prices.quote(isbn);
  }

  /** The "stock" cache, through the JSR-107 annotations. */
  @GetMapping("/books/{isbn}/stock")
  public Integer stock(@PathVariable String isbn) {
    return stock.inStock(isbn);
  }

  @PutMapping("/books/{isbn}/stock")
  public ResponseEntity<Void> restock(@PathVariable String isbn, @RequestBody Integer count) {
    stock.restock(isbn, count);
    return ResponseEntity.noContent().build();
  }

  @DeleteMapping("/books/{isbn}/stock")
  public ResponseEntity<Void> discontinue(@PathVariable String isbn) {
    stock.discontinue(isbn);
    return ResponseEntity.noContent().build();
  }

  /** Hits, misses, puts and removals per cache, as the provider counts them. */
  @GetMapping("/cache-stats")
  public Map<String, Map<String, Object>> cacheStats() {
    return statistics.snapshot();
  }
}
