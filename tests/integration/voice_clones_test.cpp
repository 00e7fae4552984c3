// Voice clones on real PostgreSQL: the limits (free ceiling, plan limits, provider_d apart,
// pay-as-you-go closed, two racing creates), ownership, retry and archive, the clone job
// (ready, failed, re-queued after a lost worker, attempts capped) and templates naming clones.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "mediagen/account/users.hpp"
#include "mediagen/billing/subscriptions.hpp"
#include "mediagen/core/hex.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/db/transact.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/engines/voice.hpp"
#include "mediagen/storage/local_store.hpp"
#include "mediagen/templates/seed.hpp"
#include "mediagen/templates/templates.hpp"
#include "mediagen/voices/clone_job.hpp"
#include "mediagen/voices/clones.hpp"
#include "mediagen/voices/voices.hpp"
#include "support.hpp"
#include "unit/engines/wav_file.hpp"

namespace mediagen::test {
namespace {

using json = nlohmann::json;
using voices::CloneStatus;

std::string wav(const std::vector<std::int16_t>& samples, int rate) { return engines::testing::wav_file(samples, rate); }

class VoiceClonesTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    root = std::filesystem::temp_directory_path() / ("mg_clones_" + random_hex());
    store.emplace(std::move(*storage::LocalStore::open(root.string())));
    db::transact(*db, [&](db::Tx& tx) {
      templates::seed_catalogue(*db, tx);
      voices::seed_voices(*db, tx,
                          voices::build_catalogue({{"gmw/en-US", "en-us", "English (America)", "male"}},
                                                  {{"f2", "female2", "female", 0}, {"m3", "male3", "male", 0},
                                                   {"f4", "female4", "female", 0}, {"m7", "male7", "male", 0}}));
      billing::seed_plans(*db, tx);
    });
    alice = account::create_user(*db, {"alice@example.com", "Alice", Locale::en, {}}).id;
    bob = account::create_user(*db, {"bob@example.com", "Bob", Locale::en, {}}).id;
  }
  void TearDown() override {
    db.reset();
    std::filesystem::remove_all(root);
    MigratedTest::TearDown();
  }

  std::string sql(const std::string& statement) { return query_value(db_url, statement); }

  Result<voices::Clone> create(UserId user, const std::string& service, const std::vector<std::string>& samples = {"x"}) {
    voices::NewClone c{.id = random_uuid(), .service = service, .name = "My voice",
                       .sample_count = static_cast<std::int64_t>(samples.size())};
    for (std::size_t i = 0; i < samples.size(); ++i) (void)store->put(voices::sample_key(c.id, i), samples[i]);
    return voices::create_clone(*db, user, c);
  }

  std::string speech_wav(const std::string& variant) {
    auto pcm = engine.synthesize_pcm({.text = "Good evening. The weather tomorrow will be mild, with a light wind "
                                              "from the west and some rain in the afternoon.",
                                      .espeak_voice = "en-us", .variant = variant});
    return wav(pcm->samples, pcm->sample_rate);
  }

  voices::CloneJob job(voices::CloneJobOptions options = {}) {
    return voices::CloneJob(*store, engine, [this](realtime::Event e) { events.push_back(std::move(e)); }, options);
  }

  std::optional<db::Db> db;
  std::filesystem::path root;
  std::optional<storage::LocalStore> store;
  engines::EspeakEngine engine;
  std::vector<realtime::Event> events;
  UserId alice, bob;
};

TEST_F(VoiceClonesTest, WithoutASubscriptionTheThirdCloneIsRefusedAcrossBothServices) {
  ASSERT_TRUE(create(alice, "provider_c"));
  ASSERT_TRUE(create(alice, "provider_d"));
  auto third = create(alice, "provider_c");
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().reason, Reason::no_subscription);
  EXPECT_EQ(third.error().status, 402);
  EXPECT_EQ(sql("SELECT count(*) FROM voice_clones WHERE user_id = " + std::to_string(alice.value)), "2");
  EXPECT_TRUE(create(bob, "provider_c")) << "the ceiling is per account";
  // Failed and archived clones do not count.
  sql("UPDATE voice_clones SET status = 'failed', failure_reason = 'no_speech' WHERE service_key = 'provider_d'"
      " AND user_id = " + std::to_string(alice.value) + " RETURNING 1");
  const auto again = create(alice, "provider_c");
  ASSERT_TRUE(again);
  EXPECT_FALSE(create(alice, "provider_c"));
  ASSERT_TRUE(voices::archive_clone(*db, alice, "provider_c", CloneId::parse(again->id).value()));
  EXPECT_TRUE(create(alice, "provider_d"));
  const auto quotas = voices::clone_quotas(*db, alice);
  EXPECT_FALSE(quotas.subscription);
  ASSERT_EQ(quotas.services.size(), 2u);
  EXPECT_EQ(quotas.services[0].limit, 2);
  EXPECT_EQ(quotas.services[0].used, 2);
  EXPECT_EQ(quotas.services[1].remaining, 0);
}

