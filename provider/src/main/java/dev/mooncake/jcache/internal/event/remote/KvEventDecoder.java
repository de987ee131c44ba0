package dev.mooncake.jcache.internal.event.remote;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Decodes the master's KV event messages (mooncake-store/src/kv_event/kv_event_publisher.cpp):
 * three frames, an empty topic, the 8-byte big-endian sequence number and a msgpack payload {@code
 * [timestamp, [event, …], dp_rank]}; each event a map with {@code event_type} ({@code stored},
 * {@code removed}, {@code cleared}; older masters' {@code type} names {@code BlockStored}, {@code
 * BlockRemoved}, {@code AllBlocksCleared} are read too), {@code object_key}, {@code tenant_id} and
 * {@code medium}. Other fields are skipped.
 *
 * <p>The stream is untrusted input: every size is bounded and anything unexpected is a {@link
 * KvEventFormatException} naming it, never an unchecked exception or a huge allocation.
 */
public final class KvEventDecoder {
  /** More events than the publisher ever batches (64), with room for other publishers. */
  static final int MAX_EVENTS = 65_536;

  /** Longest string field read (object keys included); longer ones make the message invalid. */
  static final int MAX_STRING_BYTES = 1 << 20;

  /** Fields per event map (the publisher writes at most 19). */
  static final int MAX_FIELDS = 256;

  private KvEventDecoder() {}

  /** The sequence number of a message's second frame. */
  public static long sequence(byte[] frame) throws KvEventFormatException {
    if (frame == null || frame.length != Long.BYTES) {
      throw new KvEventFormatException(
          "sequence frame has "
              + (frame == null ? "no" : String.valueOf(frame.length))
              + " bytes, not 8");
    }
    long sequence = 0;
    for (byte b : frame) {
      sequence = sequence << 8 | (b & 0xff);
    }
    return sequence;
  }

  /** The events of a payload frame, in the publisher's order. */
  public static List<KvEvent> events(byte[] payload) throws KvEventFormatException {
    try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(payload)) {
      int outer = arrayHeader(unpacker, "payload");
      if (outer < 2) {
        throw new KvEventFormatException(
            "payload array has " + outer + " elements; expected [timestamp, [event, …], …]");
      }
      unpacker.skipValue(); // timestamp
      int count = arrayHeader(unpacker, "event list");
      if (count > MAX_EVENTS) {
        throw new KvEventFormatException(
            "payload claims " + count + " events (limit " + MAX_EVENTS + ")");
      }
      List<KvEvent> events = new ArrayList<>(Math.min(count, 64));
      for (int i = 0; i < count; i++) {
        events.add(event(unpacker, i));
      }
      // Anything after the event list (dp_rank, future fields) is not needed.
      return events;
    } catch (MessagePackException | IOException e) {
      throw new KvEventFormatException("payload is not valid msgpack: " + e.getMessage(), e);
    }
  }

  private static KvEvent event(MessageUnpacker unpacker, int index)
      throws IOException, KvEventFormatException {
    if (unpacker.getNextFormat().getValueType() != ValueType.MAP) {
      throw new KvEventFormatException(
          "event " + index + " is a " + unpacker.getNextFormat().getValueType() + ", not a map");
    }
    int fields = unpacker.unpackMapHeader();
    if (fields > MAX_FIELDS) {
      throw new KvEventFormatException("event " + index + " claims " + fields + " fields");
    }
    String eventType = null;
    String legacyType = null;
    String objectKey = null;
    String tenant = null;
    String medium = null;
    for (int f = 0; f < fields; f++) {
      if (unpacker.getNextFormat().getValueType() != ValueType.STRING) {
        unpacker.skipValue(); // a non-string field name: not one of ours
        unpacker.skipValue();
        continue;
      }
      String name = string(unpacker, "field name");
      switch (name) {
        case "event_type" -> eventType = optionalString(unpacker, name);
        case "type" -> legacyType = optionalString(unpacker, name);
        case "object_key" -> objectKey = optionalString(unpacker, name);
        case "tenant_id" -> tenant = optionalString(unpacker, name);
        case "medium" -> medium = optionalString(unpacker, name);
        default -> unpacker.skipValue();
      }
    }
    KvEvent.Kind kind = kind(eventType, legacyType, index);
    if (kind != KvEvent.Kind.CLEARED && (objectKey == null || objectKey.isEmpty())) {
      throw new KvEventFormatException(
          "event "
              + index
              + " ("
              + kind
              + ") has no object_key"
              + " (is the master started with emit_object_key off?)");
    }
    return new KvEvent(kind, kind == KvEvent.Kind.CLEARED ? null : objectKey, tenant, medium);
  }

  private static KvEvent.Kind kind(String eventType, String legacyType, int index)
      throws KvEventFormatException {
    String type = eventType != null ? eventType : legacyType;
    if (type == null) {
      throw new KvEventFormatException("event " + index + " has no event_type");
    }
    return switch (type) {
      case "stored", "BlockStored" -> KvEvent.Kind.STORED;
      case "removed", "evicted", "BlockRemoved" -> KvEvent.Kind.REMOVED;
      case "cleared", "AllBlocksCleared" -> KvEvent.Kind.CLEARED;
      default ->
          throw new KvEventFormatException(
              "event " + index + " has unknown event_type '" + printable(type) + "'");
    };
  }

  private static int arrayHeader(MessageUnpacker unpacker, String what)
      throws IOException, KvEventFormatException {
    if (!unpacker.hasNext()) {
      throw new KvEventFormatException(what + " is missing");
    }
    MessageFormat format = unpacker.getNextFormat();
    if (format.getValueType() != ValueType.ARRAY) {
      throw new KvEventFormatException(what + " is a " + format.getValueType() + ", not an array");
    }
    return unpacker.unpackArrayHeader();
  }

  private static String optionalString(MessageUnpacker unpacker, String field)
      throws IOException, KvEventFormatException {
    ValueType type = unpacker.getNextFormat().getValueType();
    if (type == ValueType.NIL) {
      unpacker.unpackNil();
      return null;
    }
    if (type != ValueType.STRING) {
      throw new KvEventFormatException("field " + field + " is a " + type + ", not a string");
    }
    return string(unpacker, field);
  }

  private static String string(MessageUnpacker unpacker, String field)
      throws IOException, KvEventFormatException {
    int length = unpacker.unpackRawStringHeader();
    if (length > MAX_STRING_BYTES) {
      throw new KvEventFormatException(
          "field " + field + " is " + length + " bytes long (limit " + MAX_STRING_BYTES + ")");
    }
    return new String(unpacker.readPayload(length), java.nio.charset.StandardCharsets.UTF_8);
  }

  private static String printable(String text) {
    String cut = text.length() > 40 ? text.substring(0, 40) + "…" : text;
    return cut.replaceAll("\\p{Cntrl}", "?");
  }
}
