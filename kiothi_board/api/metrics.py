"""Prometheus text for `/metrics`, made by `prometheus-client` (the exporter is a library,
not code we write: we only decide the names and where the numbers come from).

Every scrape reads the numbers afresh from one `source()` callable (the daemon's
exhibit report); nothing is cached between scrapes. Names are prefixed `kiothi_`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

__all__ = ["CONTENT_TYPE", "BoardCollector", "render_metrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

Source = Callable[[], dict[str, Any]]

_COUNTERS = {
    "games_started": "Games started",
    "games_finished": "Games played to their end",
    "games_abandoned": "Games abandoned (RULES.md R13)",
    "input_faults": "Stuck inputs and co-processor link losses",
    "wrong_presses": "Presses the guide did not ask for",
    "hints": "Hints asked for",
    "errors": "Errors reported by the game",
}
_GAUGES = {
    "uptime_seconds": "Seconds since the daemon started",
    "loop_rate_hz": "Main loop passes per second",
    "loop_jitter_seconds": "Standard deviation of the main loop's period",
    "frame_rate_hz": "LED frames shown per second",
    "cpu_temperature_celsius": "CPU temperature",
    "cpu_throttled": "1 when the Raspberry Pi firmware throttles the CPU now",
    "under_voltage": "1 when the Raspberry Pi firmware reports under-voltage now",
    "link_up": "1 when the co-processor link is up (absent without a co-processor)",
    "store_bytes": "Size of the game store's files",
    "free_disk_bytes": "Free bytes on the state directory's file system",
    "exhibit_open": "1 within opening hours",
}


class BoardCollector(Collector):
    """Turns one report dict into metric families on each scrape."""

    def __init__(self, source: Source) -> None:
        """`source()` returns the flat report (see `kiothi_board.daemon_exhibit.report`)."""
        self._source = source

    def collect(self) -> Iterator[Metric]:
        """The families of this scrape; a value that is None is left out."""
        report = self._source()
        for name, doc in _COUNTERS.items():
            value = report.get(name)
            if value is not None:
                yield CounterMetricFamily(f"kiothi_{name}", doc, value=float(value))
        presses = CounterMetricFamily(
            "kiothi_pit_presses", "Presses per pit (wear)", labels=["pit"]
        )
        for pit, n in report.get("pit_presses", {}).items():
            presses.add_metric([pit], float(n))
        yield presses
        for name, doc in _GAUGES.items():
            value = report.get(name)
            if value is not None:
                yield GaugeMetricFamily(f"kiothi_{name}", doc, value=float(value))


def render_metrics(source: Source) -> bytes:
    """The Prometheus text exposition of one scrape."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(BoardCollector(source))
    return generate_latest(registry)
