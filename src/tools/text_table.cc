#include "tools/text_table.h"

#include <algorithm>

namespace samsa::tools {

text_table::text_table(std::vector<table_column> columns) : _columns(std::move(columns)) {}

void text_table::add_row(std::vector<std::string> cells) {
    cells.resize(_columns.size());
    _rows.push_back(std::move(cells));
}

std::string text_table::render() const {
    std::vector<size_t> widths;
    for (const auto& c : _columns) {
        widths.push_back(std::max(c.min_width, c.header.size()));
    }
    for (const auto& row : _rows) {
        for (size_t i = 0; i < row.size(); ++i) {
            widths[i] = std::max(widths[i], row[i].size());
        }
    }
    std::string out;
    auto line = [&](auto cell_at) {
        std::string l;
        for (size_t i = 0; i < _columns.size(); ++i) {
            const std::string& cell = cell_at(i);
            l += cell;
            if (i + 1 < _columns.size()) {
                l.append(widths[i] - cell.size() + 1, ' ');
            }
        }
        // A last column that is empty would leave the separator blanks behind.
        while (!l.empty() && l.back() == ' ') {
            l.pop_back();
        }
        out += l;
        out += '\n';
    };
    line([&](size_t i) -> const std::string& { return _columns[i].header; });
    for (const auto& row : _rows) {
        line([&](size_t i) -> const std::string& { return row[i]; });
    }
    return out;
}

std::string text_table::render_tabbed() const {
    std::vector<std::string> headers;
    for (const auto& c : _columns) {
        headers.push_back(c.header);
    }
    return kafka_pretty_table(headers, _rows);
}

std::string kafka_pretty_table(const std::vector<std::string>& headers,
                               const std::vector<std::vector<std::string>>& rows) {
    std::vector<size_t> widths;
    for (const auto& h : headers) {
        widths.push_back(h.size());
    }
    for (const auto& row : rows) {
        for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
            widths[i] = std::max(widths[i], row[i].size());
        }
    }
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
        for (size_t i = 0; i < widths.size(); ++i) {
            const std::string cell = i < cells.size() ? cells[i] : std::string();
            out += cell;
            out.append(widths[i] - cell.size(), ' ');
            out += '\t';
        }
        out += '\n';
    };
    line(headers);
    for (const auto& row : rows) {
        line(row);
    }
    return out;
}

}  // namespace samsa::tools
