"""What a flow step gets to work with, for one event of one user."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from bot.content_pack.ids import Msg
from bot.content_pack.pack import ContentPack
from bot.core.clock import Clock
from bot.core.events import Address
from bot.core.replies import Button, ButtonTemplate, Reply, TokenRows
from bot.observability.metrics import Metrics
from bot.storage.crypto import TextCipher
from bot.storage.db import Database
from bot.storage.flow_positions import FlowData, FlowPosition
from bot.storage.users import User, ensure_user, find_user


@dataclass(frozen=True, slots=True)
class Services:
    """Long-lived things every flow needs; built once at start-up."""

    db: Database
    cipher: TextCipher
    content: ContentPack
    clock: Clock
    retention_days: int = 180  # the operator's STEADY_RETENTION_DAYS: nobody's history outlives it
    # STEADY_STEP_EXPIRY: a question left unanswered this long is closed
    step_expiry: timedelta = timedelta(minutes=30)
    # STEADY_DATA_DIR: where files kept for a user (the console's chart) live; /forget empties it
    data_dir: Path | None = None
    # STEADY_SAFETY_MODEL_RAISES: the learned stage may raise a message to the check
    safety_model_raises: bool = True
    # Counters an operator reads at /metrics (STEADY_HTTP_PORT); nobody's when not served.
    metrics: Metrics = field(default_factory=Metrics)


@dataclass(slots=True)
class KnownUser:
    """The user's row as this event read it, and the database's `user_rows_version` of
    just before the read. The router reads it once per event and passes it down; it
    is read again only after a change to a users row committed since (the event's own
    change of a setting, say), so a step never acts on a setting it just replaced."""

    user: User | None = None
    version: int | None = None  # None: not read (yet, or the read failed)
    # The step this event last put them at (`Flow.move`), whose question is not kept
    # yet: the router keeps it without reading the position back.
    placed: FlowPosition | None = None


@dataclass(frozen=True, slots=True)
class FlowContext:
    services: Services
    address: Address
    locale: str
    known: KnownUser = field(default_factory=KnownUser, compare=False)
    # The app's own language tag for this event ("en-GB", "es-MX"), when it sent one: its
    # region says how dates and numbers are written where no country is known.
    language_tag: str | None = None

    @property
    def db(self) -> Database:
        return self.services.db

    @property
    def cipher(self) -> TextCipher:
        return self.services.cipher

    def now(self) -> datetime:
        return self.services.clock.now()

    def text(self, message: Msg, **values: str | int) -> str:
        """In this platform's wording where the pack has one (what is true differs)."""
        return self.services.content.text_on(self.locale, message, self.address.platform, **values)

    def reply(self, message: Msg, **values: str | int) -> Reply:
        return Reply(text=self.text(message, **values))

    async def find_user(self) -> User | None:
        """The user's row: as read earlier for this event, unless it may have changed."""
        known, version = self.known, self.db.user_rows_version
        if known.version != version:
            found = await find_user(self.db, self.address.platform, self.address.user_id)
            known.user, known.version = found, version
        return known.user

    async def user_id(self) -> int | None:
        """The user's row id. It never changes, so the row as read for this event tells
        it even after a setting changed; None if they have no row."""
        if self.known.user is not None:
            return self.known.user.id
        user = await self.find_user()
        return None if user is None else user.id

    async def ensure_user(self) -> User:
        existing = await self.find_user()
        if existing is not None:
            return existing
        async with self.db.transaction() as tx:
            created = await ensure_user(tx, self.address, self.locale, self.now())
        # Read inside the transaction that wrote it: current as of now.
        self.known.user, self.known.version = created, self.db.user_rows_version
        return created


