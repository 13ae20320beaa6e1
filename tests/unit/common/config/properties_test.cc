#include "common/config/properties.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace samsa::config {
namespace {

properties parse_ok(std::string_view text) {
    auto p = parse_properties(text);
    EXPECT_TRUE(p.has_value()) << (p ? "" : p.err().message);
    return p ? *p : properties{};
}

std::string value(const properties& p, std::string_view key) {
    auto v = p.get(key);
    EXPECT_TRUE(v.has_value()) << "missing key " << key;
    return v.value_or("<missing>");
}

TEST(properties, three_separators) {
    auto p = parse_ok("a=1\nb: 2\nc 3\nd\t4\n");
    EXPECT_EQ(value(p, "a"), "1");
    EXPECT_EQ(value(p, "b"), "2");
    EXPECT_EQ(value(p, "c"), "3");
    EXPECT_EQ(value(p, "d"), "4");
    EXPECT_EQ(p.size(), 4u);
}

TEST(properties, whitespace_around_separator_is_skipped_trailing_kept) {
    auto p = parse_ok("  key   =   value with spaces  \n");
    EXPECT_EQ(value(p, "key"), "value with spaces  ");
}

TEST(properties, whitespace_then_separator_counts_as_one_separator) {
    auto p = parse_ok("key   :  =value\n");
    // The first ':' after whitespace is the separator; the '=' is part of the value.
    EXPECT_EQ(value(p, "key"), "=value");
}

TEST(properties, second_separator_belongs_to_value) {
    auto p = parse_ok("a==b\nc=d=e\nf:g:h\n");
    EXPECT_EQ(value(p, "a"), "=b");
    EXPECT_EQ(value(p, "c"), "d=e");
    EXPECT_EQ(value(p, "f"), "g:h");
}

TEST(properties, key_without_value) {
    auto p = parse_ok("lonely\nempty=\n");
    EXPECT_EQ(value(p, "lonely"), "");
    EXPECT_EQ(value(p, "empty"), "");
}

TEST(properties, comments_and_blank_lines) {
    auto p = parse_ok("# comment\n! also a comment\n   # indented comment\n\n   \t \na=1\n");
    EXPECT_EQ(p.size(), 1u);
    EXPECT_EQ(value(p, "a"), "1");
}

TEST(properties, hash_inside_value_is_not_a_comment) {
    auto p = parse_ok("a=1 # not a comment\n");
    EXPECT_EQ(value(p, "a"), "1 # not a comment");
}

TEST(properties, comment_line_ending_in_backslash_does_not_continue) {
    auto p = parse_ok("# comment \\\na=1\n");
    EXPECT_EQ(p.size(), 1u);
    EXPECT_EQ(value(p, "a"), "1");
}

TEST(properties, continuation_lines_drop_leading_whitespace) {
    auto p = parse_ok("listeners=PLAINTEXT://:9092,\\\n    CONTROLLER://:9093\n");
    EXPECT_EQ(value(p, "listeners"), "PLAINTEXT://:9092,CONTROLLER://:9093");
}

TEST(properties, continuation_of_continuation) {
    auto p = parse_ok("a=1\\\n  2\\\n  3\nb=4\n");
    EXPECT_EQ(value(p, "a"), "123");
    EXPECT_EQ(value(p, "b"), "4");
}

TEST(properties, continued_line_starting_with_hash_is_value_not_comment) {
    auto p = parse_ok("a=x\\\n  #y\n");
    EXPECT_EQ(value(p, "a"), "x#y");
}

TEST(properties, even_number_of_backslashes_does_not_continue) {
    auto p = parse_ok("a=x\\\\\nb=y\n");
    EXPECT_EQ(value(p, "a"), "x\\");
    EXPECT_EQ(value(p, "b"), "y");
}

TEST(properties, blank_line_ends_a_continuation) {
    auto p = parse_ok("a=x\\\n\nb=y\n");
    EXPECT_EQ(value(p, "a"), "x");
    EXPECT_EQ(value(p, "b"), "y");
}

TEST(properties, continuation_in_key) {
    auto p = parse_ok("lo\\\n  ng=1\n");
    EXPECT_EQ(value(p, "long"), "1");
}

TEST(properties, backslash_at_end_of_input_is_dropped) {
    auto p = parse_ok("a=x\\");
    EXPECT_EQ(value(p, "a"), "x");
}

TEST(properties, crlf_and_cr_line_ends) {
    auto p = parse_ok("a=1\r\nb=2\rc=3\r\nd=x\\\r\n  y\r\n");
    EXPECT_EQ(value(p, "a"), "1");
    EXPECT_EQ(value(p, "b"), "2");
    EXPECT_EQ(value(p, "c"), "3");
    EXPECT_EQ(value(p, "d"), "xy");
}

TEST(properties, crlf_continuation_followed_by_blank_line) {
    auto p = parse_ok("a=x\\\r\n\r\nb=y\r\n");
    EXPECT_EQ(value(p, "a"), "x");
    EXPECT_EQ(value(p, "b"), "y");
}

TEST(properties, escapes) {
    auto p = parse_ok("a=tab\\there\nb=nl\\nx\nc=back\\\\slash\nd=\\r\\f\ne=\\q\\z\n");
    EXPECT_EQ(value(p, "a"), "tab\there");
    EXPECT_EQ(value(p, "b"), "nl\nx");
    EXPECT_EQ(value(p, "c"), "back\\slash");
    EXPECT_EQ(value(p, "d"), "\r\f");
    EXPECT_EQ(value(p, "e"), "qz");
}

TEST(properties, escaped_separators_in_key) {
    auto p = parse_ok("a\\=b=c\nx\\:y:z\nsp\\ ace=1\n");
    EXPECT_EQ(value(p, "a=b"), "c");
    EXPECT_EQ(value(p, "x:y"), "z");
    EXPECT_EQ(value(p, "sp ace"), "1");
}

TEST(properties, escaped_leading_space_in_value_is_kept) {
    auto p = parse_ok("a=\\  x\n");
    EXPECT_EQ(value(p, "a"), "  x");
}

TEST(properties, unicode_escapes_become_utf8) {
    auto p = parse_ok("a=\\u0041\\u00e9\\u20AC\nb=\\uD83D\\uDE00\n");
    EXPECT_EQ(value(p, "a"), "A\xc3\xa9\xe2\x82\xac");
    EXPECT_EQ(value(p, "b"), "\xf0\x9f\x98\x80");
}

TEST(properties, lone_surrogate_becomes_replacement_character) {
    auto p = parse_ok("a=\\uD83Dx\n");
    EXPECT_EQ(value(p, "a"), "\xef\xbf\xbdx");
}

TEST(properties, utf8_bytes_pass_through) {
    auto p = parse_ok("name=caf\xc3\xa9\n");
    EXPECT_EQ(value(p, "name"), "caf\xc3\xa9");
}

TEST(properties, malformed_unicode_escape_is_an_error_with_line_number) {
    auto p = parse_properties("a=1\n\n# c\nb=\\u12G4\n");
    ASSERT_FALSE(p.has_value());
    EXPECT_EQ(p.err().code, error_code::invalid_config);
    EXPECT_NE(p.err().message.find("line 4"), std::string::npos) << p.err().message;
    EXPECT_NE(p.err().message.find("\\uxxxx"), std::string::npos) << p.err().message;
}

TEST(properties, truncated_unicode_escape_is_an_error) {
    auto p = parse_properties("a=\\u12");
    ASSERT_FALSE(p.has_value());
    EXPECT_NE(p.err().message.find("line 1"), std::string::npos) << p.err().message;
}

TEST(properties, line_numbers_point_at_the_start_of_the_logical_line) {
    auto p = parse_ok("# header\n\na=1\nb=2\\\n  3\nc=4\n");
    EXPECT_EQ(p.find("a")->line, 3);
    EXPECT_EQ(p.find("b")->line, 4);
    EXPECT_EQ(p.find("c")->line, 6);
}

TEST(properties, last_definition_wins) {
    auto p = parse_ok("a=1\nb=2\na=3\n");
    EXPECT_EQ(value(p, "a"), "3");
    EXPECT_EQ(p.size(), 2u);
    EXPECT_EQ(p.find("a")->line, 3);
}

TEST(properties, empty_input) {
    EXPECT_TRUE(parse_ok("").empty());
    EXPECT_TRUE(parse_ok("\n\n   \n# only comments\n").empty());
}

TEST(properties, format_round_trips_special_characters) {
    std::vector<std::pair<std::string, std::string>> entries = {
        {"plain", "value"},
        {"k e=y:", " leading space, = : # ! \\ tab\t nl\n"},
        {"empty", ""},
    };
    std::string text = format_properties(entries, {"a comment"});
    EXPECT_EQ(text.rfind("# a comment\n", 0), 0u);
    auto p = parse_ok(text);
    for (const auto& [k, v] : entries) {
        EXPECT_EQ(value(p, k), v) << k;
    }
}

TEST(properties, load_file_reports_missing_file) {
    auto p = load_properties_file("/nonexistent/dir/server.properties");
    ASSERT_FALSE(p.has_value());
    EXPECT_NE(p.err().message.find("/nonexistent/dir/server.properties"), std::string::npos);
}

TEST(properties, load_file_names_file_in_syntax_errors) {
    auto path = std::filesystem::temp_directory_path() /
                ("samsa_properties_test_" + std::to_string(::getpid()) + ".properties");
    {
        std::ofstream out(path);
        out << "a=1\nb=\\uZZZZ\n";
    }
    auto p = load_properties_file(path);
    std::filesystem::remove(path);
    ASSERT_FALSE(p.has_value());
    EXPECT_NE(p.err().message.find(path.string()), std::string::npos) << p.err().message;
    EXPECT_NE(p.err().message.find("line 2"), std::string::npos) << p.err().message;
}

}  // namespace
}  // namespace samsa::config
