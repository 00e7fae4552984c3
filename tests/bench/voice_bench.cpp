// Voice features benchmark: CPU to describe a 60-second speech sample (espeak-ng speech at its
// own 22,050 Hz; the features read any rate from 16 kHz up alike), and wall time to rank a
// catalogue of N stored descriptions against one query.
// Then the real catalogue (the voices seed-demo builds from the installed espeak-ng): how many
// distinct (voice, variant) pairs it has, the cost of describing one (synthesis of the fixed
// sample + features; one thread and all cores), and ranking one query over the real pairs and
// voices, beside its anchor: the bare loop of squared Euclidean distances over the same vectors
// (the least any exhaustive search can cost).
// Usage: voice_bench [--catalogue N] [--repeat N] [--describe N] [--sample-seconds S (60)]
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mediagen/engines/speech.hpp"
#include "mediagen/engines/voice.hpp"
#include "mediagen/voices/catalogue_builder.hpp"
#include "mediagen/voices/voice_search.hpp"

namespace {

using namespace mediagen::engines;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Speech of at least `seconds`, the same sentences round after round.
SpeechPcm speech(double seconds) {
  EspeakEngine engine;
  const std::string sentence =
      "The harbour town woke slowly that morning, and a thin mist hung over the water while the first shops opened. ";
  std::string text;
  SpeechPcm pcm;
  while (true) {
    text += sentence;
    auto out = engine.synthesize_pcm({.text = text, .espeak_voice = "en-us"});
    if (!out) {
      std::fprintf(stderr, "voice_bench: espeak-ng failed: %s\n", out.error().detail.c_str());
      std::exit(2);
    }
    pcm = std::move(*out);
    if (static_cast<double>(pcm.samples.size()) >= seconds * pcm.sample_rate) break;
  }
  pcm.samples.resize(static_cast<std::size_t>(seconds * pcm.sample_rate));
  return pcm;
}

double wall_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Describes `pairs` on `threads` threads; wall seconds.
double describe_all(const std::vector<mediagen::voices::EspeakPair>& pairs, int threads,
                    std::vector<VoiceFeatures>& out) {
  out.assign(pairs.size(), VoiceFeatures{});
  std::atomic<std::size_t> next{0};
  const auto t0 = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        EspeakEngine engine;
        for (std::size_t i = next++; i < pairs.size(); i = next++) {
          out[i] = mediagen::voices::describe_pair(engine, pairs[i]).value_or(VoiceFeatures{});
        }
      });
    }
  }
  return wall_since(t0);
}

