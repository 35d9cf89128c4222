extension Page {
    /// The page's script. Data from the server (document text, paths, model output) only ever becomes text nodes.
    /// One script on purpose: the page has no build step and loads one file; its parts (search, passage, chat,
    /// sessions, models, status) are the `// ---- name ----` sections below.
    static let script = ##"""
'use strict';
const $ = (id) => document.getElementById(id);

// The token rides in the URL's fragment (never sent to a server); it is kept for this tab and taken off the address.
const token = (() => {
  const found = /token=([0-9a-f]+)/.exec(location.hash);
  if (found) {
    sessionStorage.setItem('trove-token', found[1]);
    history.replaceState(null, '', location.pathname);
  }
  return sessionStorage.getItem('trove-token') || '';
})();

/** An element with attributes and children (strings become text nodes, never markup). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'class') node.className = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined) {
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/** Calls the API with the token; resolves to the parsed JSON, rejects with the server's sentence. */
async function api(path, options = {}) {
  const headers = Object.assign({ Authorization: 'Bearer ' + token }, options.headers || {});
  const response = await fetch(path, Object.assign({}, options, { headers }));
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

let folders = [];
/** A path relative to its indexed folder, as `trove search` prints it. */
function shortPath(path) {
  const folder = folders.find((f) => path.startsWith(f.endsWith('/') ? f : f + '/'));
  return folder ? path.slice(folder.length + (folder.endsWith('/') ? 0 : 1)) : path;
}

/** `line` as text nodes, with the query's words in <mark>. */
function marked(line, terms) {
  const span = el('span');
  let last = 0;
  for (const match of line.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (!terms.has(match[0].toLowerCase())) continue;
    span.append(line.slice(last, match.index), el('mark', {}, match[0]));
    last = match.index + match[0].length;
  }
  span.append(line.slice(last));
  return span;
}

// ---- search ------------------------------------------------------------------------------------------------------

const hitsList = $('hits');
let hits = [];
let selected = -1;
let inFlight = false;
let queued = false;
let searchSerial = 0;

function searchParameters() {
  const params = new URLSearchParams();
  params.set('query', $('q').value.trim());
  params.set('mode', $('mode').value);
  for (const [id, name] of [['f-path', 'path'], ['f-ext', 'ext'], ['f-root', 'root']]) {
    for (const value of $(id).value.split(',').map((v) => v.trim()).filter(Boolean)) params.append(name, value);
  }
  for (const [id, name] of [['f-since', 'since'], ['f-before', 'before']]) {
    if ($(id).value.trim()) params.set(name, $(id).value.trim());
  }
  return params;
}

// Search as you type: one request at a time; keystrokes meanwhile are coalesced into one more, for the newest text.
function scheduleSearch() {
  if (inFlight) { queued = true; return; }
  runSearch();
}

async function runSearch() {
  const params = searchParameters();
  if (!params.get('query')) { renderHits([], new Set()); $('search-note').textContent = ''; return; }
  inFlight = true;
  const serial = ++searchSerial;
  try {
    const result = await api('/api/search?' + params.toString());
    if (serial === searchSerial) {
      renderHits(result.hits, new Set(result.terms));
      // Which text these hits answer: keystrokes can render a prefix's hits first (scripts and tests wait on it).
      hitsList.dataset.query = params.get('query');
      $('search-note').textContent = result.hits.length ? '' : 'No passage matches.';
    }
  } catch (error) {
    renderHits([], new Set());
    $('search-note').textContent = error.message;
  } finally {
    inFlight = false;
    if (queued) { queued = false; runSearch(); }
  }
}

function renderHits(list, terms) {
  hits = list;
  selected = -1;
  const items = list.map((hit, position) => {
    const location = shortPath(hit.path) + ':' + hit.start_line + '-' + hit.end_line;
    // A passage of a PDF, DOCX, …: its page (slide, message, cell) after the lines, as `trove search` prints it.
    const page = hit.locator ? hit.locator.label : '';
    const scores = 'score ' + hit.score.toFixed(2) +
      (hit.vector_score !== undefined ? ' · meaning ' + hit.vector_score.toFixed(2) : '') +
      (hit.keyword_score !== undefined ? ' · keywords ' + hit.keyword_score.toFixed(2) : '');
    const item = el('li', { role: 'option', 'aria-selected': 'false', id: 'hit-' + position,
      onclick: () => { select(position); openHit(hit); } },
      el('div', { class: 'hit-head' }, el('span', { class: 'location' }, location),
        page ? el('span', { class: 'locator' }, page) : null, el('span', { class: 'score' }, scores), hit.heading ? el('span', { class: 'heading' }, hit.heading) : null),
      el('div', { class: 'snippet' }, ...(hit.snippet || []).map((line) => el('div', {}, marked(line, terms)))));
    item.setAttribute('aria-label', location + (page ? ' ' + page : '') + (hit.heading ? ', ' + hit.heading : ''));
    return item;
  });
  hitsList.replaceChildren(...items);
  document.dispatchEvent(new CustomEvent('trove:hits', { detail: list.length }));
}

function select(position) {
  if (!hits.length) return;
  selected = Math.max(0, Math.min(hits.length - 1, position));
  for (const [index, item] of [...hitsList.children].entries()) {
    item.setAttribute('aria-selected', index === selected ? 'true' : 'false');
  }
  hitsList.children[selected].scrollIntoView({ block: 'nearest' });
  $('q').setAttribute('aria-activedescendant', 'hit-' + selected);
}

// ---- a passage in its document -----------------------------------------------------------------------------------

let shownLocation = '';

/** Opens `path` with lines start–end highlighted; `locator` (a PDF's page, …) is named beside its title. */
async function openPassage(path, start, end, locator) {
  try {
    const doc = await api('/api/document?' + new URLSearchParams({ path }).toString());
    $('doc-title').textContent = shortPath(doc.path);
    $('doc-locator').textContent = locator ? locator.label : '';
    const items = doc.lines.map((line) => {
      const item = el('li', { value: String(line.number) }, line.text || '\u200b');
      if (line.number >= start && line.number <= end) item.className = 'hit';
      return item;
    });
    $('doc-lines').replaceChildren(...items);
    shownLocation = doc.path + ':' + start;
    $('document').hidden = false;
    document.querySelector('.layout').classList.add('with-document');
    const first = $('doc-lines').querySelector('li.hit');
    if (first) first.scrollIntoView({ block: 'center' });
    document.dispatchEvent(new CustomEvent('trove:document'));
  } catch (error) {
    $('status').textContent = error.message;
  }
}

function openHit(hit) { openPassage(hit.path, hit.start_line, hit.end_line, hit.locator); }

function closeDocument() {
  $('document').hidden = true;
  document.querySelector('.layout').classList.remove('with-document');
}

$('copy-location').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(shownLocation);
    $('copy-location').textContent = 'Copied';
  } catch (error) {
    $('copy-location').textContent = shownLocation;
  }
  setTimeout(() => { $('copy-location').textContent = 'Copy path:line'; }, 1500);
});
$('close-document').addEventListener('click', closeDocument);

