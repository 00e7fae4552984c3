#pragma once
// The operator listener: /healthz, /readyz, /metrics. Never banned, never authenticated:
// bind it to an address only operators reach.
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/exchange.hpp"
#include "mediagen/http/metrics.hpp"

namespace mediagen::app {

class OpsHandler final : public http::ExchangeHandler {
 public:
  OpsHandler(http::Metrics& metrics, db::BlockingPool& pool) : metrics_(metrics), pool_(pool) {}
  boost::asio::awaitable<http::Response> handle(http::Exchange& exchange) override;
  http::Response refuse(int status) override;

 private:
  http::Metrics& metrics_;
  db::BlockingPool& pool_;
};

}  // namespace mediagen::app
