package io.github.kernelarchive.mojo;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code <wheel>}: the Python wheel the library is published in (bound by Maven; the goals
 * {@code build}, {@code wheel} and {@code python-test} each read the parts they need).
 */
public class WheelConfig {
  /** Distribution name; default the artifactId (normalized as PEP 503 says). */
  String name;
  /** PEP 440 version; default the project's version mapped ({@code 1.2.0-SNAPSHOT} is {@code 1.2.0.dev0}). */
  String version;
  /** The import package that holds the library; default the library name. ({@code package} is a Java keyword.) */
  private String importPackage;
  /** Builds the library as a CPython extension module of this name (exports {@code PyInit_<module>}). */
  String module;
  /** With {@code module}: the oldest Python of the stable ABI ({@code 3.9}): {@code <module>.abi3.so}, tag {@code cp39-abi3}. */
  String limitedApi;
  /** Python files put at the wheel's root (packages, a ctypes wrapper). */
  File pythonSources;
  /** Puts the public headers ({@code kernel.headers}) into {@code <package>/include}. */
  boolean headers;
  /** The newest manylinux policy the content may need ({@code 2_28}); a build that needs more fails. */
  String maxManylinux;
  String license;
  String requiresPython;
  /** {@code Project-URL} values: {@code Homepage, https://...}. */
  List<String> projectUrls = new ArrayList<>();
  /** Extra {@code Requires-Dist} lines beside those of the wheel dependencies. */
  List<String> requires = new ArrayList<>();
  List<ExtraConfig> extras = new ArrayList<>();
  /** Libraries other wheels provide: what the plugin cannot work out, or wants differently. */
  List<WheelDependencyConfig> dependencies = new ArrayList<>();
  /**
   * Needed libraries copied into the wheel ({@code <package>.libs/}, renamed with their content
   * hash), as {@code auditwheel repair} does: SONAMEs such as {@code libfoo.so.1}.
   */
  List<String> vendored = new ArrayList<>();
  /** Folders of wheels the Python tests' {@code pip install} may take dependencies from ({@code --find-links}). */
  List<File> findLinks = new ArrayList<>();

  public void setPackage(String importPackage) {
    this.importPackage = importPackage;
  }

  String importPackage() {
    return importPackage;
  }

  /** {@code <extra>}: an optional feature ({@code [cu13]}) and what it pulls in. */
  public static class ExtraConfig {
    String name;
    List<String> requires = new ArrayList<>();
  }

  /** {@code <dependency>} of {@code <wheel><dependencies>}. */
  public static class WheelDependencyConfig {
    /** The SONAME it provides: {@code libnvshmem_host.so.3}. */
    String library;
    String distribution;
    /** Version specifier, {@code >=3.4,<4}. */
    String requirement;
    /** Where the wheel puts the library, relative to site-packages: {@code nvidia/nvshmem/lib}. */
    String folder;
  }
}