// ---- chat --------------------------------------------------------------------------------------------------------

let session = 'default';
let controller = null;

/** Safe Markdown: paragraphs, headings, lists, code blocks, `code`, **bold**, *emphasis*, and [n] citations as
 *  links to their passage. Nothing is ever parsed as HTML. */
function markdown(text, sources) {
  const root = el('div', { class: 'markdown' });
  const lines = text.split('\n');
  let list = null;
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) root.append(el('p', {}, ...inline(paragraph.join(' '), sources)));
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('```')) {
      flush(); list = null;
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      root.append(el('pre', {}, el('code', {}, code.join('\n'))));
      continue;
    }
    const item = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      const kind = item[1] ? 'ul' : 'ol';
      if (!list || list.tagName.toLowerCase() !== kind) { list = el(kind); root.append(list); }
      list.append(el('li', {}, ...inline(item[3], sources)));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) { flush(); list = null; root.append(el('h4', {}, ...inline(heading[2], sources))); continue; }
    if (!line.trim()) { flush(); list = null; continue; }
    list = null;
    paragraph.push(line);
  }
  flush();
  return root;
}

function inline(text, sources) {
  const nodes = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|\[(\d+)\]/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    nodes.push(text.slice(last, match.index));
    if (match[1] !== undefined) nodes.push(el('code', {}, match[1]));
    else if (match[2] !== undefined) nodes.push(el('strong', {}, match[2]));
    else if (match[3] !== undefined) nodes.push(el('em', {}, match[3]));
    else nodes.push(citation(match[4], sources));
    last = match.index + match[0].length;
  }
  nodes.push(text.slice(last));
  return nodes;
}

