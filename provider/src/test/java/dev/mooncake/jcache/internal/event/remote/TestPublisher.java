package dev.mooncake.jcache.internal.event.remote;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Publishes on loopback what mooncake_master's KvEventPublisher publishes, frame for frame: an
 * empty topic, the sequence number (from 1, 8 bytes big-endian), and the msgpack payload {@code
 * [timestamp, [event map, …], dp_rank]} with the master's full field set. Tests drive it directly
 * or through {@link PublishingStore}, which announces a store's puts and removes.
 */
public final class TestPublisher implements AutoCloseable {
  private final ZContext context = new ZContext();
  private final ZMQ.Socket socket;
  private final int port;
  private long nextSequence = 1;
  private long nextEventId = 1;
  private boolean closed;

  /** Binds a fresh loopback port. */
  public TestPublisher() {
    this(0);
  }

  /** Binds {@code port} (0: any free one); a restarted publisher binds its predecessor's port. */
  public TestPublisher(int port) {
    socket = context.createSocket(SocketType.PUB);
    socket.setLinger(0);
    socket.setSndHWM(100_000);
    this.port = port == 0 ? bindAny() : bind(port);
  }

  /** A port the kernel picks (JeroMQ's bindToRandomPort guesses in the ephemeral range). */
  private int bindAny() {
    socket.bind("tcp://127.0.0.1:*");
    String last = socket.getLastEndpoint();
    return Integer.parseInt(last.substring(last.lastIndexOf(':') + 1));
  }

  private int bind(int port) {
    socket.bind("tcp://127.0.0.1:" + port);
    return port;
  }

  public int port() {
    return port;
  }

  public String endpoint() {
    return "tcp://127.0.0.1:" + port;
  }

  public void stored(String key) {
    publish(List.of(new KvEvent(KvEvent.Kind.STORED, key, "default", "cpu")));
  }

  public void removed(String key) {
    publish(List.of(new KvEvent(KvEvent.Kind.REMOVED, key, "default", "cpu")));
  }

  /** Uses up a sequence number without sending: what the master does when it drops an event. */
  public synchronized void drop() {
    nextSequence++;
  }

  /** One message with these events. */
  public synchronized void publish(List<KvEvent> events) {
    sendRaw(payload(events));
  }

  /** One message with this payload (for malformed input). */
  public synchronized void sendRaw(byte[] payload) {
    if (closed) {
      return; // a master that is down publishes nothing
    }
    long sequence = nextSequence++;
    byte[] seq = new byte[8];
    for (int i = 0; i < 8; i++) {
      seq[i] = (byte) (sequence >>> (56 - 8 * i));
    }
    socket.sendMore(new byte[0]);
    socket.sendMore(seq);
    socket.send(payload, 0);
  }

  /** Sends arbitrary frames. */
  public synchronized void sendFrames(byte[]... frames) {
    if (closed) {
      return;
    }
    for (int i = 0; i < frames.length; i++) {
      socket.send(frames[i], i < frames.length - 1 ? ZMQ.SNDMORE : 0);
    }
  }

  private byte[] payload(List<KvEvent> events) {
    long now = System.currentTimeMillis();
    try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
      packer.packArrayHeader(3);
      packer.packLong(now);
      packer.packArrayHeader(events.size());
      for (KvEvent event : events) {
        boolean stored = event.kind() == KvEvent.Kind.STORED;
        boolean cleared = event.kind() == KvEvent.Kind.CLEARED;
        packer.packMapHeader(cleared ? 11 : stored ? 17 : 15);
        packer.packString("event_id").packLong(nextEventId++);
        packer.packString("timestamp").packLong(now);
        packer
            .packString("event_type")
            .packString(stored ? "stored" : cleared ? "cleared" : "removed");
        packer.packString("model_name").packNil();
        packer.packString("block_size").packNil();
        packer.packString("additional_salt").packNil();
        packer.packString("lora_name").packNil();
        packer.packString("tenant_id").packString(event.tenantId());
        packer.packString("backend_id").packString("test-backend");
        packer.packString("medium");
        if (event.medium() == null) {
          packer.packNil();
        } else {
          packer.packString(event.medium());
        }
        packer.packString("dp_rank").packInt(0);
        if (cleared) {
          continue;
        }
        packer.packString("group_id").packNil();
        packer.packString("object_key").packString(event.objectKey());
        packer.packString("seq_hashes").packArrayHeader(0);
        packer.packString("base_block_idx").packNil();
        if (stored) {
          packer.packString("parent_hash").packNil();
          packer.packString("token_ids").packNil();
        }
      }
      packer.packInt(0);
      return packer.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    context.close();
  }
}
