package io.github.kernelarchive.javabinding;

/**
 * A C type as the Java binding sees it: a scalar with its FFM layout and Java type, a pointer, a
 * struct or union held by value (by its C name), an array of known length, a bit-field, void, or
 * something it cannot map, with the reason.
 */
sealed interface CType {
  /** {@code int} is {@code JAVA_INT} and {@code int}, and so on. */
  record Scalar(String layout, String javaType) implements CType {}

  /** Any data or function pointer: {@code ADDRESS}, a {@code MemorySegment}. */
  record Pointer(String pointee) implements CType {}

  /** A struct or union by value: its layout is the group layout of its class, a {@code MemorySegment} in Java. */
  record Struct(String cName) implements CType {}

  /** {@code float x[4]}: a sequence layout of {@code count} elements. */
  record Array(CType element, long count) implements CType {}

  /** A bit-field of {@code width} bits, which no layout can address: skipped, with a warning. */
  record BitField(int width) implements CType {}

  record Void() implements CType {}

  /** @param why what it is, and what to declare instead, for the error message */
  record Unmappable(String why) implements CType {}

  Scalar INT = new Scalar("JAVA_INT", "int");
  Scalar LONG = new Scalar("JAVA_LONG", "long");
}
