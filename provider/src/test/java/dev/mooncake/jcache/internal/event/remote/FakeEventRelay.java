package dev.mooncake.jcache.internal.event.remote;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Plays mooncake_master's KV event publisher for the fake library: tails the file the fake writes
 * with {@code MCJ_FAKE_EVENTS} (records of 8-byte big-endian sequence, 4-byte big-endian payload
 * length, msgpack payload; see native/src/test/c/fake_mooncake_events.c) and publishes each record
 * on a JeroMQ PUB socket on loopback as the master does: an empty topic frame, the sequence frame
 * and the payload frame, the fake's sequence numbers as they are (so its dropped events are gaps).
 *
 * <p>{@link #close} stops publishing (subscribers see the connection drop) and hands back how far
 * the file was read; a relay started on the same port from there is a publisher restart that loses
 * nothing it had not yet sent.
 */
public final class FakeEventRelay implements AutoCloseable {
  /** The fake's records are a few hundred bytes; anything this large is a corrupt file. */
  private static final int MAX_PAYLOAD = 1 << 20;

  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final Path file;
  private final ZContext context = new ZContext();
  private final ZMQ.Socket socket;
  private final int port;
  private final AtomicLong offset;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong lastSequence = new AtomicLong();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean closing;
  private volatile Throwable failure;

  /** Relays {@code file} from its start on a free loopback port. */
  public FakeEventRelay(Path file) throws IOException {
    this(file, 0, 0);
  }

  /** Relays {@code file} from byte {@code offset} on {@code port} (0: a free one). */
  public FakeEventRelay(Path file, int port, long offset) throws IOException {
    this.file = file;
    if (!Files.exists(file)) {
      Files.createFile(file); // the fake appends to it (O_APPEND | O_CREAT)
    }
    this.offset = new AtomicLong(offset);
    socket = context.createSocket(SocketType.PUB);
    socket.setLinger(0);
    socket.setSndHWM(100_000);
    if (port == 0) {
      socket.bind("tcp://127.0.0.1:*");
      String last = socket.getLastEndpoint();
      this.port = Integer.parseInt(last.substring(last.lastIndexOf(':') + 1));
    } else {
      socket.bind("tcp://127.0.0.1:" + port);
      this.port = port;
    }
    thread = new Thread(this::run, "fake-event-relay-" + this.port);
    thread.setDaemon(true);
    thread.start();
  }

  public int port() {
    return port;
  }

  public String endpoint() {
    return "tcp://127.0.0.1:" + port;
  }

  /** Messages sent so far. */
  public long published() {
    return published.get();
  }

  /** The sequence number of the last message sent (0: none yet). */
  public long lastSequence() {
    return lastSequence.get();
  }

  /** What stopped the relay before {@link #close} (a corrupt record, an I/O error), or null. */
  public Throwable failure() {
    return failure;
  }

  private void run() {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer header = ByteBuffer.allocate(12);
      while (!closing) {
        long at = offset.get();
        // A short record at the end is a write in progress (one write() per record): wait.
        if (channel.size() - at < header.capacity()) {
          LockSupport.parkNanos(POLL_NANOS);
          continue;
        }
        header.clear();
        readFully(channel, header, at);
        long sequence = header.getLong(0);
        int length = header.getInt(8);
        if (length <= 0 || length > MAX_PAYLOAD) {
          throw new IOException(
              file
                  + " at byte "
                  + at
                  + ": record of sequence "
                  + sequence
                  + " claims "
                  + length
                  + " payload bytes");
        }
        if (channel.size() - at - header.capacity() < length) {
          LockSupport.parkNanos(POLL_NANOS);
          continue;
        }
        ByteBuffer payload = ByteBuffer.allocate(length);
        readFully(channel, payload, at + header.capacity());
        socket.sendMore(new byte[0]);
        socket.sendMore(sequenceFrame(header));
        socket.send(payload.array(), 0);
        offset.set(at + header.capacity() + length);
        lastSequence.set(sequence);
        published.incrementAndGet();
      }
    } catch (IOException | RuntimeException e) {
      failure = e;
    } finally {
      stopped.countDown();
    }
  }

  private static byte[] sequenceFrame(ByteBuffer header) {
    byte[] frame = new byte[8];
    System.arraycopy(header.array(), 0, frame, 0, 8);
    return frame;
  }

  private static void readFully(FileChannel channel, ByteBuffer into, long position)
      throws IOException {
    while (into.hasRemaining()) {
      if (channel.read(into, position + into.position()) < 0) {
        throw new IOException("unexpected end of the events file");
      }
    }
  }

  /** Stops publishing; answers the file offset a successor should start from. */
  public long stop() throws InterruptedException {
    closing = true;
    if (!stopped.await(10, TimeUnit.SECONDS)) {
      throw new AssertionError("the relay thread did not stop");
    }
    context.close();
    return offset.get();
  }

  @Override
  public void close() throws InterruptedException {
    if (!closing) {
      stop();
    }
  }
}
