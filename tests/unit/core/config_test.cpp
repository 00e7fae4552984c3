#include "mediagen/core/config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

namespace mediagen {
namespace {

using ::testing::HasSubstr;

Config from(const std::map<std::string, std::string>& vars) {
  return Config::from_env([&](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  });
}

// The message of the std::invalid_argument that `vars` raise, or "" when none is raised.
std::string refusal(const std::map<std::string, std::string>& vars) {
  try {
    from(vars);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Config, NotFoundLinksPointAtThisServersDocumentation) {
  const Config defaults = from({});
  EXPECT_EQ(defaults.not_found_docs_url(), "http://127.0.0.1:8080/docs");
  EXPECT_EQ(defaults.not_found_developers_url(), "http://127.0.0.1:8080/docs#section/Conventions");
  const Config behind_proxy = from({{"MEDIAGEN_PUBLIC_URL", "https://media.example/"}});
  EXPECT_EQ(behind_proxy.not_found_docs_url(), "https://media.example/docs");
  EXPECT_EQ(behind_proxy.not_found_developers_url(), "https://media.example/docs#section/Conventions");
}

TEST(Config, ExplicitDocumentationLinksWin) {
  const Config c = from({{"MEDIAGEN_PUBLIC_URL", "https://media.example"},
                         {"MEDIAGEN_DOCS_URL", "https://docs.example/api"},
                         {"MEDIAGEN_DEVELOPERS_URL", "https://developers.example"}});
  EXPECT_EQ(c.not_found_docs_url(), "https://docs.example/api");
  EXPECT_EQ(c.not_found_developers_url(), "https://developers.example");
}

TEST(Config, UsesTheDocumentedDefaults) {
  const Config c = from({});
  EXPECT_EQ(c.listen.host, "127.0.0.1");
  EXPECT_EQ(c.listen.port, 8080);
  EXPECT_EQ(c.admin_listen.host, "127.0.0.1");
  EXPECT_EQ(c.admin_listen.port, 9090);
  EXPECT_EQ(c.redis_prefix, "mediagen:");
  EXPECT_EQ(c.api_prefix, "/api");
  EXPECT_EQ(c.io_threads, 1);
  EXPECT_EQ(c.db_pool_size, 8);
  EXPECT_EQ(c.key_cache_ttl_seconds, 3600);
  EXPECT_EQ(c.ban_ladder_seconds, (std::vector<std::int64_t>{300, 600, 1800, 3600, 86400}));
  EXPECT_EQ(c.policy_cooldown_seconds, (std::vector<std::int64_t>{300, 600, 900}));
  EXPECT_EQ(c.ban_threshold, 20);
  EXPECT_EQ(c.ban_window_seconds, 600);
  EXPECT_TRUE(c.trusted_proxies.empty());
  EXPECT_EQ(c.max_connections, 10000u);
  EXPECT_EQ(c.header_limit_bytes, 8192u);
  EXPECT_EQ(c.body_limit_bytes, 1048576u);
  EXPECT_EQ(c.upload_budget_bytes, 536870912u);
  EXPECT_EQ(c.uploads_per_key, 2u);
  EXPECT_EQ(c.upload_min_rate, 16384);
  EXPECT_EQ(c.upload_rate_window_seconds, 30);
  EXPECT_EQ(c.upload_grace_seconds, 10);
  EXPECT_EQ(c.read_timeout_seconds, 10);
  EXPECT_EQ(c.idle_timeout_seconds, 60);
  EXPECT_EQ(c.shutdown_grace_seconds, 20);
  EXPECT_EQ(c.log_level, "info");
  EXPECT_GE(c.workers, 1);
  EXPECT_EQ(c.unknown_key_budget_per_minute, 60);
  EXPECT_EQ(c.ws_max_connections_per_address, 1000u);
}

TEST(Config, ReadsThePerAddressBudgets) {
  const Config c = from({{"MEDIAGEN_UNKNOWN_KEY_BUDGET_PER_MINUTE", "0"}, {"MEDIAGEN_WS_MAX_CONNECTIONS_PER_ADDRESS", "7"}});
  EXPECT_EQ(c.unknown_key_budget_per_minute, 0);
  EXPECT_EQ(c.ws_max_connections_per_address, 7u);
  EXPECT_THAT(refusal({{"MEDIAGEN_UNKNOWN_KEY_BUDGET_PER_MINUTE", "-1"}}), HasSubstr("MEDIAGEN_UNKNOWN_KEY_BUDGET_PER_MINUTE"));
  EXPECT_THAT(refusal({{"MEDIAGEN_WS_MAX_CONNECTIONS_PER_ADDRESS", "0"}}), HasSubstr("MEDIAGEN_WS_MAX_CONNECTIONS_PER_ADDRESS"));
}

TEST(Config, ReadsEveryDocumentedOverride) {
  const Config c = from({
      {"MEDIAGEN_LISTEN", "0.0.0.0:0"},
      {"MEDIAGEN_ADMIN_LISTEN", "127.0.0.1:9999"},
      {"MEDIAGEN_DATABASE_URL", "postgresql://u@h:1/d"},
      {"MEDIAGEN_REDIS_URL", "redis://h:2/3"},
      {"MEDIAGEN_REDIS_PREFIX", "t1:"},
      {"MEDIAGEN_API_PREFIX", "/v2"},
      {"MEDIAGEN_IO_THREADS", "4"},
      {"MEDIAGEN_DB_POOL_SIZE", "16"},
      {"MEDIAGEN_KEY_CACHE_TTL_SECONDS", "0"},
      {"MEDIAGEN_BAN_LADDER_SECONDS", "1, 2,3"},
      {"MEDIAGEN_POLICY_COOLDOWN_SECONDS", "3, 6,9"},
      {"MEDIAGEN_BAN_THRESHOLD", "3"},
      {"MEDIAGEN_BAN_WINDOW_SECONDS", "30"},
      {"MEDIAGEN_TRUSTED_PROXIES", "10.0.0.1, 10.0.0.2,"},
      {"MEDIAGEN_MAX_CONNECTIONS", "50"},
      {"MEDIAGEN_HEADER_LIMIT_BYTES", "4096"},
      {"MEDIAGEN_BODY_LIMIT_BYTES", "2048"},
      {"MEDIAGEN_UPLOADS_PER_KEY", "5"},
      {"MEDIAGEN_UPLOAD_MIN_RATE", "0"},
      {"MEDIAGEN_UPLOAD_RATE_WINDOW_SECONDS", "7"},
      {"MEDIAGEN_UPLOAD_GRACE_SECONDS", "0"},
      {"MEDIAGEN_READ_TIMEOUT_SECONDS", "2"},
      {"MEDIAGEN_IDLE_TIMEOUT_SECONDS", "3"},
      {"MEDIAGEN_SHUTDOWN_GRACE_SECONDS", "0"},
      {"MEDIAGEN_LOG_LEVEL", "debug"},
      {"MEDIAGEN_WORKERS", "3"},
  });
  EXPECT_EQ(c.listen.host, "0.0.0.0");
  EXPECT_EQ(c.listen.port, 0);
  EXPECT_EQ(c.admin_listen.port, 9999);
  EXPECT_EQ(c.database_url, "postgresql://u@h:1/d");
  EXPECT_EQ(c.redis_url, "redis://h:2/3");
  EXPECT_EQ(c.redis_prefix, "t1:");
  EXPECT_EQ(c.api_prefix, "/v2");
  EXPECT_EQ(c.io_threads, 4);
  EXPECT_EQ(c.db_pool_size, 16);
  EXPECT_EQ(c.key_cache_ttl_seconds, 0);
  EXPECT_EQ(c.ban_ladder_seconds, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(c.policy_cooldown_seconds, (std::vector<std::int64_t>{3, 6, 9}));
  EXPECT_EQ(c.ban_threshold, 3);
  EXPECT_EQ(c.ban_window_seconds, 30);
  EXPECT_EQ(c.trusted_proxies, (std::vector<std::string>{"10.0.0.1", "10.0.0.2"}));
  EXPECT_EQ(c.max_connections, 50u);
  EXPECT_EQ(c.header_limit_bytes, 4096u);
  EXPECT_EQ(c.body_limit_bytes, 2048u);
  EXPECT_EQ(c.uploads_per_key, 5u);
  EXPECT_EQ(c.upload_min_rate, 0);
  EXPECT_EQ(c.upload_rate_window_seconds, 7);
  EXPECT_EQ(c.upload_grace_seconds, 0);
  EXPECT_EQ(c.read_timeout_seconds, 2);
  EXPECT_EQ(c.idle_timeout_seconds, 3);
  EXPECT_EQ(c.shutdown_grace_seconds, 0);
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_EQ(c.workers, 3);
}

TEST(Config, NormalisesTheApiPrefix) {
  EXPECT_EQ(from({{"MEDIAGEN_API_PREFIX", "api"}}).api_prefix, "/api");
  EXPECT_EQ(from({{"MEDIAGEN_API_PREFIX", "/api/"}}).api_prefix, "/api");
  EXPECT_EQ(from({{"MEDIAGEN_API_PREFIX", "/api///"}}).api_prefix, "/api");
  EXPECT_EQ(from({{"MEDIAGEN_API_PREFIX", "/"}}).api_prefix, "/");
  EXPECT_EQ(from({{"MEDIAGEN_API_PREFIX", ""}}).api_prefix, "/");
}

TEST(Config, ReadsBracketedIpv6Endpoints) {
  const Config c = from({{"MEDIAGEN_LISTEN", "[::1]:8081"}});
  EXPECT_EQ(c.listen.host, "::1");
  EXPECT_EQ(c.listen.port, 8081);
}

TEST(Config, NamesTheVariableOfAnInvalidInteger) {
  EXPECT_THAT(refusal({{"MEDIAGEN_IO_THREADS", "abc"}}), HasSubstr("MEDIAGEN_IO_THREADS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_IO_THREADS", "0"}}), HasSubstr("MEDIAGEN_IO_THREADS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_IO_THREADS", "4x"}}), HasSubstr("MEDIAGEN_IO_THREADS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_IO_THREADS", ""}}), HasSubstr("MEDIAGEN_IO_THREADS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_DB_POOL_SIZE", "-1"}}), HasSubstr("MEDIAGEN_DB_POOL_SIZE"));
  EXPECT_THAT(refusal({{"MEDIAGEN_KEY_CACHE_TTL_SECONDS", "-5"}}), HasSubstr("MEDIAGEN_KEY_CACHE_TTL_SECONDS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_BAN_THRESHOLD", "0"}}), HasSubstr("MEDIAGEN_BAN_THRESHOLD"));
  EXPECT_THAT(refusal({{"MEDIAGEN_BAN_WINDOW_SECONDS", "1.5"}}), HasSubstr("MEDIAGEN_BAN_WINDOW_SECONDS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_MAX_CONNECTIONS", "99999999999999999999999"}}),
              HasSubstr("MEDIAGEN_MAX_CONNECTIONS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_HEADER_LIMIT_BYTES", "10"}}), HasSubstr("MEDIAGEN_HEADER_LIMIT_BYTES"));
  EXPECT_THAT(refusal({{"MEDIAGEN_BODY_LIMIT_BYTES", "10"}}), HasSubstr("MEDIAGEN_BODY_LIMIT_BYTES"));
  EXPECT_THAT(refusal({{"MEDIAGEN_READ_TIMEOUT_SECONDS", "0"}}), HasSubstr("MEDIAGEN_READ_TIMEOUT_SECONDS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_IDLE_TIMEOUT_SECONDS", " 5"}}), HasSubstr("MEDIAGEN_IDLE_TIMEOUT_SECONDS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_SHUTDOWN_GRACE_SECONDS", "-1"}}), HasSubstr("MEDIAGEN_SHUTDOWN_GRACE_SECONDS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_WORKERS", "100000"}}), HasSubstr("MEDIAGEN_WORKERS"));
}

