"""Shared by the benchmarks: is anything else using the CPUs while we measure?

Timings on a 2-core machine mean little if another process (a test run, a build) competes for
the cores. :class:`Contention` reads the machine's busy CPU time from /proc/stat at the start
and at the end of a run, subtracts this process's own CPU time and its waited-for children's
(``os.times``), and reports what the rest of the machine used meanwhile (and the time the
hypervisor stole).
"""

from __future__ import annotations

import os
import time


def _cpu_jiffies() -> tuple[int, int] | None:
    """(busy, steal) jiffies of all CPUs since boot, or None off Linux."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return user + nice + system + irq + softirq, steal


def _own_cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Contention:
    """CPU used by other processes between :meth:`start` and :meth:`report`."""

    def __init__(self) -> None:
        self.hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self.start()

    def start(self) -> None:
        self.wall = time.perf_counter()
        self.own = _own_cpu()
        self.jiffies = _cpu_jiffies()

    def idle_check(self, seconds: float = 1.0) -> str:
        """A line saying how busy the machine is right now (sampled over ``seconds``)."""
        a = _cpu_jiffies()
        own = _own_cpu()
        time.sleep(seconds)
        b = _cpu_jiffies()
        if a is None or b is None:
            return "machine load: unknown (no /proc/stat)"
        others = (b[0] - a[0]) / self.hz - (_own_cpu() - own)
        cores = os.cpu_count() or 1
        share = max(others, 0.0) / (seconds * cores)
        warn = "  WARNING: the machine is busy, timings will be low" if share > 0.10 else ""
        return f"machine load before the run: {share:.0%} of {cores} CPUs used by others{warn}"

    def measure(self, cores_used: int | None = None) -> tuple[float, float, float, bool] | None:
        """(CPU-seconds used by others, seconds stolen, wall seconds, quiet) since :meth:`start`,
        or None off Linux. Quiet: others used at most 5% of the machine beyond the cores this
        run left them (``cores_used``, default all), and the hypervisor stole at most 5%."""
        end = _cpu_jiffies()
        if self.jiffies is None or end is None:
            return None
        wall = time.perf_counter() - self.wall
        busy = (end[0] - self.jiffies[0]) / self.hz
        steal = (end[1] - self.jiffies[1]) / self.hz
        others = max(busy - (_own_cpu() - self.own), 0.0)
        cores = os.cpu_count() or 1
        spare = cores - min(cores_used or cores, cores)
        quiet = others / wall <= spare + 0.05 * cores and steal / (wall * cores) <= 0.05
        return others, steal, wall, quiet

    def report(self, cores_used: int | None = None) -> tuple[str, bool]:
        """(a line on what others used during the run, whether the machine was quiet)."""
        m = self.measure(cores_used)
        if m is None:
            return "other processes' CPU during the run: unknown (no /proc/stat)", True
        others, steal, wall, quiet = m
        cores = os.cpu_count() or 1
        share = others / (wall * cores)
        line = (
            f"other processes used {others:.1f} CPU-s during the {wall:.0f} s run "
            f"({share:.0%} of {cores} CPUs); hypervisor steal {steal:.1f} s"
        )
        if not quiet:
            line += (
                "  WARNING: the machine was not quiet, timings are low; rerun on a quiet machine"
            )
        return line, quiet
