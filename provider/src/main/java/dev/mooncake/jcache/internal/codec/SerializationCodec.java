package dev.mooncake.jcache.internal.codec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.nio.ByteBuffer;
import javax.cache.CacheException;

/**
 * Java serialization, guarded on the way in. Values read from a shared store are untrusted: the
 * stream is checked by a {@link DeserializationFilter} before any class outside the allow-list is
 * even loaded, and classes resolve through the cache manager's class loader.
 */
public record SerializationCodec(DeserializationFilter filter, ClassLoader classLoader)
    implements Codec {

  @Override
  public Encoded encode(Object value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (NotSerializableException e) {
      throw new CacheException(
          "cannot store a "
              + value.getClass().getName()
              + ": it is not Serializable"
              + " (this provider stores every key and value by value)",
          e);
    } catch (IOException e) {
      throw new CacheException("cannot serialize a " + value.getClass().getName(), e);
    }
    return new Encoded(Formats.JAVA_SERIALIZATION, bytes.toByteArray());
  }

  @Override
  public Object decode(byte format, ByteBuffer payload) {
    if (format != Formats.JAVA_SERIALIZATION) {
      throw new CacheException("corrupt stored value: unknown format " + format);
    }
    DeserializationFilter.Verdict verdict = filter.newVerdict(payload.remaining());
    try (ObjectInputStream in =
        new LoaderObjectInputStream(new BufferInputStream(payload), verdict)) {
      in.setObjectInputFilter(verdict);
      return in.readObject();
    } catch (InvalidClassException e) {
      if (verdict.rejected() != null) {
        throw new CacheException(verdict.rejected(), e);
      }
      throw new CacheException("cannot deserialize a stored value: " + e.getMessage(), e);
    } catch (ClassNotFoundException e) {
      throw new CacheException(
          "cannot deserialize a stored value: class "
              + e.getMessage()
              + " is not visible to the cache manager's class loader",
          e);
    } catch (IOException e) {
      throw new CacheException("cannot deserialize a stored value: " + e, e);
    }
  }

  /** Resolves classes through the manager's class loader (JSR-107 §?: the manager's loader). */
  private final class LoaderObjectInputStream extends ObjectInputStream {
    private final DeserializationFilter.Verdict verdict;

    LoaderObjectInputStream(InputStream in, DeserializationFilter.Verdict verdict)
        throws IOException {
      super(in);
      this.verdict = verdict;
    }

    /** Refuses a class the allow-list does not name before it is loaded (see mayLoad). */
    private void admit(String className) throws InvalidClassException {
      if (!filter.mayLoad(className)) {
        verdict.refuseByName(className);
        throw new InvalidClassException(className, "not in deserialization_allow_list");
      }
    }

    @Override
    protected Class<?> resolveProxyClass(String[] interfaces)
        throws IOException, ClassNotFoundException {
      for (String name : interfaces) {
        admit(name);
      }
      return super.resolveProxyClass(interfaces);
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc)
        throws IOException, ClassNotFoundException {
      admit(desc.getName());
      try {
        return Class.forName(desc.getName(), false, classLoader);
      } catch (ClassNotFoundException e) {
        return super.resolveClass(desc);
      }
    }
  }

  /** Reads a ByteBuffer (heap or direct) without copying it into an array first. */
  private static final class BufferInputStream extends InputStream {
    private final ByteBuffer buffer;

    BufferInputStream(ByteBuffer buffer) {
      this.buffer = buffer.duplicate();
    }

    @Override
    public int read() {
      return buffer.hasRemaining() ? buffer.get() & 0xFF : -1;
    }

    @Override
    public int read(byte[] target, int offset, int length) {
      if (!buffer.hasRemaining()) {
        return -1;
      }
      int n = Math.min(length, buffer.remaining());
      buffer.get(target, offset, n);
      return n;
    }

    @Override
    public int available() {
      return buffer.remaining();
    }
  }
}
