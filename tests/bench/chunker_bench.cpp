// Chunker throughput on a 1 MB mixed English/Russian text: capacity 5000 chars and 4000 UTF-8
// bytes, ordinary and paragraph mode; median of 5 runs, in MB/s of input. Also the UTF-8 check
// the preview runs first.
// Usage: chunker_bench [--megabytes M (1, of 2^20 bytes)] [--repeat N (5)]   (the smoke test runs a
// small text once)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/orders/text.hpp"

namespace {

using mediagen::orders::CapacityUnit;
using mediagen::orders::ChunkerOptions;
using mediagen::orders::ChunkPlan;
using mediagen::orders::GenerationMode;

// Prose-like text: sentences of 6..20 words, paragraphs of 2..8 sentences, each sentence English
// or Russian, now and then a [bracketed] direction, a pause or a tag.
std::string mixed_text(std::size_t bytes) {
  static const std::vector<std::string_view> english = {
      "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "and", "then", "speech", "voice",
      "service", "generates", "audio", "from", "text", "every", "morning", "while", "people", "listen", "carefully",
      "to", "long", "stories", "about", "distant", "places", "which", "nobody", "has", "ever", "visited"};
  static const std::vector<std::string_view> russian = {
      "съешь", "же", "ещё", "этих", "мягких", "французских", "булок", "да", "выпей", "чаю", "голос", "говорит",
      "медленно", "и", "ясно", "когда", "утро", "наступает", "над", "тихим", "городом", "где", "люди", "слушают",
      "длинные", "истории", "о", "далёких", "странах"};
  std::mt19937 rng(42);
  auto pick = [&](const std::vector<std::string_view>& words) {
    return words[std::uniform_int_distribution<std::size_t>(0, words.size() - 1)(rng)];
  };
  auto chance = [&](int percent) { return std::uniform_int_distribution<int>(0, 99)(rng) < percent; };
  std::string out;
  out.reserve(bytes + 1024);
  while (out.size() < bytes) {
    const int sentences = std::uniform_int_distribution<int>(2, 8)(rng);
    for (int s = 0; s < sentences; ++s) {
      const auto& words = chance(50) ? english : russian;
      const int n = std::uniform_int_distribution<int>(6, 20)(rng);
      for (int w = 0; w < n; ++w) {
        if (w > 0) out += ' ';
        out += pick(words);
        if (chance(3)) out += ',';
      }
      if (chance(5)) out += " [whispers]";
      if (chance(3)) out += " <break time=\"1s\"/>";
      out += chance(5) ? "..." : chance(10) ? "!" : ".";
      out += ' ';
    }
    out.back() = '\n';
    out += '\n';
  }
  out.resize(bytes);
  // Do not end inside a UTF-8 sequence.
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0U) == 0x80U) out.pop_back();
  if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0U) out.pop_back();
  return out;
}

template <typename F>
double median_seconds(F&& run, int repeats) {
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  double mebibytes = 1;
  int repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--megabytes") mebibytes = std::atof(argv[i + 1]);
    else if (flag == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
  }
  const std::string text = mixed_text(static_cast<std::size_t>(std::max(0.01, mebibytes) * (1 << 20)));
  const double megabytes = static_cast<double>(text.size()) / 1e6;
  std::printf("input: %zu bytes, %zu code points, valid UTF-8: %s\n", text.size(),
              mediagen::orders::count_code_points(text), mediagen::orders::is_valid_utf8(text) ? "yes" : "no");

  volatile bool sink = false;
  const double validate = median_seconds([&] { sink = mediagen::orders::is_valid_utf8(text); }, repeat);
  std::printf("%-34s %9.1f MB/s  (median of %d: %.3f ms)\n", "is_valid_utf8", megabytes / validate, repeat,
              validate * 1e3);
  const double strip = median_seconds([&] { sink = mediagen::orders::strip_brackets(text).empty(); }, repeat);
  std::printf("%-34s %9.1f MB/s  (median of %d: %.3f ms)\n", "strip_brackets", megabytes / strip, repeat,
              strip * 1e3);

  struct Case {
    const char* name;
    ChunkerOptions options;
  };
  const Case cases[] = {
      {"plan_chunks 5000 chars ordinary", {5000, CapacityUnit::chars, GenerationMode::ordinary}},
      {"plan_chunks 5000 chars paragraph", {5000, CapacityUnit::chars, GenerationMode::paragraph}},
      {"plan_chunks 4000 bytes ordinary", {4000, CapacityUnit::utf8_bytes, GenerationMode::ordinary}},
      {"plan_chunks 4000 bytes paragraph", {4000, CapacityUnit::utf8_bytes, GenerationMode::paragraph}},
  };
  for (const Case& c : cases) {
    ChunkPlan plan;
    const double seconds = median_seconds([&] { plan = mediagen::orders::plan_chunks(text, c.options); }, repeat);
    std::size_t smallest = plan.chunks.empty() ? 0 : plan.chunks.front().length;
    for (const auto& chunk : plan.chunks) smallest = std::min(smallest, chunk.length);
    const bool exact = mediagen::orders::rejoin(plan) == plan.cleaned;
    std::printf("%-34s %9.1f MB/s  (median of %d: %.3f ms; %zu chunks, %.0f chars avg, smallest %zu, rejoin %s)\n",
                c.name, megabytes / seconds, repeat, seconds * 1e3, plan.chunks.size(),
                static_cast<double>(plan.total_chars) / static_cast<double>(std::max<std::size_t>(1, plan.chunks.size())),
                smallest, exact ? "exact" : "MISMATCH");
  }
  return sink ? 0 : 0;
}
