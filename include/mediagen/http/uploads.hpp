#pragma once
// What every upload (a multipart body) of the instance shares, so that no client can starve the
// others: the memory budget taken as bytes arrive, a cap on uploads per key decided before the
// body is read, and the pace each upload must keep after its grace period.
#include <cstddef>

#include "mediagen/core/clock.hpp"
#include "mediagen/http/upload_budget.hpp"
#include "mediagen/http/upload_pace.hpp"

namespace mediagen::http {

struct UploadOptions {
  std::size_t budget_bytes = std::size_t{512} << 20;  // every multipart body being read at once
  std::size_t per_key = 2;                            // uploads one key may have being read
  UploadPaceRule pace;
};

struct Uploads {
  Uploads(const UploadOptions& options, const Clock& clock_)
      : budget(options.budget_bytes), slots(options.per_key), pace(options.pace), clock(clock_) {}

  UploadBudget budget;
  UploadSlots slots;
  UploadPaceRule pace;
  const Clock& clock;
};

}  // namespace mediagen::http
