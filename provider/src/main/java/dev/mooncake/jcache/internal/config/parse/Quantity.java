package dev.mooncake.jcache.internal.config.parse;

import java.math.BigDecimal;
import java.util.function.Function;

/**
 * A setting written as a number or as a number-and-unit string (a size, a duration): how each form
 * is read, and what a wrong value is told it must be.
 *
 * @param fromText reads the string form; throws {@link IllegalArgumentException} saying what is
 *     wrong
 * @param fromNumber checks the JSON number form, likewise
 * @param expected what the setting must be, for a value of neither form
 */
record Quantity(
    Function<String, Long> fromText, Function<BigDecimal, Long> fromNumber, String expected) {}
