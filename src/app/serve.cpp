// `mediagen serve` and `mediagen migrate`: the commands that build an instance or its database.
#include <boost/asio/signal_set.hpp>
#include <cstdio>
#include <stdexcept>
#include <sys/resource.h>

#include "commands.hpp"
#include "mediagen/app/app.hpp"
#include "mediagen/app/database.hpp"
#include "mediagen/core/log.hpp"

namespace mediagen::app {

namespace {

// Every socket is a descriptor: take the whole hard limit the operator allows.
void raise_file_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

}  // namespace

int migrate(const Config& config) {
  Database database(config);
  const auto report = database.migrate();
  std::string applied = "[";
  for (std::size_t i = 0; i < report.applied.size(); ++i) {
    applied += (i ? "," : "") + std::to_string(report.applied[i]);
  }
  std::printf("{\"applied\":%s],\"version\":%d}\n", applied.c_str(), report.current_version);
  return 0;
}

int serve(const Config& config, bool run_migrations) {
  raise_file_limit();
  if (run_migrations) {
    const auto report = Database(config).migrate();
    log::info("migrations checked", {{"version", report.current_version},
                                     {"applied", static_cast<std::int64_t>(report.applied.size())}});
  }
  auto created = App::create(config);
  if (!created) throw std::runtime_error(created.error());
  App& app = **created;
  // Installed before anything announces readiness: a SIGTERM from then on always drains.
  boost::asio::signal_set signals(app.io(), SIGTERM, SIGINT);
  signals.async_wait([&app](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    log::info("draining", {{"signal", signo}});
    app.drain();
  });
  app.start();
  app.run();
  app.stop();
  log::info("stopped");
  return 0;
}

}  // namespace mediagen::app
