"""The runtime image, booted for real. docker/build-rootfs makes the tarball (a Release build of
mediagen and the Debian 12 packages of docker/runtime-packages.txt, nothing else); the test unpacks
it and runs every mediagen command inside it - migrate, admin seed-demo, user and key create, serve -
through unshare and chroot as the image's own user (uid 10001), against the suite's PostgreSQL and
Redis on loopback (the host's network namespace). Over HTTP from the host it then walks the typical
flow (voice, template, order, polling, link, download) and decodes the track with the host's mpg123,
orders music (the soundfont), searches voices with the track as the sample (libmagic's database and
FFmpeg), and asks /readyz with the image's own curl, as its HEALTHCHECK does. A shared library or
data file the image lacks fails the test.

MEDIAGEN_IMAGE_TAR names a tarball built before (docker/build-rootfs --output FILE) to boot
instead of building one."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.parse
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

from harness import E2ETestCase  # noqa: E402
from orders_support import OrderFixtures  # noqa: E402
from programs import program  # noqa: E402

IMAGE_UID = 10001
HOME = "/var/lib/mediagen"
STORAGE = HOME + "/storage"
TERMINAL = {"completed", "result_delivered", "failed", "partially_completed", "cancelled", "compensated"}


class Image:
    """The tarball unpacked into a folder, and the scripts that run a program inside it."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="mediagen-image-")
        self.rootfs = os.path.join(self.dir, "rootfs")
        os.mkdir(self.rootfs)
        tar = os.environ.get("MEDIAGEN_IMAGE_TAR")
        if not tar:
            tar = os.path.join(self.dir, "mediagen-rootfs.tar")
            subprocess.run([program("bash"), os.path.join(ROOT, "docker", "build-rootfs"), "--output", tar],
                           check=True, timeout=3600, stdin=subprocess.DEVNULL)
        subprocess.run([program("tar"), "-C", self.rootfs, "--numeric-owner", "-xpf", tar], check=True, timeout=600)
        if tar.startswith(self.dir):
            os.remove(tar)
        self.run_script = os.path.join(self.dir, "in-image")
        self.mediagen = os.path.join(self.dir, "mediagen")
        # A private mount namespace holds /dev and /proc for the chroot; they vanish with it. HOME is
        # the user's, as Docker sets it for USER.
        with open(self.run_script, "w") as f:
            f.write(f"""#!{program("bash")}
# in-image PROGRAM ARGS...: PROGRAM of the image, run inside it as uid {IMAGE_UID}.
exec {program("unshare")} --mount --propagation private -- {program("bash")} -c '
  root="$1"; shift
  {program("mount")} --rbind /dev "$root/dev" && {program("mount")} -t proc proc "$root/proc" &&
    exec {program("chroot")} --userspec={IMAGE_UID}:{IMAGE_UID} "$root" /usr/bin/env HOME={HOME} "$@"' \
  in-image "{self.rootfs}" "$@"
""")
        with open(self.mediagen, "w") as f:
            f.write(f'#!{program("bash")}\nexec "{self.run_script}" /usr/local/bin/mediagen "$@"\n')
        for path in (self.run_script, self.mediagen):
            os.chmod(path, 0o755)

    def run(self, *args, timeout=60):
        return subprocess.run([self.run_script, *args], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def decode_mp3(data: bytes):
    """(seconds, channels, rms of the 16-bit samples) as the host's mpg123 decodes the file."""
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "a.mp3"), os.path.join(tmp, "a.wav")
        with open(src, "wb") as f:
            f.write(data)
        subprocess.run([program("mpg123"), "-q", "-w", dst, src], check=True, timeout=120)
        with wave.open(dst) as w:
            seconds = w.getnframes() / w.getframerate()
            channels = w.getnchannels()
            samples = memoryview(w.readframes(w.getnframes())).cast("h")
    return seconds, channels, (sum(s * s for s in samples) / max(1, len(samples))) ** 0.5


def multipart(fields, files):
    boundary = "image-test-boundary-7f3a"
    out = b""
    for name, value in fields:
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
    for name, filename, ctype, data in files:
        out += (f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                f"Content-Type: {ctype}\r\n\r\n").encode() + data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return f"multipart/form-data; boundary={boundary}", out


