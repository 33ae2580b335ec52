"""The fresh batch scorer: how it reads a reply, a learned stage's verdict and the router's
offer, and how it writes its runs into bench/RESULTS.md. Its figures are never asserted."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bench.fresh_batch_files import LanguageFile
from bench.fresh_batch_report import SECTION, bar_figures, run_text, write_run
from bench.fresh_batch_scoring import Outcome, model_verdict, screen_batch, screen_phrase, tally
from bot.content_pack.pack import ContentPack
from bot.safety.rules import Intent, ReplyLevel
from bot.safety.screen import SafetyScreen


@dataclass(frozen=True)
class Verdict:
    raised: bool


@dataclass(frozen=True)
class FakeDetection:
    reply: ReplyLevel
    intents: frozenset[Intent] = frozenset()
    model: object = None


@dataclass
class FakeScreen:
    """A screen whose answer the test sets: what `screen` returns and what `detect` finds."""

    detection: FakeDetection
    sends: bool
    calls: list[str] = field(default_factory=list)

    def screen(self, text: str, locale: str, country: str | None, is_group: bool) -> object:
        self.calls.append(f"screen {locale} {country} {is_group}")
        return FakeResult(self.detection) if self.sends else None

    def detect(self, text: str, locale: str) -> FakeDetection:
        self.calls.append(f"detect {locale}")
        return self.detection


@dataclass(frozen=True)
class FakeResult:
    detection: FakeDetection


def test_a_verdict_is_read_from_an_object_or_a_mapping_and_absent_is_no_verdict() -> None:
    assert model_verdict(FakeDetection(ReplyLevel.NONE, model=Verdict(True))) == (True, True)
    assert model_verdict(FakeDetection(ReplyLevel.NONE, model={"raised": False})) == (True, False)
    assert model_verdict(FakeDetection(ReplyLevel.NONE), None) == (False, False)


def test_a_check_raised_by_a_learned_stage_counts_as_a_check() -> None:
    raised = FakeDetection(ReplyLevel.CHECK, model=Verdict(True))
    item = screen_phrase(FakeScreen(raised, sends=True), "sv", "crisis", "x")  # type: ignore[arg-type]
    assert (item.outcome, item.model_seen, item.model_raised) == (Outcome.CHECK, True, True)


def test_the_phrase_is_screened_as_an_english_user_s_private_message() -> None:
    fake = FakeScreen(FakeDetection(ReplyLevel.DANGER), sends=True)
    item = screen_phrase(fake, "ja", "danger", "x")  # type: ignore[arg-type]
    assert item.outcome is Outcome.FULL and item.level == "danger"
    assert fake.calls == ["screen en None False"]


def test_with_no_safety_reply_the_router_s_offer_is_read_contact_first() -> None:
    both = FakeDetection(ReplyLevel.CONTACTED, frozenset({Intent.CONTACTED, Intent.URGE}))
    item = screen_phrase(FakeScreen(both, sends=False), "en", "urge", "x")  # type: ignore[arg-type]
    assert (item.outcome, item.offer) == (Outcome.NOTHING, "contacted")
    assert item.intents == {"contacted", "urge"}
    found = tally([item], ["en"], ["urge"])
    assert (found.intent_found, found.offered, found.nothing) == (1, 0, 1)


def test_every_phrase_of_a_batch_is_counted_once(content: ContentPack) -> None:
    labels = {"crisis": ("a",), "ordinary": ("b", "c"), "urge": ("d",)}
    files = [LanguageFile(Path("xx.yaml"), "xx", "2026-12-02", labels)]
    items = screen_batch(SafetyScreen(content), files)
    assert [(item.label, item.text) for item in items] == [
        ("crisis", "a"),
        ("ordinary", "b"),
        ("ordinary", "c"),
        ("urge", "d"),
    ]
    found = tally(items, ["xx"], ["ordinary"])
    assert found.phrases == found.full + found.check + found.nothing == 2


def test_a_run_replaces_only_its_own_subsection(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text(
        "# Benchmark results\n\n## Dispatch\n\nother figures\n\n"
        f"## {SECTION}\n\nold intro\n\n### Notes by hand\n\nkept as written\n",
        encoding="utf-8",
    )
    write_run("Batch 2026-12-02, first contact: commit aaa", "first figures", results)
    write_run("Batch 2026-12-02, after: commit bbb", "later figures", results)
    write_run("Batch 2026-12-02, first contact: commit aaa", "first figures again", results)
    text = results.read_text(encoding="utf-8")
    assert "## Dispatch\n\nother figures" in text
    assert "old intro" not in text
    assert text.count("### ") == 3
    assert text.index("### Notes by hand") < text.index("first figures again")
    assert text.index("first figures again") < text.index("later figures")
    assert "first figures\n" not in text


def test_a_run_s_text_names_what_was_scored() -> None:
    fake = FakeScreen(FakeDetection(ReplyLevel.NONE), sends=False)
    items = [screen_phrase(fake, "en", "crisis", "x")]  # type: ignore[arg-type]
    text = run_text(items, command="cmd", machine_line="machine", code="the rules at abc")
    assert "Scored: the rules at abc." in text
    assert "the rules alone were scored" in text
    assert "| English | 1 | 0.0% (0/1) |" in text


def test_the_bar_counts_what_misses_each_limit() -> None:
    full = FakeScreen(FakeDetection(ReplyLevel.CRISIS), sends=True)
    check = FakeScreen(FakeDetection(ReplyLevel.CHECK), sends=True)
    silent = FakeScreen(FakeDetection(ReplyLevel.NONE), sends=False)
    items = [
        screen_phrase(full, "en", "crisis", "a"),  # type: ignore[arg-type]
        screen_phrase(check, "de", "danger", "b"),  # type: ignore[arg-type]
        screen_phrase(silent, "es", "crisis", "c"),  # type: ignore[arg-type]
        screen_phrase(silent, "ko", "crisis", "d"),  # type: ignore[arg-type]
        screen_phrase(full, "ko", "ordinary", "e"),  # type: ignore[arg-type]
        screen_phrase(silent, "en", "ordinary", "f"),  # type: ignore[arg-type]
    ]
    measured, targets = bar_figures(items)
    assert measured == {
        "first11_crisis_danger_nothing_pct": 33.3,
        "first11_crisis_danger_not_full_pct": 66.7,
        "new11_crisis_danger_nothing_pct": 100.0,
        "all_ordinary_full_pct": 50.0,
        "all_ordinary_check_pct": 0.0,
    }
    assert targets["all_ordinary_full_pct"] == 3.0
    assert targets["all_ordinary_check_pct"] == 10.0
