#include "coordinator/group/group.h"

namespace samsa::coordinator {

std::string_view group_type_name(group_type t) {
    switch (t) {
        case group_type::classic:
            return "classic";
        case group_type::consumer:
            return "consumer";
    }
    return "unknown";
}

}  // namespace samsa::coordinator
