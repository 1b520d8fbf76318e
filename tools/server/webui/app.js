// llama-server's chat page: conversations in localStorage, replies streamed from
// POST /v1/chat/completions (SSE over fetch), model info from GET /props (else /v1/models).
// Model output is only ever set with textContent: it is never parsed as HTML.
'use strict';

const KEY_CONVS = 'llama-webui-conversations';
const KEY_CURRENT = 'llama-webui-current';
const KEY_SETTINGS = 'llama-webui-settings';
const KEY_MODEL = 'llama-webui-model';  // router mode: the chosen model
const DEFAULTS = { temperature: 0.8, max_tokens: 512, system: '', api_key: '' };

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

function load(key, fallback) {
  try {
    const v = JSON.parse(localStorage.getItem(key));
    return v === null ? fallback : v;
  } catch {
    return fallback;  // unreadable storage (edited by hand, other version): start afresh
  }
}
function save(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch (e) {
    showError('could not save in the browser: ' + e.message);
  }
}

// Stored settings over the defaults, each kept only when of the default's type (hand-edited storage).
function loadSettings() {
  const stored = load(KEY_SETTINGS, {});
  const out = Object.assign({}, DEFAULTS);
  for (const k of Object.keys(DEFAULTS)) {
    if (stored && typeof stored[k] === typeof DEFAULTS[k]) out[k] = stored[k];
  }
  return out;
}

const state = {
  convs: load(KEY_CONVS, []).filter((c) => c && Array.isArray(c.messages)),
  current: load(KEY_CURRENT, null),
  settings: loadSettings(),
  abort: null,  // AbortController of the reply being streamed
  model: null,  // router mode: the model requests name
};

function currentConv() {
  return state.convs.find((c) => c.id === state.current) || null;
}
function saveConvs() {
  save(KEY_CONVS, state.convs);
  save(KEY_CURRENT, state.current);
}

function showError(text) {
  $('error').textContent = text;
  $('error').hidden = !text;
}

function authHeaders() {
  const h = {};
  if (state.settings.api_key) h.Authorization = 'Bearer ' + state.settings.api_key;
  return h;
}

// The message of an error response ({"error": {"message"}} from this server), else its text.
async function errorText(res) {
  const body = await res.text();
  let msg = body;
  try {
    const j = JSON.parse(body);
    if (j && j.error) msg = typeof j.error === 'string' ? j.error : j.error.message || body;
  } catch {}
  return `HTTP ${res.status}: ${msg || res.statusText}`;
}

// ---- model info ----

async function loadModelInfo() {
  const box = $('model-info');
  try {
    // a router (llama-server --models-dir) lists its models with a status: the page offers a choice
    const models = await fetch('v1/models', { headers: authHeaders() });
    if (!models.ok) throw new Error(await errorText(models));
    const list = (await models.json()).data || [];
    if (list.length && list[0].status) {
      await loadRouterInfo(list);
      return;
    }
    state.model = null;
    $('model-select').hidden = true;
    const res = await fetch('props', { headers: authHeaders() });
    if (res.status === 404) {
      // a server without /props: the model id alone
      renderModelInfo({ model: list[0] ? list[0].id : '?' });
      return;
    }
    if (!res.ok) throw new Error(await errorText(res));
    const p = await res.json();
    const dgs = p.default_generation_settings || {};
    renderModelInfo({
      model: p.model_alias || (p.model_path || '').split('/').pop() || '?',
      slots: p.total_slots,
      n_ctx: dgs.n_ctx,
    });
  } catch (e) {
    box.textContent = 'model info unavailable';
    const hint = /HTTP 401/.test(e.message) ? ' (enter the API key in Settings)' : '';
    showError(e.message + hint);
  }
}

// Router mode: a select of the models (the last choice kept); a loaded model's /props gives its
// details, an unloaded one loads with the first message.
async function loadRouterInfo(list) {
  const sel = $('model-select');
  const ids = list.map((m) => m.id);
  const stored = load(KEY_MODEL, '');
  state.model = ids.includes(state.model) ? state.model : ids.includes(stored) ? stored : ids[0];
  sel.textContent = '';
  for (const m of list) {
    const o = el('option', '', `${m.id} (${m.status.value})`);
    o.value = m.id;
    sel.append(o);
  }
  sel.value = state.model;
  sel.hidden = false;
  const cur = list.find((m) => m.id === state.model);
  if (cur.status.value !== 'loaded') {
    renderModelInfo({ model: state.model, note: 'loads with the first message' });
    return;
  }
  const res = await fetch('props?model=' + encodeURIComponent(state.model), { headers: authHeaders() });
  if (!res.ok) throw new Error(await errorText(res));
  const p = await res.json();
  renderModelInfo({ model: state.model, slots: p.total_slots, n_ctx: (p.default_generation_settings || {}).n_ctx });
}

