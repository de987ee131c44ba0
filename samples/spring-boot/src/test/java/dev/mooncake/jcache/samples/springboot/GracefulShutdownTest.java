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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bookstore on the Mooncake backend (over the test-only fake library) is sent SIGTERM, with
 * requests that will use the cache in flight, and without. With server.shutdown=graceful Spring
 * lets the requests finish, then closes its cache manager, all in its own shutdown hook; the
 * provider's hook runs at the same time. Every in-flight request must still succeed (the provider's
 * hook waits while Spring's runs, and closes the Mooncake client only after Spring closed the
 * manager), nothing may be logged at WARN or ERROR, and the JVM must exit promptly once Spring is
 * done. Runs the application in a JVM of its own, since the subject is the JVM's exit.
 */
class GracefulShutdownTest {
  private static final String[] ISBNS = {"978-0134685991", "978-0321349606", "978-1617294945"};

  /**
   * The provider's part of the exit: once Spring's hook is done, the hook's close of the client and
   * the JVM's teardown take well under a second; the rest is slack for a loaded machine. A hook
   * that waited for managers nobody closes would take 10 s.
   */
  private static final long EXIT_WITHIN_MILLIS = 2_000;

  /** docker stop's SIGKILL comes this long after its SIGTERM. */
  private static final long KILL_AFTER_MILLIS = 10_000;

  @TempDir Path dir;

  /** The application's JVM and its log (stdout and stderr), read from its start. */
  private record App(Process process, List<String> log, Thread reader) {}

  private App start(int port) throws Exception {
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
    Process app =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", // JEP 472, as the sample's README says
                // -Dgraceful.shutdownGraceMillis=0: the provider's hook closes the client at once,
                // without waiting for Spring; then requests fail, as this test guards against.
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
                      new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8))) {
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
    assertThat(startedOrEnded.await(90, TimeUnit.SECONDS))
        .as("the application did not start within 90 s: %s", log)
        .isTrue();
    assertThat(app.isAlive()).as("the application ended: %s", log).isTrue();
    return new App(app, log, reader);
  }

  /** SIGTERM through kill(1): Process.destroy() would also close the pipe the log comes from. */
  private static void sigterm(App app) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-TERM", Long.toString(app.process().pid())).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -TERM").isZero();
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void requestsInFlightWhileTheApplicationShutsDownAllSucceed() throws Exception {
    int port = freePort();
    App app = start(port);
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    URI base = URI.create("http://127.0.0.1:" + port);
    try {
      assertThat(statistics(http, base)).as("cache statistics before any request").isNotNull();

      // Misses: each takes the catalog's 1.5 s, then stores into the cache, after SIGTERM.
      List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
      for (String isbn : ISBNS) {
        inFlight.add(send(http, base.resolve("/books/" + isbn)));
        inFlight.add(send(http, base.resolve("/books/" + isbn + "/price")));
      }
      awaitInsideTheApplication(http, base);
      long sigterm = System.nanoTime();
      sigterm(app); // Spring's graceful shutdown and the provider's hook start
      List<String> results = new ArrayList<>();
      for (CompletableFuture<HttpResponse<String>> request : inFlight) {
        try {
          HttpResponse<String> response = request.get(60, TimeUnit.SECONDS);
          results.add(response.statusCode() + " " + response.uri().getPath());
        } catch (ExecutionException e) {
          results.add("no answer: " + e.getCause()); // the JVM ended under the request
        }
      }
      long answered = System.nanoTime();
      assertThat(app.process().waitFor(60, TimeUnit.SECONDS))
          .as("the application did not exit")
          .isTrue();
      long exited = System.nanoTime();
      app.reader().join(5_000);
      long exitMillis = (exited - sigterm) / 1_000_000;
      long afterAnswersMillis = (exited - answered) / 1_000_000;
      System.out.println(
          "graceful shutdown: "
              + results
              + ", exit "
              + app.process().exitValue()
              + " "
              + exitMillis
              + " ms after SIGTERM, "
              + afterAnswersMillis
              + " ms after the last answer");
      String log = String.join("\n", app.log());
      assertThat(results).as("log: %s", log).allMatch(r -> r.startsWith("200 "));
      assertOrderlyExit(app.log());
      assertThat(afterAnswersMillis)
          .as(
              "the JVM exited %d ms after the last in-flight request was answered; the bound is"
                  + " %d ms (Spring closing its context, the provider closing the client and the"
                  + " JVM's teardown; the rest is slack for a loaded machine): %s",
              afterAnswersMillis, EXIT_WITHIN_MILLIS, log)
          .isLessThanOrEqualTo(EXIT_WITHIN_MILLIS);
    } finally {
      app.process().destroyForcibly();
    }
  }

  @Test
  void anIdleApplicationStopsLikeDockerStopWithoutTheKill() throws Exception {
    App app = start(freePort());
    try {
      long sigterm = System.nanoTime();
      sigterm(app); // as docker stop sends first
      boolean exited = app.process().waitFor(KILL_AFTER_MILLIS, TimeUnit.MILLISECONDS);
      long exitMillis = (System.nanoTime() - sigterm) / 1_000_000;
      app.reader().join(5_000);
      String log = String.join("\n", app.log());
      assertThat(exited)
          .as("still running %d ms after SIGTERM: docker stop would kill it: %s", exitMillis, log)
          .isTrue();
      System.out.println(
          "idle application: exit "
              + app.process().exitValue()
              + " "
              + exitMillis
              + " ms after SIGTERM");
      assertOrderlyExit(app.log());
      assertThat(exitMillis)
          .as(
              "the JVM exited %d ms after SIGTERM; the bound is %d ms (Spring's shutdown, the"
                  + " provider's close and the JVM's teardown take well under a second; the rest is"
                  + " slack for a loaded machine): %s",
              exitMillis, EXIT_WITHIN_MILLIS, log)
          .isLessThanOrEqualTo(EXIT_WITHIN_MILLIS);
    } finally {
      app.process().destroyForcibly();
    }
  }

  /**
   * The provider's hook waited while Spring's ran (Spring closes its cache manager in it), and
   * nothing complained. The hook's own last lines ("closing", "closed the client") come after
   * Spring's hook, which stops Spring Boot's logging system as its last act: they are not in the
   * log.
   */
  private static void assertOrderlyExit(List<String> lines) {
    String log = String.join("\n", lines);
    assertThat(lines)
        .as("WARN or ERROR lines, or a stack trace, in the log: %s", log)
        .noneMatch(
            line ->
                !line.startsWith("WARNING: ") // the JDK's own warnings, not the app's
                    && (line.contains(" WARN ")
                        || line.contains(" ERROR ")
                        || line.contains("Exception")
                        || line.startsWith("\tat ")));
    assertThat(log)
        .as("the provider's hook did not wait for Spring's")
        .contains("while thread SpringApplicationShutdownHook runs");
  }

  private static CompletableFuture<HttpResponse<String>> send(HttpClient http, URI uri) {
    return http.sendAsync(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
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
