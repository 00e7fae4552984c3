// One Pusher protocol 7 socket end to end: the real PusherSession and HubCore on a socket pair
// (for the TCP connection), a Beast WebSocket client, a blocking pool that never connects.
// Input: a setup byte (bits 0-2 the target, 6 an unknown app, 7 protocol 3; bits 3+4 a refused
// address; bit 5 a close frame at the end, else the socket closed), then operations (run_op):
// client text, binary, oversized and Pusher frames (subscribes with a valid, missing or wrong
// signature), grants, deliveries, revocations, invalidations, sweeper checks, closes, the hooks'
// answers, and the pool held so that subscriptions stay pending meanwhile. Properties:
//   - every server frame is UTF-8 JSON with an "event"; the first is connection_established with
//     this socket's id, or the refusal and its close code;
//   - subscription_succeeded only after a validly signed subscribe; a channel's events only while
//     subscribed, non-zero seqs strictly increasing; at most max_subscriptions;
//   - ping, pong, binary, client and unknown events get their one answer; an oversized frame
//     closes with 1009, close_with with its code; revoking or invalidating a key closes (4009)
//     exactly a socket holding it; the sweeper pings, closes (4009 expired, 4201 no pong) or not
//     as the session's clocks say;
//   - once the socket ends no session, subscription, tracked key or address slot is left, and the
//     session object is freed.
#include <sys/socket.h>

#include <array>
#include <condition_variable>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "mediagen/core/log.hpp"
#include "mediagen/core/utf8.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/realtime/channel_signer.hpp"
#include "realtime/address_slots.hpp"
#include "realtime/hub_core.hpp"
#include "realtime/pusher_frames.hpp"
#include "realtime/pusher_session.hpp"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using namespace mediagen;
using namespace mediagen::realtime;
using mediagen::fuzz::Bytes;
using nlohmann::json;
using Digest = crypto::Sha256Digest;

constexpr std::int64_t kWallBase = 1'700'000'000'000;  // ms: the fixed clock's now
constexpr std::size_t kMaxMessage = 10240;

// Five channels of ours (two orders, which have snapshots) and three names that are not.
const std::array<std::string, 8> kChannels = {
    "private-order.task.0b9f5a8e-3c1d-4e6f-8a7b-9c0d1e2f3a4b",
    "private-order.task.7c3e1f20-55aa-4b1c-9d2e-0f1e2d3c4b5a",
    "private-chunks.preview.7", "private-voice-clones.7", "private-reseller.codes.42",
    "private-order.task.0B9F5A8E-3C1D-4E6F-8A7B-9C0D1E2F3A4B", "presence-order.task.1", "private-chunks.preview.07"};

// The hooks' answers, set by the input and read on the pool thread too. Per key, bits 0-1: the
// key cache (1 valid, 2 invalid, else unknown); bit 2: PostgreSQL says valid; bit 3: it fails.
std::array<std::atomic<std::uint8_t>, 3> key_bits;
std::atomic<std::uint8_t> snapshot_mode;  // 0 none, 1 an event, 2 the read fails
std::atomic<std::int64_t> snapshot_seq;

Digest key(std::size_t i) { return Digest{static_cast<std::uint8_t>(i % 3)}; }  // a key hash names its bits
std::uint8_t bits_of(const Digest& k) { return key_bits[k[0] % 3]; }

HubHooks hooks() {
  HubHooks h;
  h.key_cached = [](const Digest& k) -> std::optional<bool> {
    const auto cache = bits_of(k) & 3;
    return cache == 1 || cache == 2 ? std::optional(cache == 1) : std::nullopt;
  };
  h.key_valid = [](db::Resources&, const Digest& k) {
    if (bits_of(k) & 8) throw std::runtime_error("fuzz: PostgreSQL is away");
    return (bits_of(k) & 4) != 0;
  };
  h.snapshot = [](db::Resources&, const Channel& ch) -> std::optional<Event> {
    if (snapshot_mode == 2) throw std::runtime_error("fuzz: the snapshot could not be read");
    if (snapshot_mode == 0) return std::nullopt;
    const std::int64_t seq = snapshot_seq;
    return Event{order_channel(ch.order_id->str()), "order.updated", json{{"seq", seq}, {"snapshot", true}}.dump(), seq};
  };
  return h;
}

