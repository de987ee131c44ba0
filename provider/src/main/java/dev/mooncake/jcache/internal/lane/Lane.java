package dev.mooncake.jcache.internal.lane;

/**
 * The kinds of store call, each of which may have its own worker pool (LMCache's four lanes: {@code
 * lookup}, {@code retrieve}, {@code store}, {@code delete}).
 */
public enum Lane {
  /**
   * {@code is_exist}: {@code containsKey} where the master's metadata can answer it (entries that
   * cannot expire; docs/lanes.md).
   */
  LOOKUP("lookup"),
  /** {@code get_into} / {@code batch_get_into}. */
  RETRIEVE("retrieve"),
  /** {@code put_from} / {@code batch_put_from}, and the checks that a replacing put landed. */
  STORE("store"),
  /** {@code remove} / {@code remove_by_regex}. */
  DELETE("delete");

  private final String configKey;

  Lane(String configKey) {
    this.configKey = configKey;
  }

  /** The key naming this lane in {@code per_op_workers}. */
  public String configKey() {
    return configKey;
  }

  /** The lane for a {@code per_op_workers} key, or {@code null}. */
  public static Lane fromConfigKey(String key) {
    for (Lane lane : values()) {
      if (lane.configKey.equals(key)) {
        return lane;
      }
    }
    return null;
  }
}
