package io.github.kernelarchive.mojo;

import java.nio.file.attribute.FileTime;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.descriptor.PluginDescriptor;
import org.apache.maven.plugins.annotations.Parameter;

/** What the goals that pack a deliverable (bundle, wheel, jars) share: one time for every entry, and who made it. */
abstract class PackagingMojo extends KernelMojo {
  /** Reproducible builds' timestamp (ISO-8601 or seconds since the epoch); else {@code SOURCE_DATE_EPOCH}. */
  @Parameter(defaultValue = "${project.build.outputTimestamp}")
  private String outputTimestamp;

  @Parameter(defaultValue = "${plugin}", readonly = true)
  private PluginDescriptor plugin;

  /** The time every entry carries. */
  protected FileTime entryTime() throws MojoFailureException {
    return OutputTimestamp.of(outputTimestamp, System.getenv("SOURCE_DATE_EPOCH"));
  }

  /** {@code kernel-archive-maven-plugin 0.1.0}: written into what the goal packs. */
  protected String createdBy() {
    return plugin.getArtifactId() + " " + plugin.getVersion();
  }
}
