#pragma once
// A fresh directory under $TMPDIR for one test, removed with everything in it.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace samsa::storage::testing {

class temp_dir {
  public:
    temp_dir() {
        auto base = std::filesystem::temp_directory_path() / "samsa-storage-XXXXXX";
        std::string tmpl = base.string();
        char* p = ::mkdtemp(tmpl.data());
        _path = p ? std::string(p) : std::string();
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(_path, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;

    const std::string& path() const { return _path; }
    std::string file(const std::string& name) const { return _path + "/" + name; }

  private:
    std::string _path;
};

}  // namespace samsa::storage::testing
