package io.github.kernelarchive.wheel;

import io.github.kernelarchive.common.BuildFailureException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Maven version as PEP 440 writes it: {@code 1.2.0-SNAPSHOT} is {@code 1.2.0.dev0},
 * {@code 1.0-rc1} is {@code 1.0rc1}, {@code 1.0-alpha-2} is {@code 1.0a2}, {@code 1.0-beta} is
 * {@code 1.0b0}, {@code 1.0-3} (a build number) is {@code 1.0.post3}. Anything else (milestones,
 * qualifiers such as {@code Final} or {@code jdk17}) has no PEP 440 form and fails the build,
 * naming the version and the fix.
 */
public final class PythonVersion {
  private static final Pattern MAVEN = Pattern.compile(
      "(\\d+(?:\\.\\d+)*)(?:[-.]?(alpha|a|beta|b|rc|cr|c)[-.]?(\\d*))?(?:-(\\d+))?(-SNAPSHOT)?",
      Pattern.CASE_INSENSITIVE);
  /** PEP 440's public version, in its normalized form. */
  private static final Pattern PEP440 = Pattern.compile(
      "(\\d+!)?\\d+(\\.\\d+)*((a|b|rc)\\d+)?(\\.post\\d+)?(\\.dev\\d+)?");

  private PythonVersion() {}

  /** @param parameter where the version came from, for the error ({@code project.version}) */
  public static String of(String mavenVersion, String parameter) throws BuildFailureException {
    Matcher m = MAVEN.matcher(mavenVersion.trim());
    if (!m.matches()) {
      throw new BuildFailureException("The version '" + mavenVersion + "' (" + parameter + ") has no PEP 440 form:"
          + " a wheel's version is numbers with an optional alpha, beta or rc, a build number and -SNAPSHOT"
          + " (1.2.0, 1.0-rc1, 1.0-SNAPSHOT). Set <wheel><version> to the Python version to publish, e.g. 1.0rc1.");
    }
    StringBuilder version = new StringBuilder(m.group(1));
    if (m.group(2) != null) {
      String kind = switch (m.group(2).toLowerCase(Locale.ROOT)) {
        case "alpha", "a" -> "a";
        case "beta", "b" -> "b";
        default -> "rc";
      };
      version.append(kind).append(m.group(3).isEmpty() ? "0" : Integer.parseInt(m.group(3)));
    }
    if (m.group(4) != null) {
      version.append(".post").append(Integer.parseInt(m.group(4)));
    }
    if (m.group(5) != null) {
      version.append(".dev0");
    }
    return version.toString();
  }

  /** A version given as PEP 440 already ({@code <wheel><version>}), checked to be in normalized form. */
  public static String checked(String pep440) throws BuildFailureException {
    if (!PEP440.matcher(pep440).matches()) {
      throw new BuildFailureException("<wheel><version> is '" + pep440 + "', which is no normalized PEP 440 version"
          + " (e.g. 1.2.0, 1.0rc1, 1.0.post1, 1.2.0.dev0).");
    }
    return pep440;
  }
}
