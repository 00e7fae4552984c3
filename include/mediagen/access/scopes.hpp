#pragma once
// The 11 permissions of spec section 5, the wildcard, and the presets.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mediagen::auth {

enum class Scope : std::uint16_t {
  orders_read,
  orders_write,
  orders_download,
  templates_read,
  templates_write,
  voices_read,
  voices_write,
  billing_read,
  profile_read,
  reseller_read,
  reseller_write,
};

inline constexpr std::size_t kScopeCount = 11;

std::string_view to_string(Scope scope);
std::optional<Scope> parse_scope(std::string_view text);
bool is_reseller(Scope scope);

// A set of scopes plus the wildcard. The wildcard passes every scope but the reseller ones,
// which must always be granted by name (spec 5.7, 5.8).
class ScopeSet {
 public:
  ScopeSet() = default;
  void add(Scope s) { bits_ |= bit(s); }
  void add_wildcard() { wildcard_ = true; }
  void merge(const ScopeSet& other) {
    bits_ |= other.bits_;
    wildcard_ = wildcard_ || other.wildcard_;
  }
  bool has_explicit(Scope s) const { return (bits_ & bit(s)) != 0; }
  bool wildcard() const { return wildcard_; }
  bool allows(Scope s) const { return has_explicit(s) || (wildcard_ && !is_reseller(s)); }
  bool empty() const { return bits_ == 0 && !wildcard_; }

  // Stored and shown form: "*" first when present, then scope names in declaration order.
  std::vector<std::string> names() const;
  // Parses stored names; nullopt when one is unknown.
  static std::optional<ScopeSet> from_names(const std::vector<std::string>& names);

  friend bool operator==(const ScopeSet&, const ScopeSet&) = default;

 private:
  static constexpr std::uint32_t bit(Scope s) { return 1u << static_cast<unsigned>(s); }
  std::uint32_t bits_ = 0;
  bool wildcard_ = false;
};

// read_only, automation, full; nullopt for an unknown name.
std::optional<ScopeSet> preset(std::string_view name);

}  // namespace mediagen::auth
