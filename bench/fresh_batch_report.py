"""The fresh batch's figures: as tables for bench/RESULTS.md and as flat JSON figures.

Each run is one `### ` subsection of the "Safety screen: first contact" section. A rerun of
the same batch, run and commit replaces its own subsection; every other subsection (other
runs, notes written by hand) is kept as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.common import Figure
from bench.fresh_batch_files import (
    ENGLISH,
    FIRST_LANGUAGES,
    LABELS,
    LANGUAGES,
    NEW_LANGUAGES,
)
from bench.fresh_batch_scoring import Outcome, Screened, Tally, percent, tally
from bench.results import RESULTS_FILE, write_section

SECTION = "Safety screen: first contact"
GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("en", "English", ENGLISH),
    ("first10", "The ten other first languages", FIRST_LANGUAGES),
    ("new11", "The eleven new languages", NEW_LANGUAGES),
    ("all", "All 22 languages", LANGUAGES),
)
FIRST_ELEVEN = ENGLISH + FIRST_LANGUAGES
SAFETY = ("crisis", "danger")
ORDINARY_FULL_LIMIT = 3.0
ORDINARY_CHECK_LIMIT = 10.0

INTRO = """\
Each batch under `tests/safety/fresh/<date>/` is written blind (before reading any rule) in all
22 languages, and scored here before any fix: that first-contact figure is the only one
that says how the screen meets wording nobody predicted. Later runs score the same batch
again (before/after). The batch is never tuned on, and no test asserts these figures.

