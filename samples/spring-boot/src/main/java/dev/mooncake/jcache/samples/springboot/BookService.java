package dev.mooncake.jcache.samples.springboot;

import org.springframework.cache.annotation.CacheConfig;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

/**
 * Plain Spring cache annotations; nothing here knows about Mooncake. The "books" cache is declared
 * in mooncake.json and reached through Spring's JCache support (spring.cache.jcache.config).
 */
@Service
@CacheConfig(cacheNames = "books")
public class BookService {
  private final BookCatalog catalog;

  public BookService(BookCatalog catalog) {
    this.catalog = catalog;
  }

  /** The first call per ISBN reaches the catalog; later ones are answered by the cache. */
  @Cacheable
  public Book find(String isbn) {
    return catalog.lookup(isbn).orElseThrow(() -> new BookNotFoundException(isbn));
  }

  /** Writes through to the catalog and replaces the cached copy, so readers see it at once. */
  @CachePut(key = "#book.isbn")
  public Book update(Book book) {
    catalog.save(book);
    return book;
  }

  /** Removes the book and its cached copy. */
  @CacheEvict
  public void delete(String isbn) {
    catalog.delete(isbn);
  }
}