class RootfsImageTests(OrderFixtures, E2ETestCase):
    # The image's object store is its own folder (the Dockerfile's volume), owned by its user.
    server_env = {"MEDIAGEN_STORAGE_DIR": STORAGE, "MEDIAGEN_WORKERS": "2"}

    @classmethod
    def setUpClass(cls):
        cls.image = Image()
        # Every command the harness runs (migrate, the operator CLI, serve) runs inside the image.
        os.environ["MEDIAGEN_BIN"] = cls.image.mediagen
        try:
            super().setUpClass()
        except BaseException:
            cls.image.remove()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            cls.image.remove()

    @classmethod
    def prepare(cls):
        seeded = cls.h.cli("admin", "seed-demo", "--skip-voice-features")
        assert any(p["code"] == "starter" for p in seeded["plans"]), seeded
        # Voice search ranks described voices: one service's are enough (FFTW, in the image).
        described = cls.h.run_cli("admin", "voices", "features", "--service", "provider_d", timeout=600)
        assert described.returncode == 0, described.stderr

    def tearDown(self):
        self.assertInvariants()

    def download(self, key, path):
        link = self.assertSuccess(self.server.api("POST", "/storage/url", key, body={"path": path}))
        u = urllib.parse.urlsplit(link["url"])
        r = self.server.request("GET", u.path + "?" + u.query, timeout=30)
        self.assertEqual(r.status, 200, r)
        return r.raw

    def test_the_image_holds_only_the_runtime(self):
        self.assertTrue(os.path.isfile(os.path.join(self.image.rootfs, "usr/local/bin/mediagen")))
        self.assertTrue(os.path.isfile(os.path.join(self.image.rootfs, "usr/local/bin/mediagen-espeak")))
        self.assertFalse(os.path.exists(os.path.join(self.image.rootfs, "usr/include/espeak-ng")),
                         "a -dev package in the runtime image")
        self.assertFalse(os.path.exists(os.path.join(self.image.rootfs, "usr/bin/g++")))
        who = self.image.run("/usr/bin/id", "-un")
        self.assertEqual((who.returncode, who.stdout.strip()), (0, "mediagen"), who.stderr)

    def test_the_health_check_of_the_image_asks_readyz(self):
        host, port = self.server.admin
        r = self.image.run("/usr/bin/curl", "-fsS", f"http://{host}:{port}/readyz")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('"postgres"', r.stdout)

    def test_typical_flow_music_and_voice_search_inside_the_image(self):
        _, key = self.account(balance=1_000_000)
        # 1-2. A voice from the catalogue the image's CLI seeded, and a template.
        listing = self.assertSuccess(self.server.api("GET", "/voices/provider_b?language=en&page_size=5", key))
        voice = listing["voices"][0]["voice_id"]
        template = self.template(key, "provider_b", voice=voice)
        # 3-4. An order, polled to completion.
        text = "The image speaks with the voices it carries. [never spoken]"
        created = self.assertSuccess(self.create(key, template, text), 201)
        order = self.wait_order(key, created["id"], TERMINAL, timeout=120)
        self.assertEqual(order["status"], "completed", order)
        # 5. A link, a plain GET, and the host's decoder: speech, not silence.
        track = self.download(key, order["result"]["files"][0])
        seconds, _, rms = decode_mp3(track)
        self.assertGreater(seconds, 1.5)
        self.assertGreater(rms, 500, "the track is near silence")
        self.assertAlmostEqual(seconds * 1000, order["result"]["duration_ms"], delta=50)

        # Music: FluidSynth with the image's General MIDI soundfont, stereo.
        music = self.assertSuccess(self.server.api("POST", "/orders", key, body={
            "task_type": "music", "task_data": {"prompt": "slow calm piano", "duration_seconds": 5, "seed": 7}}), 201)
        music = self.wait_order(key, music["id"], TERMINAL, timeout=180)
        self.assertEqual(music["status"], "completed", music)
        seconds, channels, rms = decode_mp3(self.download(key, music["result"]["files"][0]))
        self.assertAlmostEqual(seconds, 5.0, delta=0.5)
        self.assertEqual(channels, 2)
        self.assertGreater(rms, 100, "the music is near silence")

        # Voice search with the track as the sample: libmagic judges it, FFmpeg decodes it.
        ctype, body = multipart([("task_type", "voice_search")], [("input_files[]", "sample.mp3", "audio/mpeg", track)])
        search = self.assertSuccess(
            self.server.api("POST", "/orders", key, headers={"Content-Type": ctype}, body=body), 201)
        search = self.wait_order(key, search["id"], TERMINAL, timeout=120)
        self.assertEqual(search["status"], "completed", search)
        self.assertEqual(search["result"]["files"], [])
        self.assertGreater(search["result"]["analysed_seconds"], 1.0)
        self.assertTrue(search["result"]["voices"], search)
        for v in search["result"]["voices"]:
            self.assertIn(v["service"], {"provider_a", "provider_b", "provider_c", "provider_d"})
            self.assertTrue(0 < v["score"] <= 1, v)


if __name__ == "__main__":
    unittest.main()
