package io.github.kernelarchive.toolchain;

import io.github.kernelarchive.common.ToolchainException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Where a JDK keeps {@code jni.h} and {@code jni_md.h}, for libraries with JNI functions ({@code kernel.jni}). */
public final class JniHeaders {
  /** What a JNI library exports besides {@code <exports>}: the native methods and the JVM's hooks. */
  public static final List<String> EXPORTS = List.of("Java_*", "JNI_OnLoad", "JNI_OnUnload");

  private JniHeaders() {}

  /**
   * {@code <jdk>/include} and {@code <jdk>/include/linux} of the first of {@code JAVA_HOME} and
   * Maven's own JDK that has them.
   */
  public static List<Path> directories(String javaHomeVariable, String runningJavaHome) throws ToolchainException {
    List<Path> tried = new ArrayList<>();
    for (String home : new String[] {javaHomeVariable, runningJavaHome}) {
      if (home == null || home.isBlank()) {
        continue;
      }
      Path include = Path.of(home, "include");
      tried.add(include);
      if (Files.isRegularFile(include.resolve("jni.h")) && Files.isDirectory(include.resolve("linux"))) {
        return List.of(include, include.resolve("linux"));
      }
    }
    throw new ToolchainException("kernel.jni=true needs a JDK's include/jni.h; none in " + tried + ". Run Maven with a"
        + " JDK (not a JRE), or point JAVA_HOME at one.");
  }
}
