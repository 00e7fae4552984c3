#include "mediagen/reseller/code_format.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <vector>

#include "mediagen/core/crypto.hpp"
#include "mediagen/core/hex.hpp"

namespace mediagen::reseller {
namespace {

constexpr std::string_view kPrefix = "LUM-";
constexpr std::size_t kNonceBytes = 12;
constexpr std::size_t kTagBytes = 16;
// A code is 18 characters; far longer text is not a sealed code and is not decoded at all.
constexpr std::size_t kMaxSealedHex = 2 * (kNonceBytes + 64 + kTagBytes);

bool in_alphabet(char c) { return kCodeAlphabet.find(c) != std::string_view::npos; }

// Dashes after "LUM" and after each group of four.
bool is_dash_position(std::size_t i) { return i == 3 || i == 8 || i == 13; }

using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherCtx new_ctx() {
  CipherCtx ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!ctx) throw std::runtime_error("no cipher context");
  return ctx;
}

const unsigned char* bytes(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

}  // namespace

std::string make_gift_code() {
  // 32 symbols: each random byte's low five bits pick one with no bias.
  const std::string random = crypto::random_bytes(12);
  std::string out(kPrefix);
  for (std::size_t i = 0; i < random.size(); ++i) {
    if (i > 0 && i % 4 == 0) out += '-';
    out += kCodeAlphabet[static_cast<unsigned char>(random[i]) & 31U];
  }
  return out;
}

std::string mask_gift_code(std::string_view code) {
  const std::string_view tail = code.size() >= 4 ? code.substr(code.size() - 4) : std::string_view("****");
  return std::string(kPrefix) + "****-****-" + std::string(tail);
}

std::optional<std::string> parse_gift_code(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  if (text.size() != kCodeLength) return std::nullopt;
  std::string out(text);
  for (auto& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  if (!out.starts_with("LUM-")) return std::nullopt;
  for (std::size_t i = kPrefix.size(); i < out.size(); ++i) {
    if (is_dash_position(i) ? out[i] != '-' : !in_alphabet(out[i])) return std::nullopt;
  }
  return out;
}

std::string gift_code_hash(std::string_view code) { return crypto::to_hex(crypto::sha256(code)); }

CodeCipher::CodeCipher(std::string_view secret) {
  std::array<std::uint8_t, 32> key{};
  if (!from_hex(crypto::hmac_sha256_hex(secret, "mediagen gift codes"), key)) {
    throw std::logic_error("gift code key derivation");
  }
  key_.assign(reinterpret_cast<const char*>(key.data()), key.size());
}

std::string CodeCipher::seal(std::string_view code) const {
  const std::string nonce = crypto::random_bytes(kNonceBytes);
  std::vector<unsigned char> out(kNonceBytes + code.size() + kTagBytes);
  std::copy(nonce.begin(), nonce.end(), out.begin());
  auto ctx = new_ctx();
  int len = 0;
  if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, bytes(key_), bytes(nonce)) != 1 ||
      EVP_EncryptUpdate(ctx.get(), out.data() + kNonceBytes, &len, bytes(code), static_cast<int>(code.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), out.data() + kNonceBytes + len, &len) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                          out.data() + kNonceBytes + code.size()) != 1) {
    throw std::runtime_error("gift code not sealed");
  }
  return to_hex(out);
}

std::optional<std::string> CodeCipher::open(std::string_view sealed) const { return open_up_to(sealed, kMaxSealedHex); }

std::optional<std::string> CodeCipher::open_answer(std::string_view sealed) const {
  return open_up_to(sealed, 2 * (kNonceBytes + kMaxSealedAnswer + kTagBytes));
}

std::optional<std::string> CodeCipher::open_up_to(std::string_view sealed, std::size_t max_hex) const {
  if (sealed.size() > max_hex || sealed.size() % 2 != 0 || sealed.size() < 2 * (kNonceBytes + kTagBytes)) {
    return std::nullopt;
  }
  std::vector<unsigned char> raw(sealed.size() / 2);
  if (!from_hex(sealed, raw)) return std::nullopt;
  const std::size_t text_bytes = raw.size() - kNonceBytes - kTagBytes;
  std::string out(text_bytes, '\0');
  auto ctx = new_ctx();
  int len = 0;
  auto* tag = raw.data() + kNonceBytes + text_bytes;
  if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, bytes(key_), raw.data()) != 1 ||
      EVP_DecryptUpdate(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &len, raw.data() + kNonceBytes,
                        static_cast<int>(text_bytes)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes), tag) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), reinterpret_cast<unsigned char*>(out.data()) + len, &len) != 1) {
    return std::nullopt;
  }
  return out;
}

}  // namespace mediagen::reseller
