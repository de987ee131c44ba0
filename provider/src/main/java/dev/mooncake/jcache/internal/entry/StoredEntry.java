package dev.mooncake.jcache.internal.entry;

import dev.mooncake.jcache.internal.codec.Codec;
import dev.mooncake.jcache.internal.codec.TypedCodec;
import java.nio.ByteBuffer;

/**
 * A value read from the store: its expiry time and its payload, decoded on first use (a conditional
 * operation or an expiry check often needs only the header).
 */
public final class StoredEntry {
  private final byte format;
  private final long expireAt;
  private final byte[] payload;
  private final Codec codec;
  private Object value;
  private boolean payloadHandedOut;

  StoredEntry(byte format, long expireAt, byte[] payload, Codec codec) {
    this.format = format;
    this.expireAt = expireAt;
    this.payload = payload;
    this.codec = codec;
  }

  /** Epoch millis after which the entry is expired; {@link Long#MAX_VALUE} for never. */
  public long expireAt() {
    return expireAt;
  }

  public boolean isExpired(long nowMillis) {
    return expireAt != Long.MAX_VALUE && nowMillis >= expireAt;
  }

  /** The decoded value; the same instance on every call. */
  public Object value() {
    if (value == null && payloadHandedOut) {
      throw new IllegalStateException("the payload was handed out; read value() first");
    }
    if (value == null) {
      value = codec.decode(format, ByteBuffer.wrap(payload));
    }
    return value;
  }

  /** A fresh copy of the value (store-by-value: callers must not share instances). */
  public Object copyOfValue() {
    if (format == TypedCodec.BYTES_FORMAT && !payloadHandedOut) {
      // The payload is already a private copy of the stored bytes: hand it out once instead of
      // copying a (possibly megabytes large) array again; later callers get their own copies.
      payloadHandedOut = true;
      return payload;
    }
    return codec.decode(format, ByteBuffer.wrap(payload));
  }

  byte format() {
    return format;
  }

  byte[] payload() {
    return payload;
  }

  /**
   * The same entry for another reader (a near cache keeps one and hands out others): it shares the
   * payload, except a byte[] payload, which {@link #copyOfValue} may hand out as the value.
   */
  public StoredEntry forAnotherReader() {
    return new StoredEntry(
        format, expireAt, format == TypedCodec.BYTES_FORMAT ? payload.clone() : payload, codec);
  }
}