TEST(Config, NamesTheVariableOfAnInvalidEndpoint) {
  EXPECT_THAT(refusal({{"MEDIAGEN_LISTEN", "localhost"}}), HasSubstr("MEDIAGEN_LISTEN"));
  EXPECT_THAT(refusal({{"MEDIAGEN_LISTEN", ":8080"}}), HasSubstr("MEDIAGEN_LISTEN"));
  EXPECT_THAT(refusal({{"MEDIAGEN_LISTEN", "127.0.0.1:65536"}}), HasSubstr("MEDIAGEN_LISTEN"));
  EXPECT_THAT(refusal({{"MEDIAGEN_ADMIN_LISTEN", "127.0.0.1:http"}}), HasSubstr("MEDIAGEN_ADMIN_LISTEN"));
}

TEST(Config, NamesTheVariableOfAnInvalidBanLadder) {
  EXPECT_THAT(refusal({{"MEDIAGEN_BAN_LADDER_SECONDS", "300,x"}}), HasSubstr("MEDIAGEN_BAN_LADDER_SECONDS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_BAN_LADDER_SECONDS", "300,0"}}), HasSubstr("MEDIAGEN_BAN_LADDER_SECONDS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_BAN_LADDER_SECONDS", ""}}), HasSubstr("MEDIAGEN_BAN_LADDER_SECONDS"));
  EXPECT_THAT(refusal({{"MEDIAGEN_BAN_LADDER_SECONDS", ",,"}}), HasSubstr("MEDIAGEN_BAN_LADDER_SECONDS"));
  std::string rungs = "1";
  for (int i = 1; i < 1001; ++i) rungs += ",1";
  EXPECT_THAT(refusal({{"MEDIAGEN_BAN_LADDER_SECONDS", rungs}}), HasSubstr("MEDIAGEN_BAN_LADDER_SECONDS"));
}

