package io.github.kernelarchive.pipeline;

import io.github.kernelarchive.common.BuildLog;
import java.util.ArrayList;
import java.util.List;

/** A {@link BuildLog} that keeps every line, prefixed by its level, for assertions. */
public final class RecordingLog implements BuildLog {
  private final List<String> lines = new ArrayList<>();

  @Override
  public synchronized void info(String message) {
    message.lines().forEach(l -> lines.add("INFO " + l));
  }

  @Override
  public synchronized void warn(String message) {
    message.lines().forEach(l -> lines.add("WARN " + l));
  }

  @Override
  public synchronized void error(String message) {
    message.lines().forEach(l -> lines.add("ERROR " + l));
  }

  @Override
  public synchronized void debug(String message) {
    message.lines().forEach(l -> lines.add("DEBUG " + l));
  }

  public synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  public synchronized String text() {
    return String.join("\n", lines);
  }

  public synchronized void clear() {
    lines.clear();
  }
}
