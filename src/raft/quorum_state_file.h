#pragma once
// file_quorum_state_store: the `quorum-state` file in the metadata log
// directory (Kafka's FileQuorumStateStore), one JSON object in the shape of
// QuorumStateData version 0 plus a "data_version" field:
//
//   {"clusterId":"","leaderId":2,"leaderEpoch":7,"votedId":-1,"appliedOffset":0,
//    "currentVoters":[{"voterId":1},{"voterId":2},{"voterId":3}],"data_version":0}
//
// leaderId / votedId are -1 when unknown / not voted; appliedOffset is unused
// (Kafka writes 0). Reading also accepts data_version 1 (KIP-853: no clusterId,
// appliedOffset or currentVoters; a votedDirectoryId, ignored here since voters
// are static). Written with write_file_atomically: `quorum-state.tmp`, fsync,
// rename, fsync of the directory, so a crash leaves the old state or the new.
#include <string>
#include <string_view>

#include "raft/quorum_state_store.h"

namespace samsa::raft {

inline constexpr std::string_view quorum_state_file_name = "quorum-state";

// The JSON text of `s` (data_version 0).
std::string encode_quorum_state_json(const election_state& s);
// KAFKA_STORAGE_ERROR when the text is not a quorum state this reads.
result<election_state> decode_quorum_state_json(std::string_view json);

class file_quorum_state_store final : public quorum_state_store {
  public:
    // `path`: the file (normally `<metadata.log.dir>/__cluster_metadata-0/quorum-state`).
    explicit file_quorum_state_store(std::string path) : _path(std::move(path)) {}

    result<std::optional<election_state>> read() override;
    status write(const election_state& state) override;
    const std::string& path() const { return _path; }

  private:
    std::string _path;
};

}  // namespace samsa::raft
