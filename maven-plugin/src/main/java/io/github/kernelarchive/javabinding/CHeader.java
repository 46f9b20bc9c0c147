package io.github.kernelarchive.javabinding;

import java.util.List;

/**
 * The declarations of a public header the Java binding covers, as a C front end read them: its
 * functions, the structs they pass, the enums' constants.
 *
 * @param functions in header order
 * @param structs every struct and union the header declares, by its name (a typedef's for an anonymous one)
 * @param enums every enum the header declares
 */
record CHeader(List<Function> functions, List<Struct> structs, List<Enum> enums) {
  /** @param location {@code kernels.h:12}, for messages */
  record Function(String name, CType returns, List<Parameter> parameters, boolean variadic, String location) {}

  record Parameter(String name, CType type) {}

  /**
   * A struct or union.
   *
   * @param size and @param align in bytes; @param fields in order, with their offsets in bytes
   * @param union whether its fields overlap
   * @param typedefName whether {@code name} is a typedef's, naming an anonymous struct
   */
  record Struct(String name, long size, long align, List<Field> fields, String location, boolean union,
      boolean typedefName) {
    /** {@code struct x}, {@code union x}, or for an anonymous one its typedef's name alone. */
    String cDeclaration() {
      return typedefName ? name : (union ? "union " : "struct ") + name;
    }
  }

  /** @param type null when it cannot be mapped; @param why then says why */
  record Field(String name, CType type, long offset, long size, String location) {}

  record Enum(String name, List<Constant> constants) {}

  record Constant(String name, long value) {}
}
