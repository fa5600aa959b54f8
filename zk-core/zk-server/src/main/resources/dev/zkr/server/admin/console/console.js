// zkr web console: read-only views of one server, refreshed every 1.5 s from the admin endpoint's JSON.
// Every value from the server (node names, data, session ids...) is shown with textContent / createTextNode only:
// nothing the tree holds is ever parsed as HTML.
'use strict';

(function () {
  const REFRESH_MS = 1500;
  let current = initialPath();
  // HTTP Basic credentials typed into the login form (the digest scheme's user:password, as `addauth digest`);
  // kept in this tab only. Node views and admin-only views are answered under them.
  let credentials = sessionStorage.getItem('zkr-basic');
  // Views refused under the current credentials are not asked again until the path or the credentials change:
  // each refusal with credentials counts as a guess on the server.
  let refused = new Set();

  /** A view the server refused (401/403): shown as "no permission" with an offer to log in. */
  class NoPermission extends Error {}

  function initialPath() {
    const h = decodeURIComponent(location.hash.replace(/^#/, ''));
    return h.startsWith('/') ? h : '/';
  }

  function $(id) { return document.getElementById(id); }

  /** An element with text (never markup) and an optional class. */
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    if (cls) { e.className = cls; }
    return e;
  }

  function row(cells) {
    const tr = document.createElement('tr');
    for (const c of cells) {
      const td = document.createElement('td');
      if (c instanceof Node) { td.appendChild(c); } else { td.textContent = c === null || c === undefined ? '' : String(c); }
      tr.appendChild(td);
    }
    return tr;
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  function child(parent, name) { return parent === '/' ? '/' + name : parent + '/' + name; }

  function go(path) {
    current = path;
    refused = new Set();
    history.replaceState(null, '', '#' + encodeURIComponent(path).replace(/%2F/g, '/'));
    refresh();
  }

  function link(text, path) {
    const a = el('a', text);
    a.href = '#';
    a.addEventListener('click', ev => { ev.preventDefault(); go(path); });
    return a;
  }

  async function json(url) {
    if (refused.has(url)) { throw new NoPermission(url); }
    const headers = { 'X-Zkr-Console': '1' };
    if (credentials) { headers.Authorization = 'Basic ' + credentials; }
    const r = await fetch(url, { cache: 'no-store', headers: headers, credentials: 'omit' });
    if (r.status === 401 || r.status === 403) {
      refused.add(url);
      throw new NoPermission(url);
    }
    if (!r.ok) {
      let msg = r.status + ' ' + r.statusText;
      try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
      throw new Error(url.split('?')[0] + ': ' + msg);
    }
    return r.json();
  }

  function q(path) { return '?path=' + encodeURIComponent(path); }

  function showStatus(s) {
    const st = $('status');
    clear(st);
    st.appendChild(el('span', s.serving ? 'serving' : 'NOT serving', s.serving ? 'serving' : 'not-serving'));
    st.appendChild(document.createTextNode(' · server ' + s.serverId + ' (' + s.mode + ', ' + s.role + ')'
      + ' · zxid ' + s.zxid + ' · ' + s.counts.znodes + ' znodes · ' + s.counts.sessions + ' sessions · '
      + s.counts.watches + ' watches · ' + s.counts.connections + ' connections · v' + s.version));
  }

  function showCrumbs(path) {
    const c = $('crumbs');
    clear(c);
    c.appendChild(link('/', '/'));
    if (path === '/') { return; }
    let at = '';
    const parts = path.split('/').slice(1);
    parts.forEach((p, i) => {
      at += '/' + p;
      if (i > 0) { c.appendChild(document.createTextNode(' / ')); }
      c.appendChild(link(p, at));
    });
  }

  /** A "no permission" note with a button that opens the login form. */
  function noPermission() {
    const span = el('span', 'no permission', 'no-permission');
    if (!credentials) {
      const b = el('button', 'log in');
      b.type = 'button';
      b.addEventListener('click', showLogin);
      span.appendChild(document.createTextNode(' '));
      span.appendChild(b);
    }
    return span;
  }

  /** Replaces a panel's content with the "no permission" note. */
  function refusedPanel(box) {
    clear(box);
    box.appendChild(noPermission());
  }

  function showChildren(data) {
    const body = $('children').tBodies[0];
    clear(body);
    for (const ch of data.children) {
      const name = document.createElement('span');
      name.appendChild(link(ch.name, child(data.path, ch.name)));
      if (!ch.permission) {
        const tr = row([name, '', '', '', noPermission()]);
        tr.cells[0].className = 'name';
        body.appendChild(tr);
        continue;
      }
      const tr = row([name, ch.stat.numChildren, ch.stat.dataLength,
        ch.stat.ephemeralOwner === '0' ? '' : ch.stat.ephemeralOwner,
        ch.text !== null ? ch.text : '(binary) ' + ch.base64]);
      tr.cells[0].className = 'name';
      tr.cells[4].className = 'preview';
      body.appendChild(tr);
    }
    $('children-note').textContent = data.count === 0 ? 'no children'
      : data.count + ' children' + (data.truncated ? ' (first 1000 shown)' : '');
  }

  function showNode(n) {
    $('node-path').textContent = n.path;
    clear($('node-data'));
    $('node-data').textContent = n.text !== null ? n.text : '(binary, base64) ' + n.base64;
    const body = $('node-stat').tBodies[0];
    clear(body);
    for (const [k, v] of Object.entries(n.stat)) {
      const shown = (k === 'ctime' || k === 'mtime') && v > 0 ? v + ' (' + new Date(v).toISOString() + ')' : v;
      body.appendChild(row([k, shown]));
    }
  }

  function participant(p, cls) {
    const li = el('li', null, cls);
    li.appendChild(el('span', p.name));
    li.appendChild(document.createTextNode(
      (p.session ? ' · session ' + p.session : '') + (p.data ? ' · ' + p.data : '') + ' · czxid ' + p.czxid));
    return li;
  }

  function showRecipes(data) {
    $('recipes-path').textContent = data.path;
    const box = $('recipes');
    clear(box);
    if (data.recipes.length === 0) {
      box.appendChild(el('p', 'none found (locks, leaders, barriers, groups, queues are recognised by their node names)'));
      return;
    }
    for (const r of data.recipes) {
      const div = el('div', null, 'recipe');
      div.appendChild(el('span', r.kind, 'kind'));
      div.appendChild(document.createTextNode(' '));
      div.appendChild(link(r.path, r.path));
      const details = Object.entries(r.details).map(([k, v]) => k + ' ' + v).join(' · ');
      if (details) { div.appendChild(el('div', details)); }
      const holderWord = { lock: 'holder', rwlock: 'holding', semaphore: 'leases', leader: 'leader',
        barrier: 'entered', group: 'members', queue: 'oldest items' }[r.kind] || 'holders';
      const waiterWord = r.kind === 'leader' ? 'participants' : 'waiters';
      if (r.holders.length) {
        div.appendChild(el('div', holderWord + ':'));
        const ul = el('ul');
        r.holders.forEach(p => ul.appendChild(participant(p, r.kind === 'leader' ? 'leader' : 'holder')));
        div.appendChild(ul);
      }
      if (r.waiters.length) {
        div.appendChild(el('div', waiterWord + ' (in order):'));
        const ol = el('ol');
        r.waiters.forEach(p => ol.appendChild(participant(p)));
        div.appendChild(ol);
      }
      box.appendChild(div);
    }
  }

  function showEnsemble(e) {
    const body = $('members').tBodies[0];
    clear(body);
    for (const m of e.members) {
      const tr = row([m.id + (m.self ? ' (this server)' : ''), m.host, m.clientPort, m.role,
        m.membership || '', m.lagTxns === undefined ? '' : m.lagTxns]);
      if (m.role === 'leader') { tr.cells[3].className = 'leader'; }
      body.appendChild(tr);
    }
  }

  function showSessions(s) {
    $('session-count').textContent = '(' + s.count + ', ' + s.connectedHere + ' connected here)';
    const body = $('sessions').tBodies[0];
    clear(body);
    for (const x of s.sessions) {
      body.appendChild(row([x.id, x.timeoutMs, x.ephemerals, x.watches, x.connection || '']));
    }
  }

  function showLogin() {
    $('login-form').hidden = false;
    $('login-user').focus();
  }

  function showLoginState() {
    const who = credentials ? atob(credentials).split(':')[0] : null;
    $('login-state').textContent = who ? 'logged in as ' + who : '';
    $('login-open').hidden = !!who;
    $('logout').hidden = !who;
  }

  function setCredentials(c) {
    credentials = c;
    if (c) { sessionStorage.setItem('zkr-basic', c); } else { sessionStorage.removeItem('zkr-basic'); }
    refused = new Set();
    showLoginState();
    refresh();
  }

  function bytesToBase64(bytes) {
    let s = '';
    bytes.forEach(b => { s += String.fromCharCode(b); });
    return btoa(s);
  }

  $('login-open').addEventListener('click', showLogin);
  $('login-submit').addEventListener('click', () => {
    const user = $('login-user').value;
    const password = $('login-password').value;
    if (!user || user.includes(':')) { $('login-error').textContent = 'a user name without ":"'; return; }
    $('login-error').textContent = '';
    $('login-password').value = '';
    $('login-form').hidden = true;
    setCredentials(bytesToBase64(new TextEncoder().encode(user + ':' + password)));
  });
  $('logout').addEventListener('click', () => setCredentials(null));
  showLoginState();

  let running = false;

  async function refresh() {
    if (running) { return; }
    running = true;
    const path = current;
    const errors = [];
    const step = async (fn, onRefused) => {
      try { await fn(); } catch (e) {
        if (e instanceof NoPermission && onRefused) { onRefused(); } else { errors.push(e.message); }
      }
    };
    await step(async () => showStatus(await json('api/status')));
    showCrumbs(path);
    await step(async () => showChildren(await json('api/children' + q(path))), () => {
      clear($('children').tBodies[0]);
      refusedPanel($('children-note'));
    });
    await step(async () => showNode(await json('api/node' + q(path))), () => {
      $('node-path').textContent = path;
      refusedPanel($('node-data'));
      clear($('node-stat').tBodies[0]);
    });
    await step(async () => showRecipes(await json('api/recipes' + q(path))), () => {
      $('recipes-path').textContent = path;
      refusedPanel($('recipes'));
    });
    await step(async () => showEnsemble(await json('api/ensemble')));
    await step(async () => showSessions(await json('api/sessions')), () => {
      $('session-count').textContent = '';
      clear($('sessions').tBodies[0]);
      $('sessions').tBodies[0].appendChild(row([noPermission()]));
    });
    $('error').textContent = errors.join(' · ');
    $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
    document.body.setAttribute('data-loaded', 'true');
    running = false;
  }

  refresh();
  setInterval(refresh, REFRESH_MS);
})();