class FixedClock final : public Clock {
 public:
  TimePoint now() const override { return TimePoint(std::chrono::milliseconds(kWallBase)); }
};

// Made once and never destroyed: the pool's thread outlives every input.
struct Wiring {
  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  InfraCounters counters;
  // Never connects: the hooks leave their Resources alone.
  db::BlockingPool pool{{.threads = 1, .request_deadline = {}, .database_url = "postgresql://127.0.0.1:1/none",
                         .redis = {.url = "redis://127.0.0.1:1/0"}},
                        counters};
  ChannelSigner signer{"fuzz-app", "fuzz channel secret"};
  FixedClock clock;
  const HubOptions options{.max_message_bytes = kMaxMessage, .max_subscriptions = 4, .max_queued_frames = 64};
  std::shared_ptr<HubCore> hub = std::make_shared<HubCore>(ioc, options, "fuzz-app", signer, pool, hooks(), clock);
  // One socket per address: a slot the last socket kept makes the next input fail at once.
  std::shared_ptr<AddressSlots> slots = std::make_shared<AddressSlots>(1);
  // The pool held by a job of ours: the session's jobs wait behind it, their subscriptions pending.
  std::mutex gate_mutex;
  std::condition_variable gate_cv;
  bool gated = false;  // written on this thread only

  Wiring() { log::init("error"); }  // the contained failures of the hooks would fill the log
  void gate(bool hold) {
    std::lock_guard lock(gate_mutex);
    gated = hold;
    if (!hold) return gate_cv.notify_all();
    pool.submit([this](db::Resources&) {
      std::unique_lock held(gate_mutex);
      gate_cv.wait(held, [this] { return !gated; });
    });
  }
};

// Runs what is ready on this thread (the I/O thread) until neither it nor the pool has work (the
// socket pair delivers within the write): nothing is left in flight. A pool job of the session
// holds a reference to the HubCore until it has posted its answer; besides, only Wiring and the
// live session hold one. The pool is looked at before the poll, which then runs what it posted.
void settle(Wiring& w, const std::weak_ptr<PusherSession>& session) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (true) {
    const bool pool_idle = w.gated || w.hub.use_count() == (session.expired() ? 1 : 2);
    std::atomic_thread_fence(std::memory_order_acquire);
    std::size_t ran = 0;
    for (std::size_t n = 1; n != 0; ran += n) n = w.ioc.poll();
    if (pool_idle && ran == 0) return;
    FUZZ_CHECK(std::chrono::steady_clock::now() < deadline);
    if (!pool_idle) std::this_thread::yield();
  }
}

struct Client {
  explicit Client(asio::io_context& ioc) : ws(ioc) {}
  websocket::stream<tcp::socket> ws;
  beast::flat_buffer buffer;
  std::vector<std::string> frames;  // received, not yet checked
  bool open = false;    // handshake done
  bool ended = false;   // the read loop stopped: closed, reset or refused
  int close_code = -1;  // the server's close frame, -1 without one
  int writes = 0;       // in flight (at most one)

  void read() {
    ws.async_read(buffer, [this](beast::error_code ec, std::size_t) {
      // A close frame's code counts also when the answer to it failed (the server may reset).
      if (ws.reason().code != websocket::close_code::none) close_code = ws.reason().code;
      if ((ended = static_cast<bool>(ec))) return;
      FUZZ_CHECK(ws.got_text());
      frames.push_back(beast::buffers_to_string(buffer.data()));
      buffer.consume(buffer.size());
      read();
    });
  }
  void write(std::string text, bool binary = false) {
    if (!open || ended || writes != 0) return;
    auto owned = std::make_shared<std::string>(std::move(text));
    ws.binary(binary);
    ++writes;
    ws.async_write(asio::buffer(*owned), [this, owned](beast::error_code, std::size_t) { --writes; });
  }
};

