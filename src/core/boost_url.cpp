// Boost.URL compiled once: Debian's Boost 1.81 ships its headers but no library to link.
#include <boost/url/src.hpp>
