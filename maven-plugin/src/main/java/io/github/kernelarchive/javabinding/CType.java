package io.github.kernelarchive.javabinding;

/**
 * A C type as the Java binding sees it: a scalar with its FFM layout and Java type, a pointer, a
 * struct (by its Java class), void, or something it cannot map, with the reason.
 */
sealed interface CType {
  /** {@code int} is {@code JAVA_INT} and {@code int}, and so on. */
  record Scalar(String layout, String javaType) implements CType {}

  /** Any data or function pointer: {@code ADDRESS}, a {@code MemorySegment}. */
  record Pointer(String pointee) implements CType {}

  /** A struct or union by value. */
  record Struct(String cName) implements CType {}

  record Void() implements CType {}

  /** @param why what it is, for the error message */
  record Unmappable(String why) implements CType {}

  Scalar INT = new Scalar("JAVA_INT", "int");
  Scalar LONG = new Scalar("JAVA_LONG", "long");
}
