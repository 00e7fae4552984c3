#pragma once
// How settling an order moves the user's policy streak (policy_cooldown.hpp), inside the settling
// transaction, after the order row and the ledger: the last lock it takes is the user's
// cooldown row.
#include <string_view>

#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/policy_cooldown.hpp"

namespace mediagen::orders {

// A chunk of the order was just policy_flagged: the order counts once (its first flagged chunk);
// the kPolicyStreak-th consecutive one starts the next cooldown of the ladder.
void note_policy_block(db::Db& db, db::Tx& tx, UserId user, std::string_view order_id, const PolicyCooldown& cooldown);

// The order completed for the first time and none of its chunks was flagged.
void note_clean_completion(db::Db& db, db::Tx& tx, UserId user);

}  // namespace mediagen::orders