TEST(Config, NamesTheVariableOfAnInvalidPolicyCooldownLadder) {
  for (const char* bad : {"300,x", "300,0", "-5", "", ",,", "31536001"}) {
    EXPECT_THAT(refusal({{"MEDIAGEN_POLICY_COOLDOWN_SECONDS", bad}}), HasSubstr("MEDIAGEN_POLICY_COOLDOWN_SECONDS"))
        << bad;
  }
}

TEST(Config, AZeroPolicyCooldownTurnsItOff) {
  EXPECT_TRUE(from({{"MEDIAGEN_POLICY_COOLDOWN_SECONDS", "0"}}).policy_cooldown_seconds.empty());
  EXPECT_TRUE(from({{"MEDIAGEN_POLICY_COOLDOWN_SECONDS", " 0 "}}).policy_cooldown_seconds.empty());
  EXPECT_THAT(refusal({{"MEDIAGEN_POLICY_COOLDOWN_SECONDS", "0,300"}}), HasSubstr("MEDIAGEN_POLICY_COOLDOWN_SECONDS"));
}

TEST(Config, QuotesTheRefusedValue) {
  EXPECT_THAT(refusal({{"MEDIAGEN_IO_THREADS", "lots"}}), HasSubstr("'lots'"));
}

TEST(ParseEndpoint, SplitsHostAndPort) {
  const Endpoint e = parse_endpoint("10.1.2.3:443");
  EXPECT_EQ(e.host, "10.1.2.3");
  EXPECT_EQ(e.port, 443);
}

