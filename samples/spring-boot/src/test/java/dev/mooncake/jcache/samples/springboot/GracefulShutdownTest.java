package dev.mooncake.jcache.samples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bookstore on the Mooncake backend (over the test-only fake library) is sent SIGTERM while
 * requests that will use the cache are in flight. With server.shutdown=graceful Spring lets them
 * finish, but the provider's own shutdown hook runs at the same time: every in-flight request must
 * still succeed (the hook closes the Mooncake client only after Spring closed the cache manager).
 * Runs the application in a JVM of its own, since the subject is the JVM's exit.
 */
class GracefulShutdownTest {
  private static final String[] ISBNS = {"978-0134685991", "978-0321349606", "978-1617294945"};

  @TempDir Path dir;

  @Test
  void requestsInFlightWhileTheApplicationShutsDownAllSucceed() throws Exception {
    String library = System.getProperty("mooncake.fixture.library");
    assertThat(library).as("-Dmooncake.fixture.library").isNotNull();
    Path config = dir.resolve("mooncake.json");
    Files.writeString(
        config,
        Files.readString(Path.of("src/main/resources/mooncake-cluster.json"))
            .replace(
                "\"backend\": \"mooncake\",",
                "\"backend\": \"mooncake\", \"library\": \""
                    + library
                    + "\", \"operation_timeout_ms\": 2000,")
            .replace("\"512MB\"", "\"64MB\"")
            .replace("\"128MB\"", "\"32MB\""));
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Process app =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // -Dgraceful.shutdownGraceMillis=0 gives the provider's old behaviour (the hook
                // closes the client at once): then the requests fail, as this test guards against.
                "-Dmooncake.jcache.shutdownGraceMillis="
                    + System.getProperty("graceful.shutdownGraceMillis", "10000"),
                "-cp",
                System.getProperty("java.class.path"),
                BookstoreApplication.class.getName(),
                "--server.port=" + port,
                "--server.address=127.0.0.1",
                "--server.shutdown=graceful",
                "--spring.lifecycle.timeout-per-shutdown-phase=20s",
                "--spring.cache.jcache.config=" + config.toUri(),
                "--bookstore.catalog-latency=1500ms")
            .redirectErrorStream(true)
            .start();
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch startedOrEnded = new CountDownLatch(1);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(
                          app.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
                lines
                    .lines()
                    .forEach(
                        line -> {
                          log.add(line);
                          if (line.contains("Started BookstoreApplication")) {
                            startedOrEnded.countDown();
                          }
                        });
              } catch (Exception e) {
                log.add("log reader: " + e);
              } finally {
                startedOrEnded.countDown();
              }
            });
    reader.start();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    URI base = URI.create("http://127.0.0.1:" + port);
    try {
      assertThat(startedOrEnded.await(90, TimeUnit.SECONDS))
          .as("the application did not start within 90 s: %s", log)
          .isTrue();
      assertThat(app.isAlive()).as("the application ended: %s", log).isTrue();
      assertThat(statistics(http, base)).as("cache statistics before any request").isNotNull();

      // Misses: each takes the catalog's 1.5 s, then stores into the cache, after SIGTERM.
      List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
      for (String isbn : ISBNS) {
        inFlight.add(
            http.sendAsync(
                HttpRequest.newBuilder(base.resolve("/books/" + isbn))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
        inFlight.add(
            http.sendAsync(
                HttpRequest.newBuilder(base.resolve("/books/" + isbn + "/price"))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      awaitInsideTheApplication(http, base);
      long sigterm = System.nanoTime();
      app.destroy(); // SIGTERM: Spring's graceful shutdown and the provider's hook both start
      List<String> results = new ArrayList<>();
      for (CompletableFuture<HttpResponse<String>> request : inFlight) {
        HttpResponse<String> response = request.get(60, TimeUnit.SECONDS);
        results.add(response.statusCode() + " " + response.uri().getPath());
      }
      assertThat(app.waitFor(60, TimeUnit.SECONDS)).as("the application did not exit").isTrue();
      reader.join(5_000);
      long exitMillis = (System.nanoTime() - sigterm) / 1_000_000;
      System.out.println(
          "graceful shutdown: "
              + results
              + ", exit "
              + app.exitValue()
              + " "
              + exitMillis
              + " ms after SIGTERM");
      assertThat(results).as("log: %s", String.join("\n", log)).allMatch(r -> r.startsWith("200 "));
    } finally {
      app.destroyForcibly();
    }
  }

  /**
   * Until all six requests have asked their cache (each then waits 1.5 s in the catalog): "books"
   * was asked six times (three /books requests, three quotes looking the book up), "prices" three.
   */
  private static void awaitInsideTheApplication(HttpClient http, URI base) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    JsonNode stats = statistics(http, base);
    while (stats.path("books").path("gets").asLong() < 6
        || stats.path("prices").path("gets").asLong() < 3) {
      assertThat(System.nanoTime() < deadline)
          .as("the requests did not reach the caches within 20 s: %s", stats)
          .isTrue();
      stats = statistics(http, base);
    }
  }

  private static JsonNode statistics(HttpClient http, URI base) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(base.resolve("/cache-stats")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return new ObjectMapper().readTree(response.body());
  }
}
