package dev.mooncake.jcache.samples.hibernate;

import jakarta.persistence.Cacheable;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;

/**
 * An entity in the second-level cache. Its region, "books", is a cache declared in
 * mooncake-hibernate.json; Hibernate stores the entity's disassembled state there, not the object.
 */
@Entity
@Cacheable
@Cache(usage = CacheConcurrencyStrategy.READ_WRITE, region = "books")
public class Book {
  @Id @GeneratedValue private Long id;
  private String isbn;
  private String title;
  private String author;
  private int published;

  protected Book() {}

  public Book(String isbn, String title, String author, int published) {
    this.isbn = isbn;
    this.title = title;
    this.author = author;
    this.published = published;
  }

  public Long getId() {
    return id;
  }

  public String getIsbn() {
    return isbn;
  }

  public String getTitle() {
    return title;
  }

  public void setTitle(String title) {
    this.title = title;
  }

  public String getAuthor() {
    return author;
  }

  public int getPublished() {
    return published;
  }

  @Override
  public String toString() {
    return "Book[" + id + ", " + isbn + ", " + title + ", " + author + ", " + published + "]";
  }
}