function citation(number, sources) {
  const source = sources.get(Number(number));
  if (!source) return '[' + number + ']';
  return el('a', { class: 'cite', href: '#', role: 'link', 'data-source': number,
    'aria-label': 'source ' + number + ': ' + shortPath(source.path) +
      (source.locator ? ' ' + source.locator.label : '') + ' lines ' + source.start_line + ' to ' + source.end_line,
    onclick: (event) => {
      event.preventDefault(); openPassage(source.path, source.start_line, source.end_line, source.locator); } },
    '[' + number + ']');
}

function sourceLine(source) {
  const text = '[' + source.number + '] ' + shortPath(source.path) + ':' + source.start_line + '-' + source.end_line +
    (source.locator ? ' ' + source.locator.label : '') + (source.heading ? '  ' + source.heading : '');
  return el('li', {}, el('a', { href: '#', onclick: (event) => {
    event.preventDefault(); openPassage(source.path, source.start_line, source.end_line, source.locator); } }, text));
}

/** A stored source line as the source it names: `[n] /path:start-end  heading`, or for a PDF, DOCX, …
 *  `[n] /path p.4 (lines 120–138)  heading` (as `trove chat` stores them). */
function parseStoredSource(line) {
  const paged =
    /^\[(\d+)\] (.*) (≈?(?:p\.|slides? |msgs? |cells? )[\d–]+) \(lines (\d+)–(\d+)\)(?:  (.*))?$/.exec(line);
  if (paged) {
    return { number: Number(paged[1]), path: paged[2], locator: { label: paged[3] }, start_line: Number(paged[4]),
      end_line: Number(paged[5]), heading: paged[6] || '' };
  }
  const found = /^\[(\d+)\] (.*):(\d+)-(\d+)(?:  (.*))?$/.exec(line);
  return found && { number: Number(found[1]), path: found[2], start_line: Number(found[3]),
    end_line: Number(found[4]), heading: found[5] || '' };
}

function userTurn(text) { return el('div', { class: 'turn user' }, text); }

function renderAnswer(turn, text, sources) {
  turn.querySelector('.markdown')?.remove();
  turn.prepend(markdown(text, sources));
}

/** The end of an answer: sources, the not-cited list, the CLI's warnings. */
function renderEnding(turn, done) {
  const cited = done.sources || [];
  const uncited = done.not_cited || [];
  if (done.mode !== 'generated') turn.append(el('p', { class: 'warning' }, done.reason || done.answer));
  else turn.append(el('p', { class: 'answered-by' }, 'Answered by ' + done.model + ' (' + done.provider + ')'));
  turn.append(el('p', { class: 'sources' }, cited.length ? 'Sources:' : 'Sources: none cited'));
  if (cited.length) turn.append(el('ul', { class: 'sources' }, ...cited.map(sourceLine)));
  if (!cited.length && uncited.length && done.mode === 'generated') {
    turn.append(el('p', { class: 'sources' }, 'Not cited (the passages the model was given):'),
      el('ul', { class: 'sources' }, ...uncited.map(sourceLine)));
  }
  for (const warning of done.warnings || []) turn.append(el('p', { class: 'warning', role: 'alert' }, warning));
}

