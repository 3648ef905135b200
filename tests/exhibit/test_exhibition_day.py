"""A simulated exhibition day through a real daemon process (docs/exhibition.md, "Fake time").

12 hours of fake time from 07:00 to 19:00 local (the museum opens 09:00-18:00, quiet
hours at lunch), a seeded crowd of visitors (full games, abandoned games, wrong presses,
hints, two-player games), three power cuts (SIGKILL and restart) and a co-processor
unplug and replug. The figures are printed; the invariants are asserted; how fast and how
lean the day runs is `kiothi-board bench exhibit`'s to say, not a test's.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from kiothi_board.tools.exhibit_crowd import Crowd, Day
from kiothi_board.tools.exhibit_day import PIN, PITS, TOKEN, ZONE, BoardProcess
from tests.browser import WAIT_MS, chromium, wait_js

SEED = 12
R2_BOARD = [0, 0, 0, 0, 0, 6, 6, 6, 6, 6, 0, 0, 0, 0, 0, 6, 6, 6, 6, 6]  # the start (R2)
START = dt.datetime(2026, 5, 29, 7, 0, tzinfo=ZoneInfo(ZONE)).timestamp()
DAY = "2026-05-29"


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Day, float]]:
    shm = Path("/dev/shm")
    # The store's fsyncs are what a real board pays per press; here they would only
    # measure this machine's disk, so the day's state lives in memory (tmpfs).
    base = shm if shm.is_dir() else tmp_path_factory.getbasetemp()
    state = Path(tmp_path_factory.mktemp("day")) if base != shm else _shm_dir(shm)
    board = BoardProcess(state, START)
    began = time.perf_counter()
    hour = 3600.0
    try:  # whatever fails, the daemon must not outlive the test (it would hold the pty)
        played = Day(board, Crowd(SEED), kills=[3.2 * hour, 4.6 * hour, 5.9 * hour],
                     unplug_at=4.0 * hour)  # fmt: skip
        played.run()
        yield played, time.perf_counter() - began
    finally:
        board.stop()


def _shm_dir(shm: Path) -> Path:
    import tempfile

    return Path(tempfile.mkdtemp(prefix="kiothi-day-", dir=shm))


def staff(url: str) -> urllib.request.Request:
    return urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}"})


def recount(games: list[dict[str, Any]]) -> dict[str, int]:
    out = {"started": len(games), "finished": 0, "abandoned": 0, "current": 0}
    for g in games:
        result = g["result"] or {}
        if g["status"] == "abandoned" or result.get("end") == "abandoned":
            out["abandoned"] += 1
        elif g["status"] == "finished":
            out["finished"] += 1
        else:
            out["current"] += 1
    return out


def all_games(d: Day) -> list[dict[str, Any]]:
    return d.ask("games.list", limit=200)["games"]


def test_a_simulated_exhibition_day(day: tuple[Day, float]) -> None:
    d, wall = day
    games = all_games(d)
    counts = recount(games)
    stats = d.ask("stats", **{"from": DAY, "to": DAY})
    total = stats["total"]
    health = d.ask("health")["exhibit"]
    rss_growth = _rss_growth(d)
    print(
        f"\nsimulated day: {d.t / 3600:.1f} h fake in {wall:.1f} s wall; "
        f"{len(d.crowd.visitors)} visitors {d.kinds}; games {counts}; "
        f"presses {sum(d.sent.values())}, wrong {total['wrong']}, hints asked "
        f"{total['hints']} (the test asked {d.hints_asked}), offered {total['hints_offered']}; "
        f"restarts {total['restarts']} "
        f"(kills at {[round(k / 3600, 2) for k in d.killed_at]} h); link {d.link_seen}, "
        f"input faults {total['input_faults']}; phases {sorted(d.phases)}; "
        f"RSS kB {[(p, round(t / 3600, 1), r) for p, t, r in d.rss]}; growth after the "
        f"first hour {rss_growth} kB; store {health['store_bytes']} B; "
        f"loop {health['loop']}; frames {health['frames']}; language switches {d.switches}"
    )
    # Every started game is stored, finished or abandoned; none is left half-played.
    assert counts["current"] == 0, [g for g in games if g["status"] == "current"]
    assert {g["id"] for g in games} >= d.game_ids
    assert counts["finished"] >= 5 and counts["abandoned"] >= 3
    assert any(g["meta"]["mode"] == "two" for g in games)
    # The statistics equal a recount from the store, and the presses the visitors made.
    assert total["games"] == {
        "started": counts["started"], "finished": counts["finished"],
        "abandoned": counts["abandoned"], "playing": 0,
    }  # fmt: skip
    assert total["presses"] == d.sent, "every press counted once, none lost to a kill"
    assert total["hints"] == d.hints_asked and total["hints_offered"] >= 1
    assert total["wrong"] >= 1
    assert total["restarts"] == d.board.starts == 4
    assert total["link_down"] == 1 and total["input_faults"] >= 1  # the one unplug
    assert d.link_seen == ["down", "up"]
    assert sum(total["hours"]) == counts["started"]
    assert all(total["hours"][h] == 0 for h in range(0, 9)), "no games before opening"
    # The board rested: closed outside hours, attract loop, countdowns, resets.
    assert {"closed", "attract", "playing", "countdown", "reset"} <= d.phases
    assert max(d.countdowns) <= 15 and min(d.countdowns) < 5
    assert len(d.killed_at) == 3
    # Two languages: visitors switched with S9+S10; each new visitor began in the default.
    assert d.switches >= 3 and d.langs == {"start": {"en"}, "switched": {"sw"}}, d.langs
    # The day's wall time and memory are figures, printed above; their budgets are
    # `kiothi-board bench exhibit`'s (days in one process, RSS and wall time per day).


def _rss_growth(d: Day) -> int:
    """RSS growth within the longest-running process, after its first hour."""
    by_proc: dict[int, list[tuple[float, int]]] = {}
    for proc, t, rss in d.rss:
        by_proc.setdefault(proc, []).append((t, rss))
    longest = max(by_proc.values(), key=len)
    assert len(longest) >= 4, f"a process ran {len(longest)} h only"
    return max(r for _, r in longest[1:]) - longest[1][1]


def test_metrics_parse_and_match_the_store(day: tuple[Day, float]) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    d, _ = day
    with pytest.raises(urllib.error.HTTPError, match="401"):
        urllib.request.urlopen(d.board.web_url + "metrics", timeout=10)  # staff only
    with urllib.request.urlopen(staff(d.board.web_url + "metrics"), timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/plain")
        text = r.read().decode()
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    counts = recount(all_games(d))
    assert samples[("kiothi_games_started_total", ())] == counts["started"]
    assert samples[("kiothi_games_finished_total", ())] == counts["finished"]
    assert samples[("kiothi_games_abandoned_total", ())] == counts["abandoned"]
    for pit in PITS:
        assert samples[("kiothi_pit_presses_total", (("pit", pit),))] == d.sent[pit]
    assert samples[("kiothi_input_faults_total", ())] >= 1
    assert samples[("kiothi_uptime_seconds", ())] > 0
    assert samples[("kiothi_link_up", ())] == 1


def test_csv_matches_the_api(day: tuple[Day, float]) -> None:
    d, _ = day
    with urllib.request.urlopen(staff(d.board.web_url + f"stats.csv?from={DAY}&to={DAY}")) as r:
        rows = list(csv.DictReader(io.StringIO(r.read().decode())))
    api = d.ask("stats", **{"from": DAY, "to": DAY})["days"][0]
    assert len(rows) == 1 and rows[0]["day"] == DAY
    row = rows[0]
    assert int(row["games_started"]) == api["games"]["started"]
    assert int(row["games_abandoned"]) == api["games"]["abandoned"]
    assert float(row["duration_median_s"]) == api["duration"]["median"]
    assert [int(row[f"presses_{p}"]) for p in PITS] == [api["presses"][p] for p in PITS]
    assert [int(row[f"games_hour_{h:02d}"]) for h in range(24)] == api["hours"]
    for key, n in api["results"].items():
        assert int(row[f"result_{key}"]) == n


def test_operator_page_charts_the_day(day: tuple[Day, float]) -> None:

    from tests.api.helpers import ARTIFACTS

    d, _ = day
    stats = d.ask("stats", **{"from": DAY, "to": DAY})["total"]
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 800, "height": 1400})
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # The staff read English (the board may still speak the last visitor's language).
        page.add_init_script("localStorage.setItem('kiothi-lang', 'en')")
        page.goto(d.board.web_url + "operator")
        wait_js(
            page, "document.querySelector('#stats-summary').textContent.includes('for staff')"
        )  # a visitor at this page sees no statistics
        page.fill("#token", "00000000")
        page.click("#save-token")
        page.wait_for_selector(".toast:has-text('access code is not right')")
        page.fill("#token", PIN)  # the curator's PIN: a session for this browser
        page.click("#save-token")
        page.wait_for_selector("body[data-stats='drawn']")
        # Issue 24: visitors get the visitor level, offered by default; one brightness shown.
        page.wait_for_selector("#exhibit-lights:not([hidden])")
        assert page.input_value("#level") == "adaptive"
        assert page.is_disabled("#brightness")
        assert "brightness" not in page.inner_text("#exhibit-line").replace("brightness: under", "")
        page.fill("#stats-day", DAY)
        page.click("#stats-refresh")
        wait_js(
            page,
            "document.querySelector('#stats-summary').textContent.startsWith('2026-05-29 to "
            "2026-05-29')",
        )
        bars = page.locator("#chart-hours rect.bar")
        assert bars.count() == 24
        heights = [float(bars.nth(h).get_attribute("height") or 0) for h in range(24)]
        assert [h > 0 for h in heights] == [n > 0 for n in stats["hours"]]
        assert page.locator("#chart-durations rect.bar").count() == 7
        assert page.locator("#chart-pits circle.pit-disc").count() == 20
        radius = {
            pit: float(page.locator(f'#chart-pits [data-pit="{pit}"]').get_attribute("r") or 0)
            for pit in PITS
        }
        busiest = max(stats["presses"], key=stats["presses"].get)
        assert radius[busiest] == max(radius.values()), "the most pressed pit is the biggest"
        assert page.locator("#stats-results tr").count() == len(stats["results"])
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator("#statistics").screenshot(path=str(ARTIFACTS / "exhibition-stats.png"))
        with page.expect_download() as got:  # the PIN's session downloads the CSV too
            page.click("#stats-csv")
        text = Path(got.value.path()).read_text()
        assert text.startswith("day,") and text.count("\n") >= 2, text[:200]
        page.click("#exhibit-switch")  # staff switch the exhibition off, and on again
        page.wait_for_selector("#exhibit-switch[data-on=no]")
        assert d.ask("exhibit")["exhibit"]["phase"] == "off"
        page.click("#exhibit-switch")
        page.wait_for_selector("#exhibit-switch[data-on=yes]")
        assert d.ask("exhibit")["exhibit"]["enabled"] is True
        assert not errors, errors


def test_the_twin_page_shows_what_the_rings_show(day: tuple[Day, float]) -> None:
    """A visitor's page: the resting board, the attract loop, the countdown, in words and LEDs.

    Runs last: it moves the day's clock on to the next morning."""

    from tests.api.helpers import ARTIFACTS

    d, _ = day
    leds = "[...document.querySelectorAll('#board [data-pit]')].map(p => p.dataset.leds).join()"
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.add_init_script("localStorage.setItem('kiothi-lang', 'en')")  # chose English
        page.goto(d.board.web_url)
        follower = browser.new_page(viewport={"width": 390, "height": 844})  # chose none
        follower.goto(d.board.web_url)
        assert d.phase() == "reset", "the day's last game still asks for the reset"
        wait_js(page, "document.querySelector('#cue').textContent.startsWith('Reset to the start')")
        # Issue 24: the numbers show what the rings ask for (the start, R2), not zeros.
        counts = "[...document.querySelectorAll('#board .pit .count')].map(c => +c.textContent)"
        wait_js(page, f"{counts}.join() === {','.join(map(str, R2_BOARD))!r}")
        # Issue 31 item 14: a pit to set says what it holds and what to set (it read "S6, 6
        # seeds, the reset asks for 6 seeds" whatever it held); one right already, its count.
        status = d.state["exhibit"]
        holds, pending = status["holds"], status["pending"]
        label = page.get_attribute('[data-pit="S6"]', "aria-label")
        if "S6" in pending and holds is not None:
            held = f"{holds[5]} seed" + ("" if holds[5] == 1 else "s")
            assert label == f"S6, {held}: set it to 6 seeds", (label, status)
        else:
            assert label == "S6, 6 seeds", (label, status)
        d.confirm_reset()  # the staff at closing time
        assert d.phase() == "closed"
        wait_js(page, "document.querySelector('#cue').textContent.includes('resting')")
        # After the reset the pits hold the start: the numbers and labels say so (not 0).
        wait_js(page, f"{counts}.join() === {','.join(map(str, R2_BOARD))!r}")
        label = page.get_attribute('[data-pit="S6"]', "aria-label")
        assert label == "S6, 6 seeds", label
        d.idle_until(d.t + 14.2 * 3600)  # 09:12 the next morning: open again
        d.confirm_reset()
        assert d.phase() == "attract"
        wait_js(page, "document.querySelector('#cue').textContent.startsWith('Press any pit')")
        # Two languages enabled: a page that chose none invites in each in turn.
        for start in ("Bonyeza shimo", "Press any pit"):
            wait_js(follower, f"document.querySelector('#cue').textContent.startsWith('{start}')")
        first = page.evaluate(leds)
        d.advance(3.0, step=0.1)  # the attract loop moves on the rings, and on the page
        wait_js(page, f"{leds} !== {first!r}")
        d.advance(4.0, step=0.5, press="S3")  # a visitor: a game against the AI
        assert d.phase() == "playing"
        d.advance(62.0, step=1.0)  # and walks away: the countdown
        assert d.phase() == "countdown"
        wait_js(page, "document.querySelector('#cue').textContent.startsWith('Still playing?')")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "exhibition-twin-countdown.png"))
        assert not errors, errors
