#include "mediagen/orders/create.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "mediagen/core/json_text.hpp"
#include "mediagen/engines/codec.hpp"
#include "mediagen/orders/order.hpp"

namespace mediagen::orders {

std::string voice_search_upload_key(std::string_view order_id) {
  return order_storage_prefix(order_id) + "input/sample";
}

JudgedUpload judge_voice_search_upload(std::span<const std::string_view> files, FieldErrors& errors) {
  if (files.size() > 1) {
    errors.add("input_files", Message{"validation.one_file", {{"attribute", "input_files"}}});
    return {};
  }
  if (files.empty() || files.front().empty()) return {.refusal = ApiError::refused(Reason::source_file_required)};
  if (!engines::is_accepted_mime_type(engines::sniff_mime_type(files.front()))) {
    return {.refusal = ApiError::refused(Reason::source_file_unsupported)};
  }
  if (auto refused = engines::check_upload(files.front())) {
    const bool empty = refused->kind == engines::IntakeRefusalKind::empty;
    return {.refusal = ApiError::refused(empty ? Reason::source_file_required : Reason::source_file_unsupported)};
  }
  return {.bytes = files.front()};
}

bool use_voice_search_service(db::Db& db, std::int64_t top, std::string_view upload_key, NewOrder& order) {
  const auto service = find_prompt_service(db, order.task_type);
  if (!service) return false;
  order.service_key = service->service_key;
  order.model_id = service->model_id;
  order.price_per_1k_minor = service->price_per_1k_minor;
  order.chunker = {.capacity = 1, .unit = CapacityUnit::searches, .mode = GenerationMode::ordinary};
  order.input_text.clear();
  ChunkText chunk;
  chunk.index = 0;
  chunk.raw_length = 1;
  chunk.billable_length = 1;
  order.plan = ChunkPlan{};
  order.plan.billable_chars = 1;
  order.plan.chunks.push_back(std::move(chunk));
  order.engine_request =
      to_json_text(nlohmann::json{{"engine", service->engine}, {"upload", upload_key}, {"top", top}});
  return true;
}

std::optional<VoiceSearchRequest> read_voice_search_request(std::string_view engine_request_json) {
  const auto doc = nlohmann::json::parse(engine_request_json, nullptr, false);
  if (!doc.is_object()) return std::nullopt;
  const auto upload = doc.find("upload");
  const auto top = doc.find("top");
  if (upload == doc.end() || !upload->is_string() || top == doc.end() || !top->is_number_integer()) return std::nullopt;
  return VoiceSearchRequest{upload->get<std::string>(), top->get<std::int64_t>()};
}

}  // namespace mediagen::orders
