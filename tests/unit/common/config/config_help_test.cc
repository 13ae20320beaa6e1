#include "common/config/config_help.h"

#include <gtest/gtest.h>

#include "common/config/broker_config_def.h"
#include "common/config/topic_config.h"

namespace samsa::config {
namespace {

TEST(config_help, lists_every_broker_key_sorted_with_details) {
    std::string text = format_config_help(broker_config_def());
    size_t last = 0;
    for (const config_key* k : broker_config_def().sorted_keys()) {
        size_t at = text.find("\n" + k->name + "\n");
        if (text.rfind(k->name + "\n", 0) == 0) {
            at = 0;
        }
        ASSERT_NE(at, std::string::npos) << k->name;
        EXPECT_GE(at, last) << k->name << " is out of order";
        last = at;
    }
    EXPECT_NE(text.find("num.partitions\n    Default number of partitions of a new topic.\n"
                        "    Type: int\n    Default: 1\n    Valid Values: [1,...]\n"
                        "    Importance: medium\n    Update Mode: read-only\n"),
              std::string::npos);
    EXPECT_NE(text.find("node.id\n"), std::string::npos);
    EXPECT_NE(text.find("Default: (required)"), std::string::npos);
    EXPECT_NE(text.find("Default: null"), std::string::npos);
    EXPECT_NE(text.find("Update Mode: cluster-wide"), std::string::npos);
    EXPECT_NE(text.find("listeners\n"), std::string::npos);
    // A listener's keystore is reloaded at run time (KIP-226), per broker.
    EXPECT_NE(text.find("ssl.keystore.location\n    PEM file with the listener's private key "
                        "and certificate chain.\n    Type: string\n    Default: null\n"
                        "    Importance: high\n    Update Mode: per-broker\n"),
              std::string::npos);
}

TEST(config_help, topic_keys_show_their_server_default_property) {
    std::string text = format_config_help(topic_config_def(), topic_broker_synonym);
    EXPECT_NE(text.find("retention.ms\n"), std::string::npos);
    EXPECT_NE(text.find("Server Default Property: log.retention.ms"), std::string::npos);
    EXPECT_EQ(text.find("Update Mode"), std::string::npos);
    std::string all = broker_and_topic_config_help();
    EXPECT_NE(all.find("Broker configuration"), std::string::npos);
    EXPECT_NE(all.find("Topic configuration"), std::string::npos);
}

}  // namespace
}  // namespace samsa::config