TEST_F(VoiceClonesTest, APlanHasItsOwnLimitsWithProviderDApart) {
  billing::grant_subscription(*db, alice, "starter", std::nullopt);
  sql("UPDATE plans SET clone_limit = 3, clone_limit_provider_d = 1 WHERE code = 'starter' RETURNING 1");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(create(alice, "provider_c")) << i;
  auto over = create(alice, "provider_c");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().reason, Reason::limit_exceeded);
  ASSERT_TRUE(create(alice, "provider_d"));
  auto over_d = create(alice, "provider_d");
  ASSERT_FALSE(over_d);
  EXPECT_EQ(over_d.error().reason, Reason::limit_exceeded);
  auto q = voices::clone_quotas(*db, alice);
  EXPECT_TRUE(q.subscription);
  EXPECT_EQ(q.services[0].limit, 3);
  EXPECT_EQ(q.services[1].limit, 1);
  // NULL limits: the default.
  sql("UPDATE plans SET clone_limit = NULL, clone_limit_provider_d = NULL WHERE code = 'starter' RETURNING 1");
  q = voices::clone_quotas(*db, alice);
  EXPECT_EQ(q.services[0].limit, voices::kDefaultPlanCloneLimit);
  EXPECT_EQ(q.services[0].remaining, voices::kDefaultPlanCloneLimit - 3);
  EXPECT_EQ(sql("SELECT clone_limit || '/' || clone_limit_provider_d FROM plans WHERE code = 'pro'"), "30/10");
}

TEST_F(VoiceClonesTest, AServiceClosedToPayAsYouGoNeedsASubscription) {
  ASSERT_TRUE(billing::set_service_payg(*db, "provider_c", false));
  auto refused = create(alice, "provider_c");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().reason, Reason::no_subscription);
  EXPECT_EQ(sql("SELECT count(*) FROM voice_clones"), "0");
  EXPECT_TRUE(create(alice, "provider_d")) << "provider_d is still open";
  billing::grant_subscription(*db, alice, "starter", std::nullopt);
  EXPECT_TRUE(create(alice, "provider_c"));
  EXPECT_FALSE(billing::set_service_payg(*db, "no_such_service", false));
}

TEST_F(VoiceClonesTest, TwoRacingCreatesAtTheCeilingLetOneThrough) {
  ASSERT_TRUE(create(alice, "provider_c"));
  for (int round = 0; round < 5; ++round) {
    std::atomic<int> won{0}, refused{0};
    auto attempt = [&] {
      db::Db own(db_url, &counters);
      voices::NewClone c{.id = random_uuid(), .service = "provider_d", .name = "race", .sample_count = 1};
      auto r = voices::create_clone(own, alice, c);
      (r ? won : refused)++;
    };
    std::thread a(attempt), b(attempt);
    a.join();
    b.join();
    EXPECT_EQ(won.load(), 1) << round;
    EXPECT_EQ(refused.load(), 1) << round;
    EXPECT_EQ(sql("SELECT count(*) FROM voice_clones WHERE status <> 'archived'"), "2");
    sql("UPDATE voice_clones SET status = 'archived' WHERE name = 'race' RETURNING 1");
  }
}

TEST_F(VoiceClonesTest, AnotherAccountsCloneIsNotFoundAndNotListed) {
  auto mine = create(alice, "provider_c");
  ASSERT_TRUE(mine);
  EXPECT_TRUE(voices::find_clone(*db, alice, "provider_c", CloneId::parse(mine->id).value()));
  EXPECT_EQ(voices::find_clone(*db, bob, "provider_c", CloneId::parse(mine->id).value()).error().status, 404);
  EXPECT_EQ(voices::find_clone(*db, alice, "provider_d", CloneId::parse(mine->id).value()).error().status, 404) << "another service's path";
  EXPECT_FALSE(CloneId::parse("not-a-uuid")) << "refused where the path is parsed, 404 as above";
  EXPECT_EQ(voices::archive_clone(*db, bob, "provider_c", CloneId::parse(mine->id).value()).error().status, 404);
  EXPECT_EQ(voices::retry_clone(*db, bob, "provider_c", CloneId::parse(mine->id).value()).error().status, 404);
  EXPECT_EQ(voices::list_clones(*db, bob, "provider_c", 0, 20).total, 0);
  const auto page = voices::list_clones(*db, alice, "provider_c", 0, 20);
  ASSERT_EQ(page.items.size(), 1u);
  EXPECT_EQ(page.items[0].id, mine->id);
  EXPECT_EQ(page.items[0].status, CloneStatus::pending);
}

