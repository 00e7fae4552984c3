#pragma once
// How an order's tokens are paid: subscription quota first, the rest from the balance at the
// model's price per 1,000 tokens, rounded up once per order (never per chunk, so splitting a
// text into chunks never costs more than the whole).
#include <cstdint>
#include <span>
#include <vector>

namespace mediagen::orders {

struct ChunkPrice {
  std::int64_t tokens = 0;
  std::int64_t quota_tokens = 0;
  std::int64_t payg_minor = 0;
};

struct OrderPrice {
  std::int64_t tokens = 0;
  std::int64_t from_quota = 0;
  std::int64_t from_payg = 0;
  std::int64_t minor = 0;  // price_units of the order
  std::vector<ChunkPrice> chunks;
};

// ceil(tokens * price_per_1k / 1000), without overflow for any realistic input.
std::int64_t money_for_tokens(std::int64_t tokens, std::int64_t price_per_1k_minor) noexcept;

// Chunks in order take quota first; chunk i's money is the growth of the rounded-up total, so
// the chunks' money sums exactly to the order's.
OrderPrice price_order(std::span<const std::int64_t> chunk_tokens, std::int64_t quota_available,
                       std::int64_t price_per_1k_minor);

}  // namespace mediagen::orders
