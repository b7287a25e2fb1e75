"""What one search records as it runs: the time of each step, and the stages it used or skipped.

Every moment between the start and the end is lapped under some step's name, so the steps'
times add up to `total` (rounded to 0.01 ms each; `total` is their sum).
"""

from __future__ import annotations

import time

from casetrack.domain import SearchResponse


class Trace:
    """Writes into the response as the search goes: `timings_ms`, `stages_used`, `stages_skipped`."""

    def __init__(self, response: SearchResponse) -> None:
        self.response = response
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        """The time since the last lap belongs to step `name` (added up when it recurs)."""
        now = time.perf_counter()
        timings = self.response.timings_ms
        timings[name] = round(timings.get(name, 0.0) + (now - self._last) * 1000, 2)
        self._last = now

    def used(self, stage: str, at: int | None = None) -> None:
        """Stage `stage` ran (at position `at` of `stages_used` when the order says more)."""
        if at is None:
            self.response.stages_used.append(stage)
        else:
            self.response.stages_used.insert(at, stage)

    def skipped(self, stage: str, why: str) -> None:
        self.response.stages_skipped[stage] = why

    def finish(self, name: str) -> None:
        """The last lap, then `total`: the sum of every lap."""
        self.lap(name)
        timings = self.response.timings_ms
        timings["total"] = round(sum(v for k, v in timings.items() if k != "total"), 2)
