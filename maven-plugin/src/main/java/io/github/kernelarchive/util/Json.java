package io.github.kernelarchive.util;

/**
 * The one piece of JSON writing the plugin needs: string literals (compile_commands.json and
 * trace.json are flat arrays of records built with a StringBuilder). A JSON library would add a
 * dependency to every user's plugin class path for these dozen lines.
 */
public final class Json {
  private Json() {}

  public static String quote(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
