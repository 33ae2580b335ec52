"""The Discord fake rejects what Discord rejects, in Discord's words and codes.

Requests are made with plain aiohttp here, so each check is about the fake alone; the
adapter tests show that discord.py itself gets along with it.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.fakes.discord_api import (
    EPHEMERAL,
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILDS,
    INTENT_MESSAGE_CONTENT,
    LOADING,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    FakeDiscord,
)

ANA = 310_000_000_000_000_001


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def monotonic() -> Clock:
    return Clock()


@pytest.fixture
async def dc(monotonic: Clock) -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(monotonic=monotonic) as fake:
        yield fake


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def api(
    http: aiohttp.ClientSession,
    dc: FakeDiscord,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = "valid",
    **query: str,
) -> tuple[int, Any]:
    headers = (
        {} if token is None else {"Authorization": f"Bot {dc.token if token == 'valid' else token}"}
    )
    async with http.request(
        method, dc.api_url + path, json=body, headers=headers, params=query or None
    ) as response:
        text = await response.text()
        assert response.headers["Content-Type"] == "application/json" or response.status == 204
        return response.status, json.loads(text) if text else None


async def identify(
    http: aiohttp.ClientSession, dc: FakeDiscord, intents: int, token: str | None = None
) -> aiohttp.ClientWebSocketResponse:
    ws = await http.ws_connect(f"{dc.gateway_url}?v=10&encoding=json")
    hello = await ws.receive_json()
    assert hello["op"] == 10 and hello["d"]["heartbeat_interval"] > 0
    await ws.send_json({"op": 2, "d": {"token": token or dc.token, "intents": intents}})
    return ws


async def dispatches(ws: aiohttp.ClientWebSocketResponse, count: int) -> list[dict[str, Any]]:
    return [await ws.receive_json(timeout=2) for _ in range(count)]


async def test_unknown_routes_and_methods(dc: FakeDiscord, http: aiohttp.ClientSession) -> None:
    assert await api(http, dc, "GET", "/nowhere") == (404, {"message": "404: Not Found", "code": 0})
    status, body = await api(http, dc, "DELETE", "/users/@me")
    assert (status, body["code"]) == (405, 0)


async def test_a_missing_or_wrong_token_is_401(
    dc: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    for token in (None, "not-the-token"):
        status, body = await api(http, dc, "GET", "/users/@me", token=token)
        assert (status, body) == (401, {"message": "401: Unauthorized", "code": 0})
    status, body = await api(http, dc, "GET", "/users/@me")
    assert status == 200 and body["bot"] is True


async def test_message_limits(dc: FakeDiscord, http: aiohttp.ClientSession) -> None:
    channel = dc.channel(dc.guild().id).id
    path = f"/channels/{channel}/messages"
    assert (await api(http, dc, "POST", path, {"content": "x" * 2000}))[0] == 200
    status, body = await api(http, dc, "POST", path, {"content": "x" * 2001})
    assert (status, body["code"]) == (400, 50035) and "content" in body["errors"]
    assert await api(http, dc, "POST", path, {"content": " "}) == (
        400,
        {"message": "Cannot send an empty message", "code": 50006},
    )

    def button(custom_id: str) -> dict[str, Any]:
        return {"type": 2, "style": 2, "label": "ok", "custom_id": custom_id}

    def row(*ids: str) -> dict[str, Any]:
        return {"type": 1, "components": [button(i) for i in ids]}

    rejected = [
        [row("a" * 101)],
        [row("a", "b", "c", "d", "e", "f")],
        [row(str(n)) for n in range(6)],
        [row("same", "same")],
        [{"type": 1, "components": []}],
    ]
    for components in rejected:
        status, body = await api(
            http, dc, "POST", path, {"content": "hi", "components": components}
        )
        assert (status, body["code"]) == (400, 50035), components
    ok = [row("a" * 100, "b", "c", "d", "e")] + [row(str(n)) for n in range(4)]
    assert (await api(http, dc, "POST", path, {"content": "hi", "components": ok}))[0] == 200


async def test_who_may_be_written_to(dc: FakeDiscord, http: aiohttp.ClientSession) -> None:
    dc.user(ANA)
    status, channel = await api(http, dc, "POST", "/users/@me/channels", {"recipient_id": ANA})
    assert status == 200 and channel["type"] == 1
    dm = f"/channels/{channel['id']}/messages"
    dc.close_dms(ANA)
    assert (await api(http, dc, "POST", dm, {"content": "hi"}))[1]["code"] == 50007
    room = dc.channel(dc.guild().id)
    path = f"/channels/{room.id}/messages"
    dc.remove_permission(room.id, SEND_MESSAGES)
    assert await api(http, dc, "POST", path, {"content": "hi"}) == (
        403,
        {"message": "Missing Permissions", "code": 50013},
    )
    dc.remove_permission(room.id, VIEW_CHANNEL)
    assert (await api(http, dc, "POST", path, {"content": "hi"}))[1]["code"] == 50001
    assert (await api(http, dc, "POST", "/channels/1/messages", {"content": "hi"}))[1][
        "code"
    ] == 10003


async def test_rate_limits_carry_what_discord_py_reads(
    dc: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    channel = dc.channel(dc.guild().id).id
    fault = dc.inject_rate_limit("POST /channels/{channel_id}/messages", 1.5)
    async with http.post(
        f"{dc.api_url}/channels/{channel}/messages",
        json={"content": "hi"},
        headers={"Authorization": f"Bot {dc.token}"},
    ) as response:
        body = await response.json(content_type=None)
        assert response.status == 429 and response.headers["Via"]
        assert response.headers["X-RateLimit-Remaining"] == "0"
    assert body["retry_after"] == 1.5 and body["global"] is False
    assert fault.hits == 1
    with pytest.raises(ValueError, match="not a route"):
        dc.inject_rate_limit("POST /channel/{channel_id}/messages", 1)


async def test_interaction_callbacks_once_and_within_three_seconds(
    dc: FakeDiscord, http: aiohttp.ClientSession, monotonic: Clock
) -> None:
    ws = await identify(http, dc, INTENT_GUILDS | INTENT_DIRECT_MESSAGES)
    await dispatches(ws, 1)  # READY
    await api(http, dc, "PUT", f"/applications/{dc.application_id}/commands",
              [{"name": "help", "description": "What I can do"}])  # fmt: skip
    first = dc.user_runs_command(ANA, "help")
    callback = f"/interactions/{first.id}/{first.token}/callback"
    followup = f"/webhooks/{dc.application_id}/{first.token}"
    assert (await api(http, dc, "POST", followup, {"content": "early"}, token=None))[1][
        "code"
    ] == 10015  # no followup before the interaction is answered
    status, body = await api(
        http, dc, "POST", callback, {"type": 5, "data": {"flags": EPHEMERAL}}, token=None,
        with_response="1",
    )  # fmt: skip
    assert status == 200 and body["interaction"]["response_message_loading"] is True
    assert await api(http, dc, "POST", callback, {"type": 5}, token=None) == (
        400,
        {"message": "Interaction has already been acknowledged.", "code": 40060},
    )
    # The first followup fills the "thinking" message and keeps the deferral's ephemerality.
    status, message = await api(
        http, dc, "POST", followup, {"content": "here"}, token=None, wait="true"
    )
    assert status == 200 and message["flags"] & EPHEMERAL and not message["flags"] & LOADING
    assert message["id"] == str(first.original_message_id)
    second = await api(http, dc, "POST", followup, {"content": "more"}, token=None, wait="true")
    assert not second[1]["flags"] & EPHEMERAL
    late = dc.user_runs_command(ANA, "help")
    monotonic.now += 3.01
    assert (
        await api(
            http,
            dc,
            "POST",
            f"/interactions/{late.id}/{late.token}/callback",
            {"type": 4, "data": {"content": "too late"}},
            token=None,
        )
    ) == (404, {"message": "Unknown interaction", "code": 10062})
    assert dc.unanswered_interactions() == [late]
    monotonic.now += 15 * 60
    assert (await api(http, dc, "POST", followup, {"content": "x"}, token=None))[1]["code"] == 50027
    await ws.close()


async def test_command_registration_is_validated(
    dc: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    path = f"/applications/{dc.application_id}/commands"
    bad = [
        [{"name": "Help", "description": "x"}],
        [{"name": "help", "description": "x" * 101}],
        [{"name": "help", "description": ""}],
        [{"name": "a", "description": "x", "options": [
            {"name": "o", "description": "x", "type": 3},
            {"name": "r", "description": "x", "type": 3, "required": True}]}],
        [{"name": "a", "description": "x"}, {"name": "a", "description": "y"}],
        # localized names follow the rules of names, for locales Discord knows
        [{"name": "a", "description": "x", "name_localizations": {"es-ES": "Ayuda"}}],
        [{"name": "a", "description": "x", "name_localizations": {"es-ES": "dos palabras"}}],
        [{"name": "a", "description": "x", "name_localizations": {"es": "ayuda"}}],
        [{"name": "a", "description": "x", "name_localizations": {"es-ES": "b" * 33}}],
        [{"name": "a", "description": "x", "name_localizations": {"es-ES": "uno"}},
         {"name": "b", "description": "y", "name_localizations": {"es-ES": "uno"}}],
    ]  # fmt: skip
    for commands in bad:
        status, body = await api(http, dc, "PUT", path, commands)
        assert (status, body["code"]) == (400, 50035), commands
    assert (await api(http, dc, "PUT", "/applications/1/commands", []))[1]["code"] == 50001
    status, stored = await api(http, dc, "PUT", path, [{"name": "help", "description": "x"}])
    assert status == 200 and stored[0]["id"]
    spanish = {"es-ES": "ayuda", "es-419": "ayuda"}
    status, stored = await api(
        http, dc, "PUT", path, [{"name": "help", "description": "x", "name_localizations": spanish}]
    )
    assert status == 200 and stored[0]["name_localizations"] == spanish


async def test_the_client_side_offers_only_what_exists(
    dc: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    ws = await identify(http, dc, INTENT_GUILDS | INTENT_DIRECT_MESSAGES)
    await dispatches(ws, 1)
    guild = dc.guild()
    room = dc.channel(guild.id)
    dc.member(guild.id, ANA)
    await api(http, dc, "PUT", f"/applications/{dc.application_id}/commands", [
        {"name": "admin", "description": "x", "default_member_permissions": "16",
         "contexts": [0]}])  # fmt: skip
    with pytest.raises(ValueError, match="not registered"):
        dc.user_runs_command(ANA, "nope")
    with pytest.raises(ValueError, match="does not offer"):
        dc.user_runs_command(ANA, "admin", channel_id=room.id)
    with pytest.raises(ValueError, match="context"):
        dc.user_runs_command(ANA, "admin")  # guild-only, asked in a DM
    message = dc._store(room.id, dc.bot.id, "hi")
    with pytest.raises(ValueError, match="no button"):
        dc.user_presses(ANA, message, "made-up")
    await ws.close()


async def test_gateway_intents_auth_heartbeat_and_dm_content(
    dc: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    ws = await identify(http, dc, INTENT_GUILDS | INTENT_MESSAGE_CONTENT)
    assert (await ws.receive(timeout=2)).type == aiohttp.WSMsgType.CLOSE
    assert ws.close_code == 4014  # privileged, and not enabled for this application
    ws = await identify(http, dc, INTENT_GUILDS, token="wrong")
    await ws.receive(timeout=2)
    assert ws.close_code == 4004
    guild = dc.guild()
    ws = await identify(http, dc, INTENT_GUILDS | INTENT_DIRECT_MESSAGES)
    ready, created = await dispatches(ws, 2)
    assert ready["t"] == "READY" and ready["d"]["guilds"] == [
        {"id": str(guild.id), "unavailable": True}
    ]
    assert created["t"] == "GUILD_CREATE" and created["s"] == 2
    await ws.send_json({"op": 1, "d": 2})
    assert (await ws.receive_json(timeout=2)) == {"op": 11}
    dc.user_sends_dm(ANA, "hello")
    [event] = await dispatches(ws, 1)
    assert event["t"] == "MESSAGE_CREATE" and event["d"]["content"] == "hello"
    room = dc.channel(guild.id)
    await dispatches(ws, 1)  # CHANNEL_CREATE
    dc.user_sends_in_channel(ANA, room.id, "guild talk")  # no GUILD_MESSAGES: not sent
    dc.user_sends_dm(ANA, "again")
    [event] = await dispatches(ws, 1)
    assert event["d"]["content"] == "again"
    await ws.close()


async def test_a_dropped_connection_resumes_with_the_missed_events(
    dc: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    ws = await identify(http, dc, INTENT_DIRECT_MESSAGES)
    [ready] = await dispatches(ws, 1)
    dc.drop_connection()
    await ws.receive(timeout=2)
    assert ws.close_code == 4000
    dc.user_sends_dm(ANA, "while away")  # kept for the session
    resumed = await http.ws_connect(f"{dc.gateway_url}?v=10&encoding=json&compress=zlib-stream")
    inflate = zlib.decompressobj()

    async def frame() -> dict[str, Any]:
        message = await resumed.receive(timeout=2)
        assert message.type == aiohttp.WSMsgType.BINARY
        return dict(json.loads(inflate.decompress(message.data)))

    assert (await frame())["op"] == 10
    session = ready["d"]["session_id"]
    await resumed.send_json({"op": 6, "d": {"token": dc.token, "session_id": session, "seq": 1}})
    missed, done = await frame(), await frame()
    assert missed["d"]["content"] == "while away" and done["t"] == "RESUMED"
    await resumed.close()
    # A clean close (1000) ends the session: a RESUME after it is refused.
    again = await http.ws_connect(f"{dc.gateway_url}?v=10&encoding=json")
    await again.receive_json()
    await again.send_json({"op": 6, "d": {"token": dc.token, "session_id": session, "seq": 3}})
    assert (await again.receive_json(timeout=2)) == {"op": 9, "d": False}
    await again.close()
