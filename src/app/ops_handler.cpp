#include "ops_handler.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <memory>

#include "mediagen/db/connection.hpp"

namespace mediagen::app {

namespace {
http::Response json(int status, std::string body) {
  http::Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}
}  // namespace

boost::asio::awaitable<http::Response> OpsHandler::handle(http::Exchange& exchange) {
  const auto& req = exchange.request();
  std::string_view path = req.target().substr(0, req.target().find('?'));
  if (req.method() != http::Method::get && req.method() != http::Method::head) {
    auto r = json(405, R"({"success":false,"message":"Method not allowed."})");
    r.headers.emplace_back("Allow", "GET, HEAD");
    co_return r;
  }
  if (exchange.has_body()) co_return json(413, R"({"success":false,"message":"Request body is too large."})");
  if (path == "/healthz") co_return json(200, R"({"status":"ok"})");
  if (path == "/metrics") {
    http::Response r;
    r.body = metrics_.render();
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    co_return r;
  }
  if (path == "/readyz") {
    // Each check says "ok", "fail", or "timeout" when it had not answered within the second
    // (the pool busy, or a store that stalls): the probe answers in time whatever the pool does.
    auto checks = std::make_shared<std::array<std::atomic<const char*>, 2>>();
    for (auto& c : *checks) c.store("timeout");
    auto probe = [checks](db::Resources& res) {
      try {
        res.db.ping();
        (*checks)[0].store("ok");
      } catch (const std::exception&) {
        (*checks)[0].store("fail");
      }
      try {
        res.redis.command({"PING"});
        (*checks)[1].store("ok");
      } catch (const std::exception&) {
        (*checks)[1].store("fail");
      }
    };
    try {
      co_await pool_.run(std::move(probe), std::chrono::seconds(1), /*owned=*/true);
    } catch (const std::exception&) {
      // The deadline: what had not answered stays "timeout".
    }
    const std::string pg = (*checks)[0].load();
    const std::string redis = (*checks)[1].load();
    const bool ready = pg == "ok" && redis == "ok";
    std::string body = std::string(R"({"status":")") + (ready ? "ready" : "not_ready") +
                       R"(","checks":{"postgres":")" + pg + R"(","redis":")" + redis + R"("}})";
    co_return json(ready ? 200 : 503, std::move(body));
  }
  co_return json(404, R"({"success":false,"message":"Not found."})");
}

http::Response OpsHandler::refuse(int status) {
  return json(status, R"({"success":false,"message":"The request is malformed."})");
}

}  // namespace mediagen::app
