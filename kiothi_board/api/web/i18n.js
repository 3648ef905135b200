// The pages' words, from the board's own catalogs (GET /i18n/<lang>.json, made from the same
// .po files as the terminal's and the rings' words; docs/translating.md). t(id, {name}),
// tn(singular, plural, n, {name}) and tp(context, id) translate; applyI18n(root) fills the
// elements marked data-i18n (inner HTML) and data-i18n-attr (attributes). English is the
// message ids themselves. The chosen language is kept on this device (localStorage).
"use strict";

const I18N = { lang: "en", name: "English", messages: {}, plural: null, listeners: [] };
const I18N_SOURCE = new WeakMap(); // element -> its English (inner HTML and attributes)

function i18nFormat(text, args) {
  if (!args) return text;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in args ? String(args[k]) : m));
}

function t(id, args) {
  const s = I18N.messages[id];
  return i18nFormat(typeof s === "string" && s ? s : id, args);
}

function tp(context, id, args) {
  const s = I18N.messages[`${context}\u0004${id}`];
  return i18nFormat(typeof s === "string" && s ? s : id, args);
}

function pluralIndex(n) {
  const table = I18N.plural;
  if (!table) return n === 1 ? 0 : 1;
  const k = Math.abs(Math.trunc(n));
  return table[k < table.length ? k : 100 + (k % 100)];
}

function tn(one, many, n, args) {
  const forms = I18N.messages[one];
  const all = Object.assign({ n }, args || {});
  if (Array.isArray(forms)) {
    const form = forms[pluralIndex(n)];
    if (form) return i18nFormat(form, all);
  }
  return i18nFormat(n === 1 ? one : many, all);
}

function applyI18n(root) {
  root.querySelectorAll("[data-i18n], [data-i18n-attr]").forEach((el) => {
    let src = I18N_SOURCE.get(el);
    if (!src) {
      src = { html: el.hasAttribute("data-i18n") ? el.innerHTML.replace(/\s+/g, " ").trim() : null, attrs: {} };
      for (const a of (el.getAttribute("data-i18n-attr") || "").split(/\s+/)) {
        if (a && el.hasAttribute(a)) src.attrs[a] = el.getAttribute(a).replace(/\s+/g, " ").trim();
      }
      I18N_SOURCE.set(el, src);
    }
    if (src.html !== null) el.innerHTML = t(src.html);
    for (const [a, v] of Object.entries(src.attrs)) el.setAttribute(a, t(v));
  });
}

function savedLanguage() {
  try { return localStorage.getItem("kiothi-lang"); } catch (e) { return null; }
}

async function loadLanguage(lang) {
  // The words of `lang` (English needs none); the page redraws through onLanguage().
  let data = { lang: "en", name: "English", messages: {}, plural: null };
  if (lang && lang !== "en") {
    try {
      const r = await fetch(`/i18n/${encodeURIComponent(lang)}.json`);
      if (r.ok) data = await r.json();
    } catch (e) { /* keep English */ }
  }
  Object.assign(I18N, { lang: data.lang, name: data.name, messages: data.messages, plural: data.plural });
  document.documentElement.lang = I18N.lang;
  applyI18n(document);
  for (const fn of I18N.listeners) fn(I18N.lang);
  return I18N.lang;
}

function onLanguage(fn) { I18N.listeners.push(fn); }

function rememberLanguage(lang) {
  try {
    if (lang) localStorage.setItem("kiothi-lang", lang); else localStorage.removeItem("kiothi-lang");
  } catch (e) { /* private mode: this visit only */ }
}
