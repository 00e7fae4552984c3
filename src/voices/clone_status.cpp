// The one place that names clone statuses (the SQL of clone_store.cpp aside); their moves are
// described in migrations/0010_voice_clones.sql.
#include <array>
#include <utility>

#include "mediagen/voices/clones.hpp"

namespace mediagen::voices {
namespace {

constexpr std::array<std::pair<CloneStatus, std::string_view>, 5> kNames{{
    {CloneStatus::pending, "pending"},
    {CloneStatus::processing, "processing"},
    {CloneStatus::ready, "ready"},
    {CloneStatus::failed, "failed"},
    {CloneStatus::archived, "archived"},
}};

}  // namespace

std::string_view to_string(CloneStatus status) {
  for (const auto& [s, name] : kNames) {
    if (s == status) return name;
  }
  return "failed";
}

std::optional<CloneStatus> parse_clone_status(std::string_view text) {
  for (const auto& [s, name] : kNames) {
    if (name == text) return s;
  }
  return std::nullopt;
}

bool is_clone_service(std::string_view service) { return service == "provider_c" || service == "provider_d"; }

std::string samples_prefix(std::string_view clone_id) { return "clones/" + std::string(clone_id) + "/"; }

std::string sample_key(std::string_view clone_id, std::size_t index) {
  return samples_prefix(clone_id) + "sample-" + std::to_string(index);
}

}  // namespace mediagen::voices
