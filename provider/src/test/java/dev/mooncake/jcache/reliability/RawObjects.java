package dev.mooncake.jcache.reliability;

import dev.mooncake.jcache.internal.backend.ObjectStore;
import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Raw objects under the store keys a cache reads, bypassing the cache: what another program,
 * another tenant's misconfigured client or a corrupted transfer could leave there. Store keys are
 * computed from the documented layout ({@code mcj/<tenant>/<cache>/<format byte + key bytes>}, each
 * part base64url), independently of the provider's code.
 */
abstract class RawObjects implements AutoCloseable {
  static final byte STRING_FORMAT = 1;

  abstract void put(String storeKey, byte[] bytes);

  abstract byte[] get(String storeKey);

  abstract void remove(String storeKey);

  @Override
  public abstract void close();

  static String storeKey(String tenant, String cache, String stringKey) {
    byte[] key = stringKey.getBytes(StandardCharsets.UTF_8);
    byte[] tagged = new byte[key.length + 1];
    tagged[0] = STRING_FORMAT;
    System.arraycopy(key, 0, tagged, 1, key.length);
    return "mcj/"
        + b64(tenant.getBytes(StandardCharsets.UTF_8))
        + "/"
        + b64(cache.getBytes(StandardCharsets.UTF_8))
        + "/"
        + b64(tagged);
  }

  private static String b64(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** Through a second client of the fake library: the fake keeps one object table per process. */
  static RawObjects fake() {
    MooncakeClient client =
        MooncakeClient.create(MooncakeLibrary.open(Configs.fakeLibrary(), null));
    int code = client.setup("127.0.0.1", "P2PHANDSHAKE", 0, 1 << 20, "tcp", "", "127.0.0.1:50051");
    if (code != 0) {
      client.close();
      throw new IllegalStateException("fake setup answered " + code);
    }
    return new RawObjects() {
      @Override
      void put(String storeKey, byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
        client.remove(MooncakeClient.key(storeKey), true);
        int put = client.putFrom(MooncakeClient.key(storeKey), buffer, 0, bytes.length, null);
        if (put != 0) {
          throw new IllegalStateException("raw put answered " + put);
        }
      }

      @Override
      byte[] get(String storeKey) {
        long size = client.getSize(MooncakeClient.key(storeKey));
        if (size < 0) {
          return null;
        }
        ByteBuffer buffer = ByteBuffer.allocateDirect((int) size);
        long read = client.getInto(MooncakeClient.key(storeKey), buffer, 0, (int) size);
        byte[] bytes = new byte[(int) read];
        buffer.get(0, bytes);
        return bytes;
      }

      @Override
      void remove(String storeKey) {
        client.remove(MooncakeClient.key(storeKey), true);
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }

  /** On an in-process store that a cache manager shares (see ReliabilityHooks). */
  static RawObjects on(ObjectStore store) {
    return new RawObjects() {
      @Override
      void put(String storeKey, byte[] bytes) {
        store.remove(storeKey, true);
        int put = store.put(storeKey, ByteBuffer.allocateDirect(bytes.length).put(bytes).flip());
        if (put != 0) {
          throw new IllegalStateException("raw put answered " + put);
        }
      }

      @Override
      byte[] get(String storeKey) {
        long size = store.getSize(storeKey);
        if (size < 0) {
          return null;
        }
        ByteBuffer buffer = ByteBuffer.allocateDirect((int) size);
        long read = store.getInto(storeKey, buffer);
        byte[] bytes = new byte[(int) read];
        buffer.get(0, bytes);
        return bytes;
      }

      @Override
      void remove(String storeKey) {
        store.remove(storeKey, true);
      }

      @Override
      public void close() {
        // the store belongs to whoever opened it
      }
    };
  }
}
