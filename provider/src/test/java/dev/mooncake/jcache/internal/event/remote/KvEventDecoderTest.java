package dev.mooncake.jcache.internal.event.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

class KvEventDecoderTest {
  @Test
  void readsTheMastersShape() throws Exception {
    byte[] payload =
        payload(
            packer -> {
              packer.packArrayHeader(3).packLong(1_700_000_000_000L).packArrayHeader(2);
              packer
                  .packMapHeader(5)
                  .packString("event_id")
                  .packLong(1)
                  .packString("event_type")
                  .packString("stored")
                  .packString("object_key")
                  .packString("smoke_key")
                  .packString("tenant_id")
                  .packString("default")
                  .packString("medium")
                  .packString("cpu");
              packer
                  .packMapHeader(3)
                  .packString("type")
                  .packString("BlockRemoved") // an older master's field
                  .packString("object_key")
                  .packString("k2")
                  .packString("medium")
                  .packNil();
              packer.packInt(0);
            });
    List<KvEvent> events = KvEventDecoder.events(payload);
    assertEquals(
        List.of(
            new KvEvent(KvEvent.Kind.STORED, "smoke_key", "default", "cpu"),
            new KvEvent(KvEvent.Kind.REMOVED, "k2", null, null)),
        events);
  }

  @Test
  void sequenceIsBigEndian() throws Exception {
    assertEquals(2, KvEventDecoder.sequence(new byte[] {0, 0, 0, 0, 0, 0, 0, 2}));
    assertEquals(0x0102030405060708L, KvEventDecoder.sequence(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
    assertThrows(KvEventFormatException.class, () -> KvEventDecoder.sequence(new byte[4]));
  }

  @Test
  void clearedNeedsNoKey() throws Exception {
    byte[] payload =
        payload(
            p ->
                p.packArrayHeader(2)
                    .packLong(1)
                    .packArrayHeader(1)
                    .packMapHeader(2)
                    .packString("event_type")
                    .packString("cleared")
                    .packString("tenant_id")
                    .packString("t"));
    assertEquals(
        List.of(new KvEvent(KvEvent.Kind.CLEARED, null, "t", null)),
        KvEventDecoder.events(payload));
  }

  @Test
  void badInputIsACheckedErrorNamingTheProblem() throws Exception {
    assertMessage("not valid msgpack", new byte[] {(byte) 0xc1});
    assertMessage("not an array", payload(p -> p.packString("hello")));
    assertMessage("expected [timestamp", payload(p -> p.packArrayHeader(1).packLong(1)));
    assertMessage(
        "not a map", payload(p -> p.packArrayHeader(2).packLong(1).packArrayHeader(1).packInt(3)));
    assertMessage(
        "unknown event_type",
        payload(
            p ->
                p.packArrayHeader(2)
                    .packLong(1)
                    .packArrayHeader(1)
                    .packMapHeader(2)
                    .packString("event_type")
                    .packString("exploded")
                    .packString("object_key")
                    .packString("k")));
    assertMessage(
        "no object_key",
        payload(
            p ->
                p.packArrayHeader(2)
                    .packLong(1)
                    .packArrayHeader(1)
                    .packMapHeader(1)
                    .packString("event_type")
                    .packString("stored")));
    assertMessage(
        "not a string",
        payload(
            p ->
                p.packArrayHeader(2)
                    .packLong(1)
                    .packArrayHeader(1)
                    .packMapHeader(2)
                    .packString("event_type")
                    .packString("stored")
                    .packString("object_key")
                    .packInt(5)));
    // Sizes claimed but not there: no huge allocation, a clear error.
    assertMessage(
        "claims",
        payload(p -> p.packArrayHeader(2).packLong(1).packArrayHeader(Integer.MAX_VALUE)));
    assertMessage(
        "not valid msgpack",
        payload(
            p ->
                p.packArrayHeader(2)
                    .packLong(1)
                    .packArrayHeader(1)
                    .packMapHeader(1)
                    .packString("object_key")
                    .packRawStringHeader(1000)));
    assertMessage(
        "limit",
        payload(
            p ->
                p.packArrayHeader(2)
                    .packLong(1)
                    .packArrayHeader(1)
                    .packMapHeader(1)
                    .packString("object_key")
                    .packRawStringHeader(KvEventDecoder.MAX_STRING_BYTES + 1)));
    // Truncated in the middle of the event list.
    byte[] whole =
        payload(
            p ->
                p.packArrayHeader(2)
                    .packLong(1)
                    .packArrayHeader(3)
                    .packMapHeader(2)
                    .packString("event_type")
                    .packString("stored")
                    .packString("object_key")
                    .packString("k"));
    assertMessage("", whole);
  }

  private static void assertMessage(String expected, byte[] payload) {
    KvEventFormatException e =
        assertThrows(KvEventFormatException.class, () -> KvEventDecoder.events(payload));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  interface Writer {
    void write(MessageBufferPacker packer) throws IOException;
  }

  static byte[] payload(Writer writer) throws IOException {
    try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
      writer.write(packer);
      return packer.toByteArray();
    }
  }
}
