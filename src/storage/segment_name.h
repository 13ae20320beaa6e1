#pragma once
// File names of a segment, as Kafka names them: the base offset (the first
// offset the segment may hold) as 20 zero-padded decimal digits, then a suffix.
//
//   00000000000000170410.log        record batches
//   00000000000000170410.index      offset index
//   00000000000000170410.timeindex  time index
//   <any of the above>.deleted      renamed for asynchronous deletion
//   <name>.cleaned, <name>.swap     compaction leftovers (deleted on load)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace samsa::storage {

inline constexpr std::string_view log_suffix = ".log";
inline constexpr std::string_view index_suffix = ".index";
inline constexpr std::string_view time_index_suffix = ".timeindex";
inline constexpr std::string_view txn_index_suffix = ".txnindex";
inline constexpr std::string_view deleted_suffix = ".deleted";
inline constexpr std::string_view cleaned_suffix = ".cleaned";
inline constexpr std::string_view swap_suffix = ".swap";
// Bytes recovery cut off after a corrupt batch, kept beside the segment.
inline constexpr std::string_view corrupt_suffix = ".corrupt";

// "00000000000000170410" for 170410.
std::string offset_file_stem(int64_t offset);
// offset_file_stem(base) + suffix.
std::string segment_file_name(int64_t base_offset, std::string_view suffix);
// The base offset of a file named <20 digits><suffix>; nullopt for anything else.
std::optional<int64_t> parse_segment_file_name(std::string_view name, std::string_view suffix);

}  // namespace samsa::storage
