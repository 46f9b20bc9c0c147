package io.github.kernelarchive.util;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The build's timeline, written as {@code target/kernel/trace.json} in Chrome's trace-event format
 * (Perfetto, {@code chrome://tracing}): one complete slice per compile job, {@code ar} batch,
 * combine, validation, cache transfer, device link, link and audit, each on the lane of the thread
 * that did it, so a worker's slices never overlap and idle workers show as gaps.
 *
 * <p>Stages reach the build's trace through {@link #current()}: an inheritable thread-local set for
 * the duration of one build, so the worker pools a build starts record into it too, and two
 * builds in one JVM (Maven's {@code -T}) keep separate timelines. Without a current trace,
 * recording is a no-op.
 */
public final class Trace {
  private static final InheritableThreadLocal<Trace> CURRENT = new InheritableThreadLocal<>();
  private static final Trace NONE = new Trace(false);

  private record Slice(String name, String category, long startNanos, long endNanos, int lane, String detail) {}

  /** A slice being recorded; closing it records it. */
  public final class Span implements AutoCloseable {
    private final String name;
    private final String category;
    private final long start = System.nanoTime();
    private String detail;

    private Span(String name, String category) {
      this.name = name;
      this.category = category;
    }

    /** Extra text shown with the slice (e.g. "from cache"). */
    public Span detail(String text) {
      this.detail = text;
      return this;
    }

    @Override
    public void close() {
      if (enabled) {
        slices.add(new Slice(name, category, start, System.nanoTime(), lane(), detail));
      }
    }
  }

  private final boolean enabled;
  private final long origin = System.nanoTime();
  private final ConcurrentLinkedQueue<Slice> slices = new ConcurrentLinkedQueue<>();
  private final Map<Thread, Integer> lanes = new ConcurrentHashMap<>();
  private final Map<Integer, String> laneNames = new ConcurrentHashMap<>();
  private final AtomicInteger nextLane = new AtomicInteger();

  private Trace(boolean enabled) {
    this.enabled = enabled;
  }

  /** Starts a build's trace on this thread (and the threads it starts). */
  public static Trace start() {
    Trace trace = new Trace(true);
    CURRENT.set(trace);
    return trace;
  }

  /** The running build's trace, or one that records nothing. */
  public static Trace current() {
    Trace trace = CURRENT.get();
    return trace == null ? NONE : trace;
  }

  /** Ends the trace of this thread's build. */
  public static void stop() {
    CURRENT.remove();
  }

  public Span span(String name, String category) {
    return new Span(name, category);
  }

  private int lane() {
    return lanes.computeIfAbsent(Thread.currentThread(), thread -> {
      int lane = nextLane.getAndIncrement();
      laneNames.put(lane, lane == 0 ? "build" : thread.getName() + " " + lane);
      return lane;
    });
  }

  /** Writes the trace-event JSON ({@code {"traceEvents": [...]}}), slices in start order. */
  public void write(Path file) throws IOException {
    List<Slice> ordered = new ArrayList<>(slices);
    ordered.sort(Comparator.comparingLong(Slice::startNanos));
    StringBuilder json = new StringBuilder("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    List<String> events = new ArrayList<>();
    events.add("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": "
        + Json.quote("Kernel Archive build") + "}}");
    laneNames.forEach((lane, name) -> events.add("{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": "
        + lane + ", \"args\": {\"name\": " + Json.quote(name) + "}}"));
    for (Slice slice : ordered) {
      long start = (slice.startNanos() - origin) / 1_000;
      long duration = Math.max(1, (slice.endNanos() - slice.startNanos()) / 1_000);
      events.add("{\"name\": " + Json.quote(slice.name()) + ", \"cat\": " + Json.quote(slice.category())
          + ", \"ph\": \"X\", \"pid\": 1, \"tid\": " + slice.lane() + ", \"ts\": " + start + ", \"dur\": " + duration
          + (slice.detail() == null ? "" : ", \"args\": {\"detail\": " + Json.quote(slice.detail()) + "}") + "}");
    }
    json.append(String.join(",\n", events)).append("\n]}\n");
    AtomicFiles.write(file, json.toString().getBytes(StandardCharsets.UTF_8));
  }
}