function renderModelInfo(info) {
  const box = $('model-info');
  box.textContent = '';
  box.append(el('span', 'name', info.model));
  const extra = [];
  if (info.slots !== undefined) extra.push(`${info.slots} slot${info.slots === 1 ? '' : 's'}`);
  if (info.n_ctx !== undefined) extra.push(`context ${info.n_ctx}`);
  if (info.note) extra.push(info.note);
  if (extra.length) box.append(' · ' + extra.join(' · '));
  box.dataset.model = info.model;
}

// ---- rendering ----

function renderConvList() {
  const list = $('conversations');
  list.textContent = '';
  for (const c of state.convs) {
    const li = el('li', c.id === state.current ? 'current' : '');
    const title = el('button', 'title', c.title || 'New chat');
    title.type = 'button';
    title.title = c.title || '';
    title.addEventListener('click', () => selectConv(c.id));
    const del = el('button', 'delete', '×');
    del.type = 'button';
    del.title = 'Delete this conversation';
    del.setAttribute('aria-label', 'Delete conversation');
    del.addEventListener('click', () => deleteConv(c.id));
    li.append(title, del);
    list.append(li);
  }
}

// One message's box; returns the parts a stream updates.
function messageNode(m) {
  const box = el('div', 'msg ' + m.role);
  box.append(el('div', 'role', m.role));
  let reasoning = null;
  if (m.role === 'assistant') {
    reasoning = el('details', 'reasoning');
    reasoning.append(el('summary', '', 'Reasoning'), el('div', '', m.reasoning || ''));
    reasoning.hidden = !m.reasoning;
    box.append(reasoning);
  }
  const text = el('div', 'text', m.content || '');
  const note = el('div', 'note');
  box.append(text, note);
  const parts = { box, reasoning, text, note };
  setNote(parts, m);
  return parts;
}

function setNote(parts, m) {
  parts.note.textContent = m.error ? 'failed: ' + m.error : m.stopped ? 'stopped' : '';
  parts.note.classList.toggle('failed', !!m.error);
  parts.note.hidden = !parts.note.textContent;
}

function renderMessages() {
  const box = $('messages');
  box.textContent = '';
  const c = currentConv();
  if (!c || c.messages.length === 0) {
    box.append(el('div', 'empty', 'Type a message below to start.'));
    return;
  }
  for (const m of c.messages) box.append(messageNode(m).box);
  box.scrollTop = box.scrollHeight;
}

function render() {
  renderConvList();
  renderMessages();
}

// ---- conversations ----

function newConv() {
  const c = { id: Date.now().toString(36) + Math.random().toString(36).slice(2, 6), title: '', messages: [] };
  state.convs.unshift(c);
  state.current = c.id;
  saveConvs();
  return c;
}

function selectConv(id) {
  if (state.abort) return;  // one reply at a time; switching would hide it
  state.current = id;
  saveConvs();
  showError('');
  render();
}

function deleteConv(id) {
  if (state.abort && id === state.current) state.abort.abort();
  state.convs = state.convs.filter((c) => c.id !== id);
  if (state.current === id) state.current = state.convs.length ? state.convs[0].id : null;
  saveConvs();
  render();
}

// ---- streaming ----

// Calls onEvent(json) for each SSE `data:` event of the response until `[DONE]` or the end.
async function readSSE(res, onEvent) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    // events end with a blank line; the last piece may be incomplete and waits for more bytes
    const events = buf.split(/\r?\n\r?\n/);
    buf = events.pop();
    for (const ev of events) {
      const data = ev
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (!data) continue;
      if (data === '[DONE]') return;
      onEvent(JSON.parse(data));
    }
  }
}

function requestMessages(c) {
  const msgs = [];
  if (state.settings.system.trim()) msgs.push({ role: 'system', content: state.settings.system });
  for (const m of c.messages) {
    if (m.role === 'assistant' && (m.error || !m.content)) continue;  // nothing the model said
    msgs.push({ role: m.role, content: m.content });
  }
  return msgs;
}

