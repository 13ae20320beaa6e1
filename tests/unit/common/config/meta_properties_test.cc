#include "common/config/meta_properties.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace samsa::config {
namespace {

namespace fs = std::filesystem;

class meta_properties_test : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        _root = fs::temp_directory_path() / fmt_name(std::string("samsa_meta_") + info->name() +
                                                     "_" + std::to_string(::getpid()));
        fs::remove_all(_root);
        fs::create_directories(_root);
    }
    void TearDown() override { fs::remove_all(_root); }

    static std::string fmt_name(std::string s) { return s; }

    static std::string read(const fs::path& p) {
        std::ifstream in(p);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

    static void write(const fs::path& p, std::string_view text) {
        std::ofstream out(p);
        out << text;
    }

    fs::path _root;
};

TEST_F(meta_properties_test, round_trip) {
    meta_properties m;
    m.cluster_id = uuid::random().to_string();
    m.node_id = 7;
    m.directory_id = uuid::random();
    ASSERT_TRUE(write_meta_properties(_root, m));
    EXPECT_FALSE(fs::exists(_root / "meta.properties.tmp"));
    auto text = read(_root / "meta.properties");
    EXPECT_EQ(text.rfind("#\n#", 0), 0u) << text;
    EXPECT_NE(text.find("version=1\n"), std::string::npos);
    EXPECT_NE(text.find("node.id=7\n"), std::string::npos);
    EXPECT_NE(text.find("cluster.id=" + m.cluster_id + "\n"), std::string::npos);
    auto back = read_meta_properties(_root);
    ASSERT_TRUE(back) << back.err().message;
    ASSERT_TRUE(back->has_value());
    EXPECT_EQ((*back)->cluster_id, m.cluster_id);
    EXPECT_EQ((*back)->node_id, 7);
    EXPECT_EQ((*back)->version, 1);
    EXPECT_EQ((*back)->directory_id, m.directory_id);
}

TEST_F(meta_properties_test, reads_the_file_kafka_storage_format_writes) {
    write(_root / "meta.properties",
          "#\n#Tue Mar 05 10:00:00 UTC 2024\nnode.id=1\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n"
          "version=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\n");
    auto m = read_meta_properties(_root);
    ASSERT_TRUE(m) << m.err().message;
    ASSERT_TRUE(m->has_value());
    EXPECT_EQ((*m)->cluster_id, "MkU3OEVBNTcwNTJENDM2Qk");
    EXPECT_EQ((*m)->node_id, 1);
    ASSERT_TRUE((*m)->directory_id);
    EXPECT_EQ((*m)->directory_id->to_string(), "J8aAPcfLQt2bqs1JT_rMgQ");
}

TEST_F(meta_properties_test, missing_file_is_nullopt) {
    auto m = read_meta_properties(_root);
    ASSERT_TRUE(m);
    EXPECT_FALSE(m->has_value());
}

TEST_F(meta_properties_test, invalid_files_are_rejected) {
    struct tc {
        const char* text;
        const char* expect;
    };
    for (auto [text, expect] :
         {tc{"cluster.id=x\nnode.id=1\n", "missing version"},
          tc{"version=0\ncluster.id=x\nbroker.id=1\n", "version 0"},
          tc{"version=2\ncluster.id=x\nnode.id=1\n", "version 2"},
          tc{"version=1\nnode.id=1\n", "missing cluster.id"},
          tc{"version=1\ncluster.id=x\n", "missing node.id"},
          tc{"version=1\ncluster.id=x\nnode.id=-1\n", "invalid node.id"},
          tc{"version=1\ncluster.id=x\nnode.id=1\ndirectory.id=nope\n", "invalid directory.id"}}) {
        write(_root / "meta.properties", text);
        auto m = read_meta_properties(_root);
        ASSERT_FALSE(m) << text;
        EXPECT_NE(m.err().message.find(expect), std::string::npos) << m.err().message;
        EXPECT_NE(m.err().message.find("meta.properties"), std::string::npos) << m.err().message;
    }
}

TEST_F(meta_properties_test, first_start_formats_missing_and_empty_dirs) {
    fs::create_directories(_root / "b");
    auto id = ensure_meta_properties({_root / "a", _root / "b"}, 3);
    ASSERT_TRUE(id) << id.err().message;
    ASSERT_EQ(id->dirs.size(), 2u);
    EXPECT_EQ(id->cluster_id.size(), 22u);
    EXPECT_TRUE(uuid::parse(id->cluster_id).has_value());
    for (const auto& d : id->dirs) {
        EXPECT_TRUE(d.created);
        EXPECT_EQ(d.meta.cluster_id, id->cluster_id);
        EXPECT_EQ(d.meta.node_id, 3);
        ASSERT_TRUE(d.meta.directory_id);
        auto on_disk = read_meta_properties(d.dir);
        ASSERT_TRUE(on_disk && on_disk->has_value());
        EXPECT_EQ((*on_disk)->directory_id, d.meta.directory_id);
    }
    EXPECT_NE(id->dirs[0].meta.directory_id, id->dirs[1].meta.directory_id);
}

