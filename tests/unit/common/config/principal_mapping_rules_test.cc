#include "common/config/principal_mapping_rules.h"

#include <gtest/gtest.h>

namespace samsa::config {
namespace {

principal_mapping_rules rules(std::string_view text) {
    auto r = principal_mapping_rules::parse(text);
    EXPECT_TRUE(r) << (r ? "" : r.err().message);
    return r ? std::move(*r) : principal_mapping_rules();
}

std::string refusal(std::string_view text) {
    auto r = principal_mapping_rules::parse(text);
    EXPECT_FALSE(r) << text;
    if (r) {
        return "";
    }
    EXPECT_EQ(r.err().code, error_code::invalid_config);
    return r.err().message;
}

TEST(principal_mapping_rules, default_keeps_the_subject) {
    EXPECT_EQ(principal_mapping_rules().map("CN=writer,OU=apps,O=example"),
              "CN=writer,OU=apps,O=example");
    EXPECT_EQ(rules("DEFAULT").map("CN=a"), "CN=a");
}

// The rules of Kafka's documentation for ssl.principal.mapping.rules.
TEST(principal_mapping_rules, the_first_rule_that_applies_names_the_principal) {
    auto r = rules(
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,"
        "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
        "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L,"
        "DEFAULT");
    EXPECT_EQ(r.map("CN=kafka-server1,OU=ServiceUsers,O=Org,C=US"), "kafka-server1");
    EXPECT_EQ(r.map("CN=Duke,OU=JavaSoft,O=Sun Microsystems,L=Palo Alto,ST=CA,C=US"),
              "duke@javasoft");
    EXPECT_EQ(r.map("OU=Sales,CN=Tom.Smith"), "tom.smith");
    EXPECT_EQ(r.map("OU=nobody"), "OU=nobody");  // DEFAULT at the end
}

TEST(principal_mapping_rules, upper_case_spaces_slashes_and_no_match) {
    auto r = rules("  RULE:^CN=([^,]*),.*$/$1/U ,  RULE:^O=(.*)$/org\\/$1/ ");
    EXPECT_EQ(r.map("CN=writer,O=x"), "WRITER");
    EXPECT_EQ(r.map("O=acme"), "org/acme");
    EXPECT_EQ(r.map("OU=else"), std::nullopt);  // no DEFAULT: refused
}

TEST(principal_mapping_rules, an_overlong_subject_is_matched_by_no_rule) {
    const std::string subject = "CN=" + std::string(principal_mapping_rules::k_max_subject, 'a');
    EXPECT_EQ(rules("RULE:^CN=(.*)$/$1/").map(subject), std::nullopt);
    EXPECT_EQ(rules("DEFAULT").map(subject), subject);
    EXPECT_FALSE(rules("RULE:^CN=(.*)$/$1/").only_default());
    EXPECT_TRUE(rules("DEFAULT,RULE:x/y/").only_default());
}

TEST(principal_mapping_rules, empty_rules_are_ignored) {
    EXPECT_EQ(rules("DEFAULT,,").map("CN=a"), "CN=a");
}

TEST(principal_mapping_rules, bad_rules_are_refused_with_the_rule) {
    EXPECT_NE(refusal("RULE:^CN=(.*$/$1/").find("RULE:^CN=(.*$/$1/"), std::string::npos);
    EXPECT_NE(refusal("RULE:^CN=x/y").find("expected RULE:pattern/replacement/[LU]"),
              std::string::npos);
    EXPECT_NE(refusal("RULE:a/b/Lx").find("unmatched text after the rule: `x`"), std::string::npos);
    EXPECT_NE(refusal("DEFAULT,SOMETHING").find("`SOMETHING`"), std::string::npos);
    EXPECT_NE(refusal("").find("no rule"), std::string::npos);
}

}  // namespace
}  // namespace samsa::config