TEST_F(VoiceClonesTest, OnlyAFailedCloneIsRetriedAndArchiveIsFinal) {
  auto c = create(alice, "provider_c");
  ASSERT_TRUE(c);
  EXPECT_EQ(voices::retry_clone(*db, alice, "provider_c", CloneId::parse(c->id).value()).error().reason, Reason::invalid_status);
  sql("UPDATE voice_clones SET status = 'failed', failure_reason = 'attempts_exhausted', attempts = 3 RETURNING 1");
  auto retried = voices::retry_clone(*db, alice, "provider_c", CloneId::parse(c->id).value());
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->status, CloneStatus::pending);
  EXPECT_EQ(retried->attempts, 0);
  EXPECT_FALSE(retried->failure_reason);
  auto archived = voices::archive_clone(*db, alice, "provider_c", CloneId::parse(c->id).value());
  ASSERT_TRUE(archived);
  EXPECT_EQ(archived->status, CloneStatus::archived);
  EXPECT_EQ(voices::archive_clone(*db, alice, "provider_c", CloneId::parse(c->id).value())->status, CloneStatus::archived);
  EXPECT_EQ(voices::retry_clone(*db, alice, "provider_c", CloneId::parse(c->id).value()).error().reason, Reason::invalid_status);
}

TEST_F(VoiceClonesTest, TheJobMakesACloneReadyWithAProfileAndTheRightIdFormat) {
  auto c = create(alice, "provider_c", {speech_wav("f4")});
  auto d = create(alice, "provider_d", {speech_wav("m3")});
  ASSERT_TRUE(c && d);
  auto worker = job();
  EXPECT_TRUE(worker.run_once(*db));
  EXPECT_TRUE(worker.run_once(*db));
  EXPECT_FALSE(worker.run_once(*db)) << "nothing left";
  auto ready_c = voices::find_clone(*db, alice, "provider_c", CloneId::parse(c->id).value());
  auto ready_d = voices::find_clone(*db, alice, "provider_d", CloneId::parse(d->id).value());
  ASSERT_EQ(ready_c->status, CloneStatus::ready) << ready_c->failure_reason.value_or("");
  ASSERT_EQ(ready_d->status, CloneStatus::ready) << ready_d->failure_reason.value_or("");
  EXPECT_TRUE(is_uuid(*ready_c->voice_id));
  EXPECT_EQ(ready_d->voice_id->size(), 32u);
  EXPECT_TRUE(is_lower_hex(*ready_d->voice_id)) << *ready_d->voice_id;
  const auto profile = engines::voice_profile_from_json(json::parse(*ready_c->profile_json));
  ASSERT_TRUE(profile);
  EXPECT_EQ(profile->espeak_voice, "gmw/en-US");
  EXPECT_GT(*ready_c->sample_seconds, 3.0);
  EXPECT_EQ(ready_c->attempts, 1);
  EXPECT_FALSE(std::filesystem::exists(root / "clones" / c->id)) << "samples are deleted once ready";
  // processing then ready, for each.
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].channel, "private-voice-clones." + std::to_string(alice.value));
  EXPECT_EQ(events[0].name, "voice_clone.updated");
  EXPECT_EQ(json::parse(events[0].data)["status"], "processing");
  const auto last = json::parse(events[3].data);
  EXPECT_EQ(last["status"], "ready");
  EXPECT_TRUE(last.contains("voice_id"));
  EXPECT_FALSE(last.contains("reason"));
}

TEST_F(VoiceClonesTest, SamplesWithoutUsableSpeechFailWithAReason) {
  auto silent = create(alice, "provider_c", {wav(std::vector<std::int16_t>(16000 * 4, 0), 16000)});
  auto garbage = create(alice, "provider_d", {std::string(4000, 'x')});
  ASSERT_TRUE(silent && garbage);
  auto worker = job();
  while (worker.run_once(*db)) {
  }
  auto s = voices::find_clone(*db, alice, "provider_c", CloneId::parse(silent->id).value());
  auto g = voices::find_clone(*db, alice, "provider_d", CloneId::parse(garbage->id).value());
  EXPECT_EQ(s->status, CloneStatus::failed);
  EXPECT_EQ(s->failure_reason.value_or(""), "no_speech");
  EXPECT_EQ(g->status, CloneStatus::failed);
  EXPECT_EQ(g->failure_reason.value_or(""), "undecodable");
  EXPECT_TRUE(std::filesystem::exists(root / "clones" / silent->id)) << "kept for a retry";
  const auto failed = json::parse(events.back().data);
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_FALSE(failed.contains("voice_id"));
  EXPECT_TRUE(failed.contains("reason"));
  // Short: under the minimum of audio.
  auto pcm = engine.synthesize_pcm({.text = "Hi.", .espeak_voice = "en-us"});
  sql("UPDATE voice_clones SET status = 'archived' RETURNING 1");
  auto short_one = create(alice, "provider_c", {wav(pcm->samples, pcm->sample_rate)});
  ASSERT_TRUE(short_one);
  while (worker.run_once(*db)) {
  }
  EXPECT_EQ(voices::find_clone(*db, alice, "provider_c", CloneId::parse(short_one->id).value())->failure_reason.value_or(""), "too_short");
}

