"""The operators' second factor: TOTP (RFC 6238, 30 s steps, 6 digits) with ``pyotp``, enrolled
by a QR code that ``segno`` draws as an SVG data URI (allowed by ``img-src 'self' data:``).

A code is accepted within one step either side of now, and never twice: the step it matched is
kept, and a code of that step or an earlier one is refused (``code-used``).

The secret is stored encrypted with a key derived from the service's secret
(:meth:`paigow.service.accounts.auth.TokenSigner.derive`): a random 16-byte nonce, the secret
XORed with an HMAC-SHA256 keystream of (key, nonce, counter), and an HMAC-SHA256 tag over both
(encrypt-then-MAC, the standard library only: no AES library is among the dependencies).

>>> key = b"k" * 32
>>> box = seal(key, "JBSWY3DPEHPK3PXP")
>>> box != "JBSWY3DPEHPK3PXP" and unseal(key, box)
'JBSWY3DPEHPK3PXP'
>>> unseal(b"x" * 32, box)
Traceback (most recent call last):
...
ValueError: the stored second factor does not decrypt
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Any, Final

import pyotp
import segno
import sqlalchemy as sa
from pyotp.utils import strings_equal
from sqlalchemy.orm import Session

from paigow.service.errors import Conflict, Unauthorized
from paigow.service.store.session_models import OperatorTotp

ISSUER: Final = "paigow"
KEY_LABEL: Final = b"totp-secrets"
"""The label of the key that encrypts the secrets (:meth:`TokenSigner.derive`)."""
WINDOW: Final = 1
"""Steps accepted either side of now (RFC 6238's recommended network delay allowance)."""


MODES: Final = ("off", "enrolled", "required")
"""The values of the setting ``operator_second_factor``."""


def second_factor_mode(text: str) -> str:
    """The setting ``operator_second_factor`` checked (any case; empty: ``enrolled``).

    >>> second_factor_mode(" Required "), second_factor_mode("")
    ('required', 'enrolled')
    >>> second_factor_mode("sometimes")
    Traceback (most recent call last):
    ...
    ValueError: operator_second_factor must be off, enrolled or required, not 'sometimes'
    """
    mode = text.strip().lower() or "enrolled"
    if mode not in MODES:
        raise ValueError(
            f"operator_second_factor must be off, enrolled or required, not {text.strip()!r}"
        )
    return mode


def _stream(key: bytes, nonce: bytes, n: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < n:
        out += hmac.new(key, b"enc" + nonce + counter.to_bytes(4, "big"), hashlib.sha256).digest()
        counter += 1
    return out[:n]


def seal(key: bytes, secret: str) -> str:
    """``secret`` encrypted and authenticated under ``key`` (base64url text)."""
    nonce = secrets.token_bytes(16)
    plain = secret.encode("ascii")
    body = bytes(a ^ b for a, b in zip(plain, _stream(key, nonce, len(plain)), strict=True))
    tag = hmac.new(key, b"mac" + nonce + body, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(nonce + tag + body).decode("ascii")


def unseal(key: bytes, box: str) -> str:
    """The secret :func:`seal` encrypted; ValueError when the key is not the one it used."""
    raw = base64.urlsafe_b64decode(box.encode("ascii"))
    nonce, tag, body = raw[:16], raw[16:48], raw[48:]
    if not hmac.compare_digest(tag, hmac.new(key, b"mac" + nonce + body, hashlib.sha256).digest()):
        raise ValueError("the stored second factor does not decrypt")
    return bytes(a ^ b for a, b in zip(body, _stream(key, nonce, len(body)), strict=True)).decode()


def _row(session: Session, user_id: int, lock: bool = False) -> OperatorTotp | None:
    q = sa.select(OperatorTotp).where(OperatorTotp.user_id == user_id)
    return session.execute(q.with_for_update() if lock else q).scalar_one_or_none()


def is_enrolled(session: Session, user_id: int) -> bool:
    """Whether ``user_id`` has a confirmed second factor."""
    row = _row(session, user_id)
    return row is not None and row.confirmed_at is not None


def enrol(session: Session, key: bytes, user_id: int, username: str) -> dict[str, Any]:
    """A fresh secret for ``user_id`` (replacing one not yet confirmed): its otpauth URI and the
    QR code of it as an SVG data URI. 409 ``second-factor-enrolled`` once confirmed."""
    row = _row(session, user_id, lock=True)
    if row is not None and row.confirmed_at is not None:
        raise Conflict(
            "a second factor is already on for this operator", code="second-factor-enrolled"
        )
    secret = pyotp.random_base32()
    if row is None:
        session.add(OperatorTotp(user_id=user_id, secret=seal(key, secret), last_step=0))
    else:
        row.secret, row.last_step = seal(key, secret), 0
    uri = pyotp.TOTP(secret).provisioning_uri(name=username, issuer_name=ISSUER)
    qr = segno.make(uri, error="m").svg_data_uri(scale=4, border=2)
    return {"otpauth_uri": uri, "qr": qr}


def check_code(session: Session, key: bytes, user_id: int, code: str, at: float) -> None:
    """Accept ``code`` for ``user_id`` (enrolled or enrolling) once, or refuse it (401
    ``bad-code``, ``code-used``, ``not-enrolled``). Locks the row: two uses of one code in
    parallel cannot both pass."""
    row = _row(session, user_id, lock=True)
    if row is None:
        raise Unauthorized(
            "no second factor is enrolled: enrol one first", code="second-factor-not-enrolled"
        )
    totp = pyotp.TOTP(unseal(key, row.secret))
    now_step = totp.timecode(at)
    step = next(
        (
            s
            for s in range(now_step - WINDOW, now_step + WINDOW + 1)
            if strings_equal(code.strip(), totp.generate_otp(s))
        ),
        None,
    )
    if step is None:
        raise Unauthorized("the code is not right (or its time has passed)", code="bad-code")
    if step <= row.last_step:
        raise Unauthorized("that code was already used: wait for the next one", code="code-used")
    row.last_step = step


def confirm(session: Session, key: bytes, user_id: int, code: str, at: float) -> None:
    """Turn the enrolled second factor on with its first code."""
    check_code(session, key, user_id, code, at)
    row = _row(session, user_id)
    assert row is not None
    if row.confirmed_at is None:
        row.confirmed_at = at