TEST(ParseEndpoint, RefusesTextWithoutAPort) {
  EXPECT_THROW(parse_endpoint("10.1.2.3"), std::invalid_argument);
  EXPECT_THROW(parse_endpoint("10.1.2.3:"), std::invalid_argument);
  EXPECT_THROW(parse_endpoint(""), std::invalid_argument);
}

}  // namespace
}  // namespace mediagen

namespace mediagen {
namespace {

TEST(Config, ReadsTheStorageUrlTheRedirectSwitchAndTheStandardAwsVariables) {
  const Config defaults = from({});
  EXPECT_EQ(defaults.storage_url, "");
  EXPECT_FALSE(defaults.storage_redirect);
  EXPECT_EQ(defaults.aws_region, "us-east-1");
  const Config c = from({{"MEDIAGEN_STORAGE_URL", "s3://media/prod"},
                         {"MEDIAGEN_STORAGE_REDIRECT", "1"},
                         {"AWS_ENDPOINT_URL", "http://127.0.0.1:8080"},
                         {"AWS_REGION", "eu-west-1"},
                         {"AWS_ACCESS_KEY_ID", "id"},
                         {"AWS_SECRET_ACCESS_KEY", "secret"}});
  EXPECT_EQ(c.storage_url, "s3://media/prod");
  EXPECT_TRUE(c.storage_redirect);
  EXPECT_EQ(c.aws_endpoint_url, "http://127.0.0.1:8080");
  EXPECT_EQ(c.aws_region, "eu-west-1");
  EXPECT_EQ(c.aws_access_key_id, "id");
  EXPECT_EQ(c.aws_secret_access_key, "secret");
  EXPECT_THAT(refusal({{"MEDIAGEN_STORAGE_REDIRECT", "yes"}}), HasSubstr("MEDIAGEN_STORAGE_REDIRECT"));
}

}  // namespace
}  // namespace mediagen
