#include "mediagen/http/upload_pace.hpp"

#include <algorithm>

namespace mediagen::http {

namespace {
using std::chrono::milliseconds;
// Arrivals closer than window / kBuckets are counted together: the meter stays a few dozen
// entries whatever the client sends, and is never more than that much off in the client's favour.
constexpr int kBuckets = 64;
constexpr milliseconds kNoMinimum{std::chrono::hours(24)};
}  // namespace

UploadPace::UploadPace(UploadPaceRule rule, const Clock& clock)
    : rule_(rule),
      clock_(clock),
      start_(clock.now()),
      judged_from_(start_ + rule.grace + rule.window),
      bucket_width_(std::max(milliseconds(1), rule.window / kBuckets)) {}

std::uint64_t UploadPace::needed() const {
  return rule_.min_bytes_per_second * static_cast<std::uint64_t>(std::max<std::int64_t>(rule_.window.count(), 0)) / 1000;
}

void UploadPace::arrived(std::size_t bytes) {
  if (bytes == 0) return;
  const TimePoint now = clock_.now();
  if (!buckets_.empty() && now - buckets_.back().last < bucket_width_) {
    buckets_.back().bytes += bytes;
    buckets_.back().last = std::max(buckets_.back().last, now);
  } else {
    buckets_.push_back({now, bytes});
  }
  forget_before(now - rule_.window);
}

void UploadPace::forget_before(TimePoint since) {
  while (!buckets_.empty() && buckets_.front().last <= since) buckets_.pop_front();
}

std::uint64_t UploadPace::bytes_after(TimePoint since) const {
  std::uint64_t sum = 0;
  for (const Bucket& b : buckets_) {
    if (b.last > since) sum += b.bytes;
  }
  return sum;
}

bool UploadPace::too_slow() const {
  const std::uint64_t need = needed();
  if (need == 0) return false;
  const TimePoint now = clock_.now();
  return now >= judged_from_ && bytes_after(now - rule_.window) < need;
}

// With nothing more arriving, the window's sum only falls: first at the judging time, then each
// time a bucket leaves the window. The earliest moment it is short is when the upload is cut.
std::chrono::milliseconds UploadPace::patience() const {
  const std::uint64_t need = needed();
  if (need == 0) return kNoMinimum;
  const TimePoint now = clock_.now();
  const TimePoint first = std::max(now, judged_from_);
  std::uint64_t sum = bytes_after(first - rule_.window);
  TimePoint cut = first;
  for (const Bucket& b : buckets_) {
    if (sum < need) break;
    if (b.last <= first - rule_.window) continue;
    sum -= b.bytes;
    cut = b.last + rule_.window;
  }
  return std::chrono::ceil<milliseconds>(cut - now);
}

}  // namespace mediagen::http
