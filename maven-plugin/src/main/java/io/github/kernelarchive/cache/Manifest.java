package io.github.kernelarchive.cache;

import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What an archive was built from and must contain: its input key, its digest (see {@link io.github.kernelarchive.ar.ArchiveDigest}),
 * the archiver, and per member the name, content hash and the headers it was compiled against
 * (with their hashes).
 * A cache hit needs every header unchanged; validation needs the member list and hashes.
 * Stored as tab-separated text; fields are percent-escaped so any file name survives.
 */
public record Manifest(String key, String archiveName, String archiveDigest, String tool, List<Member> members) {
  private static final String FORMAT = "kernel-archive manifest 2";

  /** A header path: relative to the project when it lies inside it (so entries move between checkouts). */
  public record Header(String path, String sha256) {}

  public record Member(String name, String sha256, List<Header> headers) {
    public Member {
      headers = List.copyOf(headers);
    }
  }

  public Manifest {
    members = List.copyOf(members);
  }

  public void write(Path file) throws IOException {
    AtomicFiles.write(file, toBytes());
  }

  public byte[] toBytes() {
    StringBuilder text = new StringBuilder(FORMAT).append('\n');
    line(text, "key", key);
    line(text, "archive", archiveName);
    line(text, "digest", archiveDigest);
    line(text, "tool", tool);
    for (Member member : members) {
      line(text, "member", member.name, member.sha256);
      for (Header header : member.headers) {
        line(text, "header", header.path, header.sha256);
      }
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Reads a manifest; a damaged or foreign file is an {@link IOException} naming it. */
  public static Manifest read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.isEmpty() || !lines.get(0).equals(FORMAT)) {
      throw new IOException(file + " is not a manifest of this plugin version");
    }
    String key = null;
    String name = null;
    String digest = null;
    String tool = null;
    List<Member> members = new ArrayList<>();
    List<Header> headers = null;
    String memberName = null;
    String memberSha = null;
    for (String line : lines.subList(1, lines.size())) {
      String[] f = fields(file, line);
      switch (f[0]) {
        case "key" -> key = f[1];
        case "archive" -> name = f[1];
        case "digest" -> digest = f[1];
        case "tool" -> tool = f[1];
        case "member" -> {
          SafeNames.checkMemberName(file, f[1]);
          if (memberName != null) {
            members.add(new Member(memberName, memberSha, headers));
          }
          memberName = f[1];
          memberSha = f[2];
          headers = new ArrayList<>();
        }
        case "header" -> {
          if (headers == null) {
            throw new IOException(file + ": header line before any member");
          }
          headers.add(new Header(SafeNames.checkHeaderPath(file, f[1]), f[2]));
        }
        default -> throw new IOException(file + ": unknown line '" + f[0] + "'");
      }
    }
    if (memberName != null) {
      members.add(new Member(memberName, memberSha, headers));
    }
    if (key == null || name == null || digest == null) {
      throw new IOException(file + " is incomplete");
    }
    return new Manifest(key, name, digest, tool == null ? "" : tool, members);
  }

  static void line(StringBuilder text, String... fields) {
    for (int i = 0; i < fields.length; i++) {
      text.append(i == 0 ? "" : "\t").append(escape(fields[i]));
    }
    text.append('\n');
  }

  /** One line's unescaped fields; a line too short for its kind is an {@link IOException} naming the file. */
  static String[] fields(Path file, String line) throws IOException {
    String[] f = line.split("\t", -1);
    for (int i = 0; i < f.length; i++) {
      f[i] = unescape(f[i]);
    }
    int needed = switch (f[0]) {
      case "member", "header" -> 3;
      default -> 2;
    };
    if (f.length < needed) {
      throw new IOException(file + ": line '" + f[0] + "' has " + f.length + " fields, " + needed + " expected");
    }
    return f;
  }

  static String escape(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '%' || c == '\t' || c == '\n' || c == '\r') {
        return value.replace("%", "%25").replace("\t", "%09").replace("\n", "%0A").replace("\r", "%0D");
      }
    }
    return value; // nearly every name and hash: one look instead of four replacements
  }

  static String unescape(String value) {
    return value.replace("%0D", "\r").replace("%0A", "\n").replace("%09", "\t").replace("%25", "%");
  }
}
