package io.github.kernelarchive.mojo;

import io.github.kernelarchive.common.BuildLog;
import org.apache.maven.plugin.logging.Log;

/**
 * Sends engine messages to Maven's log, one call per line so every line of a compiler's output
 * carries its own level prefix (and survives grep). Synchronized: compile workers log concurrently.
 */
final class MavenBuildLog implements BuildLog {
  private final Log log;

  MavenBuildLog(Log log) {
    this.log = log;
  }

  @Override
  public synchronized void info(String message) {
    message.lines().forEach(log::info);
  }

  @Override
  public synchronized void warn(String message) {
    message.lines().forEach(log::warn);
  }

  @Override
  public synchronized void error(String message) {
    message.lines().forEach(log::error);
  }

  @Override
  public synchronized void debug(String message) {
    if (log.isDebugEnabled()) {
      message.lines().forEach(log::debug);
    }
  }
}