struct ChannelModel {
  bool signed_ok = false;   // a subscribe with a valid signature since the last unsubscribe
  bool subscribed = false;  // subscription_succeeded received since the last unsubscribe
  std::int64_t last_seq = std::numeric_limits<std::int64_t>::min();
};

struct Run {
  explicit Run(Wiring& wiring) : w(wiring), client(w.ioc), server(w.ioc) {}
  Wiring& w;
  Client client;
  tcp::socket server;
  std::uint64_t serial = HubCore::new_serial();
  std::weak_ptr<PusherSession> session;
  std::string socket_id;
  std::map<std::string, ChannelModel, std::less<>> channels;
  std::size_t frames = 0;  // checked so far, so that an operation can tell what it caused
  std::string last;        // the last frame's event
  std::int64_t last_error = 0;

  void check_event(const json& f);
  void settle_and_check();
};

void Run::settle_and_check() {
  settle(w, session);
  for (const auto& text : client.frames) {
    FUZZ_CHECK(is_valid_utf8(text));
    const json f = json::parse(text, nullptr, false);
    FUZZ_CHECK(f.is_object() && f.contains("event") && f["event"].is_string() && f.contains("data"));
    check_event(f);
    ++frames;
  }
  client.frames.clear();
  std::size_t subscribed = 0;
  for (const auto& [name, c] : channels) subscribed += c.subscribed ? 1 : 0;
  const auto max = w.hub->options.max_subscriptions;
  FUZZ_CHECK(subscribed <= max && w.hub->subscription_count() <= max);
}

void Run::check_event(const json& f) {
  last = f["event"].get<std::string>();
  const json& data = f["data"];
  if (last == "pusher:error") {
    FUZZ_CHECK(data.is_object() && data["code"].is_number_integer() && data["message"].is_string());
    last_error = data["code"].get<std::int64_t>();
    return;
  }
  FUZZ_CHECK(data.is_string() && json::accept(data.get_ref<const std::string&>()));
  const std::string& payload = data.get_ref<const std::string&>();
  if (last == "pusher:connection_established") {
    FUZZ_CHECK(frames == 0);
    const json d = json::parse(payload);
    socket_id = d.at("socket_id").get<std::string>();
    FUZZ_CHECK(socket_id == w.hub->socket_id(serial) && valid_socket_id(socket_id) && d.at("activity_timeout") == 120);
  } else if (last == "pusher_internal:subscription_succeeded") {
    auto& c = channels[f.at("channel").get<std::string>()];
    FUZZ_CHECK(c.signed_ok);
    if (!c.subscribed) c.last_seq = std::numeric_limits<std::int64_t>::min();
    c.subscribed = true;
  } else if (!last.starts_with("pusher:")) {
    // An event of a channel: only while subscribed, in seq order.
    FUZZ_CHECK(f.contains("channel") && f["channel"].is_string());
    auto& c = channels[f["channel"].get<std::string>()];
    FUZZ_CHECK(c.subscribed);
    if (const auto seq = event_seq(payload); seq != 0) {
      FUZZ_CHECK(seq > c.last_seq);
      c.last_seq = seq;
    }
  }
}

// After a server-side step that must close with `code` (after its pusher:error), or change nothing.
void expect(Run& r, std::size_t frames_before, int code) {
  if (code == 0) return FUZZ_CHECK(!r.client.ended && r.frames == frames_before);
  FUZZ_CHECK(r.client.ended && r.client.close_code == code && r.frames == frames_before + 1);
  FUZZ_CHECK(r.last == "pusher:error" && r.last_error == code);
}

std::string_view take(Bytes& in, std::size_t n) {
  const auto part = in.rest.substr(0, std::min(n, in.rest.size()));
  in.rest.remove_prefix(part.size());
  return part;
}

std::string client_message(const std::string& event, const json& data, bool data_as_string = false) {
  return json{{"event", event}, {"data", data_as_string ? json(data.dump()) : data}}.dump();
}

