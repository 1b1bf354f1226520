"""The operators' second factor: TOTP (RFC 6238, 30 s steps, 6 digits) with ``pyotp``, enrolled
by a QR code that ``segno`` draws as an SVG data URI (allowed by ``img-src 'self' data:``).

A code is accepted within one step either side of now, and never twice: the step it matched is
kept, and a code of that step or an earlier one is refused (``code-used``).

The secret is stored encrypted with a key derived from the service's secret
(:meth:`paigow.service.accounts.auth_tokens.TokenSigner.derive`): a random 16-byte nonce, the secret
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

Confirming a second factor also gives the operator ten one-time recovery codes (each 80 random
bits, shown once, stored as their SHA-256): one may stand in for a code, once, when the
authenticator is lost. ``paigow admin reset-2fa`` removes both for a locked-out operator.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from typing import Any, Final

import pyotp
import segno
import sqlalchemy as sa
from pyotp.utils import strings_equal
from sqlalchemy.orm import Session

from paigow.service.http_errors import Conflict, Unauthorized
from paigow.service.store.session_models import EnrolmentRequired, OperatorTotp, RecoveryCode

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


def confirm(session: Session, key: bytes, user_id: int, code: str, at: float) -> list[str]:
    """Turn the enrolled second factor on with its first code; the operator's ten new recovery
    codes (shown once)."""
    check_code(session, key, user_id, code, at)
    row = _row(session, user_id)
    assert row is not None
    if row.confirmed_at is None:
        row.confirmed_at = at
    session.execute(sa.delete(EnrolmentRequired).where(EnrolmentRequired.user_id == user_id))
    return new_recovery_codes(session, user_id)


RECOVERY_CODES: Final = 10
"""How many recovery codes an operator gets."""
_B32: Final = "abcdefghijklmnopqrstuvwxyz234567"


def new_recovery_code() -> str:
    """A recovery code: 16 base32 letters (80 random bits) in four groups.

    >>> code = new_recovery_code()
    >>> len(code), code.count("-"), normal_code(code.upper().replace("-", " ")) == code
    (19, 3, True)
    """
    letters = "".join(secrets.choice(_B32) for _ in range(16))
    return "-".join(letters[i : i + 4] for i in range(0, 16, 4))


def normal_code(text: str) -> str:
    """A recovery code as typed (any case, spaces or dashes) in its written form."""
    letters = "".join(c for c in text.lower() if c.isalnum())
    return "-".join(letters[i : i + 4] for i in range(0, len(letters), 4))


def _hash_code(code: str) -> str:
    return hashlib.sha256(normal_code(code).encode("ascii", "replace")).hexdigest()


def new_recovery_codes(session: Session, user_id: int) -> list[str]:
    """Ten fresh recovery codes for ``user_id`` (any earlier ones are spent); their text, to be
    shown once: only their hashes are kept."""
    session.execute(sa.delete(RecoveryCode).where(RecoveryCode.user_id == user_id))
    codes = [new_recovery_code() for _ in range(RECOVERY_CODES)]
    session.add_all(RecoveryCode(user_id=user_id, code_hash=_hash_code(c)) for c in codes)
    return codes


def use_recovery_code(session: Session, user_id: int, code: str, at: float) -> int:
    """Spend one of ``user_id``'s recovery codes (401 ``bad-code`` when it is not one, or was
    used); how many remain."""
    rows = (
        session.execute(
            sa.select(RecoveryCode)
            .where(RecoveryCode.user_id == user_id, RecoveryCode.used_at.is_(None))
            .with_for_update()
        )
        .scalars()
        .all()
    )
    wanted = _hash_code(code)
    hit = next((r for r in rows if hmac.compare_digest(r.code_hash, wanted)), None)
    if hit is None:
        raise Unauthorized("that recovery code is not right, or was used", code="bad-code")
    hit.used_at = at
    return len(rows) - 1


def reset(session: Session, user_id: int) -> bool:
    """Remove ``user_id``'s second factor and recovery codes (a locked-out operator), and make
    them enrol again at their next sign-in; whether one was on."""
    was = is_enrolled(session, user_id)
    session.execute(sa.delete(RecoveryCode).where(RecoveryCode.user_id == user_id))
    session.execute(sa.delete(OperatorTotp).where(OperatorTotp.user_id == user_id))
    require_enrolment(session, user_id)
    return was


def require_enrolment(session: Session, user_id: int) -> None:
    """Make ``user_id`` enrol a second factor at their next sign-in."""
    if session.get(EnrolmentRequired, user_id) is None:
        session.add(EnrolmentRequired(user_id=user_id, since=time.time()))


def must_enrol(session: Session, user_id: int) -> bool:
    """Whether ``user_id`` was told to enrol a second factor at their next sign-in."""
    return session.get(EnrolmentRequired, user_id) is not None
