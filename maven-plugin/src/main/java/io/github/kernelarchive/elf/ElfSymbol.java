package io.github.kernelarchive.elf;

/**
 * One entry of an object's symbol table.
 *
 * @param binding {@link #LOCAL}, {@link #GLOBAL}, {@link #WEAK} or {@link #GNU_UNIQUE}
 * @param sectionIndex 0 for undefined, {@link #SHN_COMMON} for common symbols
 * @param visibility {@code STV_DEFAULT} 0, internal 1, hidden 2, protected 3
 * @param version a shared library's symbol version as {@code nm -D} prints it after the name:
 *     {@code @@NODE} (the default version), {@code @NODE} (an older one), or empty (unversioned;
 *     always so in a relocatable object's symbol table)
 */
public record ElfSymbol(String name, int binding, int type, int sectionIndex, int visibility, String version) {
  public static final int LOCAL = 0;
  public static final int GLOBAL = 1;
  public static final int WEAK = 2;
  public static final int GNU_UNIQUE = 10;
  public static final int SHN_UNDEF = 0;
  public static final int SHN_ABS = 0xfff1;
  public static final int SHN_COMMON = 0xfff2;
  /** STT_FUNC: code. */
  public static final int TYPE_FUNCTION = 2;
  /** STT_FILE: the source file name; not a linkable symbol. */
  public static final int TYPE_FILE = 4;

  /** Reachable from outside a shared library: default or protected visibility. */
  public boolean isVisible() {
    return visibility == 0 || visibility == 3;
  }

  public boolean isDefined() {
    return sectionIndex != SHN_UNDEF;
  }

  /**
   * A definition the linker will not merge with another one: global binding, in a section. Weak
   * and unique (inline, template, COMDAT) definitions merge, and common symbols do not define.
   */
  public boolean definesStrongly() {
    return isDefined() && type != TYPE_FILE && binding == GLOBAL && sectionIndex != SHN_COMMON;
  }

  /**
   * The symbol ld.bfd defines for each version node it writes (absolute, named as the node):
   * bookkeeping, not part of a library's API.
   */
  public boolean isVersionNode() {
    return sectionIndex == SHN_ABS && version.equals("@@" + name);
  }

  /** Visible to the linker from other objects: what an archive's symbol index lists. */
  public boolean isExternal() {
    return binding == GLOBAL || binding == WEAK || binding == GNU_UNIQUE;
  }
}