// A subscribe with a valid signature (modes 0-2), none, an empty one, or one made for another
// socket, changed in its last digit, or made for another channel.
void subscribe(Run& r, std::uint8_t b) {
  const std::string& channel = kChannels[b & 7];
  const int mode = (b >> 3) & 7;
  std::string auth = r.w.signer.sign(mode == 5 ? r.socket_id + "1" : r.socket_id, kChannels[(b + (mode == 7)) & 7]);
  if (mode == 6) auth.back() = auth.back() == '0' ? '1' : '0';
  json data{{"channel", channel}};
  if (mode != 3) data["auth"] = mode == 4 ? "" : auth;
  auto& c = r.channels[channel];
  // A subscribed (or, pool held, pending) channel is answered as it was, whatever the signature.
  if (mode < 3) c.signed_ok = true;
  else if (!c.subscribed && !r.w.gated) c.signed_ok = false;
  r.client.write(client_message("pusher:subscribe", data, b & 0x40));
  r.settle_and_check();
}

// Client frames whose answer is fixed: ping -> pong, pong -> nothing, a client event -> 4301,
// an unknown event -> 4200, a binary frame -> 4200.
void client_event(Run& r, Bytes& in) {
  const auto b = in.u8() % 5;
  static const std::array<std::string, 4> kEvents = {"pusher:ping", "pusher:pong", "client-typing", "fuzz:event"};
  const auto before = r.frames;
  if (b == 4) r.client.write(std::string(take(in, in.u8())), true);
  else r.client.write(json{{"event", kEvents[b]}, {"data", "{}"}, {"channel", kChannels[0]}}.dump());
  r.settle_and_check();
  if (r.client.ended) return;
  FUZZ_CHECK(r.frames == before + (b == 1 ? 0 : 1));
  if (b == 0) FUZZ_CHECK(r.last == "pusher:pong");
  if (b >= 2) FUZZ_CHECK(r.last == "pusher:error" && r.last_error == (b == 2 ? 4301 : 4200));
}

// Runs fn on the registered socket's executor, as the hub reaches a socket.
template <class F>
void on_session(Run& r, F fn) {
  if (auto s = r.w.hub->find_session(r.serial)) asio::dispatch(s->executor(), [s, fn]() mutable { fn(*s); });
}

