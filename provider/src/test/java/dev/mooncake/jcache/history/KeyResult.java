package dev.mooncake.jcache.history;

/**
 * The verdict on one key's sub-history.
 *
 * @param operations the operations checked: the key's own (unknown-outcome reads left out) plus the
 *     losses copied in
 * @param explanation for NOT_LINEARIZABLE, the longest linearizable prefix found and the operations
 *     that could not be placed after it; otherwise a short line of search statistics
 */
public record KeyResult(String key, Verdict verdict, int operations, String explanation) {}
