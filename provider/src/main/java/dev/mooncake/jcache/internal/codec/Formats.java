package dev.mooncake.jcache.internal.codec;

/** The format bytes written into value headers and key encodings. Never renumber one. */
final class Formats {
  static final byte STRING = 1;
  static final byte BYTES = 2;
  static final byte LONG = 3;
  static final byte INTEGER = 4;
  static final byte DOUBLE = 5;
  static final byte FLOAT = 6;
  static final byte SHORT = 7;
  static final byte BYTE = 8;
  static final byte BOOLEAN = 9;
  static final byte CHARACTER = 10;
  static final byte JAVA_SERIALIZATION = 20;

  private Formats() {}
}
