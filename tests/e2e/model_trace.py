"""The trace of the seeded model test (test_model.py): every operation a seed actually did (its index,
kind, parameters and the statuses the server answered), printed whole with the command that
replays it when the seed fails; and the saboteur that breaks an invariant on purpose, so the test
shows it would catch one (MEDIAGEN_MODEL_BREAK=<op index>, or the self-test)."""

import os
import traceback
from dataclasses import dataclass, field

from chaos_support import FULL

# What the saboteur does: one balance moved by hand, without its ledger entry (invariant I3).
SABOTAGE = "UPDATE ledger_accounts SET balance = balance + {delta} WHERE kind = 'funding'"
BROKEN_BY_SABOTAGE = "I3 every account balance equals the sum of its entries"


@dataclass
class Step:
    index: int
    kind: str
    detail: str = ""
    answers: list = field(default_factory=list)  # HTTP statuses (or CLI outcomes) in the order sent
    seconds: float = 0.0

    def line(self, seed):
        answers = ",".join(str(a) for a in self.answers) or "-"
        return f"  [{seed}:{self.index:02d}] {self.kind:<14} {self.detail}  -> {answers}"


class Trace:
    """The operations of one seed, in the order done."""

    def __init__(self, seed, ops, break_at=None):
        self.seed = seed
        self.ops = ops
        self.break_at = break_at
        self.steps: list[Step] = []
        self.setup = ""  # the account the seed drew: balance, quota

    def begin(self, index, kind):
        self.steps.append(Step(index, kind))
        return self.steps[-1]

    @property
    def current(self):
        return self.steps[-1] if self.steps else None

    def answered(self, status):
        if self.current is not None:
            self.current.answers.append(status)

    def replay_command(self):
        broken = f" MEDIAGEN_MODEL_BREAK={self.break_at}" if self.break_at is not None else ""
        full = " MEDIAGEN_CHAOS=full" if FULL else ""  # the full size draws some operations more often
        return (f"cd tests/e2e && MEDIAGEN_MODEL_SEED={self.seed} MEDIAGEN_MODEL_OPS={self.ops}{broken}{full}"
                " python3 -m unittest -v test_model")

    def report(self, error):
        """The whole trace, where it stopped, the replay command, then what differed."""
        where = f"op {self.current.index} ({self.current.kind})" if self.current else "before the first op"
        lines = [f"seed {self.seed} failed at {where}; {self.setup}",
                 f"  replay: {self.replay_command()}",
                 f"  trace ({len(self.steps)} of {self.ops} ops):"]
        lines += [s.line(self.seed) for s in self.steps]
        lines.append(f"  what differed: {error}")
        return "\n".join(lines) + "\n" + "".join(traceback.format_exception(error)[-6:])


def break_index():
    value = os.environ.get("MEDIAGEN_MODEL_BREAK")
    return int(value) if value else None


class Saboteur:
    """Moves the platform funding balance by hand and puts it back when asked: the database is
    the class's, and the next seeds must start from a sound ledger."""

    def __init__(self, h):
        self.h = h
        self.moved = 0

    def strike(self):
        self.h.psql(SABOTAGE.format(delta=7))
        self.moved += 7

    def repair(self):
        if self.moved:
            self.h.psql(SABOTAGE.format(delta=-self.moved))
            self.moved = 0
