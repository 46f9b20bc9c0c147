package io.github.kernelarchive.stub;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What each stubbed function returns, read from the runtime's own headers: a stub returns the
 * missing-runtime value in one register whatever the function, and a caller that reads a pointer
 * from it (the message of {@code cudaGetErrorString}) would crash on an error code. So a function
 * declared to return {@code char *} gets a message, one returning another pointer gets
 * {@code NULL}, and the rest the missing-runtime value. The trampolines themselves need no
 * prototypes; only this choice does.
 */
final class ReturnKinds {
  enum Kind {
    /** Integers, enums, floating point, {@code void}: the dependency's missing-runtime value. */
    VALUE,
    /** Any pointer but a string: {@code NULL}. */
    POINTER,
    /** {@code char *}: a static message saying the runtime could not be loaded. */
    STRING
  }

  private static final Pattern COMMENTS = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);
  /** What may stand before a declaration's return type: the end of the statement or block before it. */
  private static final Pattern DECLARATION_START = Pattern.compile("[;{}]|^\\s*#[^\\n]*$|\\)\\s*$", Pattern.MULTILINE);

  private ReturnKinds() {}

  /** The kind of each of {@code functions} declared in {@code headers}; functions found in none are {@link Kind#VALUE}. */
  static Map<String, Kind> of(List<Path> headers, Collection<String> functions) throws IOException {
    Map<String, Kind> kinds = new HashMap<>();
    for (Path header : headers) {
      String text = COMMENTS.matcher(Files.readString(header, StandardCharsets.ISO_8859_1)).replaceAll(" ");
      for (String function : functions) {
        if (!kinds.containsKey(function)) {
          Kind kind = declared(text, function);
          if (kind != null) {
            kinds.put(function, kind);
          }
        }
      }
    }
    functions.forEach(f -> kinds.putIfAbsent(f, Kind.VALUE));
    return kinds;
  }

  /** The kind from the first declaration of {@code function} in {@code text}, or null when there is none. */
  static Kind declared(String text, String function) {
    Matcher name = Pattern.compile("(?<![\\w.>])" + Pattern.quote(function) + "\\s*\\(").matcher(text);
    while (name.find()) {
      String before = text.substring(Math.max(0, name.start() - 400), name.start());
      Matcher start = DECLARATION_START.matcher(before);
      int from = 0;
      while (start.find()) {
        from = start.end();
      }
      String returnType = before.substring(from).strip();
      // A call (return f(x);) or a macro use has no type before the name; a declaration does.
      if (returnType.isEmpty() || returnType.matches(".*\\b(return|if|while|define)\\b.*") || returnType.endsWith("=")) {
        continue;
      }
      if (!returnType.contains("*")) {
        return Kind.VALUE;
      }
      return returnType.matches("(?s).*\\bchar\\s*\\*.*") ? Kind.STRING : Kind.POINTER;
    }
    return null;
  }
}
