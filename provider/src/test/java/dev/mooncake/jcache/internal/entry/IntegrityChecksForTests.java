package dev.mooncake.jcache.internal.entry;

/**
 * The test-only switch of the value checks (checksum and owner hash, {@link
 * ValueHeader#ownershipChecked}): a history peer started with {@link #OFF_VARIABLE}{@code =1} in
 * its environment reads values unchecked, so the history tests' negative control can show that they
 * find foreign reads when nothing stops them.
 */
public final class IntegrityChecksForTests {
  /** The environment variable a peer JVM reads at start. */
  public static final String OFF_VARIABLE = "MCJ_TEST_VALUE_CHECKS_OFF";

  private IntegrityChecksForTests() {}

  /** Turns the checks off in this JVM when its environment asks for it; call before any cache. */
  public static void applyEnvironment() {
    if ("1".equals(System.getenv(OFF_VARIABLE))) {
      ValueHeader.ownershipChecked = false;
      System.err.println("value checks (checksum, owner hash) OFF in this JVM: a test control");
    }
  }
}
