package dev.mooncake.jcache.samples.springboot;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/** No book has that ISBN. Exceptions are never cached, so a later insert is seen at once. */
@ResponseStatus(HttpStatus.NOT_FOUND)
public class BookNotFoundException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BookNotFoundException(String isbn) {
    super("no book with ISBN " + isbn);
  }
}
