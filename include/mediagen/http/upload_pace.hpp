#pragma once
// The slowest an upload may come: after a grace period, the bytes of the last `window` must average
// at least `min_bytes_per_second`. The first judgement is at grace + window (the window then covers
// the time just after the grace), later ones slide with the clock. Below it the upload is cut
// (408), so a client that trickles a byte now and then cannot hold a slot or memory for hours,
// while an honest one on a slow link (16 KiB/s is 128 kbit/s) keeps its upload whatever its size.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>

#include "mediagen/core/clock.hpp"

namespace mediagen::http {

struct UploadPaceRule {
  std::uint64_t min_bytes_per_second = 16 * 1024;  // 0: no minimum
  std::chrono::milliseconds window{30'000};
  std::chrono::milliseconds grace{10'000};
};

class UploadPace {
 public:
  // The upload starts at clock.now().
  UploadPace(UploadPaceRule rule, const Clock& clock);

  // `bytes` arrived now.
  void arrived(std::size_t bytes);
  // The upload is below the rule now.
  bool too_slow() const;
  // How long until too_slow() holds if nothing more arrives (zero when it holds already); a read
  // may wait this long. Hours when the rule has no minimum.
  std::chrono::milliseconds patience() const;

  const UploadPaceRule& rule() const noexcept { return rule_; }

 private:
  struct Bucket {
    TimePoint last;          // the latest arrival counted in it
    std::uint64_t bytes = 0;
  };

  std::uint64_t needed() const;  // bytes a window must hold
  // The bytes that arrived after `since`.
  std::uint64_t bytes_after(TimePoint since) const;
  void forget_before(TimePoint since);

  UploadPaceRule rule_;
  const Clock& clock_;
  TimePoint start_;
  TimePoint judged_from_;  // start + grace + window
  std::chrono::milliseconds bucket_width_;
  std::deque<Bucket> buckets_;  // arrivals of the last window, oldest first, a few dozen at most
};

}  // namespace mediagen::http
