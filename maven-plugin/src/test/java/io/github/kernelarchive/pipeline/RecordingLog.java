package io.github.kernelarchive.pipeline;

import io.github.kernelarchive.common.BuildLog;
import java.util.ArrayList;
import java.util.List;

/** A {@link BuildLog} that keeps every line, prefixed by its level, for assertions. */
public final class RecordingLog implements BuildLog {
  private final List<String> lines = new ArrayList<>();

  private synchronized void add(String level, String message) {
    message.lines().forEach(l -> lines.add(level + " " + l));
  }

  @Override
  public void info(String message) {
    add("INFO", message);
  }

  @Override
  public void warn(String message) {
    add("WARN", message);
  }

  @Override
  public void error(String message) {
    add("ERROR", message);
  }

  @Override
  public void debug(String message) {
    add("DEBUG", message);
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
