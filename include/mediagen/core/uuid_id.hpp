#pragma once
// Ids that are uuids - orders, items, templates, voice clones, lease tokens - parsed once where
// they enter (a path parameter, a body field, a row) and carried as their own type from there:
// past that point no code checks a uuid's shape, and one kind of id cannot stand for another.
#include <compare>
#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "mediagen/core/uuid.hpp"

namespace mediagen {

template <class Tag>
class UuidId {
 public:
  // The canonical 8-4-4-4-12 hex form in either case, kept lowercase (ids are stored and
  // referenced lowercase, so one in capitals names the same object); nullopt for anything else.
  static std::optional<UuidId> parse(std::string_view text) {
    if (!is_uuid(text)) return std::nullopt;
    return UuidId(lowercase_id(text));
  }
  // A fresh random (version 4) id.
  static UuidId fresh() { return UuidId(random_uuid()); }
  // The text of a uuid column (PostgreSQL's uuid type holds the shape and prints it lowercase), or
  // an id this process read from such a column earlier (an order id it created and answered).
  static UuidId of_row(std::string text) { return UuidId(std::move(text)); }

  const std::string& str() const noexcept { return value_; }
  // Read as text where text is wanted (a log field, a storage key); nothing converts the other way.
  operator std::string_view() const noexcept { return value_; }

  friend bool operator==(const UuidId&, const UuidId&) = default;
  friend auto operator<=>(const UuidId&, const UuidId&) = default;
  // Against text read elsewhere (a row, an answer): the same id in its lowercase form.
  friend bool operator==(const UuidId& id, std::string_view text) noexcept { return id.value_ == text; }
  friend std::ostream& operator<<(std::ostream& os, const UuidId& id) { return os << id.value_; }

 private:
  explicit UuidId(std::string value) : value_(std::move(value)) {}
  std::string value_;
};

using OrderId = UuidId<struct OrderTag>;
using ItemId = UuidId<struct ItemTag>;
using TemplateId = UuidId<struct TemplateTag>;
using CloneId = UuidId<struct CloneTag>;
// A chunk lease's fencing token (the work queue's).
using LeaseToken = UuidId<struct LeaseTag>;
// A gift code's id (the uuid a code's text seals).
using GiftCodeId = UuidId<struct GiftCodeTag>;
using WebhookMessageId = UuidId<struct WebhookMessageTag>;  // the webhook-id of a delivery
// A voice of the catalogue.
using VoiceId = UuidId<struct VoiceTag>;

}  // namespace mediagen

template <class Tag>
struct std::hash<mediagen::UuidId<Tag>> {
  std::size_t operator()(const mediagen::UuidId<Tag>& id) const noexcept { return std::hash<std::string>{}(id.str()); }
};
