package io.github.kernelarchive.archive;

import java.util.List;

/**
 * What one member of an archive built in this run defines strongly, as its inspection found: the
 * duplicate-definition check before the link takes it instead of reading the archive again.
 */
public record MemberSymbols(String member, List<String> strongDefinitions) {
  public MemberSymbols {
    strongDefinitions = List.copyOf(strongDefinitions);
  }
}