void real_catalogue(int describe, int repeat) {
  using namespace mediagen::voices;
  const auto catalogue = installed_catalogue();
  std::set<EspeakPair> distinct;
  for (const auto& v : catalogue) distinct.insert({v.espeak_voice, v.espeak_variant});
  std::vector<EspeakPair> pairs(distinct.begin(), distinct.end());
  std::printf("catalogue: %zu voices, %zu distinct (voice, variant) pairs\n", catalogue.size(), pairs.size());
  // An even spread of the pairs for the cost of describing one.
  std::vector<EspeakPair> sample;
  const std::size_t step = std::max<std::size_t>(1, pairs.size() / static_cast<std::size_t>(std::max(1, describe)));
  for (std::size_t i = 0; i < pairs.size() && sample.size() < static_cast<std::size_t>(describe); i += step) sample.push_back(pairs[i]);
  std::vector<VoiceFeatures> features;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const double one = describe_all(sample, 1, features) / static_cast<double>(sample.size());
  const double all = describe_all(sample, cores, features) / static_cast<double>(sample.size());
  std::printf("describing a pair (synthesis of the fixed sample + features, %zu pairs): %.1f ms wall on 1 thread, "
              "%.1f ms on %d; the whole catalogue: %.1f s on %d\n",
              sample.size(), one * 1e3, all * 1e3, cores, all * static_cast<double>(pairs.size()), cores);

  // Ranking over the real sizes: every pair described (reusing the sample's vectors round robin:
  // the cost does not depend on the values), every catalogue voice pointing at its pair.
  std::vector<VoiceFeatures> stored(pairs.size());
  for (std::size_t i = 0; i < stored.size(); ++i) stored[i] = features[i % features.size()];
  std::vector<VoiceIndex::Voice> voices;
  for (const auto& v : catalogue) {
    const auto at = static_cast<std::size_t>(std::distance(pairs.begin(), std::lower_bound(pairs.begin(), pairs.end(), EspeakPair{v.espeak_voice, v.espeak_variant})));
    voices.push_back({v.voice_id, v.service, v.name, at});
  }
  const VoiceIndex index(stored, voices);
  const VoiceFeatures query = features.front();
  double ours = 1e9, anchor = 1e9;
  volatile double sink = 0;
  for (int r = 0; r < std::max(repeat, 20); ++r) {
    auto t0 = std::chrono::steady_clock::now();
    sink = sink + index.rank(query, 50).front().score;
    ours = std::min(ours, wall_since(t0));
    t0 = std::chrono::steady_clock::now();
    double best = 1e30;
    for (const auto& v : stored) {
      double d = 0;
      for (std::size_t k = 0; k < v.size(); ++k) d += (v[k] - query[k]) * (v[k] - query[k]);
      best = std::min(best, d);
    }
    sink = sink + best;
    anchor = std::min(anchor, wall_since(t0));
  }
  std::printf("search of one query over the real catalogue (%zu pairs, %zu voices, top 50): %.3f ms wall; "
              "anchor, bare squared distances over the same pairs: %.3f ms (%.1fx)\n",
              pairs.size(), voices.size(), ours * 1e3, anchor * 1e3, ours / anchor);
}

}  // namespace

int main(int argc, char** argv) {
  int catalogue = 10000, repeat = 3, describe = 60;
  double sample_seconds = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--catalogue") catalogue = std::atoi(argv[i + 1]);
    else if (flag == "--repeat") repeat = std::atoi(argv[i + 1]);
    else if (flag == "--describe") describe = std::atoi(argv[i + 1]);
    else if (flag == "--sample-seconds") sample_seconds = std::max(1.0, std::atof(argv[i + 1]));
  }
  const SpeechPcm pcm = speech(sample_seconds);
  double best_features = 1e9;
  VoiceFeatures query{};
  for (int r = 0; r < repeat; ++r) {
    const double t0 = cpu_seconds();
    auto f = voice_features(std::span<const std::int16_t>(pcm.samples), pcm.sample_rate);
    best_features = std::min(best_features, cpu_seconds() - t0);
    if (!f) return 2;
    query = *f;
  }
  // A catalogue of plausible descriptions around the query (the ranking cost does not depend
  // on the values).
  std::mt19937 rng(1);
  std::normal_distribution<float> spread(0.0f, 1.0f);
  std::vector<VoiceFeatures> stored(static_cast<std::size_t>(catalogue));
  for (auto& v : stored) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = query[i] + spread(rng);
  }
  double best_search = 1e9;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::pair<double, std::size_t>> ranked;
    ranked.reserve(stored.size());
    for (std::size_t i = 0; i < stored.size(); ++i) ranked.emplace_back(voice_distance(query, stored[i]), i);
    std::partial_sort(ranked.begin(), ranked.begin() + std::min<long>(50, static_cast<long>(ranked.size())),
                      ranked.end());
    best_search = std::min(best_search, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("voice features of %.0f s of speech at %d Hz: %.1f ms CPU (best of %d)\n", sample_seconds,
              pcm.sample_rate, best_features * 1e3, repeat);
  std::printf("search of one query over %d stored voices (top 50): %.2f ms wall (best of %d)\n", catalogue,
              best_search * 1e3, repeat);
  real_catalogue(describe, repeat);
  return 0;
}
