package dev.mooncake.jcache.cluster;

import dev.mooncake.jcache.nativebridge.MooncakeClient;
import dev.mooncake.jcache.nativebridge.MooncakeLibrary;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The fake library's stand-in for a {@code mooncake_client} pool process: {@code FakePool <library>
 * <segment size in bytes>} sets up one client through our JNI bridge that contributes a segment and
 * does nothing else, prints {@code READY <segment name>}, and stays until stdin ends or says {@code
 * exit} (then it destroys the client, as a pool stopped with SIGTERM does). Under the fake's
 * cross-process mode ({@code MCJ_FAKE_SHARED}) its segment holds the values that {@code
 * standalone-store} app JVMs put there; a {@code kill -9} takes them with it.
 */
public final class FakePool {
  private FakePool() {}

  public static void main(String[] args) throws IOException {
    MooncakeClient client = MooncakeClient.create(MooncakeLibrary.open(args[0], null));
    int code =
        client.setup(
            "127.0.0.1",
            "P2PHANDSHAKE",
            Long.parseLong(args[1]),
            16L << 20,
            "tcp",
            "",
            "127.0.0.1:50051");
    if (code != 0) {
      System.out.println("ERR setup answered " + code);
      return;
    }
    System.out.println("READY " + client.hostname());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null && !line.equals("exit"); ) {
      // a pool answers nothing: it only holds memory
    }
    client.close();
  }

  /** A started fake pool, as a {@link Peer}, with its segment's name. */
  public record Started(Peer process, String segment) implements AutoCloseable {
    @Override
    public void close() throws InterruptedException {
      process.close();
    }
  }

  /**
   * Starts a fake pool of {@code bytes} in the cross-process table that {@code environment} names.
   */
  public static Started start(String id, long bytes, Map<String, String> environment)
      throws IOException, InterruptedException {
    String library = System.getProperty("mooncake.fixture.library");
    Peer process =
        Peer.start(
            id,
            FakePool.class.getName(),
            List.of(Path.of(library).toString(), Long.toString(bytes)),
            environment);
    String ready = process.await(line -> line.startsWith("READY ") || line.startsWith("ERR "));
    if (!ready.startsWith("READY ")) {
      process.close();
      throw new AssertionError("fake pool " + id + ": " + ready);
    }
    return new Started(process, ready.substring("READY ".length()));
  }
}
