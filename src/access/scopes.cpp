#include "mediagen/access/scopes.hpp"

#include <array>

namespace mediagen::auth {
namespace {
constexpr std::array<std::string_view, kScopeCount> kNames{
    "orders.read",   "orders.write",  "orders.download", "templates.read",
    "templates.write", "voices.read", "voices.write",    "billing.read",
    "profile.read",  "reseller.read", "reseller.write",
};
}  // namespace

std::string_view to_string(Scope scope) { return kNames[static_cast<std::size_t>(scope)]; }

std::optional<Scope> parse_scope(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == text) return static_cast<Scope>(i);
  }
  return std::nullopt;
}

bool is_reseller(Scope scope) { return scope == Scope::reseller_read || scope == Scope::reseller_write; }

std::vector<std::string> ScopeSet::names() const {
  std::vector<std::string> out;
  if (wildcard_) out.emplace_back("*");
  for (std::size_t i = 0; i < kScopeCount; ++i) {
    if (has_explicit(static_cast<Scope>(i))) out.emplace_back(kNames[i]);
  }
  return out;
}

std::optional<ScopeSet> ScopeSet::from_names(const std::vector<std::string>& names) {
  ScopeSet set;
  for (const auto& n : names) {
    if (n == "*") {
      set.add_wildcard();
    } else if (auto s = parse_scope(n)) {
      set.add(*s);
    } else {
      return std::nullopt;
    }
  }
  return set;
}

std::optional<ScopeSet> preset(std::string_view name) {
  ScopeSet set;
  if (name != "read_only" && name != "automation" && name != "full") return std::nullopt;
  for (Scope s : {Scope::orders_read, Scope::orders_download, Scope::templates_read, Scope::voices_read,
                  Scope::billing_read, Scope::profile_read}) {
    set.add(s);
  }
  if (name == "read_only") return set;
  set.add(Scope::orders_write);
  if (name == "automation") return set;
  set.add(Scope::templates_write);
  set.add(Scope::voices_write);
  return set;
}

}  // namespace mediagen::auth
