package dev.mooncake.jcache.backend;

import java.util.HashMap;
import java.util.Map;

/**
 * Mooncake Store's result codes, with their names as Mooncake spells them, but for -1: its C ABI
 * answers -1 both for a bad argument or an exception caught in the C layer and for the C++
 * {@code INTERNAL_ERROR}, and nothing tells the two apart, so the name says both.
 */
public enum StoreStatus {
  OK(0),
  INTERNAL_ERROR_OR_INVALID_ARGUMENT(-1),
  BUFFER_OVERFLOW(-10),
  SEGMENT_NOT_FOUND(-101),
  NO_AVAILABLE_HANDLE(-200),
  INVALID_PARAMS(-600),
  ILLEGAL_CLIENT(-601),
  REPLICA_IS_NOT_READY(-703),
  OBJECT_NOT_FOUND(-704),
  OBJECT_ALREADY_EXISTS(-705),
  OBJECT_HAS_LEASE(-706),
  LEASE_EXPIRED(-707),
  OBJECT_HAS_REPLICATION_TASK(-708),
  REPLICA_IS_BUSY(-714),
  TRANSFER_FAIL(-800),
  CHECKSUM_MISMATCH(-801),
  RPC_FAIL(-900),
  RPC_TIMEOUT(-901),
  UNAVAILABLE_IN_CURRENT_STATUS(-1010),
  UNAVAILABLE_IN_CURRENT_MODE(-1011),
  NOT_SUPPORTED(-1012),
  TENANT_QUOTA_EXCEEDED(-1700),
  TENANT_NOT_REGISTERED(-1701);

  private static final Map<Long, StoreStatus> BY_CODE = new HashMap<>();

  static {
    for (StoreStatus status : values()) {
      BY_CODE.put((long) status.code, status);
    }
  }

  private final int code;

  StoreStatus(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The status for a code, or {@code null} when Mooncake's table has no such code. */
  public static StoreStatus of(long code) {
    return BY_CODE.get(code);
  }

  /** {@code "-200 NO_AVAILABLE_HANDLE"}, or {@code "-42 UNKNOWN"} for a code not in the table. */
  public static String describe(long code) {
    StoreStatus status = of(code);
    if (status == INTERNAL_ERROR_OR_INVALID_ARGUMENT) {
      return "-1 INTERNAL_ERROR_OR_INVALID_ARGUMENT (Mooncake's C ABI answers -1 for an invalid"
          + " argument, an exception inside the library, and an internal error alike)";
    }
    return code + " " + (status == null ? "UNKNOWN" : status.name());
  }
}
