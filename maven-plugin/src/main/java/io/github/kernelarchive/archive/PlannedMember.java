package io.github.kernelarchive.archive;

import java.nio.file.Path;

/**
 * A member an archive must contain, in order.
 *
 * @param name the member name ({@code ar} stores the object's file name)
 * @param object the object file it is built from
 * @param sha256 the object's content hash; the member must equal it byte for byte
 */
public record PlannedMember(String name, Path object, String sha256) {}
