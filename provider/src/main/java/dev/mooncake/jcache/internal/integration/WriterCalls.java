package dev.mooncake.jcache.internal.integration;

import java.util.Collection;
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
    if (writer == null) {
      return;
    }
    try {
      writer.write(entry);
    } catch (CacheWriterException e) {
      throw e;
    } catch (Exception e) {
      throw new CacheWriterException("the cache writer failed to write " + entry.getKey(), e);
    }
  }

  public void delete(K key) {
    if (writer == null) {
      return;
    }
    try {
      writer.delete(key);
    } catch (CacheWriterException e) {
      throw e;
    } catch (Exception e) {
      throw new CacheWriterException("the cache writer failed to delete " + key, e);
    }
  }

  /** Writes the entries; on failure {@code entries} holds those not written, and this throws. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void writeAll(Collection<Cache.Entry<? extends K, ? extends V>> entries) {
    if (writer == null || entries.isEmpty()) {
      return;
    }
    try {
      // The writer's wildcard types cannot be matched by the compiler; entries are of K and V.
      ((CacheWriter) writer).writeAll(entries);
    } catch (CacheWriterException e) {
      throw e;
    } catch (Exception e) {
      throw new CacheWriterException("the cache writer failed in writeAll", e);
    }
  }

  /** Deletes the keys; on failure {@code keys} holds those not deleted, and this throws. */
  public void deleteAll(Collection<?> keys) {
    if (writer == null || keys.isEmpty()) {
      return;
    }
    try {
      writer.deleteAll(keys);
    } catch (CacheWriterException e) {
      throw e;
    } catch (Exception e) {
      throw new CacheWriterException("the cache writer failed in deleteAll", e);
    }
  }
}
