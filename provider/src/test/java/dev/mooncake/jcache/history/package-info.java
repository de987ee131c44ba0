/**
 * A checker of recorded JCache histories for per-key linearizability, after Jepsen's Knossos and
 * Porcupine ({@code anishathalye/porcupine}, {@code checker.go}).
 *
 * <p>A recorder writes one {@link dev.mooncake.jcache.history.Operation} per client call: its
 * invocation and completion times ({@code System.nanoTime()}, comparable across the JVMs of one
 * machine) and its result as text, or an unknown outcome ({@link
 * dev.mooncake.jcache.history.Operation#unknown}) when the call threw, timed out or its JVM died.
 * Losses of stored values (a segment left the cluster, the master restarted) are pseudo-operations
 * with the window in which they happened. {@link dev.mooncake.jcache.history.HistoryFile} writes
 * and reads histories as text, one operation a line.
 *
 * <p>{@link dev.mooncake.jcache.history.LinearizabilityChecker#check} splits the history by key
 * (each key starts absent) and searches each key's operations for an order that respects real time
 * and explains every result under the model of one JSR-107 entry ({@code EntryModel}); the search
 * ({@code KeySearch}, {@code Memo}) is Wing &amp; Gong's with Lowe's memo. A key is LINEARIZABLE,
 * NOT_LINEARIZABLE (with the longest linearizable prefix and the operations that could not follow
 * it) or UNDECIDED (its budget ran out).
 */
package dev.mooncake.jcache.history;
