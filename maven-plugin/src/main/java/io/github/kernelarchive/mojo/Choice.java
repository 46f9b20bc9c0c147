package io.github.kernelarchive.mojo;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.maven.plugin.MojoFailureException;

/**
 * A parameter whose value is one of an enum's constants, written in lower case in the pom
 * ({@code static}, {@code stub}). Maven's own conversion would want {@code STATIC} and answer a
 * typo with a stack trace; this names the parameter and the values it takes.
 */
final class Choice {
  private Choice() {}

  static <E extends Enum<E>> E of(Class<E> type, String value, String parameter) throws MojoFailureException {
    for (E constant : type.getEnumConstants()) {
      if (constant.name().toLowerCase(Locale.ROOT).equals(value)) {
        return constant;
      }
    }
    throw new MojoFailureException(parameter + " is '" + value + "': use " + Arrays.stream(type.getEnumConstants())
        .map(c -> c.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining(", ")) + ".");
  }
}
