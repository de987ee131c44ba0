package dev.mooncake.jcache.real;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A test's own {@code mooncake_master} on loopback, for tests that need flags the wrapper's master
 * lacks (SSD offload) or a master of their own: RPC on {@code port}, admin HTTP (metrics) on {@code
 * port + 1000}, lease 500 ms as the wrapper's. Up once it accepts connections.
 */
final class RealMaster implements AutoCloseable {
  private static final long LISTEN_BOUND_MS = 30_000;

  private final Process process;
  private final int port;

  private RealMaster(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  static RealMaster start(int port, Path log, String... flags) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                System.getenv("MOONCAKE_MASTER"),
                "--rpc_address=127.0.0.1",
                "--rpc_port=" + port,
                "--metrics_host=127.0.0.1",
                "--metrics_port=" + (port + 1000),
                "--default_kv_lease_ttl=500"));
    command.addAll(List.of(flags));
    command.addAll(RealMooncake.httpMetadataFlags(port));
    Process master =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LISTEN_BOUND_MS);
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
        return new RealMaster(master, port);
      } catch (IOException notYet) {
        if (!master.isAlive() || System.nanoTime() > deadline) {
          master.destroyForcibly().waitFor();
        }
        assertTrue(master.isAlive(), "the master exited; see " + log);
        assertTrue(System.nanoTime() < deadline, "the master did not listen within 30 s");
        Thread.sleep(20); // polling another process's socket, not a synchronisation of ours
      }
    }
  }

  int port() {
    return port;
  }

  int metricsPort() {
    return port + 1000;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
