package dev.mooncake.jcache.internal.integration;

import java.util.Collection;
import java.util.function.Supplier;
import javax.cache.Cache;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;

/**
 * Calls a {@link CacheWriter} when write-through is on, wrapping its failures as the spec says. The
 * batch forms leave in their argument what the writer did not write (the spec's partial-success
 * contract), which is what the cache must then not apply.
 */
public final class WriterCalls<K, V> {
  private final CacheWriter<? super K, ? super V> writer;

  /**
   * @param writer the writer, or null when write-through is off
   */
  public WriterCalls(CacheWriter<? super K, ? super V> writer) {
    this.writer = writer;
  }

  public boolean enabled() {
    return writer != null;
  }

  public void write(Cache.Entry<K, V> entry) {
    if (writer != null) {
      call(() -> writer.write(entry), () -> "to write " + entry.getKey());
    }
  }

  public void delete(K key) {
    if (writer != null) {
      call(() -> writer.delete(key), () -> "to delete " + key);
    }
  }

  /** Writes the entries; on failure {@code entries} holds those not written, and this throws. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void writeAll(Collection<Cache.Entry<? extends K, ? extends V>> entries) {
    if (writer != null && !entries.isEmpty()) {
      // The writer's wildcard types cannot be matched by the compiler; entries are of K and V.
      call(() -> ((CacheWriter) writer).writeAll(entries), () -> "in writeAll");
    }
  }

  /** Deletes the keys; on failure {@code keys} holds those not deleted, and this throws. */
  public void deleteAll(Collection<?> keys) {
    if (writer != null && !keys.isEmpty()) {
      call(() -> writer.deleteAll(keys), () -> "in deleteAll");
    }
  }

  /** One call of the writer, which may throw anything. */
  private interface WriterCall {
    void run() throws Exception;
  }

  /**
   * Runs {@code call}: a {@link CacheWriterException} passes as it is, any other failure is wrapped
   * in one, saying what failed (the spec's wrapping).
   */
  private static void call(WriterCall call, Supplier<String> failed) {
    try {
      call.run();
    } catch (CacheWriterException e) {
      throw e;
    } catch (Exception e) {
      throw new CacheWriterException("the cache writer failed " + failed.get(), e);
    }
  }
}
