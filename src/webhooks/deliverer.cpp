// The deliverer's thread (deliverer.hpp): claims, attempts through one curl multi handle,
// outcomes. Every database call and every message is contained: a failure is logged, the
// message's lease runs out, and it is tried again.
#include "mediagen/webhooks/deliverer.hpp"

#include <sys/socket.h>

#include <atomic>
#include <map>
#include <thread>

#include "mediagen/core/curl_easy.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/webhooks/webhooks.hpp"
#include "outbox_listener.hpp"
#include "outbox_store.hpp"

namespace mediagen::webhooks {
namespace {

using std::chrono::steady_clock;

// Nothing is read from a receiver's answer but its status: past this much of its body the
// transfer ends, and the status already received stands.
constexpr std::size_t kMaxAnswerBytes = 64 * 1024;
// With nothing waiting, the deliverer asks nothing until a NOTIFY or a wake; this bounds one sleep.
constexpr auto kIdleWait = std::chrono::seconds(60);
constexpr auto kUnavailablePause = std::chrono::seconds(1);

struct Transfer {
  Claimed message;
  libcurl::Easy easy;
  libcurl::List headers;
  std::string body;
  bool allowed = false;          // the host is in the allow list: any address will do
  bool address_refused = false;  // the connection was stopped at its address
  std::size_t answer_bytes = 0;
  steady_clock::time_point started;
  TimePoint at;
};

// Opens a connection's socket only to an address deliveries may go to: the check sees the address
// curl is about to connect to, after every resolution, so DNS cannot point a name elsewhere.
curl_socket_t open_socket(void* data, curlsocktype purpose, curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(data);
  if (purpose != CURLSOCKTYPE_IPCXN || address == nullptr) return CURL_SOCKET_BAD;
  if (!t->allowed && refused_address(&address->addr)) {
    t->address_refused = true;
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

std::size_t discard_answer(char*, std::size_t size, std::size_t count, void* data) {
  auto* t = static_cast<Transfer*>(data);
  t->answer_bytes += size * count;
  return t->answer_bytes > kMaxAnswerBytes ? 0 : size * count;
}

std::string signature_header(const Claimed& m, const std::vector<std::string>& secrets, std::int64_t ts,
                             const std::string& body) {
  std::string out;
  for (const auto& secret : secrets) {
    if (!out.empty()) out += ' ';
    out += sign(secret, m.id, ts, body);
  }
  return out;
}

}  // namespace

struct Deliverer::State {
  DelivererOptions options;
  InfraCounters& counters;
  CURLM* multi = nullptr;
  std::atomic<bool> stopping{false};
  std::atomic<bool> woken{true};
  std::thread thread;

  std::atomic<std::uint64_t> delivered{0}, failed_status{0}, failed_transport{0}, refused{0}, in_flight{0};
  std::atomic<std::int64_t> pending{0};
  DurationHistogram delay;

  // The thread's own.
  std::map<CURL*, std::unique_ptr<Transfer>> transfers;
  std::map<std::string, int> per_url;
  libcurl::List resolve;  // options.resolve, for every transfer

  State(DelivererOptions o, InfraCounters& c) : options(std::move(o)), counters(c) {
    libcurl::ensure_initialised();
    multi = curl_multi_init();
    for (const auto& entry : options.resolve) resolve.reset(curl_slist_append(resolve.release(), entry.c_str()));
  }
  ~State() {
    for (auto& [easy, t] : transfers) curl_multi_remove_handle(multi, easy);
    transfers.clear();
    if (multi) curl_multi_cleanup(multi);
  }

  // The message's data, rendered now when nobody filled it in; nullopt: its subject is gone.
  std::optional<std::string> data_of(db::Db& db, const Claimed& m) {
    if (m.payload) return m.payload;
    if (!options.render) return std::nullopt;
    auto data = options.render(db, Unrendered{.type = m.type, .user_id = m.user_id, .order_id = m.order_id, .subject_id = m.subject_id});
    if (!data) return std::nullopt;
    return fill_claimed(db, m, *data).value_or(*data);
  }

  void begin(db::Db& db, Claimed m) {
    if (!m.active) {
      drop_inactive(db, m);
      return;
    }
    const auto target = check_url(m.url, options.allow);
    auto data = data_of(db, m);
    if (!target.url || !data) {
      // The allow list changed since the URL was taken, or the subject is gone: final.
      finish_without_answer(db, m, target.url ? "the event's subject no longer exists" : "the URL is no longer allowed",
                            /*final=*/true);
      return;
    }
    // An order's URL given before the account ever asked for its secret: made now, once.
    if (m.secrets.empty()) m.secrets.push_back(account_secret(db, UserId{m.user_id}));
    auto t = std::make_unique<Transfer>();
    t->allowed = target.url->allowed;
    t->at = std::chrono::system_clock::now();
    const auto ts = std::chrono::duration_cast<std::chrono::seconds>(t->at.time_since_epoch()).count();
    t->body = message_body(m.type, m.created_at, *data);
    auto add = [&](const std::string& h) { t->headers.reset(curl_slist_append(t->headers.release(), h.c_str())); };
    add("Content-Type: application/json");
    add("User-Agent: mediagen-webhooks");
    add("webhook-id: " + m.id);
    add("webhook-timestamp: " + std::to_string(ts));
    add("webhook-signature: " + signature_header(m, m.secrets, ts, t->body));
    add("Expect:");
    t->easy.reset(curl_easy_init());
    CURL* e = t->easy.get();
    curl_easy_setopt(e, CURLOPT_URL, m.url.c_str());
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body.c_str());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->body.size()));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers.get());
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout.count()));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<std::int64_t>(options.timeout.count(), 5000)));
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_PROXY, "");  // a proxy would connect where the guard cannot see
    if (resolve) curl_easy_setopt(e, CURLOPT_RESOLVE, resolve.get());
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &open_socket);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, t.get());
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &discard_answer);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    t->message = std::move(m);
    t->started = steady_clock::now();
    ++per_url[t->message.url];
    curl_multi_add_handle(multi, e);
    transfers.emplace(e, std::move(t));
    in_flight.store(transfers.size(), std::memory_order_relaxed);
  }

  Outcome outcome_after(const Claimed& m, Outcome o) const {
    if (o.ending == Ending::retry) {
      const auto next = static_cast<std::size_t>(m.attempt);
      if (next < options.schedule.size()) {
        o.retry_in = std::chrono::seconds(options.schedule[next]);
      } else {
        o.ending = Ending::failed;
      }
    }
    return o;
  }

  void record(db::Db& db, const Claimed& m, const Outcome& o) {
    const auto done = record_outcome(db, m, o, kFailedInARowToDisable);
    if (!done.lease_held) {
      log::warn("webhook outcome not recorded: the lease ran out", {{"message", m.id}});
    }
    if (done.endpoint_disabled) {
      log::warn("webhook endpoint disabled",
                {{"endpoint", *m.endpoint_id},
                 {"reason", o.ending == Ending::gone ? "the receiver answered 410 Gone"
                                                     : "messages failed in a row"},
                 {"failed_in_a_row", kFailedInARowToDisable}});
    }
  }

  void finish_without_answer(db::Db& db, const Claimed& m, const std::string& error, bool final) {
    Outcome o{.ending = final ? Ending::failed : Ending::retry, .at = std::chrono::system_clock::now(), .error = error};
    record(db, m, outcome_after(m, o));
  }

  void finish(db::Db& db, CURL* easy, CURLcode code) {
    auto it = transfers.find(easy);
    if (it == transfers.end()) return;
    std::unique_ptr<Transfer> t = std::move(it->second);
    transfers.erase(it);
    curl_multi_remove_handle(multi, easy);
    if (--per_url[t->message.url] <= 0) per_url.erase(t->message.url);
    in_flight.store(transfers.size(), std::memory_order_relaxed);

    Outcome o{.at = t->at,
              .duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(steady_clock::now() - t->started).count()};
    long status = 0;
    const bool answered = code == CURLE_OK || (code == CURLE_WRITE_ERROR && t->answer_bytes > kMaxAnswerBytes);
    if (answered) curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    if (answered && status > 0) {
      o.status_code = static_cast<int>(status);
      o.ending = status >= 200 && status < 300 ? Ending::delivered : status == 410 ? Ending::gone : Ending::retry;
      (o.ending == Ending::delivered ? delivered : failed_status).fetch_add(1, std::memory_order_relaxed);
    } else {
      o.ending = Ending::retry;
      if (t->address_refused) {
        o.error = "address refused: deliveries do not go to loopback, private, link-local or multicast addresses";
        refused.fetch_add(1, std::memory_order_relaxed);
      } else {
        o.error = curl_easy_strerror(code);
        failed_transport.fetch_add(1, std::memory_order_relaxed);
      }
    }
    if (o.ending == Ending::delivered) delay.observe(std::chrono::system_clock::now() - t->message.created_at);
    record(db, t->message, outcome_after(t->message, o));
  }

  // One look for due messages; when the next look is due: at once when it took all it asked for
  // (more may be waiting), else when the first waiting message comes due (a retry, a lease that
  // ends, a grace), or never when nothing waits (a NOTIFY or a finished attempt wakes it).
  steady_clock::time_point look(db::Db& db) {
    const auto now = steady_clock::now();
    const int room = options.max_in_flight - static_cast<int>(transfers.size());
    if (room <= 0) return now + kIdleWait;
    // Past the attempt's own limit with room for recording it; a lease lost with its instance
    // (kill -9) frees the message this long after it was claimed.
    const auto lease = 2 * options.timeout + std::chrono::seconds(5);
    auto claimed = claim_due(db, ClaimLimits{.total = room,
                                             .per_url = options.max_in_flight_per_url,
                                             .in_flight = per_url,
                                             .grace = options.render_grace,
                                             .lease = lease});
    const bool full = static_cast<int>(claimed.size()) == room;
    for (auto& m : claimed) {
      const std::string id = m.id;
      try {
        begin(db, std::move(m));
      } catch (const db::Unavailable&) {
        throw;
      } catch (const std::exception& e) {
        log::error("webhook message not started", {{"message", id}, {"error", e.what()}});
      }
    }
    if (full) return now;
    const auto waiting = backlog(db, options.render_grace);
    pending.store(waiting.pending, std::memory_order_relaxed);
    // Nothing waits: no look until a NOTIFY, a finished attempt or the listener's reconnection
    // wakes it (without the listener, wait() looks every poll interval). An idle server sends no
    // query of its own.
    if (!waiting.next_due_ms) return steady_clock::time_point::max();
    // Due now but not taken (its URL's slots are full here, or another instance holds it):
    // a finished attempt wakes the next look, the poll interval bounds it.
    if (*waiting.next_due_ms <= 0) return now + options.poll_interval;
    return now + std::chrono::milliseconds(*waiting.next_due_ms);
  }

  void drain(db::Db& db) {
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      // A slot is free (of this URL's too): look for due messages again at once.
      woken.store(true, std::memory_order_relaxed);
      try {
        finish(db, msg->easy_handle, msg->data.result);
      } catch (const db::Unavailable&) {
        throw;
      } catch (const std::exception& e) {
        log::error("webhook outcome not recorded", {{"error", e.what()}});
      }
    }
  }

  // Waits for curl's sockets, the listener's and a wake, at most until `until`.
  void wait(OutboxListener& listener, steady_clock::time_point until) {
    bool reconnected = false;
    const int fd = listener.socket(reconnected);
    if (reconnected) woken.store(true);  // notifications may have been missed meanwhile
    // Without the listener, due messages of other instances are looked for every poll interval.
    const auto limit = fd < 0 ? std::min<steady_clock::time_point>(until, steady_clock::now() + options.poll_interval)
                              : until;
    const auto ms = std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(limit - steady_clock::now()),
                               std::chrono::milliseconds(0), std::chrono::milliseconds(kIdleWait));
    curl_waitfd extra{.fd = fd, .events = CURL_WAIT_POLLIN, .revents = 0};
    curl_multi_poll(multi, fd >= 0 ? &extra : nullptr, fd >= 0 ? 1u : 0u, static_cast<int>(ms.count()), nullptr);
    if (fd < 0 && steady_clock::now() >= limit) woken.store(true);
    if (fd >= 0 && (extra.revents & CURL_WAIT_POLLIN) && listener.drain()) woken.store(true);
  }

  void run() {
    db::Db db(options.database_url, &counters, options.limits);
    OutboxListener listener(options.database_url, options.limits);
    auto next_look = steady_clock::now();
    while (!stopping.load(std::memory_order_acquire)) {
      try {
        if (woken.exchange(false) || steady_clock::now() >= next_look) next_look = look(db);
        int running = 0;
        curl_multi_perform(multi, &running);
        drain(db);
        wait(listener, next_look);
      } catch (const db::Unavailable& e) {
        log::warn("webhook deliveries paused: database unavailable", {{"error", e.what()}});
        db.reset();
        woken.store(true);
        std::this_thread::sleep_for(kUnavailablePause);
      } catch (const std::exception& e) {
        log::error("webhook deliverer", {{"error", e.what()}});
        woken.store(true);
        std::this_thread::sleep_for(kUnavailablePause);
      }
    }
  }
};

