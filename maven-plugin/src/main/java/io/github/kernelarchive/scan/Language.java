package io.github.kernelarchive.scan;

import java.util.Locale;
import java.util.Optional;

/** The source languages the plugin compiles, chosen by file extension. */
public enum Language {
  C("CC", ".c"),
  CXX("CXX", ".cc", ".cpp", ".cxx"),
  CUDA("CUDA", ".cu"),
  HIP("HIP", ".hip");

  private final String label;
  private final String[] extensions;

  Language(String label, String... extensions) {
    this.label = label;
    this.extensions = extensions;
  }

  /** Short tag used in progress lines: {@code [3/12] CUDA fwd/hdim64.cu}. */
  public String label() {
    return label;
  }

  public static Optional<Language> ofFileName(String fileName) {
    String lower = fileName.toLowerCase(Locale.ROOT);
    for (Language language : values()) {
      for (String extension : language.extensions) {
        if (lower.endsWith(extension)) {
          return Optional.of(language);
        }
      }
    }
    return Optional.empty();
  }
}