Every phrase is screened as the bot screens a private message of an English-locale user
(`SafetyScreen.screen`, then `SafetyScreen.detect` for the urge and contact offers, as the
router does; every language's rules run on every message). *Full* is the crisis or danger
reply, *check* the short "are you safe?" check (one raised by a learned stage counts),
*nothing* no safety reply. Groups: English; the ten other first languages (es de fr pt it
nl pl ru tr hi); the eleven new languages (ar zh ja ko uk sv id tl ro el vi)."""


def _share(part: int, whole: int) -> str:
    value = percent(part, whole)
    return "–" if value is None else f"{value:.1f}% ({part}/{whole})"


def _counts(found: Tally) -> str:
    return f"{found.full} / {found.check} / {found.nothing}"


def run_heading(batch: str, run: str, commit_hash: str) -> str:
    return f"Batch {batch}, {run}: commit {commit_hash}"


def run_text(items: list[Screened], command: str, machine_line: str, code: str) -> str:
    """One run's subsection body: what ran, then the tables."""
    languages = sorted({item.language for item in items}, key=_language_order)
    seen = sum(item.model_seen for item in items)
    raised = sum(item.model_raised for item in items)
    learned = (
        f"A learned stage gave a verdict on {seen} messages and raised {raised} to a check."
        if seen
        else "No detection exposed a learned stage's verdict: the rules alone were scored."
    )
    lines = [
        f"Command, from the repo root: `{command}`",
        "",
        machine_line,
        "",
        f"Scored: {code}. {learned}",
        "",
        f"{len(items)} phrases in {len(languages)} languages.",
        "",
        *_safety_table(items),
        "",
        *_other_table(items),
        "",
        *_bar_table(items),
        "",
        "By label (full / check / nothing):",
        "",
        *_label_table(items),
        "",
        "By language (full / check / nothing; *C+D* is crisis and danger together):",
        "",
        *_language_table(items, languages),
    ]
    return "\n".join(lines)


def _safety_table(items: list[Screened]) -> list[str]:
    rows = [
        "| Crisis and danger | Phrases | Full reply | Full or check | Nothing |"
        " Full reply of the other kind | No safety reply, offered urge/contact instead |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for _, name, languages in GROUPS:
        found = tally(items, languages, SAFETY)
        rows.append(
            f"| {name} | {found.phrases} | {_share(found.full, found.phrases)} |"
            f" {_share(found.full + found.check, found.phrases)} |"
            f" {_share(found.nothing, found.phrases)} | {found.other_full} |"
            f" {found.offered_instead} |"
        )
    return rows


def _other_table(items: list[Screened]) -> list[str]:
    rows = [
        "| Group | Softened: check | Softened: full | Softened: nothing |"
        f" Ordinary: full (limit {ORDINARY_FULL_LIMIT:g}%) |"
        f" Ordinary: check (limit {ORDINARY_CHECK_LIMIT:g}%) |"
        " Ordinary: urge/contact intent | Urge found | Contacted found |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for _, name, languages in GROUPS:
        soft = tally(items, languages, ("softened",))
        plain = tally(items, languages, ("ordinary",))
        urge = tally(items, languages, ("urge",))
        contacted = tally(items, languages, ("contacted",))
        rows.append(
            f"| {name} | {_share(soft.check, soft.phrases)} | {_share(soft.full, soft.phrases)}"
            f" | {_share(soft.nothing, soft.phrases)} | {_share(plain.full, plain.phrases)} |"
            f" {_share(plain.check, plain.phrases)} | {_share(plain.flow_intent, plain.phrases)}"
            f" | {_share(urge.intent_found, urge.phrases)} |"
            f" {_share(contacted.intent_found, contacted.phrases)} |"
        )
    return rows


@dataclass(frozen=True)
class Bar:
    """One of issue 24's limits, as the share of some phrases that may at most miss it."""

    name: str
    key: str  # the figure's name in --json: `<key>_pct`, with `target_<key>_pct`
    languages: tuple[str, ...]
    label: str  # "safety" for crisis and danger together
    missed_by: tuple[Outcome, ...]  # the outcomes that count against the limit
    limit_pct: float  # at most this share may have one of those outcomes


BAR = (
    Bar(
        "Crisis and danger, English and the ten first languages: nothing (so ≥ 98% full or check)",
        "first11_crisis_danger_nothing",
        FIRST_ELEVEN,
        "safety",
        (Outcome.NOTHING,),
        2.0,
    ),
    Bar(
        "Crisis and danger, English and the ten first languages: not the full reply (so ≥ 90%"
        " full)",
        "first11_crisis_danger_not_full",
        FIRST_ELEVEN,
        "safety",
        (Outcome.CHECK, Outcome.NOTHING),
        10.0,
    ),
    Bar(
        "Crisis and danger, the eleven new languages: nothing (so ≥ 90% caught)",
        "new11_crisis_danger_nothing",
        NEW_LANGUAGES,
        "safety",
        (Outcome.NOTHING,),
        10.0,
    ),
    Bar(
        "Ordinary talk, all languages: the full reply",
        "all_ordinary_full",
        LANGUAGES,
        "ordinary",
        (Outcome.FULL,),
        ORDINARY_FULL_LIMIT,
    ),
    Bar(
        "Ordinary talk, all languages: a check",
        "all_ordinary_check",
        LANGUAGES,
        "ordinary",
        (Outcome.CHECK,),
        ORDINARY_CHECK_LIMIT,
    ),
)


def _bar_counts(items: list[Screened], bar: Bar) -> tuple[int, int]:
    """(phrases that missed the limit, phrases) for one limit."""
    labels = SAFETY if bar.label == "safety" else (bar.label,)
    wanted = [item for item in items if item.language in bar.languages and item.label in labels]
    return sum(item.outcome in bar.missed_by for item in wanted), len(wanted)


def bar_figures(items: list[Screened]) -> tuple[dict[str, Figure], dict[str, float]]:
    """Each limit's measured share and its target, for --json (targets are upper bounds)."""
    found: dict[str, Figure] = {}
    for bar in BAR:
        missed, whole = _bar_counts(items, bar)
        found[f"{bar.key}_pct"] = percent(missed, whole)
    return found, {f"{bar.key}_pct": bar.limit_pct for bar in BAR}


def _bar_table(items: list[Screened]) -> list[str]:
    """Issue 24's bar, for reading the run against it (a yardstick here, not a test)."""
    rows = ["| Issue 24's bar | At most | Measured | Met |", "|---|---:|---:|---|"]
    for bar in BAR:
        missed, whole = _bar_counts(items, bar)
        value = percent(missed, whole)
        met = value is not None and value <= bar.limit_pct
        shown = _share(missed, whole)
        rows.append(f"| {bar.name} | {bar.limit_pct:g}% | {shown} | {'yes' if met else 'no'} |")
    return rows


def _label_table(items: list[Screened]) -> list[str]:
    rows = [
        "| Group | Label | Phrases | Full / check / nothing | Intent found |",
        "|---|---|---:|---|---:|",
    ]
    for _, name, languages in GROUPS:
        for label in LABELS:
            found = tally(items, languages, (label,))
            intent = (
                _share(found.intent_found, found.phrases) if label in ("urge", "contacted") else ""
            )
            rows.append(f"| {name} | {label} | {found.phrases} | {_counts(found)} | {intent} |")
    return rows


def _language_table(items: list[Screened], languages: list[str]) -> list[str]:
    rows = [
        "| Language | Crisis | Danger | C+D full | C+D full or check | Softened |"
        " Urge found | Contacted found | Ordinary |",
        "|---|---|---|---:|---:|---|---:|---:|---|",
    ]
    for language in languages:
        crisis = tally(items, (language,), ("crisis",))
        danger = tally(items, (language,), ("danger",))
        both = tally(items, (language,), SAFETY)
        urge = tally(items, (language,), ("urge",))
        contacted = tally(items, (language,), ("contacted",))
        rows.append(
            f"| {language} | {_counts(crisis)} | {_counts(danger)} |"
            f" {_percent_text(both.full, both.phrases)} |"
            f" {_percent_text(both.full + both.check, both.phrases)} |"
            f" {_counts(tally(items, (language,), ('softened',)))} |"
            f" {urge.intent_found}/{urge.phrases} | {contacted.intent_found}/{contacted.phrases}"
            f" | {_counts(tally(items, (language,), ('ordinary',)))} |"
        )
    return rows


def _percent_text(part: int, whole: int) -> str:
    value = percent(part, whole)
    return "–" if value is None else f"{value:.1f}%"


def _language_order(language: str) -> tuple[int, str]:
    return (LANGUAGES.index(language), "") if language in LANGUAGES else (len(LANGUAGES), language)


def figures(items: list[Screened]) -> dict[str, Figure]:
    """Flat figures for --json: per group and per language, each label's counts and the
    summaries (`all_crisis_danger_full_pct`, `de_ordinary_check`, ...)."""
    found: dict[str, Figure] = {"phrases": len(items)}
    scopes = [(key, languages) for key, _, languages in GROUPS]
    scopes += [(language, (language,)) for language in LANGUAGES]
    for key, languages in scopes:
        for label in LABELS:
            one = tally(items, languages, (label,))
            found[f"{key}_{label}_phrases"] = one.phrases
            found[f"{key}_{label}_full"] = one.full
            found[f"{key}_{label}_check"] = one.check
            found[f"{key}_{label}_nothing"] = one.nothing
            if label in ("urge", "contacted"):
                found[f"{key}_{label}_found"] = one.intent_found
        both = tally(items, languages, SAFETY)
        soft = tally(items, languages, ("softened",))
        plain = tally(items, languages, ("ordinary",))
        found[f"{key}_crisis_danger_full_pct"] = percent(both.full, both.phrases)
        found[f"{key}_crisis_danger_full_or_check_pct"] = percent(
            both.full + both.check, both.phrases
        )
        found[f"{key}_softened_check_pct"] = percent(soft.check, soft.phrases)
        found[f"{key}_softened_full_pct"] = percent(soft.full, soft.phrases)
        found[f"{key}_softened_nothing_pct"] = percent(soft.nothing, soft.phrases)
        found[f"{key}_ordinary_full_pct"] = percent(plain.full, plain.phrases)
        found[f"{key}_ordinary_check_pct"] = percent(plain.check, plain.phrases)
    found["model_seen"] = sum(item.model_seen for item in items)
    found["model_raised"] = sum(item.model_raised for item in items)
    return found


def _section_body(path: Path) -> str:
    """The current body of our section (without its `## ` line), or "" when there is none."""
    if not path.exists():
        return ""
    lines = path.read_text(encoding="utf-8").splitlines()
    heading = f"## {SECTION}"
    if heading not in lines:
        return ""
    start = lines.index(heading) + 1
    end = next((at for at in range(start, len(lines)) if lines[at].startswith("## ")), len(lines))
    return "\n".join(lines[start:end])


def _subsections(body: str) -> list[tuple[str, str]]:
    """(heading, whole text) of each `### ` subsection, in order."""
    found: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("### "):
            found.append((line[4:].strip(), [line]))
        elif found:
            found[-1][1].append(line)
    return [(heading, "\n".join(text).strip()) for heading, text in found]


def write_run(heading: str, body: str, path: Path = RESULTS_FILE) -> None:
    """Put this run's subsection into the section: in place of the same heading, else last."""
    ours = f"### {heading}\n\n{body.strip()}"
    kept = _subsections(_section_body(path))
    if any(name == heading for name, _ in kept):
        parts = [ours if name == heading else text for name, text in kept]
    else:
        parts = [text for _, text in kept] + [ours]
    write_section(SECTION, "\n\n".join([INTRO, *parts]), path)
