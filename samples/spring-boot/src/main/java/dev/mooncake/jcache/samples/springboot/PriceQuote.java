package dev.mooncake.jcache.samples.springboot;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;

/** A price from the (slow) pricing service, valid for a short while: cached with a TTL. */
public record PriceQuote(String isbn, BigDecimal price, Instant quotedAt) implements Serializable {}
