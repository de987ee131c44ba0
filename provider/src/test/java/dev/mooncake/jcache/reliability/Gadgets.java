package dev.mooncake.jcache.reliability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.collections.Transformer;
import org.apache.commons.collections.functors.ChainedTransformer;
import org.apache.commons.collections.functors.ConstantTransformer;
import org.apache.commons.collections.functors.InvokerTransformer;
import org.apache.commons.collections.keyvalue.TiedMapEntry;
import org.apache.commons.collections.map.LazyMap;

/** Hostile serialized values: a real gadget chain and deserialization bombs. */
final class Gadgets {
  private Gadgets() {}

  /**
   * The commons-collections 3.1 chain (ysoserial's CommonsCollections6 shape, which needs no JDK
   * internals and so builds on JDK 17): a HashMap whose key is a TiedMapEntry over a LazyMap whose
   * factory is an InvokerTransformer chain. HashMap.readObject hashes the key, which makes the
   * LazyMap run the chain: here {@code System.setProperty(property, "fired")} instead of {@code
   * Runtime.exec}, a side effect a test can observe.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Object commonsCollectionsChain(String property) {
    Transformer[] real = {
      new ConstantTransformer(System.class),
      new InvokerTransformer(
          "getMethod",
          new Class[] {String.class, Class[].class},
          new Object[] {"setProperty", new Class[] {String.class, String.class}}),
      new InvokerTransformer(
          "invoke",
          new Class[] {Object.class, Object[].class},
          new Object[] {null, new Object[] {property, "fired"}}),
    };
    // Built harmless, armed after the HashMap holds the key (put itself hashes the key).
    ChainedTransformer chain =
        new ChainedTransformer(new Transformer[] {new ConstantTransformer(1)});
    Map lazy = LazyMap.decorate(new HashMap(), chain);
    TiedMapEntry entry = new TiedMapEntry(lazy, "trigger");
    HashMap outer = new HashMap();
    outer.put(entry, "value");
    lazy.remove("trigger");
    try {
      Field transformers = ChainedTransformer.class.getDeclaredField("iTransformers");
      transformers.setAccessible(true);
      transformers.set(chain, real);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
    return outer;
  }

  /** {@code depth} nested one-element Object[] arrays. */
  static Object deepArrays(int depth) {
    Object inner = "bottom";
    for (int i = 0; i < depth; i++) {
      inner = new Object[] {inner};
    }
    return inner;
  }

  /** {@code depth} nested ArrayLists (JDK collections the allow-list admits). */
  static Object deepLists(int depth) {
    List<Object> inner = new ArrayList<>(List.of("bottom"));
    for (int i = 0; i < depth; i++) {
      List<Object> outer = new ArrayList<>();
      outer.add(inner);
      inner = outer;
    }
    return inner;
  }

  /** A list of {@code n} distinct Long objects: n + 2 references in the stream. */
  static Object wideList(int n) {
    List<Long> list = new ArrayList<>(n);
    for (long i = 0; i < n; i++) {
      list.add(i * 1_000_003L + 1_000_000_007L); // outside the Long cache: each its own object
    }
    return list;
  }

  /**
   * The classic "SerialDOS" HashSet bomb: {@code levels} levels of two sets each holding both sets
   * of the next level. Deserializing hashes every set, and each hash walks both children: 2^levels
   * work from a stream of a few hundred bytes.
   */
  static Object hashSetBomb(int levels) {
    Set<Object> root = new HashSet<>();
    Set<Object> s1 = root;
    Set<Object> s2 = new HashSet<>();
    for (int i = 0; i < levels; i++) {
      Set<Object> t1 = new HashSet<>();
      Set<Object> t2 = new HashSet<>();
      t1.add("foo"); // makes t1 and t2 unequal
      s1.add(t1);
      s1.add(t2);
      s2.add(t1);
      s2.add(t2);
      s1 = t1;
      s2 = t2;
    }
    return root;
  }

  /**
   * A stream of a few dozen bytes that declares a {@code long[]} of {@code length} elements and
   * holds none: ObjectInputStream allocates the array (8 bytes per element) before reading them.
   */
  static byte[] hugeLongArrayStream(int length) {
    byte[] stream = serialize(new long[] {42L});
    // The stream ends with the array's length (4 bytes) and its one element (8 bytes).
    ByteBuffer.wrap(stream).putInt(stream.length - 12, length);
    byte[] truncated = new byte[stream.length - 8];
    System.arraycopy(stream, 0, truncated, 0, truncated.length);
    return truncated;
  }

  static byte[] serialize(Object value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
