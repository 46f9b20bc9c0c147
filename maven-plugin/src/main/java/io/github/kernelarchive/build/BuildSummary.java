package io.github.kernelarchive.build;

import java.nio.file.Path;

/** What a build did, for the summary block and for tests. */
public record BuildSummary(int compiled, int upToDate, int skipped, Path library, boolean relinked,
    long scanMillis, long planMillis, long compileMillis, long linkMillis) {}
