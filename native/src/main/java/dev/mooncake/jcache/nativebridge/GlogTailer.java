package dev.mooncake.jcache.nativebridge;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Follows the glog files of one directory and hands each line to a {@link Sink}. glog writes every
 * line to the file of its severity and of every lower one, so the INFO files ({@code
 * <program>.<host>.<user>.log.INFO.<yyyymmdd>-<hhmmss>.<pid>}, a new one after a size rotation; the
 * {@code <program>.INFO} symlinks are skipped) hold them all, each once. A file's header lines
 * (before its first record) are skipped; a line that is not a record continues the one before it (a
 * message with newlines) and gets its severity.
 *
 * <p>A daemon thread drains on every change the directory watch reports, and at least once a
 * second; {@link #drain} may also be called directly; {@link #close} drains a last time, including
 * a last line without its newline.
 */
final class GlogTailer implements AutoCloseable {
  /** Receives one line: its glog severity (I, W, E, F) and the text after the time and thread. */
  interface Sink {
    void line(char severity, String text);
  }

  /**
   * {@code I20261201 09:56:41.123456 12345 file.cc:12] msg}; glog without the year: {@code I1201}.
   */
  static final Pattern RECORD =
      Pattern.compile("([IWEF])(?:\\d{8}|\\d{4}) \\d\\d:\\d\\d:\\d\\d\\.\\d{6} +\\d+ (.*)");

  private static final class Followed {
    long position;
    boolean seenRecord;
    char severity = 'I';
    final ByteArrayOutputStream partial = new ByteArrayOutputStream();
  }

  private final Path directory;
  private final Sink sink;
  private final Map<Path, Followed> files = new HashMap<>(); // guarded by this
  private final ByteBuffer buffer = ByteBuffer.allocate(64 * 1024); // guarded by this
  private volatile boolean closed;
  private Thread thread;
  private WatchService watch;

  GlogTailer(Path directory, Sink sink) {
    this.directory = directory;
    this.sink = sink;
  }

  static boolean isInfoFile(Path file) {
    String name = file.getFileName().toString();
    return name.contains(".log.INFO.") && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS);
  }

  /** Starts the daemon thread. */
  synchronized void start() {
    try {
      watch = directory.getFileSystem().newWatchService();
      directory.register(
          watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
    } catch (IOException e) {
      watch = null; // polling alone
    }
    thread = new Thread(this::run, "mooncake-native-log");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (!closed) {
      try {
        WatchKey key = watch == null ? null : watch.poll(1, TimeUnit.SECONDS);
        if (watch == null) {
          Thread.sleep(1000); // no watch service: poll
        }
        if (key != null) {
          key.pollEvents();
          key.reset();
        }
        drain();
      } catch (InterruptedException | ClosedWatchServiceException e) {
        return;
      } catch (RuntimeException e) {
        // a broken sink or file must not end the forwarding of the lines after it
        sink.line('E', "mooncake-jcache: forwarding Mooncake's log failed: " + e);
      }
    }
  }

  /** Reads what was written since the last call and forwards every complete line. */
  synchronized void drain() {
    drain(false);
  }

  private void drain(boolean last) {
    List<Path> infoFiles = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, "*.log.INFO.*")) {
      for (Path file : stream) {
        if (isInfoFile(file)) {
          infoFiles.add(file);
        }
      }
    } catch (IOException e) {
      return; // the directory is gone (the process is exiting)
    }
    infoFiles.sort(null); // names carry the creation time: rotated files in order
    for (Path file : infoFiles) {
      Followed followed = files.computeIfAbsent(file, f -> new Followed());
      read(file, followed);
      if (last && followed.partial.size() > 0) {
        emit(followed, followed.partial.toString(StandardCharsets.UTF_8));
        followed.partial.reset();
      }
    }
  }

  private void read(Path file, Followed followed) {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      if (channel.size() < followed.position) {
        followed.position = 0; // truncated
      }
      while (true) {
        buffer.clear();
        int n = channel.read(buffer, followed.position);
        if (n <= 0) {
          return;
        }
        followed.position += n;
        byte[] bytes = buffer.array();
        int start = 0;
        for (int i = 0; i < n; i++) {
          if (bytes[i] == '\n') {
            followed.partial.write(bytes, start, i - start);
            emit(followed, followed.partial.toString(StandardCharsets.UTF_8));
            followed.partial.reset();
            start = i + 1;
          }
        }
        followed.partial.write(bytes, start, n - start);
      }
    } catch (IOException e) {
      // removed between listing and opening: nothing to read
    }
  }

  private void emit(Followed followed, String line) {
    Matcher record = RECORD.matcher(line);
    if (record.matches()) {
      followed.seenRecord = true;
      followed.severity = record.group(1).charAt(0);
      sink.line(followed.severity, record.group(2));
    } else if (followed.seenRecord && !line.isEmpty()) {
      sink.line(followed.severity, line);
    }
    // else: the file's header ("Log file created at: ...")
  }

  /** Stops the thread and forwards what is left. */
  @Override
  public void close() {
    closed = true;
    Thread t;
    synchronized (this) {
      t = thread;
      if (watch != null) {
        try {
          watch.close();
        } catch (IOException e) {
          // closing anyway
        }
      }
    }
    if (t != null && t != Thread.currentThread()) {
      t.interrupt();
      try {
        t.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (this) {
      drain(true);
    }
  }
}
