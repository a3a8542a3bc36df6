// The review page: lists the entries awaiting review, shows one, and sends the reviewer's decisions.
// Every text from the catalogs is put into the page as text (textContent), never as markup.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("token") || "";
const LIST_WINDOW = 200; // list rows drawn around the current entry
const ORIGIN_NAMES = { machine: "machine translation", reused: "reused translation", fuzzy: "other fuzzy" };
const STATUS_NAMES = {
  pending: "awaiting review", accepted: "accepted", edited: "edited and accepted", rejected: "rejected",
  noted: "kept with a note", elsewhere: "changed by another program",
};
const AWAITING = new Set(["pending", "noted"]);

const state = {
  rows: [],           // every entry, in review order
  byId: new Map(),    // id -> row
  details: new Map(), // id -> full entry, as last fetched
  shown: [],          // the rows the filters let through
  current: null,      // id of the entry shown
  mode: "view",       // "view", "edit" or "note"
  busy: false,
  sourceLang: "",
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

async function api(method, path, body) {
  const options = { method, headers: { "X-Review-Token": TOKEN } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    return { status: 0, data: { errors: ["the review server does not answer: was it stopped?"] } };
  }
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = { errors: [(await response.text().catch(() => "")) || `HTTP ${response.status}`] };
  }
  return { status: response.status, data };
}

// -- texts -------------------------------------------------------------------------------------

function visibleSpace(text) {
  return text.replace(/ /g, "·").replace(/\t/g, "→").replace(/\n/g, "↵\n");
}

function pieces(list) {
  const box = el("div", { class: "text" });
  for (const [text, kind] of list) {
    if (kind === null) box.append(text);
    else if (kind === "space") box.append(el("span", { class: "sp", title: "whitespace at the edge", text: visibleSpace(text) }));
    else box.append(el("span", { class: "ph", title: kind, text: kind === "control" ? visibleSpace(text) : text }));
  }
  return box;
}

function difference(list) {
  const box = el("div", { class: "text" });
  for (const [text, op] of list) box.append(op === "same" ? text : el(op === "removed" ? "del" : "ins", { class: op, text }));
  return box;
}

// -- the list ----------------------------------------------------------------------------------

function filters() {
  return {
    language: $("f-language").value, catalog: $("f-catalog").value, level: $("f-level").value,
    origin: $("f-origin").value, status: $("f-status").value, text: $("f-text").value.trim().toLowerCase(),
  };
}

function passes(row, f) {
  if (f.language && row.language !== f.language) return false;
  if (f.catalog && row.catalog !== f.catalog) return false;
  if (f.level && row.level !== f.level) return false;
  if (f.origin && row.origin !== f.origin) return false;
  if (f.status === "awaiting" && !AWAITING.has(row.status)) return false;
  if (f.status === "decided" && AWAITING.has(row.status)) return false;
  if (f.text) {
    const haystack = `${row.source}\n${row.key || ""}\n${row.target}\n${row.context || ""}\n${row.catalog}`.toLowerCase();
    if (!haystack.includes(f.text)) return false;
  }
  return true;
}

function applyFilters() {
  const f = filters();
  state.shown = state.rows.filter((row) => passes(row, f));
  if (!state.shown.some((row) => row.id === state.current)) {
    const next = state.shown.find((row) => AWAITING.has(row.status)) || state.shown[0];
    state.current = next ? next.id : null;
    state.mode = "view";
  }
  drawList();
  drawEntry();
}

