package dev.mooncake.jcache.internal.backend.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.mooncake.jcache.config.MooncakeConfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Re-discovery of the pool after it restarts under a new segment name, against a fake master
 * metrics endpoint ({@code /get_segments_detail} answered by a JDK HTTP server on loopback).
 */
class PoolPlacementTest {
  private static final long LOCKS = 16L << 20;
  private static final String OWN = "127.0.0.1:12836";
  private static final Duration RETIRE = Duration.ofSeconds(60);

  private HttpServer master;
  private volatile String answer;
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicLong clock = new AtomicLong();

  /** A replicate config stand-in: its segments, and whether it was closed. */
  private static final class Config implements AutoCloseable {
    final List<String> segments;
    volatile boolean closed;

    Config(List<String> segments) {
      this.segments = segments;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @BeforeEach
  void startMaster() throws Exception {
    master = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    master.createContext(
        "/get_segments_detail",
        exchange -> {
          requests.incrementAndGet();
          byte[] body = answer.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    master.start();
  }

  @AfterEach
  void stopMaster() {
    master.stop(0);
  }

  private static String detail(String... pools) {
    StringBuilder segments = new StringBuilder(segment(OWN, LOCKS));
    for (String pool : pools) {
      segments.append(',').append(segment(pool, 256L << 20));
    }
    return "{\"segments\":[" + segments + "]}";
  }

  private static String segment(String name, long size) {
    return "{\"segment_name\":\"" + name + "\",\"size_bytes\":" + size + ",\"status\":\"OK\"}";
  }

  private MooncakeConfig config() {
    TestConfig config = new TestConfig();
    config.mode = MooncakeConfig.Mode.STANDALONE_STORE;
    config.globalSegmentSize = 0;
    config.lockSegmentSize = LOCKS;
    return config.build().toBuilder()
        .masterMetricsAddress("127.0.0.1:" + master.getAddress().getPort())
        .build();
  }

  private PoolPlacement<Config> manual(List<String> initial) {
    MooncakeConfig config = config();
    assertTrue(PoolSegments.discovers(config));
    return new PoolPlacement<>( // no refresher thread: the test refreshes, on its clock
        initial, Config::new, () -> PoolSegments.discover(config, OWN), clock::get, RETIRE, null);
  }

  @Test
  void aPoolUnderANewNameIsFoundAndTheOldConfigClosedOnlyAfterPutsCannotUseIt() {
    answer = detail("127.0.0.1:13801");
    PoolPlacement<Config> placement = manual(List.of("127.0.0.1:13801"));
    Config first = placement.config();
    assertFalse(placement.refresh(), "the same pool: nothing changes");
    assertSame(first, placement.config());

    answer = detail("127.0.0.1:15999"); // the pool restarted: another port
    assertTrue(placement.refresh());
    assertEquals(List.of("127.0.0.1:15999"), placement.config().segments);
    assertEquals(List.of("127.0.0.1:15999"), placement.segments());
    assertFalse(first.closed, "a put that read the old config may still be using it");

    clock.addAndGet(RETIRE.toNanos() - 1);
    assertFalse(placement.refresh());
    assertFalse(first.closed);
    clock.addAndGet(1);
    assertFalse(placement.refresh());
    assertTrue(first.closed, "given up for the retire bound: closed");
    assertEquals(0, placement.retiredOpen());

    Config second = placement.config();
    placement.close();
    assertTrue(second.closed);
  }

  @Test
  void noPoolMountedOrNoAnswerKeepsTheCurrentPools() {
    answer = detail("127.0.0.1:13801");
    PoolPlacement<Config> placement = manual(List.of("127.0.0.1:13801"));
    Config first = placement.config();
    answer = detail(); // the pool is down, only lock segments are mounted
    assertFalse(placement.refresh());
    answer = "<html>not json</html>";
    assertFalse(placement.refresh());
    master.stop(0); // the master's admin port does not answer
    assertFalse(placement.refresh());
    assertSame(first, placement.config());
    assertEquals(List.of("127.0.0.1:13801"), placement.segments());
    placement.close();
    assertTrue(first.closed);
  }

  @Test
  void closingClosesTheConfigsGivenUpToo() {
    answer = detail("127.0.0.1:13801");
    PoolPlacement<Config> placement = manual(List.of("127.0.0.1:13801"));
    Config first = placement.config();
    answer = detail("127.0.0.1:14000", "127.0.0.1:13801");
    assertTrue(placement.refresh(), "a second pool joined");
    assertEquals(1, placement.retiredOpen());
    placement.close();
    assertTrue(first.closed);
    assertTrue(placement.config().closed);
    assertFalse(placement.refresh(), "closed: no new config");
  }

  @Test
  void theRefresherListsThePoolsAgainOnItsOwn() throws Exception {
    answer = detail("127.0.0.1:13801");
    MooncakeConfig config = config();
    CountDownLatch madeForNewPool = new CountDownLatch(1);
    Function<List<String>, Config> make =
        segments -> {
          if (segments.equals(List.of("127.0.0.1:15999"))) {
            madeForNewPool.countDown();
          }
          return new Config(segments);
        };
    PoolPlacement<Config> placement =
        PoolPlacement.rediscovering(
            List.of("127.0.0.1:13801"),
            make,
            () -> PoolSegments.discover(config, OWN),
            Duration.ofMillis(100),
            RETIRE);
    try {
      answer = detail("127.0.0.1:15999");
      // 100 ms interval; 10 s tells a refresher that never runs from a slow machine
      assertTrue(madeForNewPool.await(10, TimeUnit.SECONDS), "not listed again");
    } finally {
      placement.close(); // the swap happens under the placement's lock: done once close has it
    }
    assertTrue(requests.get() >= 1);
    assertEquals(List.of("127.0.0.1:15999"), placement.segments());
    assertTrue(placement.config().closed);
  }
}
