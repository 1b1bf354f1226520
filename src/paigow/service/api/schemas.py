"""The API's request and response bodies (pydantic 2). Requests refuse unknown fields, take money
only as whole cents (strict integers: no floats, no strings) and bound every string and number."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StringConstraints, model_validator

from paigow.service.accounts.credentials import USERNAME_PATTERN
from paigow.service.game.table_rows import DEFAULT_BETTING_TIME_MS, DEFAULT_SETTING_TIME_MS

MAX_CENTS = 10**12
"""The largest amount any request may name: ten billion dollars."""

Username = Annotated[str, StringConstraints(pattern=USERNAME_PATTERN)]
Password = Annotated[str, StringConstraints(min_length=8, max_length=128)]
IdemKey = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.:\-]{1,100}$")]
Cents = Annotated[int, Field(strict=True, ge=1, le=MAX_CENTS)]
CardCode = Annotated[str, StringConstraints(min_length=1, max_length=8, pattern=r"^[^\x00-\x1f]+$")]
Name = Annotated[
    str, StringConstraints(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ----------------------------------------------------------------------------- requests


TotpCode = Annotated[str, StringConstraints(pattern=r"^[0-9]{6}$")]


RecoveryCodeText = Annotated[str, StringConstraints(min_length=16, max_length=40)]


class SitIn(Strict):
    spot: int = Field(
        strict=True, ge=1, le=6, description="Spot 1..6 (spot 1 at the dealer's far right)"
    )


SideName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,31}$")]
SideWagers = Annotated[dict[SideName, Cents], Field(max_length=8)]


class WagerIn(Strict):
    amount: Cents = Field(description="The wager in cents, within the table's limits")
    side: SideWagers | None = Field(
        default=None,
        description="Side wagers placed with it, by the offer's name (cents), e.g. "
        '{"fortune": 500}: all placed or none',
    )
    play_money: bool | None = Field(
        default=None,
        strict=True,
        description="Play money (a practice table always plays for it; refused with 403 "
        "play-money-casino at a casino table)",
    )
    idempotency_key: IdemKey | None = Field(
        default=None, description="Or the Idempotency-Key header (one is required)"
    )


class SideWagersIn(Strict):
    side: SideWagers = Field(
        min_length=1, description='Side wagers by the offer\'s name (cents), e.g. {"fortune": 500}'
    )
    idempotency_key: IdemKey | None = Field(
        default=None, description="Or the Idempotency-Key header (one is required)"
    )


class SetIn(Strict):
    low: list[CardCode] = Field(
        min_length=2, max_length=2, description="The two cards of the low hand, e.g. ['Kd', '9h']"
    )
    confirm_foul: bool = Field(
        default=False,
        strict=True,
        description="Set true to play a foul setting (it loses under the Indiana rule)",
    )
    round_id: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{1,32}$")] | None = Field(
        default=None,
        description="The round you set for (recommended): refused with 409 if it is not current",
    )
    idempotency_key: IdemKey | None = Field(default=None, description="Optional; or the header")


class HouseWayParams(Strict):
    name: Name
    two_pair: dict[
        Annotated[str, StringConstraints(max_length=32)],
        Annotated[str, StringConstraints(max_length=32)],
    ] = Field(max_length=16)
    quads: dict[
        Annotated[str, StringConstraints(max_length=32)],
        Annotated[str, StringConstraints(max_length=32)],
    ] = Field(max_length=8)


class HouseWayRules(Strict):
    """A house way in the rule language (docs/house-way.md): its file's table as JSON."""

    name: Name
    title: Annotated[str, StringConstraints(max_length=200)] | None = None
    source: Annotated[str, StringConstraints(max_length=500)] | None = None
    bands: dict[
        Annotated[str, StringConstraints(max_length=32)],
        Annotated[str, StringConstraints(max_length=64)],
    ] = Field(default_factory=dict, max_length=16)
    rules: list[dict[Annotated[str, StringConstraints(max_length=16)], Any]] = Field(
        min_length=1, max_length=96, description="The [[rule]] tables, in order"
    )


class SideOfferIn(Strict):
    name: SideName = Field(description="The side wager's name at the table, e.g. 'fortune'")
    paytable: Annotated[str, StringConstraints(max_length=64)] | None = Field(
        default=None, description="A preset pay table by name (or give paytable_toml)"
    )
    paytable_toml: Annotated[str, StringConstraints(max_length=20_000)] | None = Field(
        default=None, description="A pay table's TOML text (or give paytable)"
    )
    min_wager: Cents
    max_wager: Cents
    bank: Annotated[str, StringConstraints(max_length=40)] | None = Field(
        default=None,
        description="A progressive's bank: the tables sharing its meter (default: the pay "
        "table's name)",
    )


