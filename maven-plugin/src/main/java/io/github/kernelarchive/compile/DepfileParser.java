package io.github.kernelarchive.compile;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the Makefile-syntax dependency files written by {@code gcc -MD}, {@code clang -MD} and
 * {@code nvcc -MD}: {@code target: prereq prereq \}. Handles line continuations, spaces escaped as
 * {@code "\ "}, {@code "\#"}, {@code "$$"}, several targets, several rules ({@code -MP} phony rules)
 * and nvcc's {@code "target : prereq"} spacing.
 */
public final class DepfileParser {
  private DepfileParser() {}

  /** The prerequisites of every rule, in first-seen order, without duplicates. */
  public static List<String> prerequisites(String depfile) {
    Set<String> result = new LinkedHashSet<>();
    for (String line : logicalLines(depfile)) {
      List<Token> tokens = tokenize(line);
      int separator = -1;
      for (int i = 0; i < tokens.size(); i++) {
        if (tokens.get(i).endsRule) {
          separator = i;
          break;
        }
      }
      if (separator < 0) {
        continue; // not a rule (blank line, comment, variable assignment)
      }
      for (int i = separator + 1; i < tokens.size(); i++) {
        result.add(tokens.get(i).text);
      }
    }
    return List.copyOf(result);
  }

  /** Joins backslash-newline continuations and splits the rest into lines. */
  private static List<String> logicalLines(String text) {
    List<String> lines = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c == '\\' && i + 1 < n && (text.charAt(i + 1) == '\n' || text.charAt(i + 1) == '\r')) {
        i++;
        if (text.charAt(i) == '\r' && i + 1 < n && text.charAt(i + 1) == '\n') {
          i++;
        }
        current.append(' ');
      } else if (c == '\n' || c == '\r') {
        lines.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    lines.add(current.toString());
    return lines;
  }

  /**
   * A word of a rule line; {@code endsRule} marks the colon that closes the target list (one
   * followed by whitespace or the end of the line, so {@code C:} inside a name is not taken).
   */
  private record Token(String text, boolean endsRule) {}

  private static List<Token> tokenize(String line) {
    List<Token> tokens = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean sawRule = false;
    int n = line.length();
    for (int i = 0; i < n; i++) {
      char c = line.charAt(i);
      if (c == '\\' && i + 1 < n && (line.charAt(i + 1) == ' ' || line.charAt(i + 1) == '#'
          || line.charAt(i + 1) == '\t')) {
        word.append(line.charAt(++i));
      } else if (c == '$' && i + 1 < n && line.charAt(i + 1) == '$') {
        word.append('$');
        i++;
      } else if (c == ' ' || c == '\t') {
        flush(tokens, word);
      } else if (c == ':' && !sawRule && (i + 1 == n || line.charAt(i + 1) == ' ' || line.charAt(i + 1) == '\t')) {
        flush(tokens, word);
        tokens.add(new Token(":", true));
        sawRule = true;
      } else {
        word.append(c);
      }
    }
    flush(tokens, word);
    return tokens;
  }

  private static void flush(List<Token> tokens, StringBuilder word) {
    if (word.length() > 0) {
      tokens.add(new Token(word.toString(), false));
      word.setLength(0);
    }
  }
}