std::int64_t wall_at(std::uint8_t b) { return kWallBase + (static_cast<std::int64_t>(b) - 128) * 10'000; }

void add_grant(Run& r, std::uint8_t b, std::uint8_t e) {
  const std::size_t k = (b >> 3) % 3;
  Grant grant{.socket_id = r.socket_id, .channel = kChannels[b & 7], .key_id = ApiKeyId{static_cast<std::int64_t>(k)},
              .user = UserId{7}, .key_hash = key(k)};
  if (e != 0) grant.expires_at = TimePoint(std::chrono::milliseconds(wall_at(e)));
  on_session(r, [grant](PusherSession& s) { s.add_grant(grant); });
  r.settle_and_check();
}

// One event, or a burst past max_queued_frames; the data is the input's when it is a JSON object
// (as an event's data always is). The seq is the data's, as Hub::publish has it.
void deliver(Run& r, Bytes& in) {
  const auto b = in.u8();
  const auto s = in.u8();
  const std::string raw(b & 0x40 ? take(in, in.u8()) : std::string_view{});
  const bool raw_ok = is_valid_utf8(raw) && json::parse(raw, nullptr, false).is_object();
  for (int i = 0; i < (b & 0x80 ? 80 : 1); ++i) {
    const std::int64_t seq = s % 64 - 8 + i;
    std::string data = seq == 0 || (s & 0x80) ? json{{"n", i}}.dump() : json{{"seq", seq}, {"n", i}}.dump();
    const Event event{kChannels[b & 7], "order.updated", raw_ok ? raw : data, event_seq(raw_ok ? raw : data)};
    r.w.hub->deliver(event.channel, std::make_shared<const std::string>(wire_frame(event)), event.seq);
  }
  r.settle_and_check();
}

// A revocation, or an invalidation as Hub::key_changed handles it (asked of the key cache, else of
// PostgreSQL on the pool, which may be held).
void key_changed(Run& r, std::uint8_t b, bool revoke) {
  const auto& k = key(b);
  const bool held = r.w.hub->tracks(k);
  const bool was_open = !r.client.ended;
  const auto before = r.frames;
  const auto bits = bits_of(k);
  const bool cached = (bits & 3) == 1 || (bits & 3) == 2;
  const bool gone = revoke || (bits & 3) == 2 || (!cached && (bits & 12) == 0);
  if (revoke) r.w.hub->revoke(k);
  else if (held) check_key(r.w.hub, k);
  r.settle_and_check();
  if (was_open && (revoke || cached || !r.w.gated)) expect(r, before, held && gone ? error_code::unauthorized : 0);
}

// The sweeper's look at a steady time up to 510 s ahead and a wall time around the base: the
// outcome the session's own clocks call for.
void sweep(Run& r, std::uint8_t a, std::uint8_t b) {
  const std::int64_t now = steady_ms() + a * 2000;
  const std::int64_t wall = wall_at(b);
  const auto s = r.session.lock();
  if (!s || r.client.ended) return;
  const auto before = r.frames;
  const auto pinged = s->ping_sent_ms.load();
  int close = 0;
  if (s->expires_wall_ms.load() <= wall) close = error_code::unauthorized;
  else if (pinged != 0 && now - pinged >= 30'000) close = error_code::pong_not_received;
  const bool ping = close == 0 && pinged == 0 && now - s->last_seen_ms.load() >= 120'000;
  on_session(r, [now, wall](PusherSession& session) { session.check(now, wall); });
  r.settle_and_check();
  if (!ping) return expect(r, before, close);
  FUZZ_CHECK(!r.client.ended && r.frames == before + 1 && r.last == "pusher:ping");
}

void run_op(Run& r, Bytes& in) {
  static const std::array<int, 4> kCodes = {error_code::reconnect, error_code::over_capacity, error_code::unauthorized,
                                            error_code::pong_not_received};
  const int op = in.u8() % 15;
  switch (op) {
    case 0: {  // raw client text; an unsubscribe in it is followed by the model
      const std::string text(take(in, in.u16() & 0x3ff));
      const auto parsed = parse_client_message(text);
      if (parsed.message && parsed.message->event == "pusher:unsubscribe") r.channels[parsed.message->channel] = {};
      r.client.write(text);
      return r.settle_and_check();
    }
    case 1: return client_event(r, in);
    case 2: case 3: return subscribe(r, in.u8());
    case 4: {
      const std::string& channel = kChannels[in.u8() & 7];
      r.channels[channel] = {};
      r.client.write(client_message("pusher:unsubscribe", {{"channel", channel}}));
      return r.settle_and_check();
    }
    case 5: return add_grant(r, in.u8(), in.u8());
    case 6: return deliver(r, in);
    case 7: case 8: return key_changed(r, in.u8(), op == 7);
    case 9: return sweep(r, in.u8(), in.u8());
    case 10: {
      const int code = kCodes[in.u8() % kCodes.size()];
      if (r.client.ended) return;
      const auto before = r.frames;
      on_session(r, [code](PusherSession& s) { s.close_with(code, "Closed by the fuzzer"); });
      r.settle_and_check();
      return expect(r, before, code);
    }
    case 11: {
      const auto b = in.u8();
      key_bits[b % 3] = b >> 2 & 15;
      return;
    }
    case 12: snapshot_mode = in.u8() % 3; snapshot_seq = static_cast<std::int8_t>(in.u8()); return;
    case 13:  // one byte over the cap: Beast refuses it and closes with 1009
      r.client.write(std::string(kMaxMessage + 1, 'a'));
      r.settle_and_check();
      return FUZZ_CHECK(r.client.ended && r.client.close_code == 1009);
    default:
      r.w.gate(!r.w.gated);
      return r.settle_and_check();
  }
}

// Connects, hands the upgrade request to a new session as the HTTP server does, and checks the
// first frames: connection_established, or the refusal and its close.
void connect(Run& r, std::uint8_t setup) {
  // A connected pair of stream sockets: a write lands in the peer's queue before it returns,
  // where TCP's loopback may deliver it a poll later (and then the properties could not tell).
  int fds[2];
  FUZZ_CHECK(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  r.server.assign(tcp::v4(), fds[0]);
  beast::get_lowest_layer(r.client.ws).assign(tcp::v4(), fds[1]);
  static const std::array<std::string, 3> kTargets = {"/app/fuzz-app?protocol=7", "/app/other?protocol=7",
                                                      "/app/fuzz-app?protocol=3&client=js"};
  const std::size_t target = (setup & 7) < 6 ? 0 : (setup & 7) - 5;
  r.client.ws.async_handshake("127.0.0.1", kTargets[target], [c = &r.client](beast::error_code ec) {
    c->open = !ec;
    c->ended = static_cast<bool>(ec);
    if (!ec) c->read();
  });
  beast::flat_buffer buffer;
  PusherSession::Request request;
  bool read = false;
  beast::http::async_read(r.server, buffer, request, [&read](beast::error_code ec, std::size_t) { read = !ec; });
  settle(r.w, r.session);
  FUZZ_CHECK(read);
  // As the hub does: a refused socket takes no slot.
  const bool refused = (setup & 0x18) == 0x18;
  std::unique_ptr<AddressSlots::Slot> slot = refused ? nullptr : r.w.slots->take("127.0.0.1");
  FUZZ_CHECK(refused || slot != nullptr);
  auto session = std::make_shared<PusherSession>(r.w.hub, std::move(r.server), r.serial);
  r.session = session;
  session->start(std::move(request), refused ? std::optional<std::string>("Too many connections") : std::nullopt,
                 std::move(slot));
  session.reset();
  r.settle_and_check();
  static const std::array<int, 2> kRefusals = {error_code::app_not_found, error_code::unsupported_protocol};
  const int code = target != 0 ? kRefusals[target - 1] : refused ? error_code::over_capacity : 0;
  if (code == 0) FUZZ_CHECK(!r.client.ended && !r.socket_id.empty() && r.w.hub->session_count() == 1);
  else FUZZ_CHECK(r.client.ended && r.client.close_code == code && r.last_error == code);
}

// Ends the connection (a close frame, or the socket closed) and lets a held pool go; then nothing
// of the session may remain.
void disconnect(Run& r, bool polite) {
  if (polite && r.client.open && !r.client.ended && r.client.writes == 0) {
    r.client.ws.async_close(websocket::close_code::normal, [](beast::error_code) {});
    r.settle_and_check();
  }
  beast::error_code ignored;
  beast::get_lowest_layer(r.client.ws).close(ignored);
  r.settle_and_check();
  r.w.gate(false);  // the session's jobs answer a finished socket
  r.settle_and_check();
  FUZZ_CHECK(r.session.expired() && (!r.client.open || r.client.ended) && r.client.writes == 0);
  FUZZ_CHECK(r.w.hub->session_count() == 0 && r.w.hub->subscription_count() == 0);
  for (std::size_t i = 0; i < key_bits.size(); ++i) FUZZ_CHECK(!r.w.hub->tracks(key(i)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Wiring& wiring = *new Wiring;
  Bytes in{mediagen::fuzz::as_text(data, size)};
  key_bits[0] = 1;  // cached valid
  key_bits[1] = 4;  // unknown to the cache, valid in PostgreSQL
  key_bits[2] = 2;  // cached invalid
  snapshot_mode = 1;
  snapshot_seq = 5;
  const auto setup = in.u8();
  Run r(wiring);
  connect(r, setup);
  for (int ops = 0; ops < 64 && !in.rest.empty() && !r.client.ended; ++ops) run_op(r, in);
  disconnect(r, setup & 0x20);
  return 0;
}
