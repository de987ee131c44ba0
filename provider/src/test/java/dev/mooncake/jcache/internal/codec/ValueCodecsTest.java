package dev.mooncake.jcache.internal.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A cache's codec setting decides how values are written; every codec reads every format. */
class ValueCodecsTest {
  private final SerializationCodec java =
      new SerializationCodec(new DeserializationFilter(List.of()), getClass().getClassLoader());
  private final TypedCodec typed = new TypedCodec(java);

  private Codec codec(String setting) {
    return ValueCodecs.forSetting(setting, "c", typed, java);
  }

  private static Object roundTrip(Codec writer, Codec reader, Object value) {
    Codec.Encoded encoded = writer.encode(value);
    return reader.decode(encoded.format(), ByteBuffer.wrap(encoded.bytes()));
  }

  @Test
  void autoIsTheTypedCodec() {
    assertSame(typed, codec(null));
    assertSame(typed, codec("auto"));
    assertEquals(Formats.STRING, codec("auto").encode("x").format());
  }

  @Test
  void javaSerializesEveryValueStringsIncluded() {
    Codec javaCodec = codec("java");
    assertEquals(Formats.JAVA_SERIALIZATION, javaCodec.encode("x").format());
    assertEquals(Formats.JAVA_SERIALIZATION, javaCodec.encode(42).format());
    assertEquals("x", roundTrip(javaCodec, typed, "x"), "another JVM on auto reads it");
    assertEquals(42, roundTrip(typed, javaCodec, 42), "and it reads what auto wrote");
  }

  @Test
  void stringAndBytesWriteOnlyTheirTypeAndNameTheRefusal() {
    assertEquals("text", roundTrip(codec("string"), typed, "text"));
    assertArrayEquals(
        new byte[] {1, 2}, (byte[]) roundTrip(codec("bytes"), typed, new byte[] {1, 2}));
    ClassCastException e = assertThrows(ClassCastException.class, () -> codec("string").encode(7));
    assertTrue(e.getMessage().contains("cache 'c' has codec 'string'"), e.getMessage());
    assertTrue(e.getMessage().contains("not java.lang.Integer"), e.getMessage());
    assertThrows(ClassCastException.class, () -> codec("bytes").encode("text"));
  }

  @Test
  void anUnknownSettingIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> codec("xml"));
  }
}
