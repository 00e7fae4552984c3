#pragma once
// What a domain's routes.hpp names without including it: the router it registers on, the
// blocking pool its handlers run on (or the reads from the I/O threads), and the Redis and object
// store some of them are handed.
namespace mediagen::http {
class Router;
}
namespace mediagen::db {
class BlockingPool;
class AsyncPg;
}
namespace mediagen::cache {
class Redis;
}
namespace mediagen::storage {
class ObjectStore;
}
