package io.github.kernelarchive.bundle;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.util.ProjectTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Packs what a build left in {@code target/kernel} into the two files a kernel library is
 * published as: the platform bundle ({@code <artifact>-<version>-<platform>.kernel}: metadata,
 * public headers, every static archive and the shared library) and the platform-neutral main
 * artifact ({@code <artifact>-<version>.kernel}: metadata and headers), which Maven resolves for a
 * {@code <type>kernel</type>} dependency before the consumer fetches the bundle of its platform.
 */
public final class BundlePackager {
  private BundlePackager() {}

  /**
   * @param project the project's folder: no header from outside it is packed (a symbolic link out fails)
   * @param headers the public headers' folder; may be missing (a library without headers)
   * @param time every entry's modification time
   */
  public static BundleMetadata pack(Path project, Path outputDirectory, Path headers, Path platformBundle,
      Path mainArtifact, FileTime time) throws IOException, BuildFailureException {
    Path metadataFile = outputDirectory.resolve(BundleMetadata.FILE);
    if (!Files.isRegularFile(metadataFile)) {
      throw new BuildFailureException(metadataFile + " is missing: the bundle is made from what the build goal"
          + " leaves there. Run the build goal first (phase compile), e.g. mvn package.");
    }
    byte[] metadataBytes = Files.readAllBytes(metadataFile);
    BundleMetadata metadata;
    try {
      metadata = BundleMetadata.parse(metadataBytes, metadataFile.toString());
    } catch (BundleException e) {
      throw new BuildFailureException(e.getMessage());
    }
    List<BundleWriter.Entry> common = new ArrayList<>();
    common.add(BundleWriter.Entry.bytes(BundleMetadata.FILE, metadataBytes));
    for (Map.Entry<String, Path> header : ProjectTree.files(headers, project, "include/", "kernel bundle", p -> false)
        .entrySet()) {
      common.add(BundleWriter.Entry.file(header.getKey(), header.getValue()));
    }
    List<BundleWriter.Entry> platform = new ArrayList<>(common);
    List<String> libraries = new ArrayList<>(metadata.archives());
    libraries.add("lib" + metadata.library() + ".so");
    for (String name : libraries) {
      Path file = outputDirectory.resolve(name);
      if (!Files.isRegularFile(file)) {
        throw new BuildFailureException(file + " is missing, though " + metadataFile + " lists it: run the build"
            + " goal again (mvn package).");
      }
      platform.add(BundleWriter.Entry.file("lib/" + name, file));
    }
    BundleWriter.write(platformBundle, platform, time);
    if (mainArtifact != null) {
      BundleWriter.write(mainArtifact, common, time);
    }
    return metadata;
  }
}
