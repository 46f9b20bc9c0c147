package io.github.kernelarchive.wheel;

import io.github.kernelarchive.common.BuildFailureException;
import java.util.Locale;
import java.util.regex.Pattern;

/** A Python distribution's name: checked as the core metadata asks, normalized as PEP 503 says. */
public final class DistributionName {
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]");

  private DistributionName() {}

  /** {@code Kernel_Archive.MHA} is {@code kernel-archive-mha}. */
  public static String normalize(String name) throws BuildFailureException {
    if (!VALID.matcher(name).matches()) {
      throw new BuildFailureException("The wheel's name '" + name + "' is no valid distribution name: letters, digits,"
          + " '.', '_' and '-', starting and ending with a letter or digit. Set <wheel><name>.");
    }
    return name.replaceAll("[-_.]+", "-").toLowerCase(Locale.ROOT);
  }

  /** The name as it appears in the wheel's file name and {@code .dist-info} folder: {@code kernel_archive_mha}. */
  public static String fileComponent(String name) throws BuildFailureException {
    return normalize(name).replace('-', '_');
  }
}
