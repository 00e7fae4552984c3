#include "mediagen/orders/preview.hpp"
#include "mediagen/core/json_text.hpp"

#include "mediagen/orders/request.hpp"

#include <nlohmann/json.hpp>

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/json_writer.hpp"
#include "mediagen/core/money.hpp"

namespace mediagen::orders {

std::string text_hash(std::string_view raw_text) { return crypto::to_hex(crypto::sha256(raw_text)); }

bool is_text_hash(std::string_view value) {
  if (value.size() != 64) return false;
  for (char c : value) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string preview_id(std::string_view text_hash_hex, const PreviewSettings& s) {
  std::string material;
  material.reserve(256 + s.fingerprint.size());
  for (std::string_view part : {text_hash_hex, task_type_name(s.task_type), std::string_view(s.template_id),
                                std::string_view(s.fingerprint), to_string(s.chunker.mode),
                                to_string(s.chunker.unit)}) {
    material += part;
    material += '\n';
  }
  material += std::to_string(s.chunker.capacity);
  return crypto::to_hex(crypto::sha256(material));
}

ChunkPlan plan_preview(std::string_view raw_text, const PreviewSettings& s) {
  if (s.chunker.unit == CapacityUnit::seconds) return plan_generative(raw_text, s.duration_ms, s.variants);
  return plan_chunks(raw_text, s.chunker);
}

std::string render_plan(const ChunkPlan& plan, const PreviewSettings& s, std::string_view id) {
  // Price: tokens are billable characters at the model's rate, rounded up once, as an order.
  const auto tokens = static_cast<std::int64_t>(plan.billable_chars);
  const std::int64_t price = money_for_tokens(tokens, s.price_per_1k_minor);
  JsonWriter w(256 + plan.cleaned.size() + plan.chunks.size() * 160);
  w.begin_object().field("status", "ready").field("preview_id", id);
  w.key("summary")
      .begin_object()
      .field("task_type", task_type_name(s.task_type))
      .field("template_id", std::string_view(s.template_id))
      .field("service_key", std::string_view(s.service_key))
      .field("model_id", std::string_view(s.model_id))
      .field("generation_mode", to_string(s.chunker.mode))
      .field("capacity", static_cast<std::int64_t>(s.chunker.capacity))
      .field("capacity_unit", to_string(s.chunker.unit))
      .field("chunks", static_cast<std::int64_t>(plan.chunks.size()))
      .field("total_chars", static_cast<std::int64_t>(plan.total_chars))
      .field("billable_chars", tokens)
      .field("tokens", tokens)
      .field("pauses", static_cast<std::int64_t>(plan.total_pauses))
      .field("max_pauses_per_chunk", static_cast<std::int64_t>(kMaxPausesPerChunk))
      .field("chars_per_pause", static_cast<std::int64_t>(kCharsPerPause))
      .field("caps_ok", plan.caps_ok);
  w.key("estimated_price")
      .begin_object()
      .field("amount", std::string_view(std::to_string(price)))
      .field("amount_formatted", to_whole_units(MinorUnits{price}, s.currency_precision))
      .key("currency_asset")
      .begin_object()
      .field("code", std::string_view(s.currency_code))
      .field("precision", std::int64_t{s.currency_precision})
      .end_object()
      .end_object();
  w.end_object();
  w.key("chunks").begin_array();
  for (const auto& c : plan.chunks) {
    w.begin_object()
        .field("chunk_index", static_cast<std::int64_t>(c.index))
        .field("text", std::string_view(c.text))
        .field("length", static_cast<std::int64_t>(c.length))
        .field("raw_length", static_cast<std::int64_t>(c.raw_length))
        .field("billable_length", static_cast<std::int64_t>(c.billable_length))
        .field("pauses", static_cast<std::int64_t>(c.pauses))
        .field("caps_ok", c.caps_ok);
    w.key("paragraph_index");
    if (c.paragraph_index) w.value(static_cast<std::int64_t>(*c.paragraph_index));
    else w.null();
    w.end_object();
  }
  w.end_array().end_object();
  return w.take();
}

std::string render_processing(std::string_view id) {
  JsonWriter w;
  w.begin_object().field("status", "processing").field("preview_id", id).end_object();
  return w.take();
}

bool is_processing(std::string_view stored) { return stored.find(R"("status":"processing")") != std::string_view::npos; }

std::optional<std::string> page_of(std::string_view stored, std::size_t page, std::size_t per_page) {
  auto doc = nlohmann::ordered_json::parse(stored, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("chunks") || !doc["chunks"].is_array()) {
    return std::nullopt;
  }
  const auto& all = doc["chunks"];
  const std::size_t total = all.size();
  const std::size_t first = (page - 1) * per_page;
  nlohmann::ordered_json chunks = nlohmann::ordered_json::array();
  for (std::size_t i = first; i < total && i < first + per_page; ++i) chunks.push_back(all[i]);
  nlohmann::ordered_json out;
  out["status"] = doc.value("status", "ready");
  out["preview_id"] = doc.value("preview_id", "");
  out["summary"] = doc["summary"];
  out["chunks"] = std::move(chunks);
  out["page"] = {{"current_page", page},
                 {"per_page", per_page},
                 {"total", total},
                 {"has_more", first + per_page < total}};
  return to_json_text(out);
}

}  // namespace mediagen::orders
