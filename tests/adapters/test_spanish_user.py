"""A Spanish-speaking user on Telegram, Discord and the console: onboarded, checked in,
paused and given crisis help, and never a word of the English pack on the way. The
menus and slash commands carry Spanish words too."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bot.content_pack.commands import Command
from bot.content_pack.ids import (
    CheckinMsg,
    GeneralMsg,
    Msg,
    OnboardingMsg,
    PauseMsg,
    ReminderMsg,
    SafetyMsg,
    SettingsMsg,
)
from bot.content_pack.pack import ContentPack
from bot.storage.users import find_user
from tests.helpers.discord_world import DiscordWorld
from tests.helpers.processes import steady
from tests.helpers.spanish import english_in
from tests.helpers.telegram_world import TelegramWorld

LUCIA = 2001  # on Telegram, her app in Spanish
MATEO = 2002  # on Discord, his client in Spanish (Latin America)


def es(content: ContentPack, message: Msg, **values: str | int) -> str:
    return content.text("es", message, **values)


def test_the_english_check_finds_english(content: ContentPack) -> None:
    """The check the tests below lean on: an English sentence is caught, a Spanish one not."""
    assert english_in(content, [content.text("en", OnboardingMsg.WELCOME)]) != []
    assert english_in(content, [], [content.text("en", SettingsMsg.SETTINGS_DONE)]) != []
    assert (
        english_in(
            content, [es(content, OnboardingMsg.WELCOME)], [es(content, SettingsMsg.SETTINGS_DONE)]
        )
        == []
    )


async def test_telegram_in_spanish_from_start_to_crisis_help(
    telegram: TelegramWorld, content: ContentPack
) -> None:
    tap = telegram.taps
    await telegram.says(LUCIA, "/start", language_code="es")
    assert telegram.last_text(LUCIA) == es(content, OnboardingMsg.LANGUAGE_ASK)
    await tap(LUCIA, "Español")
    await telegram.says(LUCIA, "Europe/Madrid", language_code="es")
    await telegram.says(LUCIA, "08:30", language_code="es")
    await tap(LUCIA, content.country_label("es", "ES"))
    await telegram.says(LUCIA, "/checkin", language_code="es")
    await tap(LUCIA, es(content, CheckinMsg.MOOD_4))
    await tap(LUCIA, es(content, CheckinMsg.URGE_NONE))
    await tap(LUCIA, es(content, CheckinMsg.SKIP_NOTE))
    await telegram.says(LUCIA, "/pause", language_code="es")
    await tap(LUCIA, es(content, PauseMsg.PAUSE_WAIT))
    await tap(LUCIA, es(content, PauseMsg.WAIT_10))
    telegram.clock.set(telegram.clock.now() + timedelta(minutes=11))
    await telegram.dispatcher.tick()
    await telegram.outbox.drain()
    await tap(LUCIA, es(content, PauseMsg.FOLLOWUP_PASSED))
    await telegram.says(LUCIA, "quiero morirme", language_code="es")

    user = await find_user(telegram.services.db, "telegram", str(LUCIA))
    assert user is not None and (user.locale, user.country) == ("es", "ES")
    messages = telegram.bot_messages(LUCIA)
    crisis = next(m.text or "" for m in messages if "024" in (m.text or ""))
    assert crisis.startswith(es(content, SafetyMsg.SAFETY_CRISIS_INTRO))
    assert content.country_in_sentence("es", "ES") in crisis
    labels = [
        button["text"]
        for message in messages
        for row in (message.reply_markup or {}).get("inline_keyboard", [])
        for button in row
    ]
    assert english_in(content, [m.text or "" for m in messages], labels) == []


async def test_telegram_menu_in_spanish(telegram: TelegramWorld, content: ContentPack) -> None:
    menu = {c.command: c.description for c in telegram.tg.commands_for("es")}
    spanish = content.command_descriptions("es", discreet=True)
    named = {content.command_name("es", c): d for c, d in spanish.items()}
    assert menu == {name: d for name, d in named.items() if name != "recordatorio"}
    assert menu["ajustes"] == "Ajustes"  # the names a Spanish reader types, which all work
    assert menu["registro"] == content.command_descriptions("es", discreet=True)[Command.CHECKIN]
    assert "checkin" not in menu


async def test_discord_in_spanish_from_start_to_crisis_help(
    discord_world: DiscordWorld, content: ContentPack
) -> None:
    world = discord_world
    await world.runs(MATEO, "start", locale="es-419")
    assert world.dm_texts(MATEO)[-1] == es(content, OnboardingMsg.LANGUAGE_ASK)
    await world.taps(MATEO, "Español")
    await world.says(MATEO, "America/Mexico_City")
    assert "Ciudad de México (America/Mexico" in world.dm_texts(MATEO)[-1]  # Discord escapes _
    await world.says(MATEO, "08:30")
    await world.taps(MATEO, content.country_label("es", "MX"))
    await world.runs(MATEO, "checkin", locale="es-419")
    await world.taps(MATEO, es(content, CheckinMsg.MOOD_2))
    await world.taps(MATEO, es(content, CheckinMsg.URGE_NONE))
    await world.taps(MATEO, es(content, CheckinMsg.SKIP_NOTE))
    await world.runs(MATEO, "pause", locale="es-419")
    await world.taps(MATEO, es(content, PauseMsg.PAUSE_WAIT))
    await world.taps(MATEO, es(content, PauseMsg.WAIT_10))
    await world.says(MATEO, "ya no puedo más, quiero acabar con todo")

    user = await find_user(world.services.db, "discord", str(MATEO))
    assert user is not None and (user.locale, user.country) == ("es", "MX")
    texts = world.dm_texts(MATEO) + world.ephemeral_texts(MATEO)
    crisis = next(text for text in texts if "800 911 2000" in text)  # Línea de la Vida
    assert crisis.startswith(es(content, SafetyMsg.SAFETY_CRISIS_INTRO))
    labels = [
        str(button.get("label"))
        for message in world.dc.messages.values()
        if message.author_id == world.dc.bot.id
        for button in message.buttons
    ]
    assert english_in(content, texts, labels) == []


async def test_discord_slash_commands_carry_spanish_names_and_words(
    discord_world: DiscordWorld, content: ContentPack
) -> None:
    registered = {c["name"]: c for c in discord_world.dc.commands}  # as the fake accepted them
    spanish = content.command_descriptions("es", discreet=True)
    for locale in ("es-ES", "es-419"):
        assert registered["settings"]["name_localizations"][locale] == "ajustes"
        assert registered["nocontact"]["name_localizations"][locale] == "sin_contacto"
        for command, description in spanish.items():
            words = registered[command.value]["description_localizations"][locale]
            assert words == description
    assert "name_localizations" not in registered["sos"]  # the same in Spanish
    subcommand = registered["reminder"]["options"][0]
    assert subcommand["description_localizations"]["es-ES"] == es(
        content, ReminderMsg.DISCORD_REMINDER_ADD
    )
    for locale in ("es-ES", "es-419"):
        assert registered["checkin"]["name_localizations"][locale] == "registro"
        assert registered["reminder"]["name_localizations"][locale] == "recordatorio"
        subcommands = {
            option["name"]: option["name_localizations"][locale]
            for option in registered["reminder"]["options"]
        }
        assert subcommands == {
            "add": "añadir",
            "list": "lista",
            "pause": "pausar",
            "resume": "reanudar",
            "delete": "borrar",
        }
        options = {
            option["name"]: option["name_localizations"][locale] for option in subcommand["options"]
        }
        assert options == {
            "time": "hora",
            "timezone": "zona_horaria",
            "days": "días",
            "theme": "tema",
            "text": "texto",
        }


def test_the_console_in_spanish_from_start_to_crisis_help(
    tmp_path: Path, content: ContentPack
) -> None:
    lines = [
        "/start",
        "Español",
        "Europe/Madrid",
        "08:30",
        content.country_label("es", "ES"),
        "/checkin",
        "4",
        es(content, CheckinMsg.URGE_NONE),
        es(content, CheckinMsg.SKIP_NOTE),
        "/pause",
        es(content, PauseMsg.PAUSE_WAIT),
        es(content, PauseMsg.WAIT_10),
        "me quiero matar",
    ]
    result = steady(
        ["console"], tmp_path / "data", "".join(f"{line}\n" for line in lines),
        STEADY_CONSOLE_LANGUAGE="es-ES",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    said = result.stdout
    assert es(content, OnboardingMsg.WELCOME) in said
    waiting = content.content("es").messages[PauseMsg.WAIT_STARTED.value]
    assert isinstance(waiting, str) and waiting.split("{")[0] in said  # the clock is real
    assert es(content, SafetyMsg.SAFETY_CRISIS_INTRO) in said and "024" in said
    assert english_in(content, [said]) == []


async def test_a_spanish_command_name_from_the_menu_runs_on_telegram(
    telegram: TelegramWorld, content: ContentPack
) -> None:
    await telegram.says(LUCIA, "/ayuda", language_code="es")
    assert telegram.last_text(LUCIA).startswith(content.text("es", GeneralMsg.HELP_INTRO))
    assert "/ajustes - " in telegram.last_text(LUCIA)


async def test_the_check_in_has_a_spanish_name_and_keeps_its_own(
    telegram: TelegramWorld, content: ContentPack
) -> None:
    await telegram.says(LUCIA, "/start", language_code="es")
    await telegram.taps(LUCIA, "Español")
    await telegram.says(LUCIA, "Europe/Madrid", language_code="es")
    await telegram.says(LUCIA, "08:30", language_code="es")
    await telegram.taps(LUCIA, content.country_label("es", "ES"))
    for name in ("/registro", "/checkin"):
        await telegram.says(LUCIA, name, language_code="es")
        assert es(content, CheckinMsg.ASK_MOOD) in telegram.last_text(LUCIA), name
        await telegram.taps(LUCIA, es(content, CheckinMsg.MOOD_4))
        await telegram.taps(LUCIA, es(content, CheckinMsg.URGE_NONE))
        await telegram.taps(LUCIA, es(content, CheckinMsg.SKIP_NOTE))
        assert telegram.last_text(LUCIA).startswith(es(content, CheckinMsg.CHECKIN_SAVED)), name
    user = await find_user(telegram.services.db, "telegram", str(LUCIA))
    assert user is not None
    count = await telegram.services.db.fetch_one(
        "SELECT COUNT(*) AS n FROM checkins WHERE user_id = ?", (user.id,)
    )
    assert count is not None and count["n"] == 2
