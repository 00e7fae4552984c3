#pragma once
#include <cstdint>
#include <functional>

namespace mediagen {

// An integer id that cannot be mixed up with another kind of id.
template <class Tag>
struct IntId {
  std::int64_t value = 0;
  friend bool operator==(IntId, IntId) = default;
  friend auto operator<=>(IntId, IntId) = default;
};

using UserId = IntId<struct UserTag>;
using ApiKeyId = IntId<struct ApiKeyTag>;
using AssetId = IntId<struct AssetTag>;

}  // namespace mediagen

template <class Tag>
struct std::hash<mediagen::IntId<Tag>> {
  std::size_t operator()(mediagen::IntId<Tag> id) const noexcept { return std::hash<std::int64_t>{}(id.value); }
};
