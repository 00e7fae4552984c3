#include "espeak_helpers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

#include "mediagen/core/log.hpp"

extern char** environ;

namespace mediagen::engines::detail {
namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 60'000));
}

// Why talking to a helper stopped; the helper is then retired.
struct Broken {
  std::string why;
};

boost::system::result<void, Broken> send_all(int fd, std::string_view bytes, Clock::time_point deadline) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      if (Clock::now() >= deadline) return Broken{"the speech helper did not read its job in time"};
      ::poll(&p, 1, remaining_ms(deadline));
      continue;
    }
    return Broken{"the speech helper is gone"};
  }
  return {};
}

boost::system::result<wire::Frame, Broken> read_frame(int fd, wire::FrameReader& reader, Clock::time_point deadline) {
  char buffer[64 * 1024];
  for (;;) {
    if (auto frame = reader.next()) return std::move(*frame);
    if (reader.broken()) return Broken{"the speech helper sent a malformed frame"};
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      reader.feed({buffer, static_cast<std::size_t>(n)});
      continue;
    }
    // A reset is a helper that exited with bytes of ours unread.
    if (n == 0 || errno == ECONNRESET) return Broken{"the speech helper exited"};
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Broken{"the speech helper's socket failed"};
    if (Clock::now() >= deadline) return Broken{"the speech helper did not answer in time"};
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, remaining_ms(deadline));
  }
}

// What a helper inherits of the server's environment: espeak-ng's own variables, the locale, PATH
// and the sanitizers' options; not the server's configuration (database URLs, secrets).
std::vector<std::string> helper_environment() {
  static constexpr std::string_view kKept[] = {"ESPEAK", "LANG", "LC_", "PATH=", "ASAN_OPTIONS=", "UBSAN_OPTIONS=",
                                               "LSAN_OPTIONS=", "TSAN_OPTIONS="};
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    for (const auto prefix : kKept) {
      if (entry.starts_with(prefix)) {
        out.emplace_back(entry);
        break;
      }
    }
  }
  return out;
}

}  // namespace

std::string default_helper_path() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("mediagen-espeak") : (self.parent_path() / "mediagen-espeak").string();
}

EspeakHelpers::EspeakHelpers(HelperOptions options) : options_(std::move(options)) {}

EspeakHelpers::~EspeakHelpers() {
  std::vector<Lease> idle;
  {
    std::lock_guard lock(mutex_);
    idle.swap(idle_);
  }
  for (auto& helper : idle) retire(std::move(helper));
}

boost::system::result<void, EngineFailure> EspeakHelpers::warm_up() {
  auto helper = acquire();
  if (!helper) return helper.error();
  release(std::move(*helper));
  return {};
}

boost::system::result<EspeakHelpers::Lease, EngineFailure> EspeakHelpers::spawn() {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return EngineFailure::technical("could not open a socket to a speech helper");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pair[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pair[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // nothing of the server's leaks in
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::string path = options_.path;
  char* argv[] = {path.data(), nullptr};
  auto environment = helper_environment();
  std::vector<char*> envp;
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, path.c_str(), &actions, &attributes, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(pair[1]);
  if (spawned != 0) {
    ::close(pair[0]);
    log::warn("speech helper did not start", {{"path", path}, {"reason", std::string_view(std::strerror(spawned))}});
    return EngineFailure::technical("could not start the speech helper " + path);
  }
  auto helper = std::make_unique<Helper>();
  helper->pid = pid;
  helper->fd = pair[0];
  ::fcntl(helper->fd, F_SETFL, ::fcntl(helper->fd, F_GETFL) | O_NONBLOCK);

  auto first = read_frame(helper->fd, helper->reader, Clock::now() + options_.start_timeout);
  std::string why;
  if (!first) {
    why = first.error().why;
  } else if (first->type == wire::FrameType::failed) {
    why = wire::decode_failed(first->payload);
  } else if (const auto rate = first->type == wire::FrameType::ready ? wire::decode_ready(first->payload) : std::nullopt) {
    helper->sample_rate = *rate;
    return helper;
  } else {
    why = "the speech helper did not start as expected";
  }
  log::warn("speech helper did not start", {{"path", path}, {"reason", why}});
  end(*helper);  // acquire() gives its slot back
  return EngineFailure::technical(why);
}

boost::system::result<EspeakHelpers::Lease, EngineFailure> EspeakHelpers::acquire() {
  {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [this] { return !idle_.empty() || running_ < options_.max_helpers; });
    if (!idle_.empty()) {
      Lease helper = std::move(idle_.back());
      idle_.pop_back();
      return helper;
    }
    ++running_;  // this slot is ours while the helper starts
  }
  auto helper = spawn();
  if (!helper) {
    std::lock_guard lock(mutex_);
    --running_;
    freed_.notify_one();
  }
  return helper;
}

void EspeakHelpers::release(Lease helper) {
  {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(helper));
  }
  freed_.notify_one();
}

