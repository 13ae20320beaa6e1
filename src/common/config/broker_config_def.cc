#include "common/config/broker_config_def.h"

#include <limits>
#include <string>

#include "common/config/broker_config_def_shorthand.h"
#include "common/config/listener.h"
#include "common/config/principal_mapping_rules.h"
#include "common/config/quorum_voters.h"
#include "common/logging/loggers.h"

namespace samsa::config {

namespace {

// A string key whose value `parse` must accept (an error names what is wrong).
template <typename Parse>
validator parsed_by(std::string description, Parse parse) {
    return validator::custom(std::move(description),
                             [parse](const config_value& v) -> std::optional<std::string> {
                                 const auto* text = std::get_if<std::string>(&v);
                                 if (!text) {
                                     return "Expected a string";
                                 }
                                 auto parsed = parse(*text);
                                 if (!parsed) {
                                     return parsed.err().message;
                                 }
                                 return std::nullopt;
                             });
}

validator level_overrides() {
    return parsed_by("logger:LEVEL, comma separated",
                     [](const std::string& text) { return logging::parse_level_overrides(text); });
}

validator principal_mapping_rules_validator() {
    return parsed_by("DEFAULT or RULE:pattern/replacement/[LU], comma separated",
                     [](const std::string& text) { return principal_mapping_rules::parse(text); });
}

using namespace def_shorthand;

validator protocol_map_validator() {
    return validator::custom("NAME:PROTOCOL pairs, comma separated",
                             [](const config_value& v) -> std::optional<std::string> {
                                 const auto* text = std::get_if<std::string>(&v);
                                 if (!text) {
                                     return "Expected a string";
                                 }
                                 auto m = parse_protocol_map(*text);
                                 if (!m) {
                                     return m.err().message;
                                 }
                                 return std::nullopt;
                             });
}

validator listener_list_validator(bool allow_empty) {
    return validator::custom(allow_empty ? "NAME://host:port, comma separated"
                                         : "NAME://host:port, comma separated, at least one",
                             [allow_empty](const config_value& v) -> std::optional<std::string> {
                                 const auto* lp = std::get_if<list_value>(&v);
                                 if (!lp) {
                                     return "Expected a list";
                                 }
                                 const auto& l = *lp;
                                 if (l.empty() && !allow_empty) {
                                     return "Empty list is not allowed";
                                 }
                                 for (const auto& uri : l) {
                                     auto ep = parse_endpoint(uri);
                                     if (!ep) {
                                         return ep.err().message;
                                     }
                                 }
                                 return std::nullopt;
                             });
}

validator voters_validator() {
    return validator::custom("{id}@{host}:{port}, comma separated",
                             [](const config_value& v) -> std::optional<std::string> {
                                 const auto* l = std::get_if<list_value>(&v);
                                 if (!l) {
                                     return "Expected a list";
                                 }
                                 auto r = parse_quorum_voters(*l);
                                 if (!r) {
                                     return r.err().message;
                                 }
                                 return std::nullopt;
                             });
}

config_def build() {
    config_def d;
    auto def = definer(d);
    const auto required = default_value::required();
    const auto null = default_value::null();

    // ---- KRaft identity, roles and quorum ----
    def("process.roles", k_list, required, validator::list_of({"broker", "controller"}, false),
        high, read_only,
        "The roles this process plays: 'broker', 'controller', or 'broker,controller' for both.");
    def("node.id", k_int, required, validator::at_least(0), high, read_only,
        "The node id of this process, for all the roles it plays. broker.id is accepted as a "
        "synonym.");
    def("broker.id", k_int, "-1", none(), high, read_only,
        "Synonym of node.id, kept for old configuration files. If both are set they must be "
        "equal.");
    def("controller.listener.names", k_list, required, validator::non_duplicate_list(false), high,
        read_only,
        "Names of the listeners used by the controller. A broker talks to the controller quorum "
        "through the first one.");
    def("controller.quorum.voters", k_list, "", voters_validator(), high, read_only,
        "The static set of Raft voters, as {id}@{host}:{port} entries, e.g. "
        "1@localhost:9093,2@localhost:9093.");
    def("controller.quorum.bootstrap.servers", k_list, "", none(), high, read_only,
        "host:port of controllers to bootstrap from when the voter set is dynamic (not yet "
        "supported by Samsa; use controller.quorum.voters).");
    def("broker.session.timeout.ms", k_int, "9000", none(), medium, read_only,
        "How long a broker lease lasts without heartbeats before the controller fences it.");
    def("broker.heartbeat.interval.ms", k_int, "2000", none(), medium, read_only,
        "Milliseconds between a broker's heartbeats to the controller.");
    def("initial.broker.registration.timeout.ms", k_int, "60000", none(), medium, read_only,
        "How long a starting broker waits for its first registration with the controller before "
        "exiting.");
    def("controller.quorum.election.timeout.ms", k_int, "1000", validator::at_least(1), high,
        read_only,
        "Maximum time a voter waits without a leader before it starts an election (the wait is "
        "random, between this and twice this).");
    def("controller.quorum.fetch.timeout.ms", k_int, "2000", validator::at_least(1), high,
        read_only,
        "Maximum time without a successful fetch from the leader before a voter starts an "
        "election.");
    def("controller.quorum.election.backoff.max.ms", k_int, "1000", validator::at_least(1), high,
        read_only, "Maximum time before a voter starts a new election after a lost one.");
    def("controller.quorum.request.timeout.ms", k_int, "2000", validator::at_least(1), medium,
        read_only, "How long a quorum request waits for its answer before it is retried.");
    def("controller.quorum.retry.backoff.ms", k_int, "20", validator::at_least(0), low, read_only,
        "Wait before retrying a failed quorum request.");
    def("controller.quorum.append.linger.ms", k_int, "25", validator::at_least(0), medium,
        read_only,
        "How long the leader lets metadata appends gather before it flushes them to disk.");
    def("replica.selector.class", k_string, null,
        validator::one_of({"org.apache.kafka.common.replica.RackAwareReplicaSelector",
                           "org.apache.kafka.common.replica.LeaderSelector"}),
        medium, read_only,
        "The replica selector for consumer fetches (KIP-392). With "
        "org.apache.kafka.common.replica.RackAwareReplicaSelector a consumer that sends "
        "client.rack is pointed to an in-sync replica in its rack; unset, consumers fetch from "
        "the leader.");
    def("broker.rack", k_string, null, none(), medium, read_only,
        "Rack of the broker, for rack-aware replica assignment, e.g. us-east-1d.");
    def("metrics.listener", k_string, "127.0.0.1:9644", none(), medium, read_only,
        "host:port of the HTTP listener serving /metrics (Prometheus text format) and the "
        "/v1/health checks; empty serves none. Loopback by default: it has no authentication.");
    def("metrics.listener.admin.writes.enable", k_bool, "false", none(), medium, read_only,
        "Whether the admin API and console of metrics.listener may change the cluster: create "
        "and delete topics, reset a group's offsets, set a logger's level. Each change runs as "
        "the Kafka request it stands for, authorized as that request is; with an authorizer "
        "the caller signs in with HTTP Basic credentials of a SASL user (docs/metrics.md).");
    def("metadata.log.dir", k_string, null, none(), high, read_only,
        "Directory of the cluster metadata log. If unset, the first directory of log.dirs is "
        "used.");
    def("metadata.log.max.record.bytes.between.snapshots", k_long, "20971520",
        validator::at_least(1), high, read_only,
        "Bytes of metadata log between the latest snapshot and the high watermark that trigger a "
        "new "
        "snapshot.");
    def("metadata.log.max.snapshot.interval.ms", k_long, "3600000", validator::at_least(0), high,
        read_only,
        "Milliseconds after which a new metadata snapshot is taken if committed records are not in "
        "the latest one; 0 disables time-based snapshots.");
    def("metadata.max.retention.bytes", k_long, "104857600", none(), high, read_only,
        "Maximum size of the metadata log and snapshots before old snapshots and log files are "
        "deleted; -1 for no limit.");
    def("metadata.max.retention.ms", k_long, "604800000", none(), high, read_only,
        "Milliseconds to keep a metadata log file or snapshot before deleting it; -1 for no "
        "limit.");

    // ---- Listeners and sockets ----
    // Kafka adds and removes listeners at run time (per-broker); Samsa binds
    // and registers them once at start, so these are read-only here.
    def("listeners", k_list, "PLAINTEXT://:9092", listener_list_validator(false), high, read_only,
        "Comma-separated NAME://host:port URIs to listen on. An empty host binds all interfaces; "
        "names that are not security protocols need listener.security.protocol.map. Read-only in "
        "Samsa (Kafka: per-broker).");
    def("advertised.listeners", k_list, null, listener_list_validator(true), high, read_only,
        "Addresses published for clients and other brokers, if different from listeners. If unset, "
        "listeners (minus controller listeners) are advertised. Read-only in Samsa (Kafka: "
        "per-broker).");
    def("listener.security.protocol.map", k_string, std::string(k_default_protocol_map),
        protocol_map_validator(), low, read_only,
        "Map from listener name to security protocol, e.g. INTERNAL:SSL,EXTERNAL:SASL_SSL. "
        "Read-only in Samsa (Kafka: per-broker).");
    def("inter.broker.listener.name", k_string, null, none(), medium, read_only,
        "Listener brokers use to talk to each other. If unset, the listener named by "
        "security.inter.broker.protocol.");
    def("security.inter.broker.protocol", k_string, "PLAINTEXT",
        validator::one_of({"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}), medium, read_only,
        "Security protocol between brokers; do not set together with inter.broker.listener.name.");
    def("socket.send.buffer.bytes", k_int, "102400", none(), high, read_only,
        "SO_SNDBUF of server sockets; -1 for the OS default.");
    def("socket.receive.buffer.bytes", k_int, "102400", none(), high, read_only,
        "SO_RCVBUF of server sockets; -1 for the OS default.");
    def("socket.request.max.bytes", k_int, "104857600", validator::at_least(1), high, read_only,
        "Largest request the server accepts; larger frames close the connection.");
    def("socket.listen.backlog.size", k_int, "50", validator::at_least(1), medium, read_only,
        "Maximum number of pending connections on a listening socket.");
    def("max.connections", k_int, k_int_max, validator::at_least(0), medium, read_only,
        "Maximum number of connections the broker accepts at any time.");
    def("max.connections.per.ip", k_int, k_int_max, validator::at_least(0), medium, read_only,
        "Maximum number of connections from one IP address.");
    def("max.connections.per.ip.overrides", k_string, "", none(), medium, read_only,
        "Per-address limits that replace max.connections.per.ip: host:count,host:count.");
    def("log.slow.request.ms", k_long, "0", validator::at_least(0), medium, read_only,
        "A request that takes longer than this many milliseconds from read to response sent is "
        "logged with its api, client id and the time of each phase; 0 logs none. Long polls "
        "(Fetch max.wait.ms) and group joins wait by design and count too.");
    def("log.level", k_string, "INFO",
        validator::one_of({"FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"}), medium, read_only,
        "Level of the root logger, which every logger without a level of its own follows. At run "
        "time: IncrementalAlterConfigs on the broker's BROKER_LOGGER resource (KIP-412).");
    def("log.level.overrides", k_string, "", level_overrides(), medium, read_only,
        "Levels of single loggers at start, logger:LEVEL,logger:LEVEL, e.g. "
        "kafka.log.LogCleaner:DEBUG. `samsa configs --entity-type broker-loggers --describe` "
        "lists the loggers.");
    def("log.format", k_string, "text", validator::one_of({"text", "json"}), medium, read_only,
        "text: Kafka's layout, [time] level message (logger); json: one JSON object per line "
        "with the message's key=value pairs as fields.");
    def("log.file.path", k_string, "", none(), medium, read_only,
        "A file that receives every log line besides standard output, rotated by size; empty "
        "writes none.");
    def("log.file.max.bytes", k_long, "104857600", validator::at_least(4096), low, read_only,
        "Size at which log.file.path is rotated.");
    def("log.file.max.backups", k_int, "10", validator::between(1, 1000), low, read_only,
        "Rotated log files kept beside log.file.path (for server.log: server.1.log, the newest, "
        "server.2.log, ...).");
    def("connections.max.idle.ms", k_long, "600000", none(), medium, read_only,
        "Idle connections are closed after this many milliseconds.");
    def("queued.max.requests", k_int, "500", validator::at_least(1), high, read_only,
        "Number of requests that may wait for processing before the network side stops reading.");
    def("quota.window.num", k_int, "11", validator::at_least(1), low, read_only,
        "Number of samples a client quota's rate is measured over.");
    def("quota.window.size.seconds", k_int, "1", validator::at_least(1), low, read_only,
        "Length of each sample of a client quota's rate, in seconds.");
    def("controller.quota.window.num", k_int, "11", validator::at_least(1), low, read_only,
        "Number of samples the controller_mutation_rate quota's token bucket holds.");
    def("controller.quota.window.size.seconds", k_int, "1", validator::at_least(1), low, read_only,
        "Length of each sample of the controller_mutation_rate quota, in seconds.");
    def("replication.quota.window.num", k_int, "11", validator::at_least(1), low, read_only,
        "Number of samples a replication throttle's rate is measured over.");
    def("replication.quota.window.size.seconds", k_int, "1", validator::at_least(1), low, read_only,
        "Length of each sample of a replication throttle's rate, in seconds.");
    // KIP-73. In Kafka these two are dynamic broker configs only (per broker
    // or the cluster default, as kafka-reassign-partitions --throttle sets
    // them); here the file may set them as well.
    def("leader.replication.throttled.rate", k_long, k_long_max, validator::at_least(0), medium,
        cluster_wide,
        "Bytes per second this broker sends, as a leader, to the catching-up followers of the "
        "replicas leader.replication.throttled.replicas names on it.");
    def("follower.replication.throttled.rate", k_long, k_long_max, validator::at_least(0), medium,
        cluster_wide,
        "Bytes per second this broker fetches for its catching-up follower replicas that "
        "follower.replication.throttled.replicas names on it.");
    // KIP-113: what moving replicas between this broker's log dirs may copy
    // (kafka-reassign-partitions --replica-alter-log-dirs-throttle sets it).
    def("replica.alter.log.dirs.io.max.bytes.per.second", k_long, k_long_max,
        validator::at_least(0), medium, cluster_wide,
        "Bytes per second copied from the current log to the future log of replicas moving "
        "between log dirs, read and written each.");
    def("request.timeout.ms", k_int, "30000", none(), high, read_only,
        "How long the broker waits for a response to its own requests to other nodes.");

    // ---- TLS (SSL listeners; each key also as listener.name.<listener>.<key>) ----
    const auto k_password = config_type::password;
    def("ssl.keystore.type", k_string, "JKS", none(), medium, per_broker,
        "Format of the keystore: PEM (JKS and PKCS12 are Java formats, not read here).");
    def("ssl.keystore.location", k_string, null, none(), high, per_broker,
        "PEM file with the listener's private key and certificate chain.");
    def("ssl.keystore.password", k_password, null, none(), high, per_broker,
        "Password of the keystore file; for PEM, that of its private key.");
    def("ssl.key.password", k_password, null, none(), high, per_broker,
        "Password of the private key (PEM: of an encrypted private key).");
    def("ssl.keystore.certificate.chain", k_password, null, none(), high, per_broker,
        "The certificate chain in PEM, inline (ssl.keystore.type=PEM).");
    def("ssl.keystore.key", k_password, null, none(), high, per_broker,
        "The private key in PEM, inline (ssl.keystore.type=PEM).");
    def("ssl.truststore.type", k_string, "JKS", none(), medium, per_broker,
        "Format of the truststore: PEM.");
    def("ssl.truststore.location", k_string, null, none(), high, per_broker,
        "PEM file of the certificates that client certificates must chain to.");
    def("ssl.truststore.password", k_password, null, none(), high, per_broker,
        "Password of the truststore. PEM truststores have none: set with one, it is refused.");
    def("ssl.truststore.certificates", k_password, null, none(), high, per_broker,
        "Trusted certificates in PEM, inline (ssl.truststore.type=PEM).");
    def("ssl.client.auth", k_string, "none", validator::one_of({"required", "requested", "none"}),
        medium, read_only,
        "Whether clients must (required), may (requested) or do not (none) present a certificate.");
    def("ssl.enabled.protocols", k_list, "TLSv1.2,TLSv1.3",
        validator::list_of({"TLSv1.2", "TLSv1.3"}), medium, read_only,
        "TLS versions a listener accepts.");
    def("ssl.protocol", k_string, "TLSv1.3", validator::one_of({"TLSv1.2", "TLSv1.3", "TLS"}),
        medium, read_only, "The highest TLS version used.");
    def("ssl.cipher.suites", k_list, "", none(), low, read_only,
        "Cipher suites by their IANA names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, "
        "TLS_AES_128_GCM_SHA256, ...); empty: the library's defaults.");
    def("ssl.endpoint.identification.algorithm", k_string, "https",
        validator::one_of({"https", "HTTPS", ""}), low, read_only,
        "https: this broker, connecting to another node's SSL listener (inter-broker or "
        "controller), checks that the certificate names the host it connects to; empty: it "
        "checks only that the certificate chains to the truststore.");
    def("ssl.principal.mapping.rules", k_string, "DEFAULT", principal_mapping_rules_validator(),
        low, read_only,
        "How a client certificate's subject (RFC 2253) becomes a principal's name: rules "
        "DEFAULT (the subject) or RULE:pattern/replacement/[LU], separated by commas, the first "
        "that applies wins; a subject none applies to is refused.");

    // ---- SASL (SASL_PLAINTEXT and SASL_SSL listeners) ----
    def("sasl.enabled.mechanisms", k_list, "GSSAPI", none(), medium, read_only,
        "SASL mechanisms a listener offers: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512.");
    def("sasl.mechanism.inter.broker.protocol", k_string, "GSSAPI", none(), medium, read_only,
        "The mechanism this broker logs in with on a SASL inter-broker listener (PLAIN, "
        "SCRAM-SHA-256, SCRAM-SHA-512), with the username and password of that listener's "
        "listener.name.<listener>.<mechanism>.sasl.jaas.config.");
    def("sasl.mechanism.controller.protocol", k_string, "GSSAPI", none(), medium, read_only,
        "The mechanism this node logs in with on a SASL controller listener (PLAIN), with the "
        "username and password of that listener's "
        "listener.name.<listener>.plain.sasl.jaas.config.");
    def("connections.max.reauth.ms", k_long, "0", validator::at_least(0), medium, read_only,
        "The longest a SASL session lasts before the client must re-authenticate (KIP-368); "
        "0: forever. Per listener and mechanism as "
        "listener.name.<listener>.<mechanism>.connections.max.reauth.ms.");
    def("sasl.jaas.config", k_password, null, none(), medium, read_only,
        "A JAAS login module; on a broker set per listener and mechanism, as "
        "listener.name.<listener>.<mechanism>.sasl.jaas.config.");

    // ---- Authorization (ACLs in the metadata log, KIP-801) ----
    def("authorizer.class.name", k_string, "",
        validator::one_of({"", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"}), low,
        read_only,
        "org.apache.kafka.metadata.authorizer.StandardAuthorizer checks every request against the "
        "ACLs; empty: no authorization (the ACL APIs answer SECURITY_DISABLED).");
    def("super.users", k_string, "", none(), low, read_only,
        "Principals allowed everything, separated by semicolons: User:admin;User:ANONYMOUS.");
    def("allow.everyone.if.no.acl.found", k_bool, "false", none(), low, read_only,
        "Whether a resource without any ACL is open to everyone (otherwise only to super users).");

    // ---- Threads ----
    // Kafka resizes its thread pools at run time (cluster-wide); Samsa's
    // reactors and fetchers are sized once at start, so these are read-only
    // here and an AlterConfigs of them is refused rather than ignored.
    def("num.io.threads", k_int, "0", validator::at_least(0), high, read_only,
        "Number of reactor threads that run connections and request handling. 0 (Samsa's default) "
        "means one per CPU core. Read-only in Samsa (Kafka: cluster-wide).");
    def("num.network.threads", k_int, "0", validator::at_least(0), high, read_only,
        "Number of reactors each listener's connections are spread over (their socket I/O and "
        "request decoding run there; partition work runs on the partition's reactor). 0 (Samsa's "
        "default) means every reactor. Read-only in Samsa (Kafka: cluster-wide).");
    def("background.threads", k_int, "10", validator::at_least(1), high, read_only,
        "Threads for background work: log flushes (fsync), checkpoints and file deletion. "
        "Read-only in Samsa (Kafka: cluster-wide).");
    def("num.recovery.threads.per.data.dir", k_int, "1", validator::at_least(1), high, read_only,
        "Threads per log directory that open (and recover) its logs at startup and flush them at "
        "shutdown; the directories run at the same time. Read-only in Samsa (Kafka: "
        "cluster-wide).");
    def("num.replica.fetchers", k_int, "1", none(), high, read_only,
        "Fetcher threads per source broker used to replicate partitions. Read-only in Samsa "
        "(Kafka: cluster-wide).");

    // ---- Topics ----
    def("max.request.partition.size.limit", k_int, "2000", validator::at_least(1), low, read_only,
        "Most partitions one DescribeTopicPartitions response carries (KIP-966).");
    def("num.partitions", k_int, "1", validator::at_least(1), medium, read_only,
        "Default number of partitions of a new topic.");
    def("default.replication.factor", k_int, "1", none(), medium, read_only,
        "Default replication factor of automatically created topics.");
    def("auto.create.topics.enable", k_bool, "true", none(), high, read_only,
        "Create a topic when a client asks for metadata of, or produces to, a topic that does not "
        "exist.");
    def("delete.topic.enable", k_bool, "true", none(), high, read_only,
        "Allow topics to be deleted; when false, DeleteTopics fails with TOPIC_DELETION_DISABLED.");
    def("message.max.bytes", k_int, "1048588", validator::at_least(0), high, cluster_wide,
        "Largest record batch size the broker accepts (after compression). Per topic: "
        "max.message.bytes.");
    def("compression.type", k_string, "producer", compression_type_validator(), high, cluster_wide,
        "Final compression of topic data: uncompressed, gzip, snappy, lz4, zstd, or producer to "
        "keep "
        "the producer's codec.");
    def("compression.gzip.level", k_int, "-1", gzip_level_validator(), medium, cluster_wide,
        "Compression level when compression.type is gzip.");
    def("compression.lz4.level", k_int, "9", validator::between(1, 17), medium, cluster_wide,
        "Compression level when compression.type is lz4.");
    def("compression.zstd.level", k_int, "3", validator::between(-131072, 22), medium, cluster_wide,
        "Compression level when compression.type is zstd.");
    def("min.insync.replicas", k_int, "1", validator::at_least(1), high, cluster_wide,
        "Minimum number of in-sync replicas for an acks=all produce to succeed; fewer fail it with "
        "NOT_ENOUGH_REPLICAS.");
    def("unclean.leader.election.enable", k_bool, "false", none(), high, cluster_wide,
        "Allow a replica outside the ISR to become leader as a last resort, at the risk of losing "
        "data.");
    def("fetch.max.bytes", k_int, "57671680", validator::at_least(1024), medium, read_only,
        "Most bytes returned for one fetch request.");
    def("max.incremental.fetch.session.cache.slots", k_int, "1000", validator::at_least(0), medium,
        read_only, "Maximum number of incremental fetch sessions kept.");

    // ---- Log (broker defaults of topic configs) ----
    def("log.dir", k_list, "./data", validator::non_duplicate_list(false), high, read_only,
        "Directory for log data, used when log.dirs is not set. Samsa's default is ./data.");
    def("log.dirs", k_list, null, validator::non_duplicate_list(false), high, read_only,
        "Comma-separated directories for log data. If unset, log.dir is used.");
    def("log.segment.bytes", k_int, "1073741824", validator::at_least(14), high, cluster_wide,
        "Maximum size of one log segment file.");
    def("log.roll.ms", k_long, null, none(), high, cluster_wide,
        "Maximum age of the active segment before a new one is rolled, in ms. If unset, "
        "log.roll.hours is used.");
    def("log.roll.hours", k_int, "168", validator::at_least(1), high, read_only,
        "Maximum age of the active segment before a new one is rolled, in hours; secondary to "
        "log.roll.ms.");
    def("log.roll.jitter.ms", k_long, null, none(), high, cluster_wide,
        "Maximum random jitter subtracted from the roll time, in ms. If unset, "
        "log.roll.jitter.hours is used.");
    def("log.roll.jitter.hours", k_int, "0", validator::at_least(0), high, read_only,
        "Maximum random jitter subtracted from the roll time, in hours; secondary to "
        "log.roll.jitter.ms.");
    def("log.retention.ms", k_long, null, none(), high, cluster_wide,
        "How long to keep a log segment before deleting it, in ms; -1 for no time limit. If unset, "
        "log.retention.minutes is used.");
    def("log.retention.minutes", k_int, null, none(), high, read_only,
        "How long to keep a log segment, in minutes; secondary to log.retention.ms. If unset, "
        "log.retention.hours is used.");
    def("log.retention.hours", k_int, "168", none(), high, read_only,
        "How long to keep a log segment, in hours; tertiary to log.retention.ms.");
    def("log.retention.bytes", k_long, "-1", none(), high, cluster_wide,
        "Maximum size of a partition's log before old segments are deleted; -1 for no limit.");
    def("log.retention.check.interval.ms", k_long, "300000", validator::at_least(1), medium,
        read_only, "How often the retention check looks for segments to delete.");
    def("log.cleanup.policy", k_list, "delete", validator::list_of({"compact", "delete"}), medium,
        cluster_wide,
        "Default cleanup policy for segments beyond the retention window: delete, "
        "compact, or both.");
    def("log.index.size.max.bytes", k_int, "10485760", validator::at_least(4), medium, cluster_wide,
        "Maximum size of a segment's offset index; a full index rolls the segment.");
    def("log.index.interval.bytes", k_int, "4096", validator::at_least(0), medium, cluster_wide,
        "Bytes of log between two offset index entries.");
    def("log.flush.interval.messages", k_long, k_long_max, validator::at_least(1), high,
        cluster_wide, "Messages appended to a partition before its log is fsynced.");
    def("log.flush.interval.ms", k_long, null, none(), high, cluster_wide,
        "Maximum time a message stays unflushed, in ms. If unset, log.flush.scheduler.interval.ms "
        "is used.");
    def("log.flush.scheduler.interval.ms", k_long, k_long_max, none(), high, read_only,
        "How often the flusher checks whether a log needs to be flushed.");
    def("log.flush.offset.checkpoint.interval.ms", k_int, "60000", validator::at_least(0), high,
        read_only, "How often the recovery point checkpoint is written.");
    def("log.flush.start.offset.checkpoint.interval.ms", k_int, "60000", validator::at_least(0),
        high, read_only, "How often the log start offset checkpoint is written.");
    def("log.segment.delete.delay.ms", k_long, "60000", validator::at_least(0), high, cluster_wide,
        "How long a deleted segment's files wait before they are removed from the filesystem.");
    def("log.preallocate", k_bool, "false", none(), medium, cluster_wide,
        "Preallocate segment files when they are created.");
    def("log.message.timestamp.type", k_string, "CreateTime",
        validator::one_of({"CreateTime", "LogAppendTime"}), medium, cluster_wide,
        "Whether record timestamps are the producer's create time or the broker's append time.");
    def("log.message.timestamp.difference.max.ms", k_long, k_long_max, validator::at_least(0),
        medium, cluster_wide,
        "Deprecated: largest allowed difference between a record's CreateTime timestamp and the "
        "broker's clock. Used for before/after.max.ms while those keep their defaults.");
    def("log.message.timestamp.before.max.ms", k_long, k_long_max, validator::at_least(0), medium,
        cluster_wide,
        "How far in the past a CreateTime timestamp may be, relative to the broker's clock.");
    def("log.message.timestamp.after.max.ms", k_long, k_long_max, validator::at_least(0), medium,
        cluster_wide,
        "How far in the future a CreateTime timestamp may be, relative to the broker's clock.");
    def("log.message.downconversion.enable", k_bool, "true", none(), low, cluster_wide,
        "Whether fetches from old consumers may be answered by down-converting record batches.");
    def("log.cleaner.enable", k_bool, "true", none(), medium, read_only,
        "Run the log cleaner, which compacts topics with cleanup.policy=compact.");
    def("log.cleaner.threads", k_int, "1", validator::at_least(0), medium, cluster_wide,
        "Number of log cleaner threads.");
    def("log.cleaner.dedupe.buffer.size", k_long, "134217728", validator::at_least(1024 * 1024),
        medium, cluster_wide,
        "Memory for the cleaner's key deduplication, across all cleaner threads.");
    def("log.cleaner.io.buffer.load.factor", k_double, "0.9", validator::between(0, 1), medium,
        cluster_wide, "How full the cleaner fills its dedupe buffer's hash table.");
    def("log.cleaner.io.max.bytes.per.second", k_double, "1.7976931348623157E308",
        validator::at_least(1), medium, cluster_wide,
        "The cleaner's limit on bytes read plus written per second.");
    def("log.cleaner.backoff.ms", k_long, "15000", validator::at_least(0), medium, cluster_wide,
        "How long the cleaner sleeps when there is nothing to clean.");
    def("log.cleaner.delete.retention.ms", k_long, "86400000", validator::at_least(0), medium,
        cluster_wide, "How long tombstones are kept in compacted topics.");
    def("log.cleaner.min.compaction.lag.ms", k_long, "0", validator::at_least(0), medium,
        cluster_wide, "Minimum time a record stays uncompacted.");
    def("log.cleaner.max.compaction.lag.ms", k_long, k_long_max, validator::at_least(1), medium,
        cluster_wide, "Maximum time a record may stay ineligible for compaction.");
    def("log.cleaner.min.cleanable.ratio", k_double, "0.5", validator::between(0, 1), medium,
        cluster_wide, "Minimum ratio of dirty log to total log for a log to be cleaned.");

    // ---- Replication ----
    def("replica.lag.time.max.ms", k_long, "30000", none(), high, read_only,
        "A follower that has not caught up to the leader's log end offset for this long leaves the "
        "ISR.");
    def("replica.socket.timeout.ms", k_int, "30000", none(), high, read_only,
        "Socket timeout of follower fetches; at least replica.fetch.wait.max.ms.");
    def("replica.fetch.max.bytes", k_int, "1048576", validator::at_least(0), medium, read_only,
        "Bytes a follower asks for per partition (the first batch is returned whole even if "
        "larger).");
    def("replica.fetch.wait.max.ms", k_int, "500", none(), high, read_only,
        "Longest time a follower fetch waits at the leader; must not exceed "
        "replica.lag.time.max.ms.");
    def("replica.fetch.min.bytes", k_int, "1", none(), high, read_only,
        "Bytes a follower fetch waits for, up to replica.fetch.wait.max.ms.");
    def("replica.fetch.backoff.ms", k_int, "1000", validator::at_least(0), medium, read_only,
        "How long a fetcher sleeps after a partition error.");
    def("replica.fetch.response.max.bytes", k_int, "10485760", validator::at_least(0), medium,
        read_only, "Bytes a follower asks for per fetch response.");
    def("replica.high.watermark.checkpoint.interval.ms", k_long, "5000", none(), high, read_only,
        "How often the high watermark is checkpointed to disk.");
    def("auto.leader.rebalance.enable", k_bool, "true", none(), high, read_only,
        "Periodically move leadership back to preferred replicas when the imbalance exceeds "
        "leader.imbalance.per.broker.percentage.");
    def("leader.imbalance.per.broker.percentage", k_int, "10", none(), high, read_only,
        "Leader imbalance per broker, in percent, above which the controller rebalances.");
    def("leader.imbalance.check.interval.seconds", k_long, "300", validator::at_least(1), high,
        read_only, "How often the controller checks for leader imbalance.");

    define_group_coordinator_keys(d);

    // ---- Transactions and producer ids ----
    def("transaction.state.log.num.partitions", k_int, "50", validator::at_least(1), high,
        read_only, "Partitions of __transaction_state (do not change after deployment).");
    def("transaction.state.log.replication.factor", k_short, "3", validator::at_least(1), high,
        read_only, "Replication factor of __transaction_state.");
    def("transaction.state.log.min.isr", k_int, "2", validator::at_least(1), high, read_only,
        "min.insync.replicas of __transaction_state.");
    def("transaction.state.log.segment.bytes", k_int, "104857600", validator::at_least(1), high,
        read_only, "Segment size of __transaction_state.");
    def("transactional.id.expiration.ms", k_int, "604800000", validator::at_least(1), high,
        read_only, "A transactional id with no transaction status update for this long expires.");
    def("transaction.max.timeout.ms", k_int, "900000", validator::at_least(1), high, read_only,
        "Largest transaction timeout a producer may ask for.");
    def("transaction.abort.timed.out.transaction.cleanup.interval.ms", k_int, "10000",
        validator::at_least(1), low, read_only,
        "How often the coordinator aborts transactions open past their timeout.");
    def("transaction.remove.expired.transaction.cleanup.interval.ms", k_int, "3600000",
        validator::at_least(1), low, read_only,
        "How often the coordinator removes transactional ids past transactional.id.expiration.ms.");
    def("producer.id.expiration.ms", k_int, "86400000", validator::at_least(1), low, cluster_wide,
        "How long a partition leader keeps the state of an idle producer id.");
    def("transaction.partition.verification.enable", k_bool, "true", none(), low, cluster_wide,
        "Check that a partition was added to the transaction before accepting transactional "
        "records for it.");
    return d;
}

}  // namespace

validator compression_type_validator() {
    return validator::one_of({"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"});
}

validator gzip_level_validator() {
    return validator::custom("[1,...,9] or -1",
                             [](const config_value& v) -> std::optional<std::string> {
                                 const auto* lp = std::get_if<int64_t>(&v);
                                 int64_t level = lp ? *lp : 0;
                                 if (level == -1 || (level >= 1 && level <= 9)) {
                                     return std::nullopt;
                                 }
                                 return "Value must be between 1 and 9, or -1";
                             });
}

const config_def& broker_config_def() {
    static const config_def def = build();
    return def;
}

}  // namespace samsa::config
