package io.github.kernelarchive.pipeline;

import io.github.kernelarchive.cache.BuildCache;
import io.github.kernelarchive.elf.VersionFloor;
import java.nio.file.Path;
import java.util.List;

/**
 * What a build did, for the summary block and for tests.
 *
 * @param compiled objects compiled now
 * @param objectsFromCache objects taken from the cache (local or remote) instead of compiled
 * @param upToDate objects that were already current
 * @param skipped sources with no compiler on this machine
 * @param servedByArchives sources not compiled because their archive was current or cached
 * @param linker the linker that ran ({@code mold}, {@code lld}, ...), when the library was linked
 * @param exports dynamic symbols the library exports (after the audit)
 * @param archiveLibraries with {@code staticLink=false}, the shared library of each archive
 * @param cache what the cache tiers did; {@code null} when the cache is off
 * @param archiveMillis from the first archive's batches until the last archive was written and checked
 * @param linkMillis the link; {@code besideArchiveMillis} of it ran while archives were still being written
 * @param totalMillis the whole build, from the plugin's start: Maven's own start-up is not in it
 * @param floor the newest glibc, libstdc++ and libgcc versions the library needs; empty without a library
 * @param glibcTarget the glibc the library was held to ({@code kernel.glibc}), or null: the floor it states
 */
public record BuildSummary(int compiled, int objectsFromCache, int upToDate, int skipped, int servedByArchives,
    int archivesBuilt, int archivesFromCache, int archivesUpToDate, int batchesRun,
    Path library, boolean relinked, String linker, int exports, List<Path> archiveLibraries,
    long scanMillis, long planMillis, long compileMillis, long archiveMillis, long linkMillis,
    long besideArchiveMillis, long totalMillis, BuildCache.Stats cache, List<VersionFloor> floor,
    String glibcTarget) {}
