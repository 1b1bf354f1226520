// The table page's reducer (src/paigow/service/web/table_state.js) under Node's test runner: the
// feed's messages of a round (written by test_table_state.py to $TABLE_STATE_FEED: a table
// offering the dragon hand and side wagers, the viewer alice at spot 2, bob at spot 5, a
// reconnect's hello halfway, the next round's first event) reduced one by one, the state
// checked after each. Every state is frozen before the next message: the reducer never changes
// the state it is given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dragonTurn } from "../../src/paigow/service/web/describe.js";
import { rankValue } from "../../src/paigow/service/web/cards.js";
import {
  ended, initialState, livePhase, myCards, myDealtSpot, mySeat, myWagerSpot, reduce, seatOf, showsRound, stillSetting,
} from "../../src/paigow/service/web/table_state.js";

const feed = JSON.parse(readFileSync(process.env.TABLE_STATE_FEED, "utf8"));

function freeze(x) {
  if (x && typeof x === "object" && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x)) freeze(v);
  }
  return x;
}

/** ``x`` less what the feed adds to each event (its round, its time): a hello's log has neither. */
const bare = (x) => JSON.parse(JSON.stringify(x, (k, v) => (["round_id", "round_number", "committed_at"].includes(k) ? undefined : v)));

/** What must hold after each message, by its type (and spot, where two of a type differ). */
const CHECKS = {
  hello(st, prev, msg) {
    assert.deepEqual(st.table, msg.table);
    assert.equal(st.epoch, prev.epoch + 1);
    if (!msg.round) {
      assert.equal(st.roundId, null);
      assert.deepEqual(st.events, []);
      assert.equal(livePhase(st), null);
      assert.equal(mySeat(st), null);
      return;
    }
    // a reconnect: the round as the events so far built it, the players from the hello
    assert.equal(st.roundId, prev.roundId);
    assert.equal(st.roundNumber, 1);
    assert.deepEqual(st.events.map((e) => e.seq), prev.events.map((e) => e.seq));
    assert.deepEqual(bare(st.round), bare(prev.round));
    assert.deepEqual(st.players, { 2: "alice", 5: "bob" });
    assert.equal(livePhase(st), "setting");
  },
  table(st, prev, msg) {
    assert.deepEqual(st.table, msg.table);
    assert.equal(st.round, prev.round);
    const seated = Object.fromEntries(msg.table.spots.filter((s) => s.player).map((s) => [s.spot, s.player]));
    assert.equal(mySeat(st), seated[2] === "alice" ? 2 : null);
    for (const [spot, who] of Object.entries(seated)) assert.equal(seatOf(st, Number(spot)).player, who);
    if (seated[5] === "bob" && st.round.wagers[5]) assert.equal(st.players[5], "bob"); // learnt once seated
    if (!seated[2] && st.round.totals) {
      assert.equal(showsRound(st, 2), false); // alice left after the round: her spot shows nothing of it
      assert.equal(showsRound(st, 5), true);
    }
  },
  "round-started"(st, prev, msg) {
    assert.equal(st.roundId, msg.round_id);
    assert.equal(st.roundNumber, msg.round_number);
    assert.equal(st.epoch, prev.epoch + 1);
    assert.deepEqual(st.events, [msg]);
    assert.deepEqual(st.players, {});
    assert.equal(st.leaving, false);
    assert.equal(st.round.started, msg);
    assert.equal(ended(st.round), false);
    assert.equal(livePhase(st), "betting");
  },
  "wager-placed"(st, prev, msg) {
    assert.equal(st.round.wagers[msg.spot], msg.amount);
    if (msg.spot === 2) {
      assert.equal(st.players[2], "alice");
      assert.equal(myWagerSpot(st), 2);
    } else {
      assert.equal(st.players[5], undefined); // bob's seat is not in the table state yet
    }
  },
  "side-wager-placed"(st, prev, msg) {
    assert.equal(st.round.sides[msg.spot][msg.name], msg.amount);
  },
  shuffled(st) {
    assert.equal(livePhase(st), "betting");
  },
  "start-chosen"(st, prev, msg) {
    assert.equal(st.round.start.position, msg.position);
    assert.equal(livePhase(st), "starting");
  },
  dealt(st, prev, msg) {
    assert.equal(myDealtSpot(st), 2);
    const cards = myCards(st);
    assert.deepEqual([...cards].sort(), [...msg.your_cards["2"]].sort());
    cards.slice(1).forEach((c, i) => assert.ok(rankValue(cards[i]) >= rankValue(c), `${cards} sorted high to low`));
    assert.equal(livePhase(st), "setting");
    assert.equal(stillSetting(st), "spot 5 (bob)");
  },
  "dragon-offered"(st, prev, msg) {
    assert.equal(st.round.dragon.spot, msg.spot);
    assert.deepEqual(st.round.dragon.order, [5, 2]);
    assert.equal(dragonTurn(st.round), 5);
  },
  "dragon-declined"(st) {
    assert.deepEqual(st.round.dragon.declined, [5]);
    assert.equal(dragonTurn(st.round), 2);
  },
  "dragon-accepted"(st, prev, msg) {
    assert.equal(st.round.dragon.by, 2);
    assert.equal(st.round.dragon.amount, msg.amount);
    assert.equal(dragonTurn(st.round), null);
  },
  "dragon-set"(st) {
    assert.equal(st.round.dragon.setting, null); // face down until the showdown
  },
  "hand-set"(st, prev, msg) {
    if (msg.spot === 2) {
      assert.deepEqual(st.round.settings[2].high, msg.high); // your own setting, cards and all
      assert.equal(stillSetting(st), "spot 5 (bob)");
    } else {
      assert.equal(st.round.settings[5].high, undefined); // another's: set, cards unseen
      assert.equal(stillSetting(st), "");
    }
  },
  "dealer-set"(st, prev, msg) {
    assert.deepEqual(st.round.dealer.high, msg.high);
    assert.deepEqual(st.round.settings[5].high, msg.settings["5"].high); // the showdown shows every hand
    assert.deepEqual(st.round.dragon.setting.high, msg.dragon.high);
    assert.equal(livePhase(st), "dealer");
  },
  "spot-settled"(st, prev, msg) {
    assert.equal(st.round.results.at(-1).spot, msg.spot);
    assert.equal(st.round.results.length, prev.round.results.length + 1);
  },
  "dragon-settled"(st, prev, msg) {
    assert.equal(st.round.dragon.result.outcome, msg.outcome);
    assert.equal(st.round.dragon.by, 2);
  },
  "side-wager-settled"(st, prev, msg) {
    assert.deepEqual(st.round.sideResults, [msg]);
  },
  "round-settled"(st, prev, msg) {
    assert.equal(st.round.totals, msg);
    assert.equal(ended(st.round), true);
    assert.equal(livePhase(st), "settled");
    assert.equal(stillSetting(st), "");
    assert.equal(showsRound(st, 2), true);
  },
  meter(st, prev, msg) {
    if (msg.bank === "pb") assert.equal(st.table.meters.pb, msg.meter);
    else assert.equal(st, prev); // a bank this table does not offer: nothing changes
  },
  wallet(st, prev) {
    assert.equal(st, prev);
  },
  "leave-question"(st, prev, msg) {
    assert.equal(st.leaving, msg.open);
  },
  "you-left"(st) {
    assert.equal(st.leaving, false);
    assert.equal(st.leftMidRound, null); // nothing in play: the round was over
  },
};

