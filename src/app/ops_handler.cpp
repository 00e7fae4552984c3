#include "ops_handler.hpp"

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
    auto probe = [](db::Resources& res) {
      std::pair<bool, bool> ok{false, false};
      try {
        res.db.ping();
        ok.first = true;
      } catch (const std::exception&) {
      }
      try {
        res.redis.command({"PING"});
        ok.second = true;
      } catch (const std::exception&) {
      }
      return ok;
    };
    auto checks = co_await pool_.run(std::move(probe));
    const bool ready = checks.first && checks.second;
    std::string body = std::string(R"({"status":")") + (ready ? "ready" : "not_ready") +
                       R"(","checks":{"postgres":")" + (checks.first ? "ok" : "fail") + R"(","redis":")" +
                       (checks.second ? "ok" : "fail") + R"("}})";
    co_return json(ready ? 200 : 503, std::move(body));
  }
  co_return json(404, R"({"success":false,"message":"Not found."})");
}

http::Response OpsHandler::refuse(int status) {
  return json(status, R"({"success":false,"message":"The request is malformed."})");
}

}  // namespace mediagen::app