class CreateTableIn(Strict):
    name: Name
    commission: Annotated[str, StringConstraints(pattern=r"^[0-9./% ]{1,12}$")] = Field(
        default="5%", description="Posted commission rate, 0 to 5%: '5%', '2.5%' or '0.05'"
    )
    house_way: Annotated[str, StringConstraints(max_length=32)] | HouseWayRules | HouseWayParams = (
        Field(
            default="standard",
            description="A preset by name, an operator's rules (docs/house-way.md) or the "
            "first format's parameters",
        )
    )
    house_way_toml: Annotated[str, StringConstraints(max_length=40_000)] | None = Field(
        default=None, description="An operator's house-way file (TOML text); wins over house_way"
    )
    house_way_file: Annotated[str, StringConstraints(max_length=200)] | None = Field(
        default=None,
        description="The name of the house-way file (what errors in house_way_toml call it)",
    )
    start: Literal["dice", "rng"] = "dice"
    foul: Literal["loses", "reset"] = "loses"
    wheel: Literal["second", "lowest"] = "second"
    mode: Literal["casino", "practice"] = "casino"
    min_wager: Cents = 500
    max_wager: Cents = 100_000
    betting_time_ms: int = Field(default=DEFAULT_BETTING_TIME_MS, strict=True, ge=100, le=3_600_000)
    setting_time_ms: int = Field(default=DEFAULT_SETTING_TIME_MS, strict=True, ge=100, le=3_600_000)
    side_wagers: list[SideOfferIn] = Field(
        default_factory=list, max_length=8, description="The side wagers the table offers"
    )
    variant: Literal["indiana", "ez", "commission-free", "face-up"] | None = Field(
        default=None,
        description="A named variant: its commission, push rule and face up, unless given here",
    )
    push: Literal["none", "queen-high-pai-gow", "nine-high-low", "ace-high-pai-gow"] | None = Field(
        default=None,
        description="The dealer's hand on which every wager pushes (default: the variant's)",
    )
    face_up: StrictBool | None = Field(
        default=None,
        description="The dealer's seven cards dealt face up and set before the players set",
    )
    dragon: StrictBool = Field(
        default=False,
        description="Offer the dragon hand: one empty spot's packet, offered in turn to the "
        "players from the starting position (off by default: the packets of empty spots are "
        "discarded)",
    )
    price_settings: StrictBool = Field(
        default=False,
        description="Show the players the price of each setting after each round (the exact "
        "EV of the setting played, the best and the house way's); off by default at a casino "
        "table, always on at a practice table",
    )


class DragonIn(Strict):
    accept: StrictBool = Field(description="True: wager on the dragon hand; false: decline it")
    amount: Cents | None = Field(
        default=None,
        description="The dragon wager in cents (accepting only): between the table minimum and "
        "your own wager",
    )
    round_id: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{1,32}$")] | None = Field(
        default=None,
        description="The round you answer for (recommended): refused with 409 if not current",
    )
    idempotency_key: IdemKey | None = Field(
        default=None, description="Or the Idempotency-Key header (one is required)"
    )

    @model_validator(mode="after")
    def _amount_with_accept(self) -> DragonIn:
        if self.accept and self.amount is None:
            raise ValueError("accepting the dragon hand needs an amount (cents)")
        if not self.accept and self.amount is not None:
            raise ValueError("a refusal of the dragon hand takes no amount")
        return self


class MoneyIn(Strict):
    amount: Cents
    idempotency_key: IdemKey | None = Field(
        default=None, description="Or the Idempotency-Key header"
    )


# ----------------------------------------------------------------------------- responses
class ErrorOut(BaseModel):
    detail: Any = Field(description="What is wrong")
    code: str = Field(description="A stable short name of the error")


class HealthOut(BaseModel):
    status: Literal["ok"]
    storage: Literal["ok", "storage-full", "storage-read-only"] = "ok"
    """``ok``, or why play is paused: the database out of space or read-only."""


class SeatOut(BaseModel):
    table_id: int
    spot: int
    left: bool = False
    hand_set: bool = Field(
        default=False, description="True when leaving set your hand in play by the house way"
    )


class SpotOut(BaseModel):
    spot: int
    occupied: bool
    player: str | None


class WagerView(BaseModel):
    spot: int
    amount: int


class RoundSummary(BaseModel):
    id: str
    number: int
    phase: str
    deadline: float | None
    time_left_s: float | None
    wagers: list[WagerView]