@dataclass(frozen=True, slots=True)
class Choice:
    """A button: its value, and a message id for its label, or a label that is data
    from the pack itself (an exercise's title, a country's name).

    In a flow's step table, `goes_to` says where a press leads: a step of the same
    flow (asked with that step's own question and buttons), a `Next` spelled out, or
    the handler that answers it (`bot.flows.base`). Outside a table it is not read.
    """

    value: str
    label: Msg | str
    goes_to: str | Next | StepHandler | None = None
    # "yes" or "no" when the button means that answer (a country suggested, "No, try
    # another place"): a typed yes or no in any language presses it. A button whose value
    # is "yes" or "no" means that without saying so.
    means: str | None = None

    @property
    def answer(self) -> str | None:
        return self.means or (self.value if self.value in {"yes", "no"} else None)


@dataclass(frozen=True, slots=True)
class Next:
    """What a step handler returns when the conversation moves on, as a state is returned
    in a PTB conversation: the step to go to (`END` leaves the flow), and what to say.

    The step is asked with its table's question and buttons unless `question` (a message
    id, or text already built with its values) or `rows` (some of its buttons, or buttons
    built from data) say otherwise. `before` and `after` are said around the question.
    """

    step: str
    data: FlowData | None = None
    question: Msg | str | None = None
    rows: Sequence[Sequence[Choice]] | None = None
    before: Sequence[Reply] = ()
    after: Sequence[Reply] = ()
    protect: bool = False  # the question echoes the user's own words


END = ""  # Next(END): the flow is over, the user is at no step
# What came is not one of the step's choices (a value no button of it carries, or a button
# whose earlier answers were lost): `Flow.go` answers "use the buttons", once for all flows.
NOT_A_CHOICE = None
Outcome = list[Reply] | Next | None  # None: NOT_A_CHOICE
StepHandler = Callable[[FlowContext, FlowPosition, str], Awaitable[Outcome]]


def button_data(position: FlowPosition, value: str) -> str:
    """`flow:step:token:value`: names the step it belongs to, so a stale press is recognisable."""
    return f"{position.flow}:{position.step}:{position.token}:{value}"


LabelledRows = tuple[tuple[tuple[str, str], ...], ...]  # (label, value) per button


def labelled(ctx: FlowContext, rows: Sequence[Sequence[Choice]]) -> LabelledRows:
    """Button labels looked up once; `markup` then only adds each user's step and token."""
    return tuple(tuple((_label(ctx, choice), choice.value) for choice in row) for row in rows)


def markup(rows: LabelledRows, position: FlowPosition) -> tuple[tuple[Button, ...], ...]:
    return tuple(
        tuple(Button(label, button_data(position, value)) for label, value in row) for row in rows
    )


@dataclass(frozen=True, slots=True)
class Keyboard:
    """A step's buttons, labels and data written out but for the token, which is each
    user's own: thousands of check-ins due at once share one per locale."""

    # (label, the data before the token, the data after it) per button; the parts
    # make `button_data` once the token is put between them.
    rows: ButtonTemplate

    def with_token(self, token: str) -> TokenRows:
        # This runs for every due check-in: lists, not generators, inside, and each
        # Button made as the tuple it is (all three fields given), skipping the named
        # tuple's own constructor, which only fills in the default.
        make = tuple.__new__
        rows = tuple(
            [
                tuple(
                    [make(Button, (label, head + token + tail, None)) for label, head, tail in row]
                )
                for row in self.rows
            ]
        )
        return TokenRows(rows, self.rows, token)


def keyboard(rows: LabelledRows, flow: str, step: str) -> Keyboard:
    return Keyboard(
        tuple(
            tuple((label, f"{flow}:{step}:", f":{value}") for label, value in row) for row in rows
        )
    )


def choices_markup(
    ctx: FlowContext, position: FlowPosition, rows: Sequence[Sequence[Choice]]
) -> tuple[tuple[Button, ...], ...]:
    return markup(labelled(ctx, rows), position)


def _label(ctx: FlowContext, choice: Choice) -> str:
    return ctx.text(choice.label) if isinstance(choice.label, Msg) else choice.label
