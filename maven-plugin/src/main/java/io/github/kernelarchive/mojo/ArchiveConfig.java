package io.github.kernelarchive.mojo;

/** {@code <archive>}: a named static archive and its sources (bound by Maven). */
public class ArchiveConfig {
  String name;
  SourcesConfig sources;
}