async function ask(question) {
  const messages = $('messages');
  messages.append(userTurn(question));
  const turn = el('div', { class: 'turn assistant', 'aria-busy': 'true' });
  messages.append(turn);
  controller = new AbortController();
  $('stop').disabled = false;
  $('ask').disabled = true;
  let text = '';
  let tokens = 0;
  try {
    const response = await fetch('/api/ask', {
      method: 'POST', signal: controller.signal,
      headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' },
      body: JSON.stringify(Object.assign({ question, session }, chosenModel())),
    });
    if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error || response.statusText);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!name || data === undefined) continue;
        const event = JSON.parse(data);
        if (name === 'token') {
          text += event.text;
          tokens++;
          renderAnswer(turn, text, new Map());
          turn.dataset.tokens = String(tokens);
          document.dispatchEvent(new CustomEvent('trove:token', { detail: event }));
        } else if (name === 'done') {
          const sources = new Map([...(event.sources || []), ...(event.not_cited || [])].map((s) => [s.number, s]));
          renderAnswer(turn, event.mode === 'generated' ? event.answer : text || event.answer, sources);
          renderEnding(turn, event);
          turn.dataset.done = 'true';
        } else if (name === 'error') {
          turn.append(el('p', { class: 'warning', role: 'alert' }, 'Error: ' + event.error));
        }
      }
    }
  } catch (error) {
    if (error.name === 'AbortError') {
      turn.append(el('p', { class: 'warning' }, 'Stopped: the answer above is partial.'));
      turn.dataset.stopped = 'true';
    } else {
      turn.append(el('p', { class: 'warning', role: 'alert' }, 'Error: ' + error.message));
    }
  } finally {
    turn.setAttribute('aria-busy', 'false');
    controller = null;
    $('stop').disabled = true;
    $('ask').disabled = false;
    loadSessions();
  }
}

async function loadSessions() {
  try {
    const list = (await api('/api/sessions')).sessions;
    const names = list.map((s) => s.name);
    if (!names.includes(session)) names.unshift(session);
    $('sessions').replaceChildren(...names.map((name) => {
      const option = el('option', { value: name }, name);
      option.selected = name === session;
      return option;
    }));
    $('session-name').value = session;
  } catch (error) {
    $('status').textContent = error.message;
  }
}

async function openSession(name) {
  session = name;
  $('session-name').value = name;
  const messages = $('messages');
  messages.replaceChildren();
  try {
    // A name not stored yet (a new chat) has no turns to read.
    const known = (await api('/api/sessions')).sessions.some((s) => s.name === name);
    if (!known) { loadSessions(); return; }
    const stored = await api('/api/sessions/' + encodeURIComponent(name));
    for (const turn of stored.turns) {
      if (turn.role === 'user') { messages.append(userTurn(turn.content)); continue; }
      const sources = (turn.sources || []).map(parseStoredSource).filter(Boolean);
      const node = el('div', { class: 'turn assistant' });
      node.append(markdown(turn.content, new Map(sources.map((s) => [s.number, s]))));
      if (turn.interrupted) node.append(el('p', { class: 'warning' }, 'interrupted: the answer above is partial'));
      if (sources.length) node.append(el('ul', { class: 'sources' }, ...sources.map(sourceLine)));
      messages.append(node);
    }
    // The session's model, on the chosen server if that lists it, else on any that does.
    const options = [...$('model').options].filter((o) => o.dataset.model === stored.chat_model);
    const same = options.find((o) => o.dataset.provider === chosenModel().chat_provider) || options[0];
    if (same) $('model').value = same.value;
  } catch (error) {
    $('status').textContent = error.message;
  }
  loadSessions();
}

/** The picker's choice as ask's members: `{chat_provider, chat_model}`, or nothing for the server's default. */
function chosenModel() {
  const option = $('model').selectedOptions[0];
  if (!option || !option.dataset.provider) return {};
  return { chat_provider: option.dataset.provider, chat_model: option.dataset.model };
}

/** The picker: one group per chat server (Ollama, and the OpenAI-compatible one when configured), its models as
 *  options; a server that cannot be asked shows why, disabled. The server's default is chosen. */
async function loadModels() {
  try {
    const listing = await api('/api/models');
    const option = (provider, model) => el('option', { value: provider + ':' + model, 'data-provider': provider,
      'data-model': model }, model);
    const groups = listing.providers.map((server) => el('optgroup', { label: server.provider },
      ...(server.error ? [el('option', { disabled: '', title: server.error }, 'not reachable')]
        : server.models.map((model) => option(server.provider, model)))));
    $('model').replaceChildren(...groups);
    const defaults = [...$('model').options].filter((o) => o.dataset.provider === listing.chat_provider);
    const chosen = defaults.find((o) => o.dataset.model === listing.chat_model) ||
      defaults.find((o) => o.dataset.model === listing.chat_model + ':latest');
    if (chosen) $('model').value = chosen.value;
    else if (listing.chat_model) {
      // The default is not listed (not pulled yet): asking without a choice answers from the passages, as the CLI.
      $('model').prepend(el('option', { value: '' }, listing.chat_model + ' (default, not listed)'));
      $('model').value = '';
    }
  } catch (error) {
    $('model').replaceChildren(el('option', { value: '' }, 'default'));
    $('status').textContent = error.message;
  }
}

