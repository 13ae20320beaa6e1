// bootstrap.checkpoint (metadata/bootstrap_metadata.h): what `samsa storage
// format` writes reads back record for record; no file means metadata.version
// alone; a damaged file, or one without metadata.version, is refused; and a
// controller starting a fresh log commits the bootstrap records first.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "controller_fixture.h"
#include "metadata/bootstrap_metadata.h"
#include "metadata_test_util.h"
#include "security/sasl/scram.h"

namespace samsa::metadata {
namespace {

using security::sasl::scram_mechanism;
using testing::controller_fixture;
using testing::temp_dir;

protocol::user_scram_credential_record scram_user(const std::string& name) {
    protocol::user_scram_credential_record r;
    r.name = name;
    r.mechanism = int8_t(scram_mechanism::sha256);
    auto c = security::sasl::scram_credential_from_salted(
        scram_mechanism::sha256, bytes{1, 2, 3, 4},
        security::sasl::scram_salted_password(scram_mechanism::sha256, name + "-secret",
                                              bytes{1, 2, 3, 4}, 4096),
        4096);
    r.salt = c.salt;
    r.stored_key = c.stored_key;
    r.server_key = c.server_key;
    r.iterations = c.iterations;
    return r;
}

TEST(bootstrap_metadata, what_is_written_reads_back) {
    temp_dir dir;
    auto records = default_bootstrap_records();
    records.emplace_back(scram_user("alice"));
    ASSERT_TRUE(write_bootstrap_records(dir.path(), records));
    auto read = read_bootstrap_records(dir.path());
    ASSERT_TRUE(read) << read.err().message;
    ASSERT_EQ(read->size(), 2u);
    EXPECT_EQ(encode_metadata_record((*read)[0]), encode_metadata_record(records[0]));
    EXPECT_EQ(encode_metadata_record((*read)[1]), encode_metadata_record(records[1]));
}

TEST(bootstrap_metadata, without_a_file_metadata_version_alone) {
    temp_dir dir;
    auto read = read_bootstrap_records(dir.path());
    ASSERT_TRUE(read) << read.err().message;
    ASSERT_EQ(read->size(), 1u);
    const auto* f = std::get_if<protocol::feature_level_record>(&(*read)[0]);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->name, metadata_version_feature);
    EXPECT_EQ(f->feature_level, written_metadata_version);
}

TEST(bootstrap_metadata, a_damaged_file_is_refused_by_name) {
    temp_dir dir;
    ASSERT_TRUE(write_bootstrap_records(dir.path(), default_bootstrap_records()));
    const auto path = std::filesystem::path(dir.path()) / bootstrap_file_name;
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 5);
    auto read = read_bootstrap_records(dir.path());
    ASSERT_FALSE(read);
    EXPECT_NE(read.err().message.find(path.string()), std::string::npos) << read.err().message;
}

TEST(bootstrap_metadata, a_file_without_metadata_version_is_refused) {
    temp_dir dir;
    ASSERT_TRUE(write_bootstrap_records(dir.path(), {metadata_record(scram_user("alice"))}));
    auto read = read_bootstrap_records(dir.path());
    ASSERT_FALSE(read);
    EXPECT_NE(read.err().message.find("no FeatureLevelRecord for metadata.version"),
              std::string::npos)
        << read.err().message;
}

class bootstrap_controller : public controller_fixture {};

TEST_F(bootstrap_controller, a_fresh_log_starts_with_the_bootstrap_users) {
    auto records = default_bootstrap_records();
    records.emplace_back(scram_user("admin"));
    ctl().set_bootstrap_records(records);
    register_self();
    auto admin = image()->find_scram_credential("admin", scram_mechanism::sha256);
    ASSERT_TRUE(admin);
    EXPECT_EQ(admin->iterations, 4096);
    EXPECT_EQ(image()->features.at(metadata_version_feature), written_metadata_version);
    // Only a fresh log: a log that has them already is not bootstrapped again.
    open();
    ctl().set_bootstrap_records(records);
    register_self();
    EXPECT_EQ(image()->scram_credentials.size(), 1u);
}

}  // namespace
}  // namespace samsa::metadata
