#include "mediagen/http/metrics.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace mediagen::http {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class MetricsTest : public ::testing::Test {
 protected:
  MetricsTest() : metrics(infra) { metrics.set_routes({"GET /api/user", "GET /healthz"}); }
  InfraCounters infra;
  Metrics metrics;
};

TEST_F(MetricsTest, CountsRequestsByRouteAndStatus) {
  metrics.observe(0, 200, 0.003);
  metrics.observe(0, 200, 0.004);
  metrics.observe(0, 401, 0.001);
  metrics.observe(1, 200, 0.0001);
  const std::string text = metrics.render();
  EXPECT_THAT(text, HasSubstr("# TYPE mediagen_http_requests_total counter\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_requests_total{route=\"GET /api/user\",status=\"200\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_requests_total{route=\"GET /api/user\",status=\"401\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_requests_total{route=\"GET /healthz\",status=\"200\"} 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("status=\"404\"")));
}

TEST_F(MetricsTest, CountsUnmatchedRequestsUnderNone) {
  metrics.observe(metrics.none_index(), 404, 0.0002);
  metrics.observe(99, 429, 0.0002);  // an index out of range is counted as none
  const std::string text = metrics.render();
  EXPECT_EQ(metrics.none_index(), 2u);
  EXPECT_THAT(text, HasSubstr("mediagen_http_requests_total{route=\"none\",status=\"404\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_requests_total{route=\"none\",status=\"429\"} 1\n"));
}

TEST_F(MetricsTest, IgnoresAnImpossibleStatusInTheCounters) {
  metrics.observe(0, 99, 0.001);
  metrics.observe(0, 600, 0.001);
  metrics.observe(0, -1, 0.001);
  const std::string text = metrics.render();
  EXPECT_THAT(text, Not(HasSubstr("mediagen_http_requests_total{")));
  EXPECT_THAT(text, HasSubstr("mediagen_http_request_duration_seconds_count{route=\"GET /api/user\"} 3\n"));
}

TEST_F(MetricsTest, RendersACumulativeLatencyHistogram) {
  metrics.observe(0, 200, 0.0004);  // le 0.0005
  metrics.observe(0, 200, 0.003);   // le 0.005
  metrics.observe(0, 200, 7.0);     // only +Inf
  const std::string text = metrics.render();
  EXPECT_THAT(text, HasSubstr("# TYPE mediagen_http_request_duration_seconds histogram\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_request_duration_seconds_bucket{route=\"GET /api/user\",le=\"0.0005\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_request_duration_seconds_bucket{route=\"GET /api/user\",le=\"0.0025\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_request_duration_seconds_bucket{route=\"GET /api/user\",le=\"0.005\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_request_duration_seconds_bucket{route=\"GET /api/user\",le=\"5\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_request_duration_seconds_bucket{route=\"GET /api/user\",le=\"+Inf\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_request_duration_seconds_count{route=\"GET /api/user\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_http_request_duration_seconds_sum{route=\"GET /api/user\"} 7.003400\n"));
  // Routes without requests have no histogram lines.
  EXPECT_THAT(text, Not(HasSubstr("mediagen_http_request_duration_seconds_count{route=\"GET /healthz\"}")));
}

TEST_F(MetricsTest, RendersTheStoreAndCacheCounters) {
  infra.db_queries = 5;
  infra.redis_commands = 6;
  infra.key_cache_hits = 7;
  infra.key_cache_misses = 8;
  metrics.connections_refused = 2;
  const std::string text = metrics.render();
  EXPECT_THAT(text, HasSubstr("# TYPE mediagen_key_cache_hits_total counter\nmediagen_key_cache_hits_total 7\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE mediagen_key_cache_misses_total counter\nmediagen_key_cache_misses_total 8\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE mediagen_db_queries_total counter\nmediagen_db_queries_total 5\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE mediagen_redis_commands_total counter\nmediagen_redis_commands_total 6\n"));
  EXPECT_THAT(text, HasSubstr("mediagen_connections_refused_total 2\n"));
}

TEST_F(MetricsTest, RendersOpenConnectionsAsAGauge) {
  metrics.connections_open = 3;
  EXPECT_THAT(metrics.render(),
              HasSubstr("# TYPE mediagen_connections_open gauge\nmediagen_connections_open 3\n"));
}

TEST_F(MetricsTest, AppendsGaugeSources) {
  metrics.add_gauge_source([](std::string& out) { out += "# TYPE mediagen_test_gauge gauge\nmediagen_test_gauge 42\n"; });
  EXPECT_THAT(metrics.render(), HasSubstr("mediagen_test_gauge 42\n"));
}

TEST_F(MetricsTest, EndsEveryLineWithANewline) {
  metrics.observe(0, 200, 0.01);
  const std::string text = metrics.render();
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find("\n\n"), std::string::npos);
}

TEST(Metrics, CountsUnderNoneBeforeRoutesAreSet) {
  InfraCounters infra;
  Metrics metrics(infra);
  metrics.observe(5, 400, 0.0);
  EXPECT_THAT(metrics.render(), HasSubstr("mediagen_http_requests_total{route=\"none\",status=\"400\"} 1\n"));
}

}  // namespace
}  // namespace mediagen::http
