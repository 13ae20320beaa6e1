#include "raft/quorum_state_file.h"

#include <cctype>
#include <charconv>
#include <map>
#include <memory>
#include <variant>

#include <fmt/format.h>

#include "storage/file_util.h"

namespace samsa::raft {

namespace {

// Just enough JSON for the quorum-state file: objects, arrays, integers,
// strings (with the simple escapes), true/false/null.
struct json_value;
using json_object = std::map<std::string, json_value, std::less<>>;
using json_array = std::vector<json_value>;
struct json_value {
    std::variant<std::nullptr_t, bool, int64_t, std::string, std::shared_ptr<json_array>,
                 std::shared_ptr<json_object>>
        v;
};

class json_parser {
  public:
    explicit json_parser(std::string_view s) : _s(s) {}

    bool parse(json_value& out) {
        if (!value(out, 0)) {
            return false;
        }
        skip_ws();
        return _i == _s.size();
    }

  private:
    void skip_ws() {
        while (_i < _s.size() && std::isspace(static_cast<unsigned char>(_s[_i]))) {
            ++_i;
        }
    }
    bool eat(char c) {
        skip_ws();
        if (_i < _s.size() && _s[_i] == c) {
            ++_i;
            return true;
        }
        return false;
    }
    bool literal(std::string_view word) {
        if (_s.substr(_i, word.size()) == word) {
            _i += word.size();
            return true;
        }
        return false;
    }
    bool string(std::string& out) {
        if (!eat('"')) {
            return false;
        }
        while (_i < _s.size() && _s[_i] != '"') {
            char c = _s[_i++];
            if (c == '\\') {
                if (_i >= _s.size()) {
                    return false;
                }
                char e = _s[_i++];
                switch (e) {
                    case '"':
                        out += '"';
                        break;
                    case '\\':
                        out += '\\';
                        break;
                    case '/':
                        out += '/';
                        break;
                    case 'n':
                        out += '\n';
                        break;
                    case 't':
                        out += '\t';
                        break;
                    default:
                        return false;  // \uXXXX never appears in this file
                }
            } else {
                out += c;
            }
        }
        return eat('"');
    }
    bool value(json_value& out, int depth) {
        if (depth > 8) {
            return false;
        }
        skip_ws();
        if (_i >= _s.size()) {
            return false;
        }
        char c = _s[_i];
        if (c == '{') {
            ++_i;
            auto obj = std::make_shared<json_object>();
            if (!eat('}')) {
                do {
                    std::string key;
                    json_value v;
                    if (!string(key) || !eat(':') || !value(v, depth + 1)) {
                        return false;
                    }
                    (*obj)[key] = std::move(v);
                } while (eat(','));
                if (!eat('}')) {
                    return false;
                }
            }
            out.v = std::move(obj);
            return true;
        }
        if (c == '[') {
            ++_i;
            auto arr = std::make_shared<json_array>();
            if (!eat(']')) {
                do {
                    json_value v;
                    if (!value(v, depth + 1)) {
                        return false;
                    }
                    arr->push_back(std::move(v));
                } while (eat(','));
                if (!eat(']')) {
                    return false;
                }
            }
            out.v = std::move(arr);
            return true;
        }
        if (c == '"') {
            std::string s;
            if (!string(s)) {
                return false;
            }
            out.v = std::move(s);
            return true;
        }
        if (literal("true")) {
            out.v = true;
            return true;
        }
        if (literal("false")) {
            out.v = false;
            return true;
        }
        if (literal("null")) {
            out.v = nullptr;
            return true;
        }
        int64_t n = 0;
        auto [p, ec] = std::from_chars(_s.data() + _i, _s.data() + _s.size(), n);
        if (ec != std::errc{}) {
            return false;
        }
        _i = size_t(p - _s.data());
        out.v = n;
        return true;
    }

    std::string_view _s;
    size_t _i = 0;
};

error malformed(std::string_view why) {
    return error{error_code::kafka_storage_error, fmt::format("malformed quorum-state: {}", why)};
}

const json_value* field(const json_object& o, std::string_view name) {
    auto it = o.find(name);
    return it == o.end() ? nullptr : &it->second;
}

bool int_field(const json_object& o, std::string_view name, int64_t& out) {
    const json_value* v = field(o, name);
    if (v == nullptr || !std::holds_alternative<int64_t>(v->v)) {
        return false;
    }
    out = std::get<int64_t>(v->v);
    return true;
}

}  // namespace

std::string encode_quorum_state_json(const election_state& s) {
    std::string voters;
    for (size_t i = 0; i < s.voters.size(); ++i) {
        voters += fmt::format("{}{{\"voterId\":{}}}", i == 0 ? "" : ",", s.voters[i].value());
    }
    // Cluster ids are base64url (letters, digits, '-', '_'): nothing to escape.
    return fmt::format(
        "{{\"clusterId\":\"{}\",\"leaderId\":{},\"leaderEpoch\":{},\"votedId\":{},"
        "\"appliedOffset\":0,\"currentVoters\":[{}],\"data_version\":0}}",
        s.cluster_id, s.leader.value(), s.epoch.value(), s.voted.value(), voters);
}

result<election_state> decode_quorum_state_json(std::string_view json) {
    json_value root;
    if (!json_parser(json).parse(root) ||
        !std::holds_alternative<std::shared_ptr<json_object>>(root.v)) {
        return malformed("not a JSON object");
    }
    const json_object& o = *std::get<std::shared_ptr<json_object>>(root.v);
    int64_t version = 0;
    if (!int_field(o, "data_version", version) || version < 0 || version > 1) {
        return malformed("missing or unknown data_version");
    }
    int64_t leader = -1, epoch = -1, voted = -1;
    if (!int_field(o, "leaderId", leader) || !int_field(o, "leaderEpoch", epoch) ||
        !int_field(o, "votedId", voted)) {
        return malformed("missing leaderId, leaderEpoch or votedId");
    }
    election_state s;
    s.leader = node_id{int32_t(leader)};
    // Kafka writes -1 for "no epoch yet"; the Raft epoch of a fresh quorum is 0.
    s.epoch = raft_epoch{int32_t(std::max<int64_t>(epoch, 0))};
    s.voted = node_id{int32_t(voted)};
    if (const json_value* c = field(o, "clusterId");
        c != nullptr && std::holds_alternative<std::string>(c->v)) {
        s.cluster_id = std::get<std::string>(c->v);
    }
    if (const json_value* cv = field(o, "currentVoters");
        cv != nullptr && std::holds_alternative<std::shared_ptr<json_array>>(cv->v)) {
        for (const auto& v : *std::get<std::shared_ptr<json_array>>(cv->v)) {
            int64_t id = 0;
            if (!std::holds_alternative<std::shared_ptr<json_object>>(v.v) ||
                !int_field(*std::get<std::shared_ptr<json_object>>(v.v), "voterId", id)) {
                return malformed("a currentVoters entry without voterId");
            }
            s.voters.push_back(node_id{int32_t(id)});
        }
    }
    return s;
}

result<std::optional<election_state>> file_quorum_state_store::read() {
    bool missing = false;
    auto text = storage::read_whole_file(_path, &missing);
    if (!text) {
        return text.err();
    }
    if (missing) {
        return std::optional<election_state>{};
    }
    auto s = decode_quorum_state_json(*text);
    if (!s) {
        return error{s.err().code, fmt::format("{}: {}", _path, s.err().message)};
    }
    return std::optional<election_state>{std::move(*s)};
}

status file_quorum_state_store::write(const election_state& state) {
    return storage::write_file_atomically(_path, encode_quorum_state_json(state));
}

}  // namespace samsa::raft
