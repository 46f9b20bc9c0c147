package io.github.kernelarchive.cache;

import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Manifests may come from another machine (the remote tier). Nothing in them may steer the build
 * to a file outside what the build itself names: member names are plain file names, and header
 * paths are either absolute (system headers, only ever hashed) or relative paths that stay inside
 * the project. A manifest that breaks this is rejected as damaged.
 */
final class SafeNames {
  private SafeNames() {}

  static String checkMemberName(Path manifest, String name) throws IOException {
    if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
        || name.indexOf('\0') >= 0) {
      throw new IOException(manifest + ": member name '" + name + "' is not a plain file name");
    }
    return name;
  }

  static String checkHeaderPath(Path manifest, String header) throws IOException {
    Path path;
    try {
      path = Path.of(header);
    } catch (InvalidPathException e) {
      throw new IOException(manifest + ": header path '" + header + "' is not a path");
    }
    if (header.isEmpty() || !path.isAbsolute() && path.normalize().startsWith("..")) {
      throw new IOException(manifest + ": header path '" + header + "' leaves the project");
    }
    return header;
  }
}