Deliverer::Deliverer(DelivererOptions options, InfraCounters& counters)
    : state_(std::make_shared<State>(std::move(options), counters)) {}

Deliverer::~Deliverer() { stop(); }

void Deliverer::start() {
  if (state_->thread.joinable() || state_->stopping.load()) return;
  state_->thread = std::thread([s = state_] { s->run(); });
}

void Deliverer::stop() {
  state_->stopping.store(true, std::memory_order_release);
  if (state_->multi) curl_multi_wakeup(state_->multi);
  if (state_->thread.joinable()) state_->thread.join();
}

void Deliverer::wake() {
  state_->woken.store(true, std::memory_order_release);
  if (state_->multi) curl_multi_wakeup(state_->multi);
}

DelivererStats Deliverer::stats() const {
  const auto& s = *state_;
  return DelivererStats{.delivered = s.delivered.load(std::memory_order_relaxed),
                        .failed_status = s.failed_status.load(std::memory_order_relaxed),
                        .failed_transport = s.failed_transport.load(std::memory_order_relaxed),
                        .refused_address = s.refused.load(std::memory_order_relaxed),
                        .in_flight = s.in_flight.load(std::memory_order_relaxed),
                        .outbox_pending = s.pending.load(std::memory_order_relaxed)};
}

const DurationHistogram& Deliverer::delivery_delay() const { return state_->delay; }

}  // namespace mediagen::webhooks
