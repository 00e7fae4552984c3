#include "speech_stream.hpp"

#include <algorithm>
#include <exception>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "mediagen/core/log.hpp"
#include "mediagen/orders/reads.hpp"

namespace mediagen::compat {
namespace {

namespace asio = boost::asio;
using orders::ItemStatus;

constexpr std::uint64_t kPieceBytes = 64 * 1024;
constexpr std::chrono::milliseconds kPoolDeadline{10'000};

}  // namespace

ChunkState chunk_state(const orders::Order& order, int index) {
  if (orders::is_closed(order.status)) return {.kind = ChunkState::Kind::ended};
  int positions = 0;
  const orders::Item* latest = nullptr;
  for (const auto& item : order.items) {
    positions = std::max(positions, item.chunk_index + 1);
    if (item.chunk_index != index) continue;
    if (!latest || item.attempt_number > latest->attempt_number ||
        (item.attempt_number == latest->attempt_number && item.created_at > latest->created_at)) {
      latest = &item;
    }
  }
  if (index >= positions) return {.kind = ChunkState::Kind::done};
  if (latest && latest->status == ItemStatus::completed && latest->result_path) {
    return {.kind = ChunkState::Kind::ready,
            .key = *latest->result_path,
            .item_id = latest->id,
            .duration_ms = latest->duration_ms.value_or(0)};
  }
  if (latest && latest->status == ItemStatus::policy_flagged) return {.kind = ChunkState::Kind::policy_flagged};
  if (latest && latest->status == ItemStatus::failed) return {.kind = ChunkState::Kind::failed};
  if (orders::is_terminal(order.status)) return {.kind = ChunkState::Kind::ended};
  return {.kind = ChunkState::Kind::waiting};
}

SpeechStream::SpeechStream(StreamSetup setup, std::unique_ptr<engines::AudioOut> out)
    : setup_(std::move(setup)), out_(std::move(out)), deadline_(std::chrono::steady_clock::now() + setup_.max_wait) {}

// Dropped unfinished by the server (the client went away, a write stalled): nothing more can be
// sent, so the order ends now with what was written. Queued: a destructor cannot wait.
SpeechStream::~SpeechStream() {
  if (settled_) return;
  if (auto ender = setup_.ender.lock()) ender->end_later(setup_.user, setup_.order_id, delivered_);
}

asio::awaitable<void> SpeechStream::end_order() {
  if (settled_) co_return;
  settled_ = true;
  if (auto ender = setup_.ender.lock()) co_await ender->end(setup_.user, setup_.order_id, delivered_);
}

// Looks at the order until chunk index_ is ready or will never be; between looks it sleeps until
// a wake-up or the poll interval. A draining server stops waiting (its workers handed their
// chunks back), but still sends what is ready.
asio::awaitable<ChunkState> SpeechStream::await_chunk() {
  for (;;) {
    const bool speech = setup_.framing && setup_.framing->wants_speech();
    auto look = [user = setup_.user, id = setup_.order_id, index = index_, speech](db::Resources& r) -> ChunkState {
      auto order = orders::find_own_order(r.db, user, OrderId::of_row(id), /*with_items=*/true);
      if (!order) return {.kind = ChunkState::Kind::ended};
      ChunkState state = chunk_state(*order, index);
      if (speech && state.kind == ChunkState::Kind::ready) state.speech = orders::item_speech(r.db, user, state.item_id);
      return state;
    };
    ChunkState state = co_await setup_.pool.run(std::move(look), kPoolDeadline);
    if (state.kind != ChunkState::Kind::waiting) co_return state;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline_) co_return ChunkState{.kind = ChunkState::Kind::ended};
    const bool draining = setup_.draining && setup_.draining->load(std::memory_order_relaxed);
    if (draining) co_return ChunkState{.kind = ChunkState::Kind::ended};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now);
    const auto pause = std::min(setup_.poll_interval, left);
    if (setup_.waiters) {
      co_await setup_.waiters->wait(setup_.order_id, pause);
    } else {
      asio::steady_timer timer(co_await asio::this_coro::executor, pause);
      co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
  }
}

// The database out of reach while waiting ends the answer like any other failure: its order must
// still end (co_await is not allowed in a handler, hence the flag).
asio::awaitable<ChunkState> SpeechStream::await_chunk_safely() {
  ChunkState state{.kind = ChunkState::Kind::ended};
  try {
    state = co_await await_chunk();
  } catch (const std::exception& e) {
    log::warn("speech stream: the order could not be read", {{"order_id", setup_.order_id}, {"error", e.what()}});
  }
  co_return state;
}

asio::awaitable<Result<void>> SpeechStream::start() {
  ChunkState first = co_await await_chunk_safely();
  if (first.kind == ChunkState::Kind::ready) {
    key_ = first.key;
    if (setup_.framing) setup_.framing->chunk(first);
    co_return Result<void>{};
  }
  // Nothing was received: the order ends with all of its money back before the error answer.
  co_await end_order();
  switch (first.kind) {
    case ChunkState::Kind::policy_flagged: co_return ApiError::refused(Reason::content_blocked);
    case ChunkState::Kind::done: co_return ApiError::internal_error("a speech order without chunks");
    default: co_return ApiError::unavailable("the first chunk of speech order " + setup_.order_id + " was not made");
  }
}

// The next piece of the current chunk's file, converted; "" when the file is done.
asio::awaitable<std::optional<std::string>> SpeechStream::read_piece() {
  auto read = [&store = setup_.store, key = key_, offset = offset_, known = file_size_](
                  db::Resources&) -> std::optional<std::pair<std::uint64_t, std::string>> {
    std::uint64_t size = 0;
    if (known) {
      size = *known;
    } else {
      auto stat = store.stat(key);
      if (!stat || !*stat) return std::nullopt;
      size = **stat;
    }
    if (offset >= size) return std::pair{size, std::string()};
    auto bytes = store.read(key, offset, std::min(kPieceBytes, size - offset));
    if (!bytes) return std::nullopt;
    return std::pair{size, std::move(*bytes)};
  };
  std::optional<std::pair<std::uint64_t, std::string>> got;
  try {
    got = co_await setup_.pool.run(std::move(read), kPoolDeadline);
  } catch (const std::exception& e) {
    log::warn("speech stream: the pool did not answer", {{"order_id", setup_.order_id}, {"error", e.what()}});
  }
  if (!got) {
    log::warn("speech stream: a chunk's audio could not be read", {{"order_id", setup_.order_id}, {"index", index_}});
    co_return std::nullopt;
  }
  file_size_ = got->first;
  if (got->second.empty()) co_return std::string();
  offset_ += got->second.size();
  auto converted = out_->feed(got->second);
  if (!converted || !setup_.framing) co_return converted;
  const double done = got->first == 0 ? 1.0 : static_cast<double>(offset_) / static_cast<double>(got->first);
  co_return setup_.framing->piece(std::move(*converted), done);
}

// Everything handed out before this call has been written (BodySource's contract).
asio::awaitable<std::optional<std::string>> SpeechStream::next() {
  if (finished_) {
    delivered_ = index_;
    settled_ = true;  // the whole answer went out
    co_return std::string();
  }
  auto piece = co_await next_piece();
  if (!piece) {
    co_await end_order();
    co_return std::nullopt;
  }
  co_return piece;
}

asio::awaitable<std::optional<std::string>> SpeechStream::next_piece() {
  for (;;) {
    if (!key_.empty()) {
      auto piece = co_await read_piece();
      if (!piece) co_return std::nullopt;
      if (!piece->empty()) co_return piece;
      if (offset_ < file_size_.value_or(0)) continue;  // the converter held this piece back
      key_.clear();
      offset_ = 0;
      file_size_.reset();
      ++index_;
      delivered_ = index_;  // its last piece was handed out in an earlier call
      continue;
    }
    ChunkState state = co_await await_chunk_safely();
    if (state.kind == ChunkState::Kind::ready) {
      key_ = state.key;
      if (setup_.framing) setup_.framing->chunk(state);
      continue;
    }
    if (state.kind != ChunkState::Kind::done) {
      log::info("speech stream ended early", {{"order_id", setup_.order_id}, {"index", index_}});
      co_return std::nullopt;
    }
    // The converter's closing bytes belong to the last position: it is received once they are.
    delivered_ = std::max(0, index_ - 1);
    auto tail = out_->finish();
    if (!tail) co_return std::nullopt;
    if (setup_.framing) tail = setup_.framing->end(std::move(*tail));
    finished_ = true;
    if (!tail->empty()) co_return tail;
    delivered_ = index_;
    settled_ = true;  // nothing was left to send
    co_return std::string();
  }
}

}  // namespace mediagen::compat
