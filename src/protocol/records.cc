#include "protocol/records.h"

#include <algorithm>

namespace samsa::protocol {

bool records::operator==(const records& o) const {
    if (_null || o._null) {
        return _null == o._null;
    }
    if (_size != o._size || has_files() || o.has_files()) {
        return _size == o._size && !has_files() && !o.has_files();
    }
    bytes a;
    bytes b;
    for (const auto& p : _pieces) {
        a.insert(a.end(), p.memory.begin(), p.memory.end());
    }
    for (const auto& p : o._pieces) {
        b.insert(b.end(), p.memory.begin(), p.memory.end());
    }
    return a == b;
}

}  // namespace samsa::protocol
