package dev.mooncake.jcache.internal.config.parse;

import dev.mooncake.jcache.config.MooncakeConfig;
import dev.mooncake.jcache.config.MooncakeConfig.Backend;
import dev.mooncake.jcache.config.MooncakeConfig.Mode;

/**
 * The rules between keys, checked once every key has been read: vLLM's topology rules, LMCache's
 * "RDMA needs a device, no fallback", what backend {@code mooncake} requires, and warnings for
 * settings that work but are probably not what was meant.
 */
final class ConfigRules {
  private ConfigRules() {}

  static void check(
      ConfigObject config, MooncakeConfig settings, boolean protocolGiven, boolean hostnameGiven) {
    checkTopology(config, settings);
    checkTransport(config, settings, protocolGiven);
    if (!settings.masterServerAddress().isEmpty()) {
      MooncakeConfigReader.check(
          config, "master_server_address", HostPort::parse, settings.masterServerAddress());
    }
    if (settings.backend() == Backend.MOONCAKE) {
      checkMooncakeBackend(config, settings);
    }
    MooncakeConfigReader.check(
        config, "local_hostname", ConfigRules::checkHostname, settings.localHostname());
    if (settings.backend() == Backend.MOONCAKE
        && !hostnameGiven
        && !HostPort.parse(settings.masterServerAddress()).isLoopback()) {
      config
          .context()
          .warn(
              "local_hostname",
              "not set, so this client advertises 127.0.0.1 to a master at "
                  + settings.masterServerAddress()
                  + "; peers on other machines cannot reach it. Set local_hostname to this machine's address");
    }
  }

  private static void checkTopology(ConfigObject config, MooncakeConfig settings) {
    if (settings.backend() == Backend.IN_PROCESS && settings.mode() == Mode.STANDALONE_STORE) {
      throw config.error(
          "mode",
          "standalone-store needs backend \"mooncake\": in that mode a separate Mooncake client process owns"
              + " the pool, which the in-process store does not have");
    }
    if (settings.localBufferSize() <= 0) {
      throw config.error("local_buffer_size", "must be > 0");
    }
    long segment = settings.globalSegmentSize();
    if (settings.mode() == Mode.EMBEDDED && segment == 0) {
      throw config.error(
          "global_segment_size",
          "embedded mode requires global_segment_size > 0 (this process contributes it to the pool)");
    }
    if (settings.mode() == Mode.STANDALONE_STORE && segment != 0) {
      throw config.error(
          "global_segment_size",
          "standalone-store mode requires global_segment_size = 0 (a separate client process owns the pool), not "
              + segment);
    }
  }

  private static void checkTransport(
      ConfigObject config, MooncakeConfig settings, boolean protocolGiven) {
    String protocol = settings.protocol();
    MooncakeConfigReader.check(config, "protocol", Protocols::validate, protocol);
    boolean deviceGiven = !settings.deviceName().isBlank();
    if (Protocols.needsDevice(protocol) && !deviceGiven) {
      throw config.error(
          "protocol",
          "\""
              + protocol
              + "\" needs an RDMA device: set device_name (or rdma_devices), e.g. \"mlx5_0\";"
              + " there is no fallback to another protocol");
    }
    if (!protocolGiven && deviceGiven) {
      // vLLM defaults to rdma; a vLLM file that names a device but no protocol meant rdma.
      config
          .context()
          .warn(
              "protocol",
              "not set, so tcp is used although a device is named (vLLM would default to rdma);"
                  + " set \"protocol\" explicitly");
    }
  }

  private static void checkMooncakeBackend(ConfigObject config, MooncakeConfig settings) {
    if (settings.metadataServer().isBlank()) {
      throw config.error(
          "metadata_server", "is required for backend mooncake; " + MetadataServerValidator.FORMS);
    }
    MooncakeConfigReader.check(
        config, "metadata_server", MetadataServerValidator::validate, settings.metadataServer());
    if (settings.masterServerAddress().isEmpty()) {
      throw config.error(
          "master_server_address",
          "is required for backend mooncake: host:port of mooncake_master, e.g. 127.0.0.1:50051");
    }
  }

  private static String checkHostname(String hostname) {
    if (hostname.isEmpty()) {
      throw new IllegalArgumentException(
          "is empty; give the address this client advertises, e.g. 127.0.0.1");
    }
    for (int i = 0; i < hostname.length(); i++) {
      char c = hostname.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c) || c == '/') {
        throw new IllegalArgumentException("'" + hostname + "' is not a host name or address");
      }
    }
    return hostname;
  }
}