class TableOut(BaseModel):
    id: int
    name: str
    status: Literal["open", "closing", "closed"]
    mode: Literal["casino", "practice"]
    commission: str = Field(description="The posted commission rate, exact (e.g. '0.05')")
    commission_posted: str = Field(description="The posted commission as shown (e.g. '5%')")
    push: str = Field(default="none", description="The push rule (a PushRule value)")
    push_posted: str | None = Field(default=None, description="The push rule as posted")
    face_up: bool = Field(default=False, description="The dealer's hand is dealt face up")
    dragon: bool = Field(default=False, description="The dragon hand is offered")
    price_settings: bool = Field(
        default=False,
        description="Each setting's price shown after each round (always at a practice table)",
    )
    house_way: str
    house_way_label: str = Field(
        default="",
        description="The house way as shown: a preset's name, or a file's name and the start "
        "of the digest of its rules",
    )
    house_way_digest: str = Field(
        default="",
        description="The house way's identity: the digest of its rules (16 hex digits); a "
        "table keeps the version it opened with",
    )
    start: Literal["dice", "rng"]
    foul: str
    wheel: str
    min_wager: int
    max_wager: int
    side_wagers: list[dict[str, Any]] = Field(
        default_factory=list, description="The side wagers offered, each with its pay table"
    )
    meters: dict[str, int] = Field(
        default_factory=dict, description="The meter of each progressive bank (cents)"
    )
    betting_time_s: float
    setting_time_s: float
    spots: list[SpotOut]
    round: RoundSummary | None
    rounds_played: int


class WagerOut(BaseModel):
    table_id: int
    round_id: str
    spot: int
    amount: int
    side: dict[str, int] = Field(default_factory=dict)
    balance: int = Field(
        description="The wallet's balance, or the play money's at a practice table"
    )
    play_money: bool = False
    betting_closes_at: float | None


class SideWagersOut(BaseModel):
    play_money: bool = False
    table_id: int
    round_id: str
    spot: int
    side: dict[str, int]
    balance: int


class BankIn(Strict):
    amount: int = Field(strict=True, ge=0, le=MAX_CENTS, description="Cents")


class BankOut(BaseModel):
    bank: str
    meter_before: int
    meter: int


class BankView(BaseModel):
    bank: str
    paytable: str
    share: str
    seed: int
    meter: int
    tables: list[int]


class DragonOut(BaseModel):
    table_id: int
    round_id: str
    spot: int = Field(description="Your spot")
    dragon_spot: int = Field(description="The spot whose packet is the dragon hand")
    accepted: bool
    amount: int | None = Field(description="Your dragon wager (cents) when accepted")
    balance: int | None = Field(default=None, description="Your wallet after the wager")
    play_money: bool = Field(default=False, description="The wager was play money (practice)")
    turn: int | None = Field(description="The spot the offer goes to next (None: closed)")


class HouseWaySetIn(Strict):
    round_id: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{1,32}$")] | None = Field(
        default=None,
        description="The round you set for (recommended): refused with 409 if it is not current",
    )
    idempotency_key: IdemKey | None = Field(default=None, description="Optional; or the header")


class SetOut(BaseModel):
    table_id: int
    round_id: str
    spot: int
    high: list[str]
    low: list[str]
    foul: bool
    by: str
    reason: str | None


class SettingView(BaseModel):
    high: list[str]
    low: list[str]
    foul: bool
    by: str
    reason: str | None


class HandOut(BaseModel):
    table_id: int
    round_id: str
    phase: str
    spot: int
    wager: int
    cards: list[str] | None
    setting: SettingView | None
    deadline: float | None


class BestOut(BaseModel):
    high: list[str]
    low: list[str]
    high_name: str
    low_name: str
    outcome: Literal["win", "push", "loss"]
    pushed_by_rule: bool = Field(description="The dealer's hand triggers the push rule")


class HintOut(BaseModel):
    house_way: str
    rule: str
    high: list[str]
    low: list[str]
    high_name: str
    low_name: str
    best: BestOut | None = Field(
        default=None,
        description="Face-up tables: the setting that does best against the dealer's, shown",
    )


class HouseWayIdentity(BaseModel):
    name: str
    label: str = Field(description="As shown: a preset's name, or a file's name and digest")
    digest: str = Field(description="The digest of its rules (16 hex digits): its identity")


class RoundOut(BaseModel):
    id: str
    table_id: int
    number: int
    phase: str
    over: bool
    complete_log: bool = Field(description="True: the complete log (replayable by Round.replay)")
    created_at: float
    ended_at: float | None
    players: dict[str, str]
    result: dict[str, Any] | None
    house_way: HouseWayIdentity | None = Field(
        default=None, description="The house way the round was dealt under, as its log records it"
    )
    events: list[dict[str, Any]]


class CloseOut(BaseModel):
    table_id: int
    status: str


class MoneyOut(BaseModel):
    username: str
    amount: int
    balance: int
    transaction_id: int


class LedgerOut(BaseModel):
    balanced: bool
    credited: int
    sum_of_accounts: int
    transactions: int
    entries: int
    system_accounts: dict[str, int]
    wallets_total: int
    problems: list[str]
