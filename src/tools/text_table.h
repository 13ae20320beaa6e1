#pragma once
// Aligned text tables as Kafka's tools print them (`%-Ns` columns separated by
// one space): each column is at least its minimum width and as wide as its widest
// cell; the last column is not padded, so lines carry no trailing blanks.
#include <cstddef>
#include <string>
#include <vector>

namespace samsa::tools {

struct table_column {
    std::string header;
    size_t min_width = 0;
};

class text_table {
  public:
    explicit text_table(std::vector<table_column> columns);

    // A row with fewer cells than columns is padded with empty cells.
    void add_row(std::vector<std::string> cells);
    size_t row_count() const { return _rows.size(); }
    bool empty() const { return _rows.empty(); }

    // Header line, then one line per row, each ending in '\n'.
    std::string render() const;
    // The same as Kafka's ToolsUtils.prettyPrintTable prints it (below).
    std::string render_tabbed() const;

  private:
    std::vector<table_column> _columns;
    std::vector<std::vector<std::string>> _rows;
};

// Kafka's ToolsUtils.prettyPrintTable (kafka-metadata-quorum.sh
// --replication, kafka-transactions.sh): every cell padded to its column's
// widest and followed by a tab, the last one too.
std::string kafka_pretty_table(const std::vector<std::string>& headers,
                               const std::vector<std::vector<std::string>>& rows);

}  // namespace samsa::tools
