package io.github.kernelarchive.mojo;

import io.github.kernelarchive.cache.RemoteCache;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.logging.Log;
import org.apache.maven.settings.Server;
import org.apache.maven.settings.Settings;
import org.apache.maven.settings.building.SettingsProblem;
import org.apache.maven.settings.crypto.DefaultSettingsDecryptionRequest;
import org.apache.maven.settings.crypto.SettingsDecrypter;
import org.apache.maven.settings.crypto.SettingsDecryptionResult;

/**
 * Maps the {@code kernel.cache.remote.*} parameters and the matching {@code settings.xml}
 * {@code <server>} to the engine's settings. Credentials come only from settings.xml (decrypted
 * the Maven way, so {@code mvn --encrypt-password} works): a username and password become basic
 * auth, a password alone a bearer token.
 */
final class RemoteCacheConfig {
  private RemoteCacheConfig() {}

  /** The remote tier's settings, or {@code null} when there is none (no URL, or an offline build). */
  static RemoteCache.Settings settings(String url, boolean push, String serverId, int connectSeconds, int readSeconds,
      boolean offline, Settings mavenSettings, SettingsDecrypter decrypter, Log log) throws MojoFailureException {
    if (url == null || url.isBlank()) {
      return null;
    }
    if (offline) {
      log.info("Remote cache " + RemoteCache.redact(url) + " not used: Maven runs offline (-o).");
      return null;
    }
    if (connectSeconds < 1 || readSeconds < 1) {
      throw new MojoFailureException("kernel.cache.remote.connectTimeout and kernel.cache.remote.readTimeout are"
          + " seconds and must be at least 1; were " + connectSeconds + " and " + readSeconds + ".");
    }
    if (RemoteCache.redact(url).length() != url.length()) {
      log.warn("kernel.cache.remote.url contains user info, which is ignored: put the credentials in a <server>"
          + " with id '" + serverId + "' in settings.xml (kernel.cache.remote.serverId).");
    }
    String authorization = null;
    String source = null;
    Server server = mavenSettings == null ? null : mavenSettings.getServer(serverId);
    if (server != null) {
      SettingsDecryptionResult decrypted = decrypter.decrypt(new DefaultSettingsDecryptionRequest(server));
      for (SettingsProblem problem : decrypted.getProblems()) {
        log.warn("settings.xml server '" + serverId + "': " + problem.getMessage());
      }
      Server plain = decrypted.getServer() == null ? server : decrypted.getServer();
      authorization = authorization(plain.getUsername(), plain.getPassword());
      source = "server '" + serverId + "' in settings.xml";
    }
    return new RemoteCache.Settings(url.trim(), authorization, source, push, Duration.ofSeconds(connectSeconds),
        Duration.ofSeconds(readSeconds));
  }

  static String authorization(String username, String password) {
    boolean hasUser = username != null && !username.isEmpty();
    boolean hasPassword = password != null && !password.isEmpty();
    if (hasUser) {
      String pair = username + ":" + (hasPassword ? password : "");
      return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    }
    return hasPassword ? "Bearer " + password : null;
  }
}
