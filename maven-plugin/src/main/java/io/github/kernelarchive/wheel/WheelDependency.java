package io.github.kernelarchive.wheel;

/**
 * A library the wheel's library needs that another wheel provides: it becomes a
 * {@code Requires-Dist} and an {@code $ORIGIN}-relative RPATH entry into {@code folder}.
 *
 * @param foundBy how it was matched, for the log
 */
public record WheelDependency(String library, String distribution, String requirement, String folder, String foundBy) {
  /** The {@code Requires-Dist} value: {@code nvidia-nvshmem-cu13>=3.4.5,<4}. */
  public String requiresDist() {
    return distribution + requirement;
  }
}
