#pragma once
// What an order makes (spec 4.1 `task_type`): parsed once where a body field or a row enters;
// past that point no code compares task types as strings.
#include <cstdint>
#include <optional>
#include <string_view>

namespace mediagen {

// The nine values of the spec's task_type enum (spec 1); only tts, sfx, music and voice_search
// can be ordered, the rest are filters of a listing.
enum class TaskType : std::uint8_t { tts, image, txt2img, remix, image_edit, voice_clone, sfx, music, voice_search };

// The spec's names ("tts", "image", ..., "voice_search"); nullopt for anything else.
std::optional<TaskType> parse_task_type(std::string_view text) noexcept;
// The spec's name, as stored and answered.
std::string_view task_type_name(TaskType type) noexcept;

constexpr bool is_orderable(TaskType type) noexcept {
  return type == TaskType::tts || type == TaskType::sfx || type == TaskType::music || type == TaskType::voice_search;
}
// sfx and music are single-shot: one generation per variant, priced by the seconds it makes, never
// retried or regenerated per chunk, and their result lists each chunk's file rather than one track.
constexpr bool is_single_shot(TaskType type) noexcept { return type == TaskType::sfx || type == TaskType::music; }

}  // namespace mediagen
