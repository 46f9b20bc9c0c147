package io.github.kernelarchive.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns the loader's {@link UnsatisfiedLinkError} into what to do about it. */
final class LoadErrors {
  private static final Pattern MISSING_VERSION = Pattern.compile("version `((GLIBC|GLIBCXX|CXXABI)_[0-9.]+)' not found");

  private LoadErrors() {}

  static UnsatisfiedLinkError explain(UnsatisfiedLinkError error, Path file, NativeIndex index) {
    String message = String.valueOf(error.getMessage());
    Matcher missing = MISSING_VERSION.matcher(message);
    String fix;
    if (missing.find() && missing.group(2).equals("GLIBC")) {
      fix = file.getFileName() + " needs glibc " + missing.group(1).substring("GLIBC_".length())
          + " (" + missing.group(1) + "); this system has " + systemGlibc() + (index.glibc().isEmpty() ? "" : " and the jar's index gives its floor"
          + " as glibc " + index.glibc()) + ". Use a build of " + index.library() + " linked for this system or older"
          + " (the plugin's kernel.glibc, e.g. 2.17), or run on a newer system.";
    } else if (missing.find(0)) {
      fix = file.getFileName() + " needs " + missing.group(1) + " of the system's libstdc++, which is older. Use a build"
          + " of " + index.library() + " with libstdc++ linked in (the plugin's kernel.staticRuntime=true, the default"
          + " with kernel.glibc).";
    } else if (message.contains("failed to map segment")) {
      fix = "the folder " + file.getParent() + " may be on a noexec mount: set -D" + KernelLibrary.CACHE_PROPERTY
          + "=<a folder on a mount without noexec>.";
    } else {
      fix = "loading " + file + " failed.";
    }
    UnsatisfiedLinkError explained = new UnsatisfiedLinkError(index.library() + " (" + index.platform() + "): " + fix
        + " The loader said: " + message);
    explained.initCause(error);
    return explained;
  }

  /** {@code glibc 2.28}, as {@code getconf GNU_LIBC_VERSION} says; "an unknown glibc" where it cannot. */
  static String systemGlibc() {
    try {
      Process process = new ProcessBuilder("getconf", "GNU_LIBC_VERSION").redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (process.waitFor(5, TimeUnit.SECONDS) && process.exitValue() == 0 && out.startsWith("glibc ")) {
        return out;
      }
    } catch (IOException e) {
      // no getconf: say so below
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "an unknown glibc";
  }
}
