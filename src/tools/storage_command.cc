// `samsa storage`: the log directories' identity files, as kafka-storage.sh
// handles them:
//
//   random-uuid                  a new cluster id
//   info -c CONFIG               each directory of log.dirs and metadata.log.dir,
//                                and the meta.properties found there
//   format -t ID -c CONFIG [-g]  writes meta.properties (cluster.id ID, node.id,
//                                a directory.id each) into every directory; one
//                                already formatted stops it unless
//                                --ignore-formatted. The metadata directory also
//                                gets bootstrap.checkpoint: the records a fresh
//                                metadata log starts with, metadata.version and
//                                each --add-scram user (KIP-554), so that the
//                                first admin of a SCRAM-only cluster exists
//                                before any listener can be reached
//
// A broker formats empty directories itself on first start (server --cluster-id),
// so format is needed only where scripts written for Kafka run it; what it writes
// is what the broker would (common/config/meta_properties.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/config/broker_config.h"
#include "common/config/meta_properties.h"
#include "common/uuid.h"
#include "metadata/bootstrap_metadata.h"
#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/scram_argument.h"

namespace samsa::tools {

namespace {

namespace fs = std::filesystem;

struct storage_options {
    std::string config;
    std::string cluster_id;
    std::vector<std::string> overrides;
    bool ignore_formatted = false;
    bool standalone = false;
    std::vector<std::string> add_scram;
};

struct storage_layout {
    std::vector<fs::path> dirs;  // log.dirs then metadata.log.dir, each once
    int32_t node_id = -1;
    // metadata.log.dir, else the first of log.dirs (where the metadata log is).
    fs::path metadata_dir;
    // This node is a controller and the quorum's only voter.
    bool standalone = false;
};

result<storage_layout> directories(const storage_options& o) {
    auto loaded = config::load_broker_config(o.config, o.overrides);
    if (!loaded) {
        return loaded.err();
    }
    const auto& cfg = loaded->config;
    std::vector<fs::path> dirs;
    std::set<std::string> seen;
    auto add = [&](const std::string& d) {
        if (!d.empty() && seen.insert(d).second) {
            dirs.emplace_back(d);
        }
    };
    for (const auto& d : cfg.log_dirs) {
        add(d);
    }
    add(cfg.metadata_log_dir);
    const bool alone = cfg.is_controller() && cfg.controller_quorum_voters.size() == 1 &&
                       cfg.controller_quorum_voters[0].id == cfg.node_id;
    const fs::path metadata_dir = !cfg.metadata_log_dir.empty()
                                      ? fs::path(cfg.metadata_log_dir)
                                      : (dirs.empty() ? fs::path() : dirs.front());
    return storage_layout{dirs, cfg.node_id, metadata_dir, alone};
}

bool is_empty_dir(const fs::path& d) {
    std::error_code ec;
    return !fs::exists(d, ec) || (fs::is_directory(d, ec) && fs::is_empty(d, ec));
}

int run_info(const storage_options& o) {
    auto dirs = directories(o);
    if (!dirs) {
        return fail(dirs.err());
    }
    std::vector<std::string> found, problems;
    std::optional<config::meta_properties> meta;
    for (const auto& d : dirs->dirs) {
        std::error_code ec;
        if (!fs::is_directory(d, ec)) {
            problems.push_back(d.string() + " does not exist");
            continue;
        }
        found.push_back(d.string());
        auto m = config::read_meta_properties(d);
        if (!m) {
            problems.push_back(m.err().message);
        } else if (!*m) {
            problems.push_back(d.string() + " is not formatted.");
        } else if (!meta) {
            meta = **m;
        } else if ((*m)->cluster_id != meta->cluster_id || (*m)->node_id != meta->node_id) {
            problems.push_back(d.string() + " has another cluster.id or node.id than " +
                               found.front());
        }
    }
    if (!found.empty()) {
        std::printf("Found log director%s:\n", found.size() == 1 ? "y" : "ies");
        for (const auto& d : found) {
            std::printf("  %s\n", d.c_str());
        }
        std::printf("\n");
    }
    if (meta) {
        std::printf("Found metadata: {cluster.id=%s, %snode.id=%d, version=%d}\n\n",
                    meta->cluster_id.c_str(),
                    meta->directory_id
                        ? ("directory.id=" + meta->directory_id->to_string() + ", ").c_str()
                        : "",
                    meta->node_id, meta->version);
    }
    if (!problems.empty()) {
        std::printf("Found problem%s:\n", problems.size() == 1 ? "" : "s");
        for (const auto& p : problems) {
            std::printf("  %s\n", p.c_str());
        }
        std::printf("\n");
        return 1;
    }
    return 0;
}

int run_format(const storage_options& o) {
    if (o.cluster_id.empty()) {
        return fail("--cluster-id (-t) is required");
    }
    if (!uuid::parse(o.cluster_id)) {
        return fail("Cluster ID string " + o.cluster_id +
                    " does not appear to be a valid UUID: it must be 22 base64url characters");
    }
    std::vector<metadata::metadata_record> bootstrap = metadata::default_bootstrap_records();
    for (const auto& a : o.add_scram) {
        auto r = parse_scram_argument(a);
        if (!r) {
            return fail(r.err());
        }
        bootstrap.emplace_back(std::move(*r));
    }
    auto dirs = directories(o);
    if (!dirs) {
        return fail(dirs.err());
    }
    if (o.standalone && !dirs->standalone) {
        return fail(
            "--standalone formats a quorum of this controller alone, but the config's quorum is "
            "not that: controller.quorum.voters (or controller.quorum.bootstrap.servers) must name "
            "this node only");
    }
    std::vector<fs::path> fresh;
    for (const auto& d : dirs->dirs) {
        auto m = config::read_meta_properties(d);
        if (m && *m) {
            if (!o.ignore_formatted) {
                return fail("Log directory " + d.string() +
                            " is already formatted. Use --ignore-formatted to ignore this "
                            "directory and format the others.");
            }
            continue;
        }
        if (!is_empty_dir(d)) {
            return fail("Log directory " + d.string() +
                        " is not empty and has no meta.properties: it is not formatted over");
        }
        fresh.push_back(d);
    }
    if (fresh.empty()) {
        std::printf("All of the log directories are already formatted.\n");
        return 0;
    }
    // ensure_meta_properties formats what is empty and checks the rest agree.
    auto identity = config::ensure_meta_properties(dirs->dirs, dirs->node_id, o.cluster_id);
    if (!identity) {
        return fail(identity.err());
    }
    if (std::find(fresh.begin(), fresh.end(), dirs->metadata_dir) != fresh.end()) {
        if (auto st = metadata::write_bootstrap_records(dirs->metadata_dir.string(), bootstrap);
            !st) {
            // Without its bootstrap records the directory would start a cluster
            // without the --add-scram users: leave it unformatted instead.
            std::error_code ec;
            fs::remove(dirs->metadata_dir / config::k_meta_properties_file, ec);
            return fail(st.err());
        }
    }
    for (const auto& d : identity->dirs) {
        if (d.created) {
            std::printf("Formatting %s directory %s with cluster.id %s.\n",
                        d.dir == dirs->metadata_dir ? "metadata" : "data", d.dir.c_str(),
                        identity->cluster_id.c_str());
        }
    }
    return 0;
}

}  // namespace

tool_command add_storage_command(CLI::App& app) {
    auto o = std::make_shared<storage_options>();
    auto* cmd = add_verb(app, "storage",
                         "Format log directories, show their identity, make a cluster id "
                         "(kafka-storage.sh)");
    cmd->require_subcommand(1);
    auto* uuid_cmd = cmd->add_subcommand("random-uuid", "Print a random UUID (a cluster id)");
    auto* info = cmd->add_subcommand("info", "Show the log directories and their meta.properties");
    info->add_option("-c,--config", o->config, "The server.properties file")
        ->required()
        ->check(CLI::ExistingFile);
    auto* format = cmd->add_subcommand("format", "Format the log directories");
    format->add_option("-c,--config", o->config, "The server.properties file")
        ->required()
        ->check(CLI::ExistingFile);
    format->add_option("-t,--cluster-id", o->cluster_id, "The cluster id")->required();
    format->add_flag("-g,--ignore-formatted", o->ignore_formatted,
                     "Leave directories already formatted alone and format the others");
    format->add_flag("-s,--standalone", o->standalone,
                     "Format as a quorum of this controller alone; the config's quorum must be "
                     "that (controller.quorum.voters or .bootstrap.servers naming this node)");
    format->add_option("-S,--add-scram", o->add_scram,
                       "A SCRAM user the cluster starts with: "
                       "'SCRAM-SHA-256=[name=alice,password=alice-secret]' (also iterations=, "
                       "salt= and saltedpassword= in base64); repeatable");
    format->add_option("--override", o->overrides, "Override a config key, key=value");
    return {cmd, [o, uuid_cmd, info] {
                if (uuid_cmd->parsed()) {
                    std::printf("%s\n", uuid::random().to_string().c_str());
                    return 0;
                }
                return info->parsed() ? run_info(*o) : run_format(*o);
            }};
}

}  // namespace samsa::tools