void EspeakHelpers::end(Helper& helper) {
  ::close(helper.fd);
  ::kill(helper.pid, SIGKILL);  // not reaped before this, so the id is still the helper's
  int status = 0;
  while (::waitpid(helper.pid, &status, 0) < 0 && errno == EINTR) {
  }
}

void EspeakHelpers::retire(Lease helper) {
  end(*helper);
  {
    std::lock_guard lock(mutex_);
    --running_;
  }
  freed_.notify_one();
}

boost::system::result<SynthOutput, EngineFailure> EspeakHelpers::synthesize(const SynthJob& job) {
  const auto& p = job.parameters;
  const std::string frame = wire::encode_job({{p.rate_wpm, p.pitch, p.pitch_range, p.volume}, job.voice, *job.text});
  if (frame.size() > wire::kHeaderSize + wire::kMaxPayload) {
    return EngineFailure::technical("text too long for one speech job");
  }
  // A helper may die while idle (killed, out of memory). A job that such a helper ends before
  // any answer goes to another helper, once; a helper that dies after answering fails the job.
  for (int attempt = 0;; ++attempt) {
    auto helper = acquire();
    if (!helper) return helper.error();
    auto spoken = run(**helper, frame);
    if (spoken) {
      release(std::move(*helper));
      return std::move(*spoken);
    }
    if (spoken.error().helper_healthy) {
      release(std::move(*helper));
    } else {
      // Operators see every helper that had to go: a repeating reason is an install or data problem.
      log::warn("speech helper retired", {{"pid", static_cast<std::int64_t>((*helper)->pid)},
                                          {"reason", spoken.error().failure.detail}});
      retire(std::move(*helper));
      if (spoken.error().before_answer && attempt == 0) continue;
    }
    return std::move(spoken.error().failure);
  }
}

boost::system::result<SynthOutput, EspeakHelpers::JobEnd> EspeakHelpers::run(Helper& helper,
                                                                            const std::string& job) {
  if (auto sent = send_all(helper.fd, job, Clock::now() + options_.start_timeout); !sent) {
    return JobEnd{EngineFailure::technical(sent.error().why), false, true};
  }
  const auto deadline = Clock::now() + options_.job_timeout;
  const std::size_t max_samples = wire::kMaxSpeechSeconds * static_cast<std::size_t>(helper.sample_rate);
  SynthOutput out;
  out.sample_rate = helper.sample_rate;
  bool answered = false;
  const auto broken = [&answered](std::string why) {
    return JobEnd{EngineFailure::technical(std::move(why)), false, !answered};
  };
  for (;;) {
    auto frame = read_frame(helper.fd, helper.reader, deadline);
    if (!frame) return broken(frame.error().why);
    answered = true;
    switch (frame->type) {
      case wire::FrameType::pcm:
        if (!wire::decode_pcm(frame->payload, out.pcm)) return broken("the speech helper sent malformed audio");
        if (out.pcm.size() > max_samples) return broken("speech longer than 30 minutes: synthesis stopped");
        break;
      case wire::FrameType::words:
        if (!wire::decode_words(frame->payload, out.words)) return broken("the speech helper sent malformed words");
        break;
      case wire::FrameType::done:
        // Nothing may follow a job's end: the next job's answer would start with it.
        if (!frame->payload.empty() || helper.reader.buffered() != 0) return broken("the speech helper said too much");
        return out;
      case wire::FrameType::failed:
        if (helper.reader.buffered() != 0) return broken("the speech helper said too much");
        return JobEnd{EngineFailure::technical(wire::decode_failed(frame->payload)), true, false};
      case wire::FrameType::job:
      case wire::FrameType::ready: return broken("the speech helper sent an unexpected frame");
    }
  }
}

std::vector<pid_t> EspeakHelpers::idle_pids() const {
  std::lock_guard lock(mutex_);
  std::vector<pid_t> out;
  for (const auto& helper : idle_) out.push_back(helper->pid);
  return out;
}

std::size_t EspeakHelpers::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

}  // namespace mediagen::engines::detail
