// HTTP of the public documentation: each document of the Site is one open GET route.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/docs/routes.hpp"
#include "mediagen/http/conditional.hpp"
#include "mediagen/http/router.hpp"

namespace mediagen::docs {
namespace {

namespace asio = boost::asio;

// The viewer's bundle is about 1 MiB: sent in pieces straight from the embedded bytes, so an
// answer copies at most one piece at a time.
constexpr std::size_t kPieceBytes = 64 * 1024;

class EmbeddedBody final : public http::BodySource {
 public:
  explicit EmbeddedBody(std::string_view bytes) : left_(bytes) {}
  std::uint64_t size() const override { return size_; }
  asio::awaitable<std::optional<std::string>> next() override {
    const std::size_t n = std::min(kPieceBytes, left_.size());
    std::string piece(left_.substr(0, n));
    left_.remove_prefix(n);
    co_return piece;
  }

 private:
  std::string_view left_;
  std::uint64_t size_ = left_.size();
};

http::Headers validators(const Document& d) {
  // no-cache: a client asks again each time and gets a 304 while the build is the same, so an
  // upgraded server's documentation is seen at once.
  return {{"ETag", d.etag}, {"Cache-Control", "no-cache"}, {"X-Content-Type-Options", "nosniff"}};
}

http::Reply serve(const Document& d, const http::RequestContext& ctx) {
  const auto lines = ctx.request.header_values("If-None-Match");
  if (!lines.empty() && http::if_none_match(http::join_header_lines(lines), d.etag)) {
    return http::Reply{.status = 304, .data_json = "", .headers = validators(d), .bare = true,
                       .content_type = d.content_type};
  }
  return http::Reply{.data_json = "",
                     .headers = validators(d),
                     .bare = true,
                     .content_type = d.content_type,
                     .body_source = std::make_unique<EmbeddedBody>(d.bytes)};
}

}  // namespace

void register_routes(http::Router& router, std::shared_ptr<const Site> site) {
  for (const Document& d : site->documents()) {
    router.add_root({
        .method = http::Method::get,
        .pattern = d.path,
        .access = http::Access::open,
        // The Site outlives every request: the handler holds it.
        .handler = [site, doc = &d](http::RequestContext& ctx) -> asio::awaitable<Result<http::Reply>> {
          co_return serve(*doc, ctx);
        },
    });
  }
}

}  // namespace mediagen::docs
