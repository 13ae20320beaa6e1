// The per-thread counters merged on scrape, and Prometheus' text format.
#include <gtest/gtest.h>

#include <limits>
#include <thread>
#include <vector>

#include "common/metrics/prometheus_text.h"
#include "common/metrics/thread_stats.h"

namespace samsa::metrics {
namespace {

TEST(metrics_test, counters_of_every_thread_add_up_on_scrape) {
    const uint64_t before = sum(&thread_stats::isr_shrinks);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([] {
            for (int i = 0; i < 1000; ++i) {
                local().isr_shrinks.add(1);
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    // Blocks outlive their threads: nothing counted is lost when one ends.
    EXPECT_EQ(sum(&thread_stats::isr_shrinks), before + 4000);
}

TEST(metrics_test, a_thread_counts_per_topic_and_a_scrape_sees_each_topic_once) {
    auto& mine = local();
    mine.topic("metrics-test-a").bytes_in.add(10);
    mine.topic("metrics-test-a").bytes_in.add(5);
    mine.topic("metrics-test-b").messages_in.add(2);
    uint64_t a = 0, b = 0;
    int seen_a = 0;
    mine.for_each_topic([&](const std::string& name, const topic_counters& c) {
        if (name == "metrics-test-a") {
            a = c.bytes_in.value();
            ++seen_a;
        } else if (name == "metrics-test-b") {
            b = c.messages_in.value();
        }
    });
    EXPECT_EQ(a, 15u);
    EXPECT_EQ(b, 2u);
    EXPECT_EQ(seen_a, 1);
}

TEST(metrics_test, a_scrape_while_a_thread_adds_topics_is_safe) {
    // The writer starts only once the scraper is running, so that the two overlap even when
    // the writer would otherwise finish before the scraping thread is scheduled.
    std::atomic<bool> scraping{false};
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        while (!scraping) {
            std::this_thread::yield();
        }
        for (int i = 0; i < 2000; ++i) {
            local().topic("metrics-race-" + std::to_string(i)).bytes_in.add(1);
        }
        stop = true;
    });
    size_t scrapes = 0;
    do {
        scraping = true;
        for_each_block([](const thread_stats& b) {
            b.for_each_topic(
                [](const std::string&, const topic_counters& c) { (void)c.bytes_in.value(); });
        });
        ++scrapes;
    } while (!stop);
    writer.join();
    EXPECT_GE(scrapes, 1u);
}

TEST(metrics_test, a_latency_lands_in_the_first_bucket_that_holds_it) {
    latency_histogram h;
    h.observe_us(400);       // 0.4 ms -> le 0.5
    h.observe_us(1000);      // 1 ms -> le 1
    h.observe_us(7000);      // 7 ms -> le 10
    h.observe_us(90000000);  // 90 s -> +Inf
    EXPECT_EQ(h.buckets[0].value(), 1u);
    EXPECT_EQ(h.buckets[1].value(), 1u);
    EXPECT_EQ(h.buckets[4].value(), 1u);
    EXPECT_EQ(h.buckets[k_bucket_ms.size()].value(), 1u);
    EXPECT_EQ(h.count.value(), 4u);
    EXPECT_EQ(h.sum_us.value(), 90008400u);
}

TEST(prometheus_text_test, families_and_samples_follow_the_text_format) {
    prometheus_text out;
    out.family("x_total", "counter", "Things");
    out.sample("x_total", {}, 3);
    out.sample("x_total", {{"topic", "a\"b\\c\nd"}}, 1e9);
    out.sample("x_ratio", {{"a", "1"}, {"b", "2"}}, 0.25);
    EXPECT_EQ(out.take(),
              "# HELP x_total Things\n"
              "# TYPE x_total counter\n"
              "x_total 3\n"
              "x_total{topic=\"a\\\"b\\\\c\\nd\"} 1000000000\n"
              "x_ratio{a=\"1\",b=\"2\"} 0.25\n");
}

TEST(prometheus_text_test, a_histogram_has_cumulative_buckets_a_sum_in_ms_and_a_count) {
    latency_histogram h;
    h.observe_us(400);
    h.observe_us(3000);
    histogram_totals t;
    t.add(h);
    t.add(h);  // two threads' worth
    prometheus_text out;
    out.histogram("t_ms", {{"request", "Produce"}}, t);
    const auto text = out.take();
    EXPECT_NE(text.find("t_ms_bucket{request=\"Produce\",le=\"0.5\"} 2\n"), std::string::npos);
    EXPECT_NE(text.find("t_ms_bucket{request=\"Produce\",le=\"2.5\"} 2\n"), std::string::npos);
    EXPECT_NE(text.find("t_ms_bucket{request=\"Produce\",le=\"5\"} 4\n"), std::string::npos);
    EXPECT_NE(text.find("t_ms_bucket{request=\"Produce\",le=\"+Inf\"} 4\n"), std::string::npos);
    EXPECT_NE(text.find("t_ms_sum{request=\"Produce\"} 6.8\n"), std::string::npos) << text;
    EXPECT_NE(text.find("t_ms_count{request=\"Produce\"} 4\n"), std::string::npos);
}

TEST(prometheus_text_test, nan_and_infinities_are_spelled_as_the_text_format_wants) {
    prometheus_text out;
    out.sample("a", {}, std::numeric_limits<double>::quiet_NaN());
    out.sample("b", {}, std::numeric_limits<double>::infinity());
    out.sample("c", {}, -std::numeric_limits<double>::infinity());
    out.sample("d", {}, 2.5);
    EXPECT_EQ(out.take(), "a NaN\nb +Inf\nc -Inf\nd 2.5\n");
}

}  // namespace
}  // namespace samsa::metrics
