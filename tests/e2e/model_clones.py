"""Voice clone uploads in the seeded model test (spec 2.6, 3.3, 4.5): the account uploads a few
seconds of speech (espeak-ng's WAV) as a provider_c clone, or archives one.

The model (spec 4.5 clone rules): without a subscription at most 2 clones count (pending, processing
or ready) and one more is 402 no_subscription; with one (a seed with quota) the plan's limit applies,
which this test never reaches: it archives instead once 3 count. An accepted upload is 201 pending
and, once the work has settled, ready; an archived clone no longer counts."""

import subprocess

from matrix_support import multipart
from programs import program

FREE_CLONES = 2
KEPT_WITH_A_PLAN = 3
COUNTED = ("pending", "processing", "ready")
SPOKEN = "The harbour lantern glowed above the quiet river while a violin played in the orchard."


def speech_wav():
    return subprocess.run([program("espeak-ng"), "--stdout", SPOKEN], capture_output=True, check=True,
                          timeout=60).stdout


class CloneOps:
    """Mixed into model_ops.Operations; `self.clones` is {id: status} as the model has it."""

    clones = None
    sample = None

    def clone_view(self):
        return {} if self.clones is None else {"clones": dict(self.clones)}

    def op_clone(self, index):
        if self.clones is None:
            self.clones = {}
            self.sample = speech_wav()
        counted = [c for c, status in self.clones.items() if status in COUNTED]
        subscribed = self.model.subscribed
        if counted and (self.rng.random() < 0.3 or (subscribed and len(counted) >= KEPT_WITH_A_PLAN)):
            clone = self.rng.choice(sorted(counted))
            r = self.send("POST", f"/voices/provider_c/clones/{clone}/archive")
            self.expect_answer(r, 200, None, "clone archive")
            self.clones[clone] = "archived"
            return None, f"archive, {len(counted) - 1} left"
        refused = not subscribed and len(counted) >= FREE_CLONES
        headers, body = multipart([("name", f"model {self.seed}.{index}")], [("files[]", "speech.wav", self.sample)])
        r = self.send("POST", "/voices/provider_c/clones", body, headers=headers)
        self.expect_answer(r, 402 if refused else 201, "no_subscription" if refused else None, "clone upload")
        if not refused:
            data = r.body["data"]
            self.t.assertEqual(data["status"], "pending", data)
            self.clones[data["id"]] = "ready"  # once settled
        return None, f"upload with {len(counted)} counted{' and a plan' if subscribed else ''} {r.status}"
