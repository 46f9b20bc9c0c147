package io.github.kernelarchive.mojo;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.nativejar.NativeJarMerger;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;

/**
 * Merges per-platform kernel jars into one jar that holds every platform,
 * {@code target/<finalName>-multiplatform.jar}, and attaches it. The jars are those this module
 * depends on (what a CI matrix deployed: one {@code <classifier>} per platform, resolved from the
 * repository like any dependency) and those its own earlier executions attached (one execution
 * per platform where their settings differ, as in native/).
 */
@Mojo(name = "jar-merge", defaultPhase = LifecyclePhase.PACKAGE, requiresDependencyResolution = ResolutionScope.RUNTIME,
    threadSafe = true)
public class JarMergeMojo extends PackagingMojo {
  /** The library to merge; default the one kernel library among the dependencies. */
  @Parameter(property = "kernel.library")
  private String library;

  /** The merged jar's classifier. */
  @Parameter(property = "kernel.jar.classifier", defaultValue = "multiplatform")
  private String mergedClassifier;

  @Override
  protected void run() throws MojoExecutionException, MojoFailureException {
    List<Path> jars = new ArrayList<>();
    TreeSet<String> libraries = new TreeSet<>();
    try {
      List<Artifact> candidates = new ArrayList<>(project.getArtifacts());
      for (Artifact attached : project.getAttachedArtifacts()) {
        if (!mergedClassifier.equals(attached.getClassifier())) {
          candidates.add(attached);
        }
      }
      for (Artifact artifact : candidates) {
        if (artifact.getFile() == null || !artifact.getFile().getName().endsWith(".jar")) {
          continue;
        }
        jars.add(artifact.getFile().toPath());
        try (ZipFile zip = ZipFile.builder().setFile(artifact.getFile()).get()) {
          for (ZipArchiveEntry entry : Collections.list(zip.getEntries())) {
            String name = entry.getName();
            if (name.startsWith("META-INF/native/") && name.endsWith(".platforms") && name.indexOf('/', 16) < 0) {
              libraries.add(name.substring(16, name.length() - ".platforms".length()));
            }
          }
        }
      }
      String chosen = library;
      if (chosen == null) {
        if (libraries.size() != 1) {
          throw new MojoFailureException((libraries.isEmpty() ? "No kernel jar among the dependencies"
              : "Kernel jars of " + libraries + " among the dependencies") + ": set kernel.library to the one to merge,"
              + " and depend on its jar once per platform (<classifier>linux-x86_64</classifier>, ...), or run goal jar"
              + " in this module's executions before this one.");
        }
        chosen = libraries.first();
      }
      Path target = Path.of(project.getBuild().getDirectory(),
          project.getBuild().getFinalName() + "-" + mergedClassifier + ".jar");
      NativeJarMerger.Result result = NativeJarMerger.merge(jars, chosen, target,
          entryTime(),
          createdBy());
      getLog().info("Kernel jar: " + target.getFileName() + " holds lib" + chosen + ".so for "
          + String.join(", ", result.platforms()));
      if (result.platforms().size() == 1) {
        getLog().warn(target.getFileName() + " holds one platform only, " + result.platforms().get(0)
            + ": the other platforms' jars were neither dependencies nor built by this module.");
      }
      projectHelper.attachArtifact(project, "jar", mergedClassifier, target.toFile());
    } catch (BuildFailureException e) {
      throw new MojoFailureException(e.getMessage(), e);
    } catch (IOException e) {
      throw new MojoExecutionException("Merging the kernel jars failed: " + e.getMessage(), e);
    }
  }
}
