#pragma once
// The deliverer: one thread of its own that claims due messages from the outbox with a lease (as
// the work queue claims chunks: SKIP LOCKED and a token; an outcome is recorded only where the
// token still matches), and sends them all at once through one libcurl multi handle. A receiver
// that is slow or never answers holds one of its own few slots until the attempt's timeout;
// nothing else waits on it: no request, no worker, no other URL.
//
// Rules (openapi "Webhooks"): any 2xx delivers. 410 disables an account endpoint, or stops the
// order's URL for that order; its messages end failed. Anything else (another status, a timeout,
// a refused address, no connection) is tried again after the next delay of the schedule; after
// the last the message is failed. An endpoint with kFailedInARowToDisable messages failed in a
// row (none delivered between them) is disabled, with a log line. Redirects are not followed. The
// address connected to is checked when the connection opens (url_guard.hpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mediagen/core/counters.hpp"
#include "mediagen/core/duration_histogram.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/webhooks/url_guard.hpp"

namespace mediagen::webhooks {

inline constexpr int kFailedInARowToDisable = 10;

// A message whose data nobody filled in within the grace: what it is about, to render it now.
struct Unrendered {
  std::string type;
  std::int64_t user_id = 0;  // the account the message goes to
  std::string order_id;    // order events; empty otherwise
  std::string subject_id;  // the order, item, clone or gift code
};

struct DelivererOptions {
  std::string database_url;
  db::ConnectLimits limits;
  AllowList allow;
  std::chrono::milliseconds timeout{10000};
  std::vector<std::int64_t> schedule{0, 5, 300, 1800, 7200, 18000, 36000, 36000};
  int max_in_flight = 64;
  int max_in_flight_per_url = 4;
  // host:port:address entries (curl's --resolve), MEDIAGEN_WEBHOOK_RESOLVE.
  std::vector<std::string> resolve;
  // A message's data is left to whoever renders the realtime event this long.
  std::chrono::milliseconds render_grace{3000};
  // The deliverer looks for due messages when the outbox triggers NOTIFY (any instance's change),
  // when this instance wakes it, when an attempt ends, and when the first waiting message comes
  // due; idle, it asks nothing. A message due but not taken (its URL's slots full, another
  // instance's lease), or a listener that cannot connect, is looked at again this often.
  std::chrono::milliseconds poll_interval{1000};
  // The data of a message nobody filled in (run on the deliverer's thread, with its connection);
  // nullopt: its subject is gone, and the message ends failed.
  std::function<std::optional<std::string>(db::Db&, const Unrendered&)> render;
};

struct DelivererStats {
  std::uint64_t delivered = 0;        // attempts answered 2xx
  std::uint64_t failed_status = 0;    // attempts answered with another status
  std::uint64_t failed_transport = 0; // no answer: timeout, refused connection, TLS, reset
  std::uint64_t refused_address = 0;  // attempts stopped at an address deliveries may not go to
  std::uint64_t in_flight = 0;
  std::int64_t outbox_pending = 0;    // pending messages of every instance, as of the last look
                                      // that found nothing more to take
};

class Deliverer {
 public:
  Deliverer(DelivererOptions options, InfraCounters& counters);
  ~Deliverer();  // stop()
  Deliverer(const Deliverer&) = delete;
  Deliverer& operator=(const Deliverer&) = delete;

  void start();
  // Attempts in flight are abandoned; their leases run out and another attempt follows.
  void stop();
  // New messages may be due: look now (any thread, never blocks).
  void wake();

  DelivererStats stats() const;
  // From a message's creation to its delivery (the attempt that succeeded).
  const DurationHistogram& delivery_delay() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace mediagen::webhooks
