#include "mediagen/catalog/catalogue_json.hpp"

#include <cmath>

#include "mediagen/core/json_writer.hpp"
#include "mediagen/core/money.hpp"
#include "mediagen/http/conditional.hpp"

namespace mediagen::catalog {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

void write_optional(JsonWriter& w, std::string_view key, const std::optional<std::string>& v) {
  w.key(key);
  if (v) w.value(std::string_view(*v));
  else w.null();
}

// {per_mtok_minor, per_mtok_formatted, per_mtok_display} or the per_call_ trio of `request`.
void write_price(JsonWriter& w, const Catalogue& c, const Model& m, PriceClass cls, const Display& d) {
  w.key(to_string(cls));
  const auto minor = m.price(cls);
  if (!minor) {
    w.null();
    return;
  }
  const bool per_call = cls == PriceClass::request;
  w.begin_object()
      .field(per_call ? "per_call_minor" : "per_mtok_minor", *minor)
      .field(per_call ? "per_call_formatted" : "per_mtok_formatted", to_whole_units(MinorUnits{*minor}, c.asset.precision));
  w.key(per_call ? "per_call_display" : "per_mtok_display");
  if (d.available) w.value(display_amount(*minor, c.asset.precision, d));
  else w.null();
  w.end_object();
}

void write_model(JsonWriter& w, const Catalogue& c, const Model& m, const Display& d) {
  w.begin_object()
      .field("key", std::string_view(m.key))
      .field("name", std::string_view(m.name))
      .field("family", std::string_view(m.family))
      .field("kind", std::string_view(m.kind))
      .field("description", std::string_view(m.description))
      .field("context_window", m.context_window)
      .field("max_output_tokens", m.max_output_tokens);
  w.key("capabilities").raw(m.capabilities_json);
  w.field("pricing_mode", to_string(m.pricing_mode));
  w.key("price");
  if (!m.has_price()) {
    w.null();
  } else {
    w.begin_object();
    for (auto cls : kPriceClasses) write_price(w, c, m, cls, d);
    w.end_object();
  }
  w.field("billing_available", m.billing_available).field("byok", m.byok).end_object();
}

void write_asset(JsonWriter& w, const PlatformAsset& a, const TimeZone& tz) {
  w.key("asset")
      .begin_object()
      .field("id", a.id.value)
      .field("code", std::string_view(a.code))
      .field("kind", std::string_view(a.kind))
      .field("precision", std::int64_t{a.precision})
      .field("name", std::string_view(a.name))
      .field("is_active", a.is_active)
      .field("is_default", a.is_default)
      .field("default_balance", a.default_balance);
  write_optional(w, "deleted_at", a.deleted_at ? std::optional<std::string>(tz.format(*a.deleted_at)) : std::nullopt);
  w.field("created_at", std::string_view(tz.format(a.created_at)))
      .field("updated_at", std::string_view(tz.format(a.updated_at)))
      .end_object();
}

}  // namespace

std::optional<std::string> parse_display_currency(std::string_view header) {
  header = trim(header);
  if (header.size() != 3) return std::nullopt;
  std::string code;
  for (char ch : header) {
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    if (ch < 'A' || ch > 'Z') return std::nullopt;
    code += ch;
  }
  return code;
}

Display choose_display(const Catalogue& c, const std::optional<std::string>& requested) {
  const std::string code = requested.value_or(c.asset.code);
  if (const auto* r = c.rate(code)) return {r->code, r->symbol, r->precision, true, r->rate};
  // The platform currency is always its own display currency, rate or no rate row.
  if (code == c.asset.code) return {code, std::nullopt, c.asset.precision, true, 1.0};
  return {code, std::nullopt, c.asset.precision, false, 0.0};
}

std::string etag(std::string_view version, const Display& display, const TimeZone& tz) {
  std::string out;
  out.reserve(version.size() + display.code.size() + 3);
  out += '"';
  out += version;
  out += '-';
  out += display.code;
  if (!tz.is_utc()) {
    // Zone names are ASCII letters, digits, '/', '_', '-' and '+': all valid in an entity tag.
    out += '-';
    out += tz.name();
  }
  out += '"';
  return out;
}

bool if_none_match(std::string_view header, std::string_view current_etag) {
  return http::if_none_match(header, current_etag);
}

double display_amount(std::int64_t minor, int asset_precision, const Display& d) {
  const double whole = to_whole_units(MinorUnits{minor}, asset_precision) * d.rate;
  const double scale = std::pow(10.0, d.precision);
  return std::round(whole * scale) / scale;
}

std::string list_json(const Catalogue& c, const Display& d, const TimeZone& tz) {
  JsonWriter w(1024 + 640 * c.models.size());
  w.begin_object().field("version", std::string_view(c.version)).key("models").begin_array();
  for (const auto& m : c.models) write_model(w, c, m, d);
  w.end_array();
  write_asset(w, c.asset, tz);
  w.key("display_currency").begin_object().field("code", std::string_view(d.code));
  write_optional(w, "symbol", d.symbol);
  w.field("precision", std::int64_t{d.precision}).field("available", d.available).end_object();
  return w.end_object().take();
}

std::string entry_json(const Catalogue& c, const Model& m, const Display& d, const TimeZone& tz) {
  JsonWriter w(1024);
  w.begin_object().field("version", std::string_view(c.version)).key("models").begin_array();
  write_model(w, c, m, d);
  w.end_array();
  write_asset(w, c.asset, tz);
  return w.end_object().take();
}

}  // namespace mediagen::catalog
