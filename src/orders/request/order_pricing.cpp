#include "mediagen/orders/request.hpp"

#include <algorithm>

namespace mediagen::orders {

// A product of two 64-bit values cannot overflow it. (__extension__: GCC's own type, named once.)
__extension__ using Wide = __int128;

std::int64_t money_for_tokens(std::int64_t tokens, std::int64_t price_per_1k_minor) noexcept {
  if (tokens <= 0 || price_per_1k_minor <= 0) return 0;
  const Wide product = static_cast<Wide>(tokens) * price_per_1k_minor;
  return static_cast<std::int64_t>((product + 999) / 1000);
}

OrderPrice price_order(std::span<const std::int64_t> chunk_tokens, std::int64_t quota_available,
                       std::int64_t price_per_1k_minor) {
  OrderPrice price;
  std::int64_t quota_left = std::max<std::int64_t>(0, quota_available);
  std::int64_t payg_so_far = 0;
  std::int64_t money_so_far = 0;
  price.chunks.reserve(chunk_tokens.size());
  for (const std::int64_t tokens : chunk_tokens) {
    ChunkPrice c{.tokens = tokens};
    c.quota_tokens = std::min(tokens, quota_left);
    quota_left -= c.quota_tokens;
    payg_so_far += tokens - c.quota_tokens;
    const std::int64_t money_total = money_for_tokens(payg_so_far, price_per_1k_minor);
    c.payg_minor = money_total - money_so_far;
    money_so_far = money_total;
    price.tokens += tokens;
    price.from_quota += c.quota_tokens;
    price.chunks.push_back(c);
  }
  price.from_payg = price.tokens - price.from_quota;
  price.minor = money_so_far;
  return price;
}

}  // namespace mediagen::orders
