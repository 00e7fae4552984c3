// The speech helper processes: real mediagen-espeak helpers speak, and helpers that hang, exit,
// or break the frames (small shell scripts standing in for a broken helper) are killed and
// reaped, fail their one job, and leave the next job to a fresh helper.
#include "engines/speech/espeak_helpers.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace mediagen::engines::detail {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string kText = "The quick brown fox jumps over the lazy dog.";
const EspeakParameters kParameters{175, 50, 50, 100};

// The directory of this test binary: the build puts mediagen-espeak beside it.
HelperOptions real_helper() { return HelperOptions{.path = default_helper_path()}; }

// A broken helper: a shell script in a fresh directory.
class StandIn {
 public:
  explicit StandIn(const std::string& body) {
    dir_ = fs::temp_directory_path() / ("espeak_helpers_test." + std::to_string(::getpid()) + "." + std::to_string(++count_));
    fs::create_directories(dir_);
    path_ = (dir_ / "helper.sh").string();
    std::ofstream(path_) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path_.c_str(), 0755);
  }
  ~StandIn() { fs::remove_all(dir_); }
  HelperOptions options() const { return {.path = path_, .start_timeout = 300ms, .job_timeout = 300ms}; }

 private:
  static inline int count_ = 0;
  fs::path dir_;
  std::string path_;
};

// Until the process is a zombie (killed, not yet reaped) or gone: waits for the state, not a time.
void wait_until_dead(pid_t pid) {
  for (;;) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_field, name, state;
    if (!(stat >> pid_field >> name >> state) || state == "Z") return;
    std::this_thread::yield();
  }
}

// A job on a broken helper fails for `why`, and no helper is left running (killed and reaped).
void expect_job_fails(EspeakHelpers& helpers, const std::string& why) {
  const auto spoken = helpers.synthesize({&kText, "gmw/en-US", kParameters});
  ASSERT_FALSE(spoken.has_value());
  EXPECT_EQ(spoken.error().detail, why);
  EXPECT_EQ(helpers.running(), 0u);
}

TEST(EspeakHelpers, AHelperSpeaksAndTheSameJobGivesTheSameAudio) {
  EspeakHelpers helpers(real_helper());
  const SynthJob job{&kText, "gmw/en-US", kParameters};
  auto first = helpers.synthesize(job);
  ASSERT_TRUE(first.has_value()) << first.error().detail;
  EXPECT_EQ(first->sample_rate, 22050);
  EXPECT_GT(first->pcm.size(), 22050u);  // over a second of speech
  EXPECT_EQ(first->words.size(), 9u);
  // espeak-ng's audio depends a little on the job before it in the same state (a few samples at
  // the start): another helper's first job is `first` exactly, this helper's next one is as long
  // to 1 ms.
  EspeakHelpers other(real_helper());
  const auto fresh = other.synthesize(job);
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(fresh->pcm, first->pcm);
  const auto again = helpers.synthesize(job);
  ASSERT_TRUE(again.has_value());
  EXPECT_NEAR(double(again->pcm.size()), double(first->pcm.size()), 22.0);
  EXPECT_EQ(helpers.running(), 1u);
}

TEST(EspeakHelpers, AFailedJobKeepsItsHelperForTheNext) {
  EspeakHelpers helpers(real_helper());
  ASSERT_TRUE(helpers.warm_up().has_value());
  const auto pids = helpers.idle_pids();
  ASSERT_EQ(pids.size(), 1u);
  const auto failed = helpers.synthesize({&kText, "no/such-voice", kParameters});
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().detail, "espeak-ng could not load voice 'no/such-voice'");
  EXPECT_EQ(helpers.idle_pids(), pids);
  EXPECT_TRUE(helpers.synthesize({&kText, "gmw/en-US", kParameters}).has_value());
  EXPECT_EQ(helpers.idle_pids(), pids);
}

TEST(EspeakHelpers, AHelperKilledWhileIdleIsReplacedAndTheJobIsSpoken) {
  EspeakHelpers helpers(real_helper());
  ASSERT_TRUE(helpers.warm_up().has_value());
  const pid_t old = helpers.idle_pids().at(0);
  ASSERT_EQ(::kill(old, SIGKILL), 0);
  wait_until_dead(old);
  const auto spoken = helpers.synthesize({&kText, "gmw/en-US", kParameters});
  ASSERT_TRUE(spoken.has_value()) << spoken.error().detail;
  ASSERT_EQ(helpers.idle_pids().size(), 1u);
  EXPECT_NE(helpers.idle_pids()[0], old);
  EXPECT_EQ(helpers.running(), 1u);
}

TEST(EspeakHelpers, AHelperThatNeverAnswersIsKilledAtItsTimeout) {
  const StandIn silent("exec sleep 600");
  EspeakHelpers helpers(silent.options());
  expect_job_fails(helpers, "the speech helper did not answer in time");
}

TEST(EspeakHelpers, AHelperThatSendsGarbageIsRetired) {
  const StandIn garbage("printf 'garbage that is no frame'; exec sleep 600");
  EspeakHelpers helpers(garbage.options());
  expect_job_fails(helpers, "the speech helper sent a malformed frame");
}

TEST(EspeakHelpers, AHelperThatDiesInAJobFailsThatJobAndTheNextStartsAnother) {
  // Ready at 22,050 Hz, then reads a byte of its job and exits.
  const StandIn dies(R"(printf 'R\004\000\000\000\042\126\000\000'; head -c 1 >/dev/null)");
  EspeakHelpers helpers(dies.options());
  expect_job_fails(helpers, "the speech helper exited");
  expect_job_fails(helpers, "the speech helper exited");  // a fresh helper, which dies the same way
}

TEST(EspeakHelpers, AHelperThatAnswersPastItsJobIsRetired) {
  // Ready, then a "done" and a stray byte at once for the job.
  const StandIn chatty(R"(printf 'R\004\000\000\000\042\126\000\000'; head -c 1 >/dev/null; printf 'D\000\000\000\000X'; exec sleep 600)");
  EspeakHelpers helpers(chatty.options());
  expect_job_fails(helpers, "the speech helper said too much");
}

TEST(EspeakHelpers, AHelperGetsNoneOfTheServersConfiguration) {
  const StandIn reporter("env > \"$(dirname \"$0\")/env.txt\"");
  ::setenv("MEDIAGEN_DATABASE_URL", "postgresql://secret@db/mediagen", 1);
  ::setenv("ESPEAK_DATA_PATH", "/usr/share/espeak-ng-data-test", 1);
  EspeakHelpers helpers(reporter.options());
  EXPECT_FALSE(helpers.warm_up().has_value());  // it exits without a ready frame
  ::unsetenv("MEDIAGEN_DATABASE_URL");
  ::unsetenv("ESPEAK_DATA_PATH");
  std::ifstream in(fs::path(reporter.options().path).parent_path() / "env.txt");
  const std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(env.find("MEDIAGEN_DATABASE_URL"), std::string::npos) << env;
  EXPECT_NE(env.find("ESPEAK_DATA_PATH=/usr/share/espeak-ng-data-test"), std::string::npos) << env;
}

TEST(EspeakHelpers, AMissingHelperIsAClearFailure) {
  EspeakHelpers helpers({.path = "/nonexistent/mediagen-espeak"});
  const auto warm = helpers.warm_up();
  ASSERT_FALSE(warm.has_value());
  EXPECT_EQ(warm.error().detail, "could not start the speech helper /nonexistent/mediagen-espeak");
  EXPECT_EQ(helpers.running(), 0u);
}

}  // namespace
}  // namespace mediagen::engines::detail