TEST_F(VoiceClonesTest, ALostWorkersCloneIsClaimedAgainAndAttemptsAreCapped) {
  auto c = create(alice, "provider_c", {speech_wav("m7")});
  ASSERT_TRUE(c);
  // A worker claimed it and died: processing, its lease over.
  const auto id = "'" + c->id + "'";
  sql("UPDATE voice_clones SET status = 'processing', attempts = 1, lease_token = gen_random_uuid(),"
      " locked_until = now() - interval '1 second' WHERE id = " + id + " RETURNING 1");
  auto worker = job();
  EXPECT_TRUE(worker.run_once(*db));
  auto done = voices::find_clone(*db, alice, "provider_c", CloneId::parse(c->id).value());
  EXPECT_EQ(done->status, CloneStatus::ready);
  EXPECT_EQ(done->attempts, 2);
  // A lease still running is left alone; one past the last attempt ends failed.
  auto other = create(alice, "provider_d", {speech_wav("m7")});
  const auto oid = "'" + other->id + "'";
  sql("UPDATE voice_clones SET status = 'processing', attempts = 3, lease_token = gen_random_uuid(),"
      " locked_until = now() + interval '1 hour' WHERE id = " + oid + " RETURNING 1");
  EXPECT_FALSE(worker.run_once(*db));
  sql("UPDATE voice_clones SET locked_until = now() - interval '1 second' WHERE id = " + oid + " RETURNING 1");
  EXPECT_TRUE(worker.run_once(*db));
  auto failed = voices::find_clone(*db, alice, "provider_d", CloneId::parse(other->id).value());
  EXPECT_EQ(failed->status, CloneStatus::failed);
  EXPECT_EQ(failed->failure_reason.value_or(""), "attempts_exhausted");
}

TEST_F(VoiceClonesTest, TemplatesTakeTheAccountsReadyClonesOnly) {
  auto c = create(alice, "provider_c", {speech_wav("f2")});
  ASSERT_TRUE(c);
  auto body = [&](const std::string& voice_id) {
    return json{{"service_key", "provider_c"},
                {"name", "Cloned"},
                {"config", {{"tts_settings", {{"mode", "mode_v1"}, {"model_id", "c-one"}, {"voice_id", voice_id}}}}}};
  };
  auto job_run = job();
  ASSERT_TRUE(job_run.run_once(*db));
  const auto ready = voices::find_clone(*db, alice, "provider_c", CloneId::parse(c->id).value());
  ASSERT_EQ(ready->status, CloneStatus::ready);
  const auto voice_id = *ready->voice_id;

  auto t = templates::create_template(*db, alice, body(voice_id));
  ASSERT_TRUE(t);
  auto setup = templates::validate_stored(*db, *t);
  ASSERT_TRUE(setup);
  EXPECT_FALSE(setup->voice.profile_json.empty());
  EXPECT_EQ(setup->voice.espeak_voice, "gmw/en-US");

  auto foreign = templates::create_template(*db, bob, body(voice_id));
  ASSERT_FALSE(foreign);
  ASSERT_EQ(foreign.error().fields.size(), 1u);
  EXPECT_EQ(foreign.error().fields[0].field, "config.tts_settings.voice_id");
  EXPECT_EQ(foreign.error().fields[0].messages[0].key, "validation.voice_unknown");
  auto wrong_service = body(voice_id);
  wrong_service["service_key"] = "provider_d";
  wrong_service["config"]["tts_settings"]["model_id"] = "d-base";
  EXPECT_FALSE(templates::create_template(*db, alice, wrong_service));

  auto pending = create(alice, "provider_c");
  sql("UPDATE voice_clones SET status = 'failed', failure_reason = 'no_speech' WHERE id = '" + pending->id +
      "' RETURNING 1");
  EXPECT_FALSE(templates::create_template(*db, alice, body(pending->id))) << "a clone's id is not its voice_id";

  // Archived: new templates refuse it, the stored one no longer resolves.
  ASSERT_TRUE(voices::archive_clone(*db, alice, "provider_c", CloneId::parse(c->id).value()));
  EXPECT_FALSE(templates::create_template(*db, alice, body(voice_id)));
  EXPECT_EQ(templates::validate_stored(*db, *t).error().reason, Reason::template_model_outdated);
}

}  // namespace
}  // namespace mediagen::test
