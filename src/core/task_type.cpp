#include "mediagen/core/task_type.hpp"

#include <array>
#include <utility>

namespace mediagen {
namespace {

constexpr std::array<std::pair<TaskType, std::string_view>, 9> kNames{{
    {TaskType::tts, "tts"},
    {TaskType::image, "image"},
    {TaskType::txt2img, "txt2img"},
    {TaskType::remix, "remix"},
    {TaskType::image_edit, "image_edit"},
    {TaskType::voice_clone, "voice_clone"},
    {TaskType::sfx, "sfx"},
    {TaskType::music, "music"},
    {TaskType::voice_search, "voice_search"},
}};

}  // namespace

std::optional<TaskType> parse_task_type(std::string_view text) noexcept {
  for (const auto& [type, name] : kNames) {
    if (name == text) return type;
  }
  return std::nullopt;
}

std::string_view task_type_name(TaskType type) noexcept {
  for (const auto& [t, name] : kNames) {
    if (t == type) return name;
  }
  return "tts";
}

}  // namespace mediagen
