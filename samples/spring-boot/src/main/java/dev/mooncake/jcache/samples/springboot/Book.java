package dev.mooncake.jcache.samples.springboot;

import java.io.Serializable;
import java.math.BigDecimal;

/**
 * A catalog entry. Cached by value: the provider stores it with Java serialization, so it is {@link
 * Serializable} and its package is in {@code deserialization_allow_list} (mooncake.json).
 */
public record Book(String isbn, String title, String author, BigDecimal price)
    implements Serializable {}