test("the reducer over a round of the feed", () => {
  let state = freeze(initialState({ spots: [], side_wagers: [] }, "alice"));
  const seen = new Set();
  for (const { msg } of feed) {
    const prev = state;
    state = freeze(reduce(prev, freeze(msg)));
    const check = CHECKS[msg.type];
    assert.ok(check, `no check for ${msg.type}`);
    if (msg.round_id) {
      if (msg.type !== "round-started") {
        assert.equal(state.events.length, prev.events.length + 1, `${msg.type} kept`);
        assert.equal(state.epoch, prev.epoch);
      }
      assert.equal(state.events.at(-1), msg);
    }
    check(state, prev, msg);
    seen.add(msg.type);
  }
  // every kind of message the page reduces came by
  assert.deepEqual([...seen].sort(), Object.keys(CHECKS).sort());
});

test("a mid-round leave keeps your wager's spot as yours", () => {
  let state = initialState({ spots: [{ spot: 3, occupied: true, player: "alice" }], side_wagers: [] }, "alice");
  const round = feed.find(({ msg }) => msg.type === "round-started").msg;
  state = reduce(state, round);
  state = reduce(state, { round_id: round.round_id, round_number: 1, seq: 1, type: "wager-placed", spot: 3, amount: 500, text: "spot 3 wagers $5.00" });
  state = reduce(state, { type: "leave-question", open: true });
  assert.equal(state.leaving, true);
  state = reduce(state, { type: "you-left", spot: 3, inPlay: true });
  state = reduce(state, { type: "table", table: { spots: [{ spot: 3, occupied: false, player: null }], side_wagers: [] } });
  assert.equal(state.leaving, false);
  assert.equal(state.leftMidRound, round.round_id);
  assert.equal(mySeat(state), null);
  assert.equal(myWagerSpot(state), 3); // still yours to watch play out
  assert.equal(state.players[3], "alice");
});
