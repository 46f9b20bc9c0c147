package io.github.kernelarchive.wheel;

/**
 * A wheel dependency as the pom declares it ({@code <wheel><dependencies><dependency>}): the
 * library it provides, and what the plugin would otherwise work out. Null fields are found.
 *
 * @param library the SONAME it provides, {@code libnvshmem_host.so.3}
 * @param distribution the distribution to require, {@code nvidia-nvshmem-cu13}
 * @param requirement the version specifier, {@code >=3.4,<4}
 * @param folder where the distribution puts the library, relative to site-packages: {@code nvidia/nvshmem/lib}
 */
public record DeclaredDependency(String library, String distribution, String requirement, String folder) {}
