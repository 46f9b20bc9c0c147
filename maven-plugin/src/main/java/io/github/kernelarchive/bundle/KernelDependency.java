package io.github.kernelarchive.bundle;

import java.nio.file.Path;

/**
 * A {@code <type>kernel</type>} dependency as Maven resolved it: its platform bundle.
 *
 * @param coordinates {@code groupId:artifactId:version}, for messages
 * @param folder the folder name it unpacks into under {@code target/kernel/deps} ({@code groupId.artifactId}):
 *     stable across versions, so a compile command that includes its headers stays the same
 * @param shared linked as its shared library (NEEDED by SONAME, copied beside this build's library)
 *     instead of privately from its archives
 */
public record KernelDependency(String coordinates, String folder, Path bundle, boolean shared) {
  /** A dependency linked privately, the default. */
  public KernelDependency(String coordinates, String folder, Path bundle) {
    this(coordinates, folder, bundle, false);
  }
}
