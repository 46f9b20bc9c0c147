package io.github.kernelarchive.compile;

import io.github.kernelarchive.compile.CompileState.Dependency;
import io.github.kernelarchive.compile.CompileState.ObjectRecord;
import io.github.kernelarchive.util.ContentHashes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides which objects must be compiled. An object is up to date only when its recorded key
 * (compiler identity, full command line, source content) is unchanged, every header its depfile
 * named still has the recorded content hash, and the object file is the one that build wrote.
 * Content hashes rather than timestamps: a checkout or {@code touch} does not rebuild, a reverted
 * edit does not either.
 */
public final class IncrementalPlanner {

  /** A job that must run, with the key it will be recorded under and why it runs. */
  public record Planned(CompileJob job, String key, String reason) {}

  public record Plan(List<Planned> toCompile, List<CompileJob> upToDate) {}

  private final ContentHashes hashes;
  /** Whether a recorded (header, hash) still holds: most headers are shared by many objects. */
  private final Map<Dependency, Boolean> unchanged = new HashMap<>();

  public IncrementalPlanner(ContentHashes hashes) {
    this.hashes = hashes;
  }

  public Plan plan(List<CompileJob> jobs, CompileState state) {
    List<Planned> toCompile = new ArrayList<>();
    List<CompileJob> upToDate = new ArrayList<>();
    for (CompileJob job : jobs) {
      Optional<String> sourceHash = hashes.of(job.source().path());
      String key = job.key(sourceHash.orElse("missing"));
      String reason = staleReason(job, key, state.get(job.object()));
      if (reason == null) {
        upToDate.add(job);
      } else {
        toCompile.add(new Planned(job, key, reason));
      }
    }
    return new Plan(toCompile, upToDate);
  }

  /** Why the object must be rebuilt, or {@code null} when it is up to date. */
  private String staleReason(CompileJob job, String key, ObjectRecord record) {
    if (record == null) {
      return "not built before";
    }
    if (!record.key().equals(key)) {
      return "source, command line or compiler changed";
    }
    BasicFileAttributes object = attributes(job.object());
    if (object == null) {
      return "object missing";
    }
    if (object.size() != record.size() || object.lastModifiedTime().toMillis() != record.modifiedMillis()) {
      return "object replaced outside the build";
    }
    for (Dependency dependency : record.dependencies()) {
      boolean same = unchanged.computeIfAbsent(dependency,
          d -> hashes.of(Path.of(d.path())).map(d.hash()::equals).orElse(false));
      if (!same) {
        return "header changed: " + dependency.path();
      }
    }
    return null;
  }

  static BasicFileAttributes attributes(Path file) {
    try {
      return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return null;
    }
  }
}