function drawList() {
  const rows = $("rows");
  rows.replaceChildren();
  const at = Math.max(0, state.shown.findIndex((row) => row.id === state.current));
  const start = Math.max(0, Math.min(at - LIST_WINDOW / 2, state.shown.length - LIST_WINDOW));
  for (const row of state.shown.slice(start, start + LIST_WINDOW)) {
    const item = el(
      "li",
      { "data-id": row.id, class: `${row.id === state.current ? "current" : ""} ${AWAITING.has(row.status) ? "" : "decided"}` },
      el("span", { class: `mark ${row.status} ${row.level}`, title: `${STATUS_NAMES[row.status]}; checks: ${row.level}` }),
      el("span", { class: "src", text: row.source, title: row.key ? `key: ${row.key}` : null }),
      el("span", { class: "lang", text: row.language }),
    );
    item.addEventListener("click", () => select(row.id));
    rows.append(item);
  }
  const awaiting = state.shown.filter((row) => AWAITING.has(row.status)).length;
  $("count").textContent = `${state.shown.length} of ${state.rows.length} entries shown, ${awaiting} of them awaiting review`;
  const current = rows.querySelector("li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

function drawTally(tally) {
  $("tally").textContent =
    `${tally.accepted} accepted · ${tally.edited} edited · ${tally.rejected} rejected · ${tally.noted} kept · ` +
    `${tally.awaiting} awaiting review`;
}

function fillSelect(select, values) {
  for (const [value, label] of values) select.append(el("option", { value, text: label }));
}

// -- one entry ---------------------------------------------------------------------------------

async function detail(id) {
  const row = state.byId.get(id);
  const cached = state.details.get(id);
  if (cached && cached.version === row.version && cached.status === row.status) return cached;
  const { status, data } = await api("GET", `/api/entries/${encodeURIComponent(id)}`);
  if (status !== 200) throw new Error((data.errors || []).join("; "));
  state.details.set(id, data);
  return data;
}

async function select(id, message) {
  state.current = id;
  state.mode = "view";
  drawList();
  await drawEntry(message);
}

async function drawEntry(message) {
  const box = $("entry");
  if (state.current === null) {
    box.replaceChildren(el("p", { class: "empty", text: state.rows.length ? "No entry matches the filters." : "Nothing awaits review." }));
    return;
  }
  const id = state.current;
  let entry;
  try {
    entry = await detail(id);
  } catch (error) {
    box.replaceChildren(el("div", { class: "message refused", text: String(error.message || error) }));
    return;
  }
  if (state.current !== id) return; // another entry was chosen meanwhile
  box.replaceChildren(...card(entry), actions(entry), el("div", { class: "message", id: "message", role: "alert" }));
  if (message) say(message.kind, message.text, message.items);
  prefetch();
}

function card(entry) {
  const parts = [];
  const meta = el(
    "div", { class: "meta" },
    el("span", { class: "where", text: `${entry.catalog}:${entry.line}` }),
    el("span", { class: "badge", text: entry.language }),
    el("span", { class: `badge ${entry.origin}`, text: entry.reused_from ? `reused from ${entry.reused_from}` : ORIGIN_NAMES[entry.origin] }),
    el("span", { class: `badge status ${entry.status}`, text: STATUS_NAMES[entry.status] }),
  );
  parts.push(meta);
  if (entry.gone) {
    parts.push(el("p", { class: "empty", text: "This entry is no longer in the catalog: another program removed or changed it." }));
    return parts;
  }
  const about = el("ul", { class: "about" });
  const line = (label, value) => about.append(el("li", {}, el("span", { class: "label", text: label }), value));
  if (entry.context !== null) line("context", el("code", { text: entry.context }));
  if (entry.notes) line(entry.format === "po" ? "for translators" : "notes", entry.notes);
  if (entry.comments) line("comments", entry.comments);
  if (entry.references.length) line("used in", entry.references.slice(0, 3).join(", ") + (entry.references.length > 3 ? ", …" : ""));
  if (entry.flags.length) line("flags", entry.flags.join(", "));
  if (entry.limit) line("length limit", entry.limit);
  if (about.children.length) parts.push(about);
  if (entry.previous) {
    const previous = el("div", { class: "previous" }, el("span", { class: "label", text: "The source changed since this translation was made (removed, added):" }));
    for (const form of entry.previous.forms) previous.append(difference(form));
    parts.push(previous);
  }
  const source = el("div", { class: "side source" }, el("h2", { text: `Source${state.sourceLang ? ` (${state.sourceLang})` : ""}` }));
  // Key-based XLIFF: the text the key stands for is what is translated; the key is shown beside it.
  if (entry.key !== null) source.append(el("div", { class: "key" }, el("span", { class: "label", text: "key " }), el("code", { text: entry.key })));
  entry.sources.forEach((list, n) => {
    source.append(el("div", { class: "form" }, entry.plural ? el("div", { class: "label", text: n === 0 ? "singular" : "plural" }) : null, pieces(list)));
  });
  const target = el("div", { class: "side target" }, el("h2", { text: `Translation (${entry.language})` }));
  entry.forms.forEach((form, n) => {
    const label = form.label ? el("div", { class: "label", text: form.label }) : null;
    if (state.mode === "edit") {
      const area = el("textarea", { "data-form": String(n), "aria-label": `translation${form.label ? `, ${form.label}` : ""}`, spellcheck: "true", lang: entry.language });
      area.value = form.text;
      const counter = el("div", { class: "counter" });
      area.addEventListener("input", () => count(area, counter, entry));
      count(area, counter, entry);
      target.append(el("div", { class: "form" }, label, area, counter));
    } else {
      target.append(el("div", { class: "form" }, label, pieces(form.pieces)));
    }
  });
  if (state.mode === "note") {
    const area = el("textarea", { id: "note", "aria-label": "note for the next reviewer", placeholder: "What is wrong with this translation?" });
    target.append(el("div", { class: "form" }, el("div", { class: "label", text: "Note (kept with the entry; it stays awaiting review)" }), area));
  }
  parts.push(el("div", { class: "texts" }, source, target));
  const checks = el("ul", { class: "checks", "aria-label": "checks" });
  if (!entry.checks.length) checks.append(el("li", { class: "ok", text: "✓ The checks of pipeline check find no problem." }));
  for (const check of entry.checks) checks.append(el("li", { class: check.severity, text: `${check.severity === "error" ? "✗" : "⚠"} ${check.reason}` }));
  parts.push(checks);
  return parts;
}

function count(area, counter, entry) {
  const length = [...area.value].length;
  const limit = entry.limit && /at most (\d+) characters/.exec(entry.limit);
  counter.textContent = limit ? `${length} of ${limit[1]} characters` : `${length} characters`;
  counter.classList.toggle("over", Boolean(limit) && length > Number(limit[1]));
}

function button(label, key, handler, options = {}) {
  const node = el("button", { type: "button", class: options.primary ? "primary" : "", "data-action": options.name || label.toLowerCase() }, label, el("kbd", { text: key }));
  if (options.disabled) node.disabled = true;
  node.addEventListener("click", handler);
  return node;
}

function actions(entry) {
  const open = AWAITING.has(entry.status) && !entry.gone;
  if (state.mode === "edit") {
    return el("div", { class: "actions" }, button("Save and accept", "Ctrl+Enter", saveEdit, { primary: true, name: "save" }), button("Cancel", "Esc", cancel, { name: "cancel" }));
  }
  if (state.mode === "note") {
    return el("div", { class: "actions" }, button("Keep with this note", "Ctrl+Enter", saveNote, { primary: true, name: "save-note" }), button("Cancel", "Esc", cancel, { name: "cancel" }));
  }
  return el(
    "div", { class: "actions" },
    button("Accept", "a", accept, { primary: true, disabled: !open }),
    button("Edit", "e", startEdit, { disabled: !open }),
    button("Reject", "r", reject, { disabled: !open }),
    button("Note", "n", startNote, { disabled: !open }),
    button("Skip", "s", skip, {}),
  );
}

function say(kind, text, items = []) {
  const box = $("message");
  if (!box) return;
  box.className = `message ${kind}`;
  box.replaceChildren(el("div", { text }));
  if (items.length) box.append(el("ul", {}, ...items.map((item) => el("li", { text: item }))));
}

function prefetch() {
  const at = state.shown.findIndex((row) => row.id === state.current);
  const next = state.shown.slice(at + 1).find((row) => AWAITING.has(row.status));
  if (next) detail(next.id).catch(() => {});
}

// -- moving ------------------------------------------------------------------------------------

function move(step) {
  const at = state.shown.findIndex((row) => row.id === state.current);
  const next = state.shown[at + step];
  if (next) select(next.id);
}

function skip() {
  const at = state.shown.findIndex((row) => row.id === state.current);
  const next = state.shown.slice(at + 1).find((row) => AWAITING.has(row.status));
  if (next) select(next.id);
  else say("info", "No entry awaiting review after this one (with these filters).");
}

function advance(message) {
  const at = state.shown.findIndex((row) => row.id === state.current);
  const next = state.shown.slice(at + 1).find((row) => AWAITING.has(row.status))
    || state.shown.find((row) => AWAITING.has(row.status));
  if (next) select(next.id, message);
  else { drawList(); drawEntry(message || { kind: "info", text: "Every entry shown has been reviewed." }); }
}

// -- decisions ---------------------------------------------------------------------------------

function remember(entry) {
  const row = state.byId.get(entry.id);
  if (row) Object.assign(row, pick(entry));
  state.details.set(entry.id, entry);
}

function pick(entry) {
  const { id, catalog, language, line, origin, reused_from, level, status, version, source, key, target, context } = entry;
  return { id, catalog, language, line, origin, reused_from, level, status, version, source, key, target, context };
}

function merge(rows) {
  for (const row of rows) {
    const known = state.byId.get(row.id);
    if (known) Object.assign(known, row);
    else { state.rows.push(row); state.byId.set(row.id, row); }
    state.details.delete(row.id);
  }
}

async function decide(action, body = {}) {
  if (state.busy || state.current === null) return;
  const id = state.current;
  const row = state.byId.get(id);
  state.busy = true;
  let reply;
  try {
    reply = await api("POST", `/api/entries/${encodeURIComponent(id)}/${action}`, { version: row.version, ...body });
  } finally {
    state.busy = false;
  }
  const { status, data } = reply;
  if (data.tally) drawTally(data.tally);
  if (status === 200) {
    state.mode = "view";
    merge(data.reloaded || []);
    remember(data.entry);
    const changed = data.reloaded && data.reloaded.length
      ? ` Another program had saved ${data.entry.catalog} meanwhile: its changes were kept, and the list was read again.` : "";
    const said = `${data.entry.catalog}:${data.entry.line} ${STATUS_NAMES[data.entry.status]}.${changed}`;
    advance(data.warnings.length || changed ? { kind: "info", text: said, items: data.warnings.map((w) => `warning: ${w}`) } : null);
    return;
  }
  if (status === 409) {
    state.mode = "view";
    if (data.entry) remember(data.entry);
    drawList();
    await drawEntry({ kind: "conflict", text: `${data.conflict}. Nothing was written; the entry was read again from the file: look at it again.` });
    return;
  }
  say("refused", status === 422 ? "Not written:" : `Not written (HTTP ${status}):`, data.errors || []);
}

const accept = () => decide("accept");
const reject = () => decide("reject");

function startEdit() {
  const row = state.byId.get(state.current);
  if (!row || !AWAITING.has(row.status)) return;
  state.mode = "edit";
  drawEntry().then(() => {
    const area = document.querySelector("textarea[data-form]");
    if (area) { area.focus(); area.setSelectionRange(area.value.length, area.value.length); }
  });
}

function startNote() {
  const entry = state.details.get(state.current);
  if (!entry || !AWAITING.has(entry.status)) return;
  state.mode = "note";
  drawEntry().then(() => $("note") && $("note").focus());
}

function saveEdit() {
  const targets = [...document.querySelectorAll("textarea[data-form]")].map((area) => area.value);
  decide("edit", { targets });
}

function saveNote() {
  decide("keep", { note: $("note") ? $("note").value : "" });
}

function cancel() {
  state.mode = "view";
  drawEntry();
}

async function finish() {
  const { data } = await api("POST", "/api/quit");
  const box = el("div", { class: "finished" }, el("h2", { text: "Review finished" }));
  for (const line of data.summary || []) box.append(el("p", { text: line }));
  if (data.tally) box.append(el("p", { text: `${data.tally.awaiting} entries still await review.` }));
  box.append(el("p", { text: "Every decision is saved in the catalogs. You can close this tab." }));
  document.querySelector("main").replaceChildren(box);
  $("filters").hidden = true;
  $("keys").hidden = true;
}

// -- keys --------------------------------------------------------------------------------------

function onKey(event) {
  const target = event.target;
  const typing = target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement || target instanceof HTMLSelectElement;
  if (event.key === "Escape") {
    if (!$("help").hidden) { $("help").hidden = true; return; }
    if (state.mode !== "view") { event.preventDefault(); cancel(); return; }
    if (typing) { target.blur(); return; }
  }
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    if (state.mode === "edit") { event.preventDefault(); saveEdit(); return; }
    if (state.mode === "note") { event.preventDefault(); saveNote(); return; }
  }
  if (typing || event.ctrlKey || event.metaKey || event.altKey || state.mode !== "view") return;
  const handlers = {
    j: () => move(1), ArrowDown: () => move(1), k: () => move(-1), ArrowUp: () => move(-1),
    a: accept, e: startEdit, r: reject, n: startNote, s: skip,
    "/": () => $("f-text").focus(), "?": () => { $("help").hidden = !$("help").hidden; },
  };
  const handler = handlers[event.key];
  if (handler) { event.preventDefault(); handler(); }
}

// -- start -------------------------------------------------------------------------------------

async function start() {
  const { status, data } = await api("GET", "/api/entries");
  if (status !== 200) {
    $("entry").replaceChildren(el("div", { class: "message refused", text: (data.errors || [`HTTP ${status}`]).join("; ") }));
    return;
  }
  state.rows = data.entries;
  state.sourceLang = data.source_lang || "";
  for (const row of state.rows) state.byId.set(row.id, row);
  const languages = [...new Set(data.catalogs.map((c) => c.language))].sort();
  fillSelect($("f-language"), languages.map((l) => [l, l]));
  fillSelect($("f-catalog"), data.catalogs.map((c) => [c.name, `${c.name} (${c.language})`]));
  drawTally(data.tally);
  for (const id of ["f-language", "f-catalog", "f-level", "f-origin", "f-status"]) {
    // The page's own keys work again at once: a filter chosen, the focus goes back to the entry.
    $(id).addEventListener("change", (event) => { event.target.blur(); applyFilters(); });
  }
  $("f-text").addEventListener("input", applyFilters);
  $("filters").addEventListener("submit", (event) => { event.preventDefault(); $("f-text").blur(); });
  $("done").addEventListener("click", finish);
  $("help-close").addEventListener("click", () => { $("help").hidden = true; });
  for (const [toggle, panel] of [["list-toggle", "list"], ["filters-toggle", "filters"]]) {
    $(toggle).addEventListener("click", () => {
      const open = $(panel).classList.toggle("open");
      $(toggle).setAttribute("aria-expanded", String(open));
    });
  }
  document.addEventListener("keydown", onKey);
  applyFilters();
}

document.addEventListener("DOMContentLoaded", start);