TEST_F(meta_properties_test, restart_keeps_identity) {
    auto first = ensure_meta_properties({_root / "a", _root / "b"}, 3);
    ASSERT_TRUE(first);
    auto second = ensure_meta_properties({_root / "a", _root / "b"}, 3);
    ASSERT_TRUE(second) << second.err().message;
    EXPECT_EQ(second->cluster_id, first->cluster_id);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_FALSE(second->dirs[i].created);
        EXPECT_EQ(second->dirs[i].meta.directory_id, first->dirs[i].meta.directory_id);
    }
}

TEST_F(meta_properties_test, node_id_mismatch_is_detected) {
    ASSERT_TRUE(ensure_meta_properties({_root / "a"}, 1));
    auto r = ensure_meta_properties({_root / "a"}, 2);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().code, error_code::invalid_config);
    EXPECT_NE(r.err().message.find("Stored node id 1 doesn't match the configured node id 2"),
              std::string::npos)
        << r.err().message;
}

TEST_F(meta_properties_test, cluster_id_mismatch_is_detected) {
    ASSERT_TRUE(ensure_meta_properties({_root / "a"}, 1));
    ASSERT_TRUE(ensure_meta_properties({_root / "b"}, 1));  // a different, new cluster
    auto r = ensure_meta_properties({_root / "a", _root / "b"}, 1);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().code, error_code::inconsistent_cluster_id);
}

TEST_F(meta_properties_test, new_dir_joins_the_existing_cluster) {
    auto first = ensure_meta_properties({_root / "a"}, 1);
    ASSERT_TRUE(first);
    auto second = ensure_meta_properties({_root / "a", _root / "new"}, 1);
    ASSERT_TRUE(second) << second.err().message;
    EXPECT_EQ(second->cluster_id, first->cluster_id);
    EXPECT_FALSE(second->dirs[0].created);
    EXPECT_TRUE(second->dirs[1].created);
    EXPECT_EQ(second->dirs[1].meta.cluster_id, first->cluster_id);
}

TEST_F(meta_properties_test, non_empty_unformatted_dir_is_refused) {
    fs::create_directories(_root / "a" / "orders-0");
    auto r = ensure_meta_properties({_root / "a"}, 1);
    ASSERT_FALSE(r);
    EXPECT_NE(r.err().message.find("not empty"), std::string::npos) << r.err().message;
    EXPECT_FALSE(fs::exists(_root / "a" / "meta.properties"));
}

TEST_F(meta_properties_test, leftover_temp_file_does_not_block_formatting) {
    fs::create_directories(_root / "a");
    write(_root / "a" / "meta.properties.tmp", "garbage");
    fs::create_directories(_root / "a" / "lost+found");
    auto r = ensure_meta_properties({_root / "a"}, 1);
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_TRUE(r->dirs[0].created);
}

TEST_F(meta_properties_test, adds_directory_id_to_old_files) {
    fs::create_directories(_root / "a");
    write(_root / "a" / "meta.properties",
          "version=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\nnode.id=1\n");
    auto r = ensure_meta_properties({_root / "a"}, 1);
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(r->cluster_id, "MkU3OEVBNTcwNTJENDM2Qk");
    ASSERT_TRUE(r->dirs[0].meta.directory_id);
    auto on_disk = read_meta_properties(_root / "a");
    ASSERT_TRUE(on_disk && on_disk->has_value());
    EXPECT_EQ((*on_disk)->directory_id, r->dirs[0].meta.directory_id);
}

TEST_F(meta_properties_test, duplicate_paths_are_formatted_once) {
    auto r = ensure_meta_properties({_root / "a", _root / "a" / ".", _root / "a/"}, 1);
    ASSERT_TRUE(r) << r.err().message;
    EXPECT_EQ(r->dirs.size(), 1u);
}

TEST_F(meta_properties_test, a_file_where_a_dir_should_be_is_an_error) {
    write(_root / "a", "not a directory");
    auto r = ensure_meta_properties({_root / "a"}, 1);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.err().code, error_code::kafka_storage_error);
}

}  // namespace
}  // namespace samsa::config
