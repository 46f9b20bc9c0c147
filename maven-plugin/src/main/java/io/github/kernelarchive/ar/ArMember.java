package io.github.kernelarchive.ar;

/**
 * A member of an archive as stored on disk.
 *
 * @param headerOffset where its 60-byte header starts (what a symbol index points at)
 * @param dataOffset where its content starts
 */
public record ArMember(String name, long headerOffset, long dataOffset, long size) {}
