package io.github.kernelarchive.mojo;

/** {@code <archive>}: a named static archive of compiled sources and/or prebuilt objects (bound by Maven). */
public class ArchiveConfig {
  String name;
  SourcesConfig sources;
  /** Objects another build produced: {@code <directory>} and includes (default {@code **}{@code /*.o}). */
  SourcesConfig objects;
}
