package io.github.kernelarchive.mojo;

/** {@code <java>}: the Java FFM binding goal {@code java-bindings} generates from the library's header. */
public class JavaConfig {
  /** The package of the generated class ({@code <package>}; {@code package} is a Java keyword). */
  private String packageName;
  /** The class; default the library's name in CamelCase ({@code mha} → {@code Mha}). */
  String className;
  /** The header to bind, among the library's public headers ({@code mha.h}). */
  String header;
  /** The library, as in {@code lib<library>.so}; default the one kernel jar among the dependencies. */
  String library;

  /** {@code <package>}. */
  public void setPackage(String value) {
    packageName = value;
  }

  String packageName() {
    return packageName;
  }
}