async function send(text) {
  const c = currentConv() || newConv();
  if (!c.title) c.title = text.slice(0, 60);
  c.messages.push({ role: 'user', content: text });
  const body = {
    messages: requestMessages(c),
    stream: true,
    temperature: Number(state.settings.temperature),
    max_tokens: Number(state.settings.max_tokens),
  };
  if (state.model) body.model = state.model;  // router mode: the request goes to that model
  const reply = { role: 'assistant', content: '' };
  c.messages.push(reply);
  saveConvs();
  render();
  showError('');
  const parts = messageNode(reply);
  $('messages').lastChild.replaceWith(parts.box);

  const ctl = new AbortController();
  state.abort = ctl;
  setBusy(true);
  const box = $('messages');
  let follow = true;  // keep the end in view unless the user scrolled up
  try {
    const res = await fetch('v1/chat/completions', {
      method: 'POST',
      headers: Object.assign({ 'Content-Type': 'application/json' }, authHeaders()),
      body: JSON.stringify(body),
      signal: ctl.signal,
    });
    if (!res.ok) throw new Error(await errorText(res));
    await readSSE(res, (j) => {
      if (j.error) throw new Error(j.error.message || JSON.stringify(j.error));
      const d = j.choices && j.choices[0] && j.choices[0].delta;
      if (!d) return;
      follow = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
      if (d.reasoning_content) {
        reply.reasoning = (reply.reasoning || '') + d.reasoning_content;
        parts.reasoning.lastChild.textContent = reply.reasoning;
        parts.reasoning.hidden = false;
      }
      if (d.content) {
        reply.content += d.content;
        parts.text.textContent = reply.content;
      }
      if (follow) box.scrollTop = box.scrollHeight;
    });
  } catch (e) {
    if (e.name === 'AbortError') {
      reply.stopped = true;
    } else {
      reply.error = e.message;
      showError(e.message);
    }
  } finally {
    state.abort = null;
    setBusy(false);
    setNote(parts, reply);
    if (follow) box.scrollTop = box.scrollHeight;  // the note, and an error banner's shrinking of the list
    saveConvs();
    if (state.model) loadModelInfo();  // router mode: the model may have loaded
  }
}

function setBusy(busy) {
  $('send').disabled = busy;
  $('stop').hidden = !busy;
}

// ---- settings ----

const FIELDS = { temperature: 'set-temperature', max_tokens: 'set-max-tokens', api_key: 'set-api-key', system: 'set-system' };

function initSettings() {
  for (const [k, id] of Object.entries(FIELDS)) {
    const input = $(id);
    input.value = state.settings[k];
    input.addEventListener('change', () => {
      let v = input.value;
      if (k === 'temperature' || k === 'max_tokens') {
        const n = Number(v);
        const ok = v !== '' && Number.isFinite(n) && n >= Number(input.min) && (k !== 'max_tokens' || Number.isInteger(n));
        if (!ok) {
          showError(`${k}: ${JSON.stringify(v)} is not a valid value; kept ${state.settings[k]}`);
          input.value = state.settings[k];
          return;
        }
        v = n;
      }
      state.settings[k] = v;
      save(KEY_SETTINGS, state.settings);
      if (k === 'api_key') {
        showError('');
        loadModelInfo();
      }
    });
  }
  $('settings-toggle').addEventListener('click', () => {
    const panel = $('settings');
    panel.hidden = !panel.hidden;
    $('settings-toggle').setAttribute('aria-expanded', String(!panel.hidden));
  });
  $('settings').addEventListener('submit', (e) => e.preventDefault());
}

// ---- start ----

function submit() {
  const input = $('input');
  const text = input.value;
  if (!text.trim() || state.abort) return;
  input.value = '';
  send(text);
}

$('composer').addEventListener('submit', (e) => {
  e.preventDefault();
  submit();
});
$('input').addEventListener('keydown', (e) => {
  // Enter sends, Shift+Enter is a new line; never while an input method is composing
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  }
});
$('stop').addEventListener('click', () => state.abort && state.abort.abort());
$('new-chat').addEventListener('click', () => {
  if (state.abort) return;
  newConv();
  showError('');
  render();
  $('input').focus();
});

if (!currentConv()) state.current = state.convs.length ? state.convs[0].id : null;
initSettings();
render();
$('model-select').addEventListener('change', () => {
  state.model = $('model-select').value;
  save(KEY_MODEL, state.model);
  loadModelInfo();
});
loadModelInfo();
$('input').focus();
