"""Prints a TCP port that is free on loopback, chosen below the kernel's ephemeral port range.

A port from the ephemeral range (a bind to port 0) can be taken as the source port of some
outgoing connection between this pick and the moment the server binds it; with many clients
running at once (tests and benchmarks in parallel) that fails a server's start now and then.
Below the range only explicit binds take ports. Falls back to the ephemeral range when the range
starts too low to leave room.
"""

import random
import socket
import sys


def ephemeral_start() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def main() -> int:
    start = ephemeral_start()
    if start > 11000:
        pick = random.SystemRandom()
        for _ in range(200):
            port = pick.randrange(10000, start)
            if free(port):
                print(port)
                return 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
