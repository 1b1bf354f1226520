// The player's own limits: a daily loss limit and a self-exclusion.
import { api, session, money, parseCents } from "./api.js";
import { h, announce, errorText } from "./dom.js";

function when(ts) {
  return `${new Date(ts * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export async function limitsView(root, shell) {
  root.append(h("h1", {}, "My limits"));
  await shell.refreshWho();
  if (!session.user) {
    root.append(h("p", { class: "panel" }, "Log in from the ", h("a", { href: "#/lobby" }, "lobby"), " to set your limits."));
    return null;
  }
  const msg = h("p", { id: "limits-msg", role: "status", "aria-live": "polite" });
  const state = h("div", { id: "limits-state", class: "panel" });
  async function load() {
    const st = await api("GET", "/api/me/limits");
    state.replaceChildren(
      h("h2", {}, "Now"),
      h("p", { id: "limit-now", "data-cents": st.daily_loss_limit ?? "" },
        st.daily_loss_limit === null ? "No daily loss limit." : `Daily loss limit: ${money(st.daily_loss_limit)}; lost today ${money(Math.max(0, st.loss_today))}; ${money(st.left_today)} left.`),
      st.pending ? h("p", {}, `From ${when(st.pending.from)}: ${st.pending.daily_loss_limit === null ? "no limit" : money(st.pending.daily_loss_limit)} (a higher limit waits 24 hours).`) : "",
      h("p", { id: "exclusion-now" }, st.excluded ? `You have excluded yourself from play until ${when(st.excluded_until)}. It cannot be lifted before then.` : "You are not excluded from play."),
      h("p", { class: "hint", id: "gaming-day", "data-day": st.gaming_day },
        `Today's gaming day is ${st.gaming_day_text}: your daily loss limit counts the wagers of that day.`));
    root.dataset.ready = "1";
  }
  const amount = h("input", { id: "loss-limit", inputmode: "decimal", placeholder: "e.g. 50.00", autocomplete: "off" });
  const limitForm = h("form", {
    class: "panel", id: "limit-form",
    onsubmit: async (ev) => {
      ev.preventDefault();
      const text = amount.value.trim();
      const cents = text === "" ? null : parseCents(text);
      if (Number.isNaN(cents) || cents === 0) { msg.className = "error"; msg.textContent = "Give the limit in dollars, like 50 or 12.50 (empty: no limit)."; return; }
      try {
        await api("POST", "/api/me/limits", { daily_loss_limit: cents });
        msg.className = "ok";
        msg.textContent = cents === null ? "Limit removal asked for (in force after 24 hours)." : `Daily loss limit set to ${money(cents)}.`;
        announce(msg.textContent);
        await load();
      } catch (err) { msg.className = "error"; msg.textContent = errorText(err); }
    },
  }, h("h2", {}, "Daily loss limit"),
  h("p", { class: "hint" }, "Lowering takes effect at once; raising or removing it after 24 hours."),
  h("div", { class: "row" }, h("label", {}, "Limit in dollars (empty: none)", amount), h("button", { type: "submit", class: "primary", id: "limit-btn" }, "Set the limit")));
  const days = h("input", { id: "exclude-days", type: "number", min: 1, max: 3650, value: 30, required: true });
  const confirmBox = h("input", { id: "exclude-confirm", type: "checkbox", required: true });
  const exclusion = h("form", {
    class: "panel", id: "exclusion-form",
    onsubmit: async (ev) => {
      ev.preventDefault();
      try {
        await api("POST", "/api/me/exclusion", { days: Math.round(Number(days.value)) });
        msg.className = "ok";
        msg.textContent = `You are excluded from play for ${days.value} days.`;
        announce(msg.textContent);
        await load();
      } catch (err) { msg.className = "error"; msg.textContent = errorText(err); }
    },
  }, h("h2", {}, "Exclude myself"),
  h("p", { class: "hint" }, "No wagers until the period ends. Neither you nor the operator can lift it early."),
  h("div", { class: "row" }, h("label", {}, "Days", days),
    h("label", { class: "check" }, h("span", {}, "I understand it cannot be undone"), confirmBox),
    h("button", { type: "submit", class: "danger", id: "exclude-btn" }, "Exclude me")));
  root.append(msg, state, h("div", { class: "grid2" }, limitForm, exclusion));
  await load();
  return null;
}
