#include "tools/json_file.h"

#include <fstream>
#include <sstream>

namespace samsa::tools {

result<nlohmann::json> read_json_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        return error(error_code::invalid_config, "cannot read " + path);
    }
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str(), nullptr, false);
}

}  // namespace samsa::tools
