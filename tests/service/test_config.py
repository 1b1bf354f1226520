"""The settings class: its constructor, the environment's text, docs/settings.md."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from paigow.service.books.gaming_day import GamingDay
from paigow.service.config import ServiceConfig, env_name, settings_doc

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bare_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No PAIGOW_* setting in the environment (the conftest sets a cheap hash)."""
    for name in list(os.environ):
        if name.startswith("PAIGOW_") and name.removeprefix("PAIGOW_").lower() in (
            ServiceConfig.model_fields
        ):
            monkeypatch.delenv(name)
    return monkeypatch


def test_docs_settings_md_is_generated_from_the_class() -> None:
    """Regenerate with ``python scripts/make_settings_doc.py``."""
    text = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert text == settings_doc()
    for name in ServiceConfig.model_fields:
        assert f"| `{name}` |" in text


def test_every_setting_is_described() -> None:
    for name, field in ServiceConfig.model_fields.items():
        assert field.description, name


def test_the_constructor_takes_only_what_it_is_given(bare_env: pytest.MonkeyPatch) -> None:
    bare_env.setenv("PAIGOW_TOKEN_TTL_S", "5")
    bare_env.setenv("PAIGOW_ARGON2_MEMORY_KIB", "1024")
    by_position = ServiceConfig("sqlite:///x.db")
    assert by_position == ServiceConfig(database_url="sqlite:///x.db")
    assert (by_position.token_ttl_s, by_position.argon2_memory_kib) == (28_800, 19_456)
    assert ServiceConfig("sqlite:///x.db", token_ttl_s=60).token_ttl_s == 60


def test_defaults_types_and_secrets(bare_env: pytest.MonkeyPatch) -> None:
    c = ServiceConfig.from_env("sqlite:///x.db")
    assert c == ServiceConfig("sqlite:///x.db")
    assert c.secret is None and c.data_dir is None
    assert c.seat_away_s == 60.0 and isinstance(c.seat_away_s, float)
    assert c.idempotency_ttl_s == 86_400 and c.freeze_gc is False and c.run_dealers is True
    assert (c.gaming_day_start, c.gaming_day_tz, c.limit_cooling_s) == ("06:00", "UTC", 86_400.0)
    assert (c.sqlite_synchronous, c.floor_flag_min_hands, c.worker_log_level) == (
        "FULL",
        100,
        "warning",
    )
    shown = ServiceConfig("sqlite:///x.db", secret="s3cret-s3cret")
    assert "s3cret" not in repr(shown) and "s3cret" not in str(shown)
    with pytest.raises(ValidationError):
        shown.secret = "other"  # type: ignore[misc]


def test_from_env_reads_prefixed_names_and_overrides_win(bare_env: pytest.MonkeyPatch) -> None:
    bare_env.setenv("PAIGOW_TOKEN_TTL_S", "120")
    bare_env.setenv("PAIGOW_SEAT_AWAY_S", "2.5")
    bare_env.setenv("PAIGOW_DATABASE_URL", "sqlite:///not-this.db")
    c = ServiceConfig.from_env("sqlite:///x.db", seat_away_s=None, idle_rounds=0)
    assert (c.database_url, c.token_ttl_s, c.seat_away_s, c.idle_rounds) == (
        "sqlite:///x.db",
        120,
        2.5,
        0,
    )
    assert ServiceConfig.from_env("sqlite:///x.db", token_ttl_s=7).token_ttl_s == 7


def _old_convert(kind: str, raw: str) -> Any:
    """How the hand-written ``from_env`` read a variable (and the modules their own)."""
    if "bool" in kind:
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if kind.startswith("int"):
        return int(raw)
    if kind.startswith("float"):
        return float(raw)
    if kind == "str":  # read where they were used: the text as it is
        return raw
    return raw or None


TEXTS = ["", " ", "0", "1", "42", " 7 ", "+3", "1_000", "2.5", "1e3", "-4", "inf", "nan"]
TEXTS += ["true", "True", " YES ", "on", "off", "no", "maybe", "abc", "06:00", "Europe/Paris"]


@pytest.mark.parametrize("raw", TEXTS)
def test_the_environments_text_is_converted_as_before(
    bare_env: pytest.MonkeyPatch, raw: str
) -> None:
    kinds = {
        name: {bool: "bool", int: "int", float: "float", str: "str"}.get(
            field.annotation,  # type: ignore[call-overload]
            "str | None",
        )
        for name, field in ServiceConfig.model_fields.items()
        if name != "database_url"
    }
    for name, kind in kinds.items():
        bare_env.setenv(env_name(name), raw)
        try:
            want = _old_convert(kind, raw)
        except ValueError:
            with pytest.raises(ValueError):
                ServiceConfig.from_env("sqlite:///x.db")
        else:
            got = getattr(ServiceConfig.from_env("sqlite:///x.db"), name)
            assert got == want or (got != got and want != want), (name, raw)  # nan
            assert type(got) is type(want), (name, raw)
        bare_env.delenv(env_name(name))


def test_the_gaming_day_comes_from_the_config(bare_env: pytest.MonkeyPatch) -> None:
    assert GamingDay.of(ServiceConfig.from_env("")) == GamingDay()
    bare_env.setenv("PAIGOW_GAMING_DAY_START", "04:30")
    bare_env.setenv("PAIGOW_GAMING_DAY_TZ", " ")
    day = GamingDay.of(ServiceConfig.from_env(""))
    assert dataclasses.astuple(day)[1] == "UTC"
    assert day.describe() == "from 04:30 to 04:30 the next day, UTC"
    assert GamingDay.of(ServiceConfig("")) == GamingDay()  # given nothing: the defaults
    bare_env.setenv("PAIGOW_GAMING_DAY_START", "noon")
    with pytest.raises(ValueError, match="PAIGOW_GAMING_DAY_START must be HH:MM"):
        GamingDay.of(ServiceConfig.from_env(""))


SETTINGS_READ = re.compile(r"(os\.environ\.get|os\.getenv|os\.environ\[)\(?\s*[\"']PAIGOW_(\w+)")


def test_no_setting_is_read_outside_the_config() -> None:
    """Every setting comes through ServiceConfig: no module of the service but config.py
    reads one from the environment (``env_setting`` is gone; ``from_env`` is the one way)."""
    names = {n.upper() for n in ServiceConfig.model_fields}
    found = []
    for path in sorted((ROOT / "src" / "paigow").rglob("*.py")):
        if path.name == "config.py" and path.parent.name == "service":
            continue
        text = path.read_text()
        if "env_setting" in text:
            found.append(f"{path.relative_to(ROOT)}: env_setting")
        found += [
            f"{path.relative_to(ROOT)}: PAIGOW_{m[1]}"
            for m in SETTINGS_READ.findall(text)
            if m[1] in names
        ]
    assert found == []


def test_with_keeps_the_rest_and_validates() -> None:
    c = ServiceConfig("sqlite:///x.db", secret="a secret of thirty-two characters!", idle_rounds=1)
    d = c.with_(freeze_gc=True)
    assert d.freeze_gc and (d.secret, d.idle_rounds) == (c.secret, 1) and not c.freeze_gc
    with pytest.raises(ValidationError):
        c.with_(no_such_setting=1)
    with pytest.raises(ValidationError):
        c.with_(token_ttl_s="soon")
