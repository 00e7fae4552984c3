"""The Redis fan-out channel is shared infrastructure: only messages signed with the key derived
from MEDIAGEN_SECRET reach sockets; unsigned and wrongly signed ones are dropped and counted
(mediagen_realtime_fanout_unsigned_total on /metrics)."""

import unittest

from harness import E2ETestCase, metric_sum, poll
from realtime_support import NodeClient, event_frame, preview_channel, publish_raw, realtime_env, sign, sign_fanout


class FanoutSignatureTests(E2ETestCase):
    server_env = realtime_env()

    @classmethod
    def prepare(cls):
        cls.user = cls.h.create_user()
        cls.channel = preview_channel(cls.user["id"])

    def subscribed(self):
        c = NodeClient(self.server, "raw")
        self.addCleanup(c.stop)
        sid = c.connected()
        c.send_json({"event": "pusher:subscribe", "data": {"channel": self.channel, "auth": sign(sid, self.channel)}})
        c.wait_frame("pusher_internal:subscription_succeeded", channel=self.channel)
        return c, sid

    def counter(self, name):
        return metric_sum(self.server.metrics(), name)

    def test_only_signed_messages_reach_a_socket(self):
        c, sid = self.subscribed()
        unsigned_before = self.counter("mediagen_realtime_fanout_unsigned_total")
        dropped_before = self.counter("mediagen_realtime_fanout_dropped_total")
        forged = "bench " + event_frame(self.channel, "ready", {"preview_id": "f" * 64, "status": "forged"})
        secret = self.h.env()["MEDIAGEN_SECRET"]
        right_signature = sign_fanout("bench " + event_frame(self.channel, "other", {}), secret)[:64]
        forgeries = [
            (forged, {"signed": False}),
            (forged, {"secret": "not-the-secret"}),
            # The signature of another message, and a signature made with the secret itself.
            (right_signature + b" " + forged.encode(), {"signed": False}),
            # The right signature, spelled in capitals.
            (sign_fanout(forged, secret)[:64].decode().upper() + " " + forged, {"signed": False}),
            # A grant for the subscribed socket, unsigned.
            (f"bench grant {sid} {self.channel} 1 {self.user['id']} {'a' * 64} 0", {"signed": False}),
        ]
        for message, how in forgeries:
            publish_raw(self.h, message, **how)
        publish_raw(self.h, "bench " + event_frame(self.channel, "ready", {"preview_id": "e" * 64, "status": "ready"}))
        got = c.wait_frame("ready", channel=self.channel)
        self.assertEqual(got["data"], {"preview_id": "e" * 64, "status": "ready"})
        c.round_trip()
        app_frames = [f for f in c.frames() if not (f["event"] or "").startswith("pusher")]
        self.assertEqual(len(app_frames), 1, c.describe())
        counted = poll(lambda: self.counter("mediagen_realtime_fanout_unsigned_total") - unsigned_before
                       >= len(forgeries), timeout=10)
        self.assertTrue(counted, "unsigned messages counted: "
                        f"{self.counter('mediagen_realtime_fanout_unsigned_total') - unsigned_before}")
        self.assertEqual(self.counter("mediagen_realtime_fanout_unsigned_total") - unsigned_before, len(forgeries))
        self.assertEqual(self.counter("mediagen_realtime_fanout_dropped_total"), dropped_before)
        self.assertFalse(c.is_closed())


if __name__ == "__main__":
    unittest.main()
