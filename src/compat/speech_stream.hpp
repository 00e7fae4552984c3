#pragma once
// The audio of a speech order, sent while it is made: chunk after chunk, in chunk_index order,
// each as soon as its latest attempt completed, read from the object store in bounded pieces and
// converted to the response's format on the way (engines/codec/audio_out.hpp). The body's length is unknown
// when the head goes out, so the server sends it chunked.
//
// Waiting never holds an I/O thread: the order is read on the blocking pool, and between looks
// the coroutine sleeps until this instance reports a change of the order (OrderWaiters) or the
// poll interval passes (a chunk made by another instance). The whole answer has a ceiling.
//
// The order exists for this answer only, so the answer's end is the order's end. A position is
// received once every byte of its audio was written to the connection: the server asks for the
// next piece only after the previous one was written, so when next() is called every piece
// handed out before has gone out. The encoder's closing bytes (opus, flac, aac, the last
// resampled samples) belong to the last position. Outcomes:
//   - start(): waits for the first chunk. A first chunk that fails ends the order with nothing
//     received (OrderEnder) and is then the caller's error answer (policy_flagged: 400
//     content_blocked; failed: 503), with nothing sent yet.
//   - after bytes went out, a failed chunk, an order that ended without it, a chunk's audio that
//     cannot be read, the ceiling or the server draining end the order with the positions
//     received so far, then end the stream without its last chunk (next() gives nullopt): the
//     client sees a broken transfer and keeps paying only for what it received.
//   - a client that goes away (the server drops the stream unfinished) ends the order the same
//     way, queued on the blocking pool from the destructor.
//   - an order that is already failed, cancelled or compensated is not sent from: its own rules
//     settled its money.
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "mediagen/engines/codec/audio_out.hpp"
#include "order_ender.hpp"
#include "mediagen/compat/order_waiters.hpp"
#include "mediagen/core/api_error.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/message.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/reads.hpp"
#include "mediagen/storage/object_store.hpp"

namespace mediagen::compat {

struct ChunkState;

// What a stream sends around the converted audio: the audio's bytes as they are (no framing), or
// a surface's own shape (ElevenLabs' timestamped JSON). Called in order, on the stream's
// coroutine: chunk() when a chunk's audio starts, piece() for each converted piece of it, end()
// once with the converter's closing bytes. Pure transformations: no I/O.
class StreamFraming {
 public:
  virtual ~StreamFraming() = default;
  // chunk() is handed the chunk's text and word timings (read with its state).
  virtual bool wants_speech() const { return false; }
  virtual void chunk(const ChunkState& /*ready*/) {}
  // `done` is the share of the chunk's file read so far (0..1], for placing its timings.
  virtual std::string piece(std::string audio, double /*done*/) { return audio; }
  virtual std::string end(std::string tail) { return tail; }
};

struct StreamSetup {
  db::BlockingPool& pool;
  storage::ObjectStore& store;
  OrderWaiters* waiters = nullptr;
  UserId user;
  std::string order_id;
  std::chrono::milliseconds poll_interval{250};
  std::chrono::seconds max_wait{1800};
  std::weak_ptr<OrderEnder> ender;
  const std::atomic<bool>* draining = nullptr;  // true once the server drains: stop waiting
  std::shared_ptr<StreamFraming> framing;       // nullptr: the audio's bytes as they are
};

// Where an order's audio stands for the stream: the next chunk's file, or why there is none yet.
struct ChunkState {
  enum class Kind { ready, waiting, failed, policy_flagged, ended, done };
  Kind kind = Kind::waiting;
  std::string key;  // the file of a ready chunk
  std::string item_id;
  std::int64_t duration_ms = 0;  // of a ready chunk's audio
  std::optional<orders::ItemSpeech> speech;  // when the framing wants it
};
// Pure: the state of chunk `index` in the order's items (the latest attempt of each position);
// `ended` for every chunk of a closed order.
ChunkState chunk_state(const orders::Order& order, int index);

class SpeechStream final : public http::BodySource {
 public:
  SpeechStream(StreamSetup setup, std::unique_ptr<engines::AudioOut> out);
  ~SpeechStream() override;
  SpeechStream(const SpeechStream&) = delete;
  SpeechStream& operator=(const SpeechStream&) = delete;

  // Waits for the first chunk (see above); call before handing the stream to the server.
  boost::asio::awaitable<Result<void>> start();

  std::uint64_t size() const override { return 0; }
  bool sized() const override { return false; }
  std::int64_t max_seconds() const override { return setup_.max_wait.count(); }
  boost::asio::awaitable<std::optional<std::string>> next() override;

 private:
  boost::asio::awaitable<ChunkState> await_chunk();
  boost::asio::awaitable<ChunkState> await_chunk_safely();  // a pool failure is `ended`
  boost::asio::awaitable<std::optional<std::string>> read_piece();
  boost::asio::awaitable<std::optional<std::string>> next_piece();
  // The order ends with the positions received so far (once; see above).
  boost::asio::awaitable<void> end_order();

  StreamSetup setup_;
  std::unique_ptr<engines::AudioOut> out_;
  std::chrono::steady_clock::time_point deadline_;
  int index_ = 0;
  std::string key_;             // the chunk being sent; empty between chunks
  std::uint64_t offset_ = 0;
  std::optional<std::uint64_t> file_size_;
  bool finished_ = false;       // the last bytes were handed out; next() answers "" from now on
  int delivered_ = 0;           // positions whose every byte was written (see above)
  bool settled_ = false;        // the order needs nothing more from this answer
};

}  // namespace mediagen::compat
