#pragma once
// Marks the calling thread as inside a PostgreSQL transaction (db::transact sets it), so that a
// call that must never happen there can refuse: a Redis command while a transaction may hold a
// money lock would hold that lock for as long as Redis stalls. A transaction belongs to the
// thread that runs it, hence thread_local; the mark is a check, like a lock-order checker, and
// carries no state of the program.
namespace mediagen::core {

class TransactionMark {
 public:
  TransactionMark() noexcept { ++depth(); }
  ~TransactionMark() { --depth(); }
  TransactionMark(const TransactionMark&) = delete;
  TransactionMark& operator=(const TransactionMark&) = delete;

  // True while some TransactionMark is alive on this thread.
  static bool active() noexcept { return depth() > 0; }

 private:
  static int& depth() noexcept {
    thread_local int d = 0;
    return d;
  }
};

}  // namespace mediagen::core
