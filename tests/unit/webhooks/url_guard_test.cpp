#include "mediagen/webhooks/url_guard.hpp"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

namespace mediagen::webhooks {
namespace {

std::optional<UrlRefusal> refusal(std::string_view url, const AllowList& allow = {}) {
  return check_url(url, allow).refusal;
}

TEST(WebhookUrl, HttpsToAPublicHostIsAccepted) {
  const auto c = check_url("https://Hooks.Example.COM:8443/a/b?c=d", {});
  ASSERT_TRUE(c.url);
  EXPECT_EQ(c.url->host, "hooks.example.com");
  EXPECT_EQ(c.url->port, 8443);
  EXPECT_TRUE(c.url->https);
  EXPECT_FALSE(c.url->literal_ip);
  EXPECT_FALSE(c.url->allowed);
  EXPECT_TRUE(check_url("https://93.184.216.34/", {}).url);
  EXPECT_TRUE(check_url("https://[2606:2800:220:1::1]/", {}).url);
}

TEST(WebhookUrl, PlainHttpNeedsAnAllowedHost) {
  EXPECT_EQ(refusal("http://hooks.example.com/"), UrlRefusal::scheme);
  const auto allow = AllowList::parse("hooks.example.com, 127.0.0.1:9000");
  EXPECT_TRUE(check_url("http://hooks.example.com/", allow).url);
  EXPECT_TRUE(check_url("http://hooks.example.com:81/", allow).url) << "a host alone allows every port";
  EXPECT_TRUE(check_url("http://127.0.0.1:9000/x", allow).url);
  EXPECT_EQ(refusal("http://127.0.0.1:9001/x", allow), UrlRefusal::scheme);
}

TEST(WebhookUrl, LocalAddressesAreRefusedUnlessAllowed) {
  for (const char* url : {"https://127.0.0.2/", "https://[::1]/", "https://localhost/", "https://a.localhost/",
                          "https://LOCALHOST./", "https://10.0.0.1/", "https://172.16.5.4/", "https://192.168.0.1/",
                          "https://169.254.169.254/", "https://100.64.0.1/", "https://0.0.0.0/", "https://224.0.0.1/",
                          "https://255.255.255.255/", "https://[fe80::1]/", "https://[fc00::1]/", "https://[ff02::1]/",
                          "https://[::]/", "https://[::ffff:10.0.0.1]/", "https://[64:ff9b::7f00:1]/",
                          "https://2130706433/", "https://127.1/", "https://0x7f.1/"}) {
    EXPECT_EQ(refusal(url), UrlRefusal::address) << url;
  }
  EXPECT_TRUE(check_url("https://127.0.0.2/", AllowList::parse("127.0.0.2")).url);
  EXPECT_TRUE(check_url("http://[::1]:8080/", AllowList::parse("[::1]:8080")).url);
}

TEST(WebhookUrl, MalformedUrlsAreRefused) {
  for (const char* url : {"", "/relative", "hooks.example.com/x", "https://", "https:///x", "https://user:pw@example.com/",
                          "https://exa mple.com/", "https://example.com:0/", "https://example.com:99999/",
                          "https://ex%41mple.com/", "https://a..b/", "https://[v1.x]/"}) {
    EXPECT_EQ(refusal(url), UrlRefusal::malformed) << url;
  }
  // Boost.URL 1.81 asserts on these instead of refusing them; they never reach it.
  EXPECT_EQ(refusal("p:\""), UrlRefusal::malformed);
  EXPECT_EQ(refusal("p:x"), UrlRefusal::scheme);
  EXPECT_EQ(refusal("https:\x8d"), UrlRefusal::malformed);
  EXPECT_EQ(refusal("https://example.com/a\"b"), UrlRefusal::malformed);
  EXPECT_EQ(refusal("https://example.com/\xc3\xa9"), UrlRefusal::malformed);
  EXPECT_EQ(refusal("ftp://example.com/"), UrlRefusal::scheme);
  EXPECT_EQ(refusal("javascript:alert(1)"), UrlRefusal::scheme);
  const std::string long_url = "https://example.com/" + std::string(kMaxUrlBytes, 'a');
  EXPECT_EQ(refusal(long_url), UrlRefusal::malformed);
  EXPECT_TRUE(check_url("https://example.com/" + std::string(kMaxUrlBytes - 20, 'a'), {}).url);
}

TEST(WebhookUrl, AllowListSkipsWhatIsNotAHost) {
  std::vector<std::string> rejected;
  const auto allow = AllowList::parse("good.example, http://bad.example/, a b, , [::1]:80", &rejected);
  EXPECT_EQ(rejected, (std::vector<std::string>{"http://bad.example/", "a b"}));
  EXPECT_TRUE(allow.allows("good.example", 1));
  EXPECT_TRUE(allow.allows("::1", 80));
  EXPECT_FALSE(allow.allows("::1", 81));
}

TEST(WebhookUrl, SocketAddressesAreJudgedByFamily) {
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", &v4.sin_addr);
  EXPECT_TRUE(refused_address(reinterpret_cast<const sockaddr*>(&v4)));
  inet_pton(AF_INET, "93.184.216.34", &v4.sin_addr);
  EXPECT_FALSE(refused_address(reinterpret_cast<const sockaddr*>(&v4)));
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "::ffff:192.168.1.1", &v6.sin6_addr);
  EXPECT_TRUE(refused_address(reinterpret_cast<const sockaddr*>(&v6)));
  inet_pton(AF_INET6, "2606:2800:220:1::1", &v6.sin6_addr);
  EXPECT_FALSE(refused_address(reinterpret_cast<const sockaddr*>(&v6)));
  sockaddr unix_address{};
  unix_address.sa_family = AF_UNIX;
  EXPECT_TRUE(refused_address(&unix_address));
  EXPECT_TRUE(refused_address(nullptr));
}

}  // namespace
}  // namespace mediagen::webhooks
