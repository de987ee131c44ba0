package dev.mooncake.jcache;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Prints every thread's stack to stderr when a test is still running shortly before the build's
 * test time-out ({@code junit.jupiter.execution.timeout.default}, set in the surefire
 * configuration), so that a hang fails the build with a thread dump of where it hung (JUnit 5.11
 * interrupts the test at the time-out but prints no dump). Registered for every test of this module
 * by auto-detection ({@code META-INF/services}).
 */
public final class HangDump implements BeforeEachCallback, AfterEachCallback {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(HangDump.class);
  private static final Pattern DURATION = Pattern.compile("\\s*(\\d+)\\s*(ms|s|m|h|d)?\\s*");
  private static final long BEFORE_TIME_OUT_MS = 10_000;

  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "hang-dump");
            thread.setDaemon(true);
            return thread;
          });

  @Override
  public void beforeEach(ExtensionContext context) {
    Optional<String> timeOut =
        context.getConfigurationParameter("junit.jupiter.execution.timeout.default");
    long millis = timeOut.map(HangDump::millis).orElse(0L);
    if (millis <= 0) {
      return;
    }
    String test = context.getDisplayName() + " in " + context.getRequiredTestClass().getName();
    ScheduledFuture<?> dump =
        TIMER.schedule(
            () -> dump(test), Math.max(1, millis - BEFORE_TIME_OUT_MS), TimeUnit.MILLISECONDS);
    context.getStore(NAMESPACE).put("dump", dump);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    ScheduledFuture<?> dump = context.getStore(NAMESPACE).remove("dump", ScheduledFuture.class);
    if (dump != null) {
      dump.cancel(false);
    }
  }

  /** JUnit's duration syntax ({@code 10 m}, {@code 30s}, {@code 500 ms}); 0 when unreadable. */
  static long millis(String text) {
    Matcher m = DURATION.matcher(text);
    if (!m.matches()) {
      return 0;
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> n;
      case "s" -> TimeUnit.SECONDS.toMillis(n);
      case "m" -> TimeUnit.MINUTES.toMillis(n);
      case "h" -> TimeUnit.HOURS.toMillis(n);
      default -> TimeUnit.DAYS.toMillis(n);
    };
  }

  private static void dump(String test) {
    StringBuilder out =
        new StringBuilder("HANG: " + test + " is near the test time-out; every thread:\n");
    for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
      out.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
      if (info.getLockName() != null) {
        out.append(" on ").append(info.getLockName());
      }
      out.append('\n');
      for (StackTraceElement frame : info.getStackTrace()) {
        out.append("    at ").append(frame).append('\n');
      }
    }
    System.err.print(out);
  }
}
