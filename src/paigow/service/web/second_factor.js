// The operator's second factor (TOTP): enrol by QR code and confirm with a first code, or verify
// the code after a log-in without it. The QR code is an SVG data URI (CSP: img-src 'self' data:).
import { api, keepSession } from "./api.js";
import { h, errorText } from "./dom.js";

/** Show the enrolment (or verification) form in `root`; a passed code keeps the new token and
 * re-renders the page (the paigow:session event). */
export async function secondFactorPanel(root) {
  const msg = h("p", { id: "sf-msg", role: "alert" });
  const code = h("input", { id: "sf-code", name: "code", inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}", maxlength: 6, required: true });
  const panel = h("section", { class: "panel", id: "second-factor", "aria-labelledby": "sf-title" }, h("h2", { id: "sf-title" }, "Second factor"));
  let path = "/api/auth/totp/confirm";
  try {
    const out = await api("POST", "/api/auth/totp/enrol");
    panel.append(
      h("p", {}, "The operator's pages need a second factor. Scan this code with an authenticator app, then enter the 6-digit code it shows."),
      h("img", { id: "sf-qr", src: out.qr, alt: "QR code of the second factor's secret", width: 200, height: 200 }),
      h("p", {}, "Or enter this address in the app: ", h("code", { id: "sf-uri" }, out.otpauth_uri)));
  } catch (err) {
    if (err.code !== "second-factor-enrolled") throw err;
    path = "/api/auth/totp/verify";
    panel.append(h("p", {}, "Enter the 6-digit code your authenticator app shows."));
  }
  const verifying = path.endsWith("/verify");
  // a lost authenticator: one of the recovery codes stands in for a code, once
  const recovery = h("input", { id: "sf-recovery", name: "recovery_code", autocomplete: "off", maxlength: 40, placeholder: "xxxx-xxxx-xxxx-xxxx" });
  if (verifying) code.required = false;
  const form = h("form", {
    id: "sf-form",
    onsubmit: async (ev) => {
      ev.preventDefault();
      msg.textContent = "";
      const body = verifying && recovery.value.trim() ? { recovery_code: recovery.value.trim() } : { code: code.value.trim() };
      try {
        const out = await api("POST", path, body);
        keepSession(out);
        if (out.recovery_codes && out.recovery_codes.length) {
          showRecoveryCodes(panel, out.recovery_codes);
        } else {
          document.dispatchEvent(new CustomEvent("paigow:session"));
        }
      } catch (err) {
        msg.className = "error";
        msg.textContent = errorText(err);
      }
    },
  }, h("div", { class: "row" }, h("label", {}, "Code", code),
    verifying ? h("label", {}, "Or a recovery code", recovery) : null,
    h("button", { type: "submit", class: "primary" }, verifying ? "Verify" : "Confirm")));
  panel.append(form, msg);
  root.append(panel);
}

/** After enrolment: the ten recovery codes, shown this once, then on to the operator's page. */
function showRecoveryCodes(panel, codes) {
  panel.replaceChildren(
    h("h2", { id: "sf-title" }, "Your recovery codes"),
    h("p", {}, "Your second factor is on. Keep these ten codes somewhere safe (printed, or in a password manager): each lets you sign in once if you lose your authenticator. They are shown only now."),
    h("ol", { id: "sf-recovery-codes", class: "codes" }, codes.map((c) => h("li", {}, h("code", {}, c)))),
    h("p", {}, h("button", {
      type: "button", class: "primary", id: "sf-continue",
      onclick: () => document.dispatchEvent(new CustomEvent("paigow:session")),
    }, "I have kept them: continue")));
}