$('ask-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const question = $('question').value.trim();
  if (!question || controller) return;
  $('question').value = '';
  ask(question);
});
$('question').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) { event.preventDefault(); $('ask-form').requestSubmit(); }
});
$('stop').addEventListener('click', () => { if (controller) controller.abort(); });
$('sessions').addEventListener('change', () => openSession($('sessions').value));
$('new-session').addEventListener('click', () => {
  openSession('chat ' + new Date().toISOString().slice(0, 16).replace('T', ' '));
});
$('rename-session').addEventListener('click', async () => {
  const name = $('session-name').value.trim();
  if (!name || name === session) return;
  try {
    await api('/api/sessions/' + encodeURIComponent(session), {
      method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name }) });
    session = name;
    loadSessions();
  } catch (error) {
    $('status').textContent = error.message;
  }
});
$('delete-session').addEventListener('click', async () => {
  const button = $('delete-session');
  if (button.dataset.confirm !== 'true') {
    button.dataset.confirm = 'true';
    button.textContent = 'Delete: sure?';
    setTimeout(() => { button.dataset.confirm = ''; button.textContent = 'Delete'; }, 4000);
    return;
  }
  button.dataset.confirm = '';
  button.textContent = 'Delete';
  try {
    await api('/api/sessions/' + encodeURIComponent(session), { method: 'DELETE' });
  } catch (error) {
    // Never stored: nothing to delete.
  }
  openSession('default');
});

// ---- views, keyboard, status -------------------------------------------------------------------------------------

function showView(name) {
  for (const view of ['search', 'chat']) {
    $('tab-' + view).setAttribute('aria-selected', view === name ? 'true' : 'false');
    $('view-' + view).hidden = view !== name;
  }
  if (name === 'chat') { $('question').focus(); }
  else { $('q').focus(); }
}

let chatLoaded = false;
$('tab-search').addEventListener('click', () => showView('search'));
$('tab-chat').addEventListener('click', () => {
  showView('chat');
  if (!chatLoaded) { chatLoaded = true; loadModels().then(() => openSession(session)); }
});

$('q').addEventListener('input', scheduleSearch);
$('mode').addEventListener('change', scheduleSearch);
for (const id of ['f-path', 'f-ext', 'f-since', 'f-before', 'f-root']) $(id).addEventListener('change', scheduleSearch);
$('search-form').addEventListener('submit', (event) => { event.preventDefault(); scheduleSearch(); });

document.addEventListener('keydown', (event) => {
  const typing = ['INPUT', 'TEXTAREA', 'SELECT'].includes(document.activeElement?.tagName);
  if (event.key === '/' && !typing) { event.preventDefault(); showView('search'); $('q').select(); return; }
  if (event.key === 'Escape') {
    if (controller) { controller.abort(); return; }
    if (!$('document').hidden) { closeDocument(); return; }
    document.activeElement?.blur();
    return;
  }
  if ($('view-search').hidden || (typing && document.activeElement !== $('q'))) return;
  if (event.key === 'ArrowDown') { event.preventDefault(); select(selected + 1); }
  else if (event.key === 'ArrowUp') { event.preventDefault(); select(selected - 1); }
  else if (event.key === 'Enter' && selected >= 0) { event.preventDefault(); openHit(hits[selected]); }
});

async function refreshStatus() {
  try {
    const status = await api('/api/status');
    folders = status.folders.map((f) => f.path);
    let text = status.documents + ' documents · ' + status.chunks + ' passages · ' + (status.model || 'no model');
    if (status.last_indexed) text += ' · indexed ' + new Date(status.last_indexed).toLocaleString();
    if (status.watch && status.watch.indexing) {
      text += ' · indexing ' + (status.watch.files_done ?? 0) + '/' + (status.watch.files_total ?? '?') + ' files';
    }
    $('status').textContent = text;
    $('status').title = 'Folders: ' + folders.join(', ');
  } catch (error) {
    $('status').textContent = error.message;
  }
}

refreshStatus();
setInterval(refreshStatus, 3000);
$('q').focus();
"""##
}
