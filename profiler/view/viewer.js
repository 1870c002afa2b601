/* The script of `knit view`'s page: reads the JSON tree (docs/json.md) and,
 * when there is one, the Chrome trace embedded in the page, and draws the
 * flame graph, the two trees and the timeline.
 *
 * Profiles reach 100,000 nodes and more, so nothing is made per node in the
 * DOM: the graphs are drawn on canvases, skipping frames narrower than a
 * pixel, and the trees create only the rows in view. Node data lives in
 * typed arrays indexed by node number; the tree comes in pre-order, so one
 * pass in order (or in reverse) computes what depends on parents (or on
 * children).
 *
 * The page says how it went in #knit-status (state, errors, what it built
 * and how long it took), so that a headless browser's DOM dump can be
 * checked. */
'use strict';

(function () {
  const t0 = performance.now();
  const statusBox = document.getElementById('knit-status');
  const errorBox = document.getElementById('knit-errors');
  let errorCount = 0;

  function noteError(text) {
    errorCount++;
    statusBox.dataset.errors = String(errorCount);
    errorBox.textContent += text + '\n';
  }
  window.addEventListener('error', (e) => {
    noteError('error: ' + e.message + (e.lineno ? ' (line ' + e.lineno + ')' : ''));
  });
  window.addEventListener('unhandledrejection', (e) => {
    noteError('unhandled rejection: ' + e.reason);
  });

  function setStatus(key, value) {
    statusBox.dataset[key] = String(value);
  }

  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');
  }

  function baseName(path) {
    const slash = path.lastIndexOf('/');
    return slash >= 0 ? path.slice(slash + 1) : path;
  }

  // Stable colours from names, so a function keeps its colour in the flame
  // graph, the timeline and across reloads.
  function hashText(s) {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 16777619);
    }
    return h >>> 0;
  }

  // The runtime's states in colours no function gets (functions are warm
  // yellows and oranges, never red, purple, teal or blue), so they stand
  // out in the timeline and the flame graph.
  const OMP_COLOURS = {
    '<omp-idle>': '#c9c9cf',
    '<omp-barrier>': '#8a6fd1',
    '<omp-lock-wait>': '#d62828',
    '<omp-overhead>': '#4aa3a2',
    'parallel region': '#a9c8ee',
  };

  // A device's operations, by kind (the slice's name up to its size), in
  // greens and dark blues that neither the functions nor the states use.
  const DEVICE_COLOURS = {
    kernel: '#2e8b57',
    'to device': '#1b4f9c',
    'from device': '#0b7a75',
    alloc: '#8c8c3e',
  };

  function deviceColour(name) {
    for (const kind of Object.keys(DEVICE_COLOURS)) if (name === kind || name.startsWith(kind + ' ')) return DEVICE_COLOURS[kind];
    return DEVICE_COLOURS.kernel;
  }

  function warmColour(name, kind) {
    if (OMP_COLOURS[name]) return OMP_COLOURS[name];
    const h = hashText(name);
    if (kind === KIND_LOOP) return 'hsl(' + (100 + (h % 40)) + ',45%,' + (62 + (h >> 8) % 12) + '%)';
    if (kind === KIND_PLACEHOLDER) return 'hsl(220,15%,' + (70 + (h % 12)) + '%)';
    const light = kind === KIND_INLINED ? 74 : 60;
    return 'hsl(' + (18 + (h % 40)) + ',' + (70 + ((h >> 8) % 25)) + '%,' + (light + ((h >> 16) % 10)) + '%)';
  }

  // --- the profile ---------------------------------------------------------

  const KIND_ROOT = 0, KIND_FUNCTION = 1, KIND_INLINED = 2, KIND_LOOP = 3, KIND_PLACEHOLDER = 4;
  const KIND_CODES = { root: KIND_ROOT, function: KIND_FUNCTION, inlined: KIND_INLINED,
                       loop: KIND_LOOP, placeholder: KIND_PLACEHOLDER };
  const KIND_NAMES = ['root', 'function', 'inlined', 'loop', 'placeholder'];

  function readEmbedded(id) {
    const el = document.getElementById(id);
    if (!el) return null;
    try {
      return JSON.parse(el.textContent);
    } catch (e) {
      throw new Error('the embedded ' + id + ' is not valid JSON: ' + e.message);
    }
  }

  function loadProfile(doc) {
    if (!doc || doc.format !== 'knit-profile' || !Array.isArray(doc.nodes) ||
        !Array.isArray(doc.metrics) || !Array.isArray(doc.node_fields))
      throw new Error('the embedded data is no knit profile (format "knit-profile")');
    if (doc.version !== 1) throw new Error('knit profile version ' + doc.version + ', this page reads 1');
    const f = {};
    doc.node_fields.forEach((name, i) => { f[name] = i; });
    for (const need of ['parent', 'kind', 'function', 'values'])
      if (!(need in f)) throw new Error('the profile\'s nodes lack the field ' + need);
    const strings = doc.strings || [];
    const n = doc.nodes.length;
    const M = doc.metrics.length;
    if (n === 0) throw new Error('the profile has no nodes');
    const p = {
      doc, n, M, strings,
      metrics: doc.metrics,
      parent: new Int32Array(n),
      kind: new Uint8Array(n),
      fn: new Int32Array(n),
      raw: new Int32Array(n),
      module: new Int32Array(n),
      file: new Int32Array(n),
      line: new Int32Array(n),
      depth: new Int32Array(n),
      end: new Int32Array(n), // one past the last node of the subtree
      incl: new Float64Array(n * M),
      excl: new Float64Array(n * M),
      childStart: new Int32Array(n + 1),
      childList: new Int32Array(Math.max(n - 1, 0)),
      maxDepth: 0,
    };
    const str = (i) => (i >= 0 && i < strings.length ? strings[i] : null);
    const get = (row, name, dflt) => (name in f && row[f[name]] !== undefined ? row[f[name]] : dflt);
    const childCount = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const row = doc.nodes[i];
      const parent = i === 0 ? -1 : row[f.parent];
      if (i > 0 && !(parent >= 0 && parent < i))
        throw new Error('node ' + i + ': parent ' + parent + ' does not come before it');
      p.parent[i] = parent;
      p.kind[i] = KIND_CODES[row[f.kind]] !== undefined ? KIND_CODES[row[f.kind]] : KIND_FUNCTION;
      p.fn[i] = row[f.function];
      p.raw[i] = get(row, 'raw', -1);
      p.module[i] = get(row, 'module', -1);
      p.file[i] = get(row, 'file', -1);
      p.line[i] = get(row, 'line', 0);
      const values = row[f.values];
      for (let m = 0; m < M; m++) {
        p.incl[i * M + m] = +values[2 * m] || 0;
        p.excl[i * M + m] = +values[2 * m + 1] || 0;
      }
      if (i > 0) {
        p.depth[i] = p.depth[parent] + 1;
        if (p.depth[i] > p.maxDepth) p.maxDepth = p.depth[i];
        childCount[parent]++;
      }
    }
    // Children lists in node order, which is the tree's sort order.
    for (let i = 0; i < n; i++) p.childStart[i + 1] = p.childStart[i] + childCount[i];
    const fill = p.childStart.slice(0, n);
    for (let i = 1; i < n; i++) p.childList[fill[p.parent[i]]++] = i;
    for (let i = n - 1; i >= 0; i--) {
      if (p.end[i] === 0) p.end[i] = i + 1;
      if (i > 0 && p.end[i] > p.end[p.parent[i]]) p.end[p.parent[i]] = p.end[i];
    }
    p.name = (i) => str(p.fn[i]) || '?';
    p.str = str;
    return p;
  }

  function formatValue(v) {
    if (v === 0) return '0';
    if (Math.abs(v) >= 100 || Number.isInteger(v)) return Math.round(v).toLocaleString('en-US');
    return v.toFixed(1);
  }

  function percent(v, total) {
    return total > 0 ? (100 * v / total).toFixed(1) + '%' : '';
  }

  // --- the tooltip ----------------------------------------------------------

  const tooltip = document.getElementById('tooltip');

  function showTooltip(html, ev) {
    tooltip.innerHTML = html;
    tooltip.hidden = false;
    const pad = 14;
    let x = ev.clientX + pad, y = ev.clientY + pad;
    const r = tooltip.getBoundingClientRect();
    if (x + r.width > window.innerWidth) x = Math.max(0, ev.clientX - r.width - pad);
    if (y + r.height > window.innerHeight) y = Math.max(0, ev.clientY - r.height - pad);
    tooltip.style.left = x + 'px';
    tooltip.style.top = y + 'px';
  }

  function hideTooltip() {
    tooltip.hidden = true;
  }

  function nodeTooltip(p, i) {
    const name = p.name(i);
    let html = '<div class="t">' + escapeHtml(name) + '</div>';
    const raw = p.str(p.raw[i]);
    if (raw) html += '<div>symbol: ' + escapeHtml(raw) + '</div>';
    html += '<div>' + KIND_NAMES[p.kind[i]];
    const file = p.str(p.file[i]);
    if (file) html += ' at ' + escapeHtml(baseName(file)) + ':' + p.line[i];
    const module = p.str(p.module[i]);
    if (module) html += ' in ' + escapeHtml(baseName(module));
    html += '</div><table><tr><td></td><td class="v">inclusive</td><td class="v"></td><td class="v">exclusive</td></tr>';
    for (let m = 0; m < p.M; m++) {
      const meta = p.metrics[m];
      const inc = p.incl[i * p.M + m], exc = p.excl[i * p.M + m];
      html += '<tr><td>' + escapeHtml(meta.name) + '</td><td class="v">' + formatValue(inc) + ' ' +
              escapeHtml(meta.unit) + '</td><td class="v">' + percent(inc, meta.total) +
              '</td><td class="v">' + formatValue(exc) + ' ' + escapeHtml(meta.unit) + '</td></tr>';
    }
    return html + '</table>';
  }

  // --- search ---------------------------------------------------------------

  // matches[i]: 1 the node's name holds the text, 2 a node below it does;
  // onPath[i]: 1 when the node or one above it matches.
  function searchProfile(p, text) {
    const matches = new Uint8Array(p.n);
    const onPath = new Uint8Array(p.n);
    if (!text) return { text: '', matches, onPath, count: 0 };
    const needle = text.toLowerCase();
    const byString = new Map();
    let count = 0;
    for (let i = 1; i < p.n; i++) {
      let hit = byString.get(p.fn[i]);
      if (hit === undefined) {
        hit = p.name(i).toLowerCase().includes(needle);
        byString.set(p.fn[i], hit);
      }
      if (hit) {
        matches[i] = 1;
        count++;
      }
    }
    for (let i = 1; i < p.n; i++) onPath[i] = matches[i] === 1 || onPath[p.parent[i]] ? 1 : 0;
    for (let i = p.n - 1; i > 0; i--)
      if (matches[i] && !matches[p.parent[i]]) matches[p.parent[i]] = 2;
    return { text: needle, matches, onPath, count };
  }

  // --- the flame graph ------------------------------------------------------

  const ROW = 18;

  function FlameGraph(canvas, box, p, state) {
    const ctx = canvas.getContext('2d');
    let x0 = new Float64Array(p.n); // left edge, as a share of the root
    let laidMetric = -1;
    let rects = []; // what the last draw put on screen, for the mouse
    let focus = 0;

    function layout(m) {
      const M = p.M, total = p.incl[m] || 1;
      const cursor = new Float64Array(p.n);
      x0[0] = 0;
      cursor[0] = 0;
      for (let i = 1; i < p.n; i++) {
        const parent = p.parent[i];
        x0[i] = cursor[parent];
        cursor[i] = x0[i];
        cursor[parent] += p.incl[i * M + m] / total;
      }
      laidMetric = m;
    }

    function width(i) {
      const total = p.incl[state.metric] || 1;
      return p.incl[i * p.M + state.metric] / total;
    }

    function draw() {
      if (laidMetric !== state.metric) layout(state.metric);
      const ratio = window.devicePixelRatio || 1;
      const cssWidth = box.clientWidth || 1200;
      const ancestors = [];
      for (let a = focus; a !== 0; a = p.parent[a]) ancestors.unshift(a);
      ancestors.unshift(0);
      const rows = ancestors.length + (p.maxDepth - p.depth[focus]) + 1;
      const cssHeight = Math.min(rows * ROW, 30000);
      canvas.width = Math.round(cssWidth * ratio);
      canvas.height = Math.round(cssHeight * ratio);
      canvas.style.width = cssWidth + 'px';
      canvas.style.height = cssHeight + 'px';
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, cssWidth, cssHeight);
      ctx.font = '11px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      rects = [];
      let matched = 0;
      const search = state.search;
      const searching = search.text !== '';
      const minPx = 0.5;

      const paint = (i, x, y, w, dim) => {
        const match = searching && search.matches[i] === 1;
        if (match) matched++;
        ctx.globalAlpha = dim || (searching && !match) ? 0.35 : 1;
        ctx.fillStyle = match ? '#d62ad6' : i === 0 ? '#b9b9c3' : warmColour(p.name(i), p.kind[i]);
        ctx.fillRect(x, y, Math.max(w - 0.5, 0.5), ROW - 1);
        if (w > 28) {
          let label = i === 0 ? 'all (' + p.metrics[state.metric].name + ')' : p.name(i);
          const room = w - 6;
          if (ctx.measureText(label).width > room) {
            const chars = Math.max(0, Math.floor(room / 6.2) - 1);
            label = chars > 1 ? label.slice(0, chars) + '\u2026' : '';
          }
          if (label) {
            ctx.fillStyle = '#111';
            ctx.fillText(label, x + 3, y + ROW / 2);
          }
        }
        ctx.globalAlpha = 1;
        rects.push({ i, x, y, w });
      };

      // The focus's ancestors span the width, dimmed: clicking one zooms out.
      ancestors.forEach((a, row) => {
        if (a !== focus) paint(a, 0, row * ROW, cssWidth, true);
      });
      const baseRow = ancestors.length - 1;
      const left = x0[focus], span = width(focus) || 1;
      const scale = cssWidth / span;
      // Pre-order walk that skips a subtree as soon as its node is too narrow.
      const M = p.M, m = state.metric, total = p.incl[m] || 1;
      let i = focus;
      const end = p.end[focus];
      while (i < end) {
        const w = (p.incl[i * M + m] / total) * scale;
        if (w < minPx) {
          i = p.end[i];
          continue;
        }
        const y = (baseRow + p.depth[i] - p.depth[focus]) * ROW;
        if (y >= cssHeight) {
          i = p.end[i]; // below the canvas, and so is everything under it
          continue;
        }
        paint(i, (x0[i] - left) * scale, y, w, false);
        i++;
      }
      setStatus('flameRects', rects.length);
      setStatus('flameMatches', matched);
      setStatus('flameFocus', focus);
    }

    function hit(ev) {
      const r = canvas.getBoundingClientRect();
      const x = ev.clientX - r.left, y = ev.clientY - r.top;
      for (let k = rects.length - 1; k >= 0; k--) {
        const q = rects[k];
        if (y >= q.y && y < q.y + ROW && x >= q.x && x < q.x + q.w) return q.i;
      }
      return -1;
    }

    canvas.addEventListener('mousemove', (ev) => {
      const i = hit(ev);
      if (i < 0) hideTooltip();
      else showTooltip(nodeTooltip(p, i), ev);
    });
    canvas.addEventListener('mouseleave', hideTooltip);
    canvas.addEventListener('click', (ev) => {
      const i = hit(ev);
      if (i < 0) return;
      focus = i === focus ? p.parent[i] < 0 ? 0 : p.parent[i] : i;
      draw();
    });

    return {
      draw,
      zoom(i) {
        focus = i;
        draw();
      },
    };
  }

  // --- virtualized trees ----------------------------------------------------

  const TREE_ROW = 20;

  // A tree shown row by row: only the rows in view exist in the DOM.
  // model: columns [{metric, part, tip, value(id)}], children(id) (null:
  // the roots), hasChildren(id), label(id) -> {name, mark, src},
  // matches(id), key(id) (what expansion is kept by), tooltip(id),
  // onSelect(id), and filter(id) when a search narrows the tree.
  function VirtualTree(host, model, statusKey) {
    host.innerHTML = '';
    const head = document.createElement('div');
    head.className = 'head';
    const scroll = document.createElement('div');
    scroll.className = 'scroll';
    const spacer = document.createElement('div');
    const rowsBox = document.createElement('div');
    rowsBox.className = 'rows';
    scroll.appendChild(spacer);
    scroll.appendChild(rowsBox);
    host.appendChild(head);
    host.appendChild(scroll);

    let sortColumn = 0; // an index into model.columns, or -1 for the name
    let sortDescending = true;
    const expanded = new Set();
    let flat = []; // the ids in display order
    let depthOf = []; // and their depths

    function renderHead() {
      let html = '';
      model.columns.forEach((c, k) => {
        html += '<span class="num' + (k === sortColumn ? ' sorted' : '') + '" data-col="' + k +
                '" title="' + escapeHtml(c.tip) + '">' + escapeHtml(c.metric) + '<br>' + escapeHtml(c.part) +
                (k === sortColumn ? (sortDescending ? ' \u25be' : ' \u25b4') : '') + '</span>';
      });
      html += '<span class="name' + (sortColumn < 0 ? ' sorted' : '') + '" data-col="-1">function' +
              (sortColumn < 0 ? (sortDescending ? ' \u25be' : ' \u25b4') : '') + '</span>';
      head.innerHTML = html;
    }

    function sortedChildren(id) {
      let kids = model.children(id);
      if (model.filter) kids = kids.filter(model.filter);
      const sign = sortDescending ? -1 : 1;
      if (sortColumn < 0) {
        const names = new Map(kids.map((k) => [k, model.label(k).name]));
        return kids.slice().sort((a, b) => sign * (names.get(a) < names.get(b) ? -1 : names.get(a) > names.get(b) ? 1 : 0));
      }
      const col = model.columns[sortColumn];
      return kids.slice().sort((a, b) => sign * (col.value(a) - col.value(b)));
    }

    function flatten() {
      flat = [];
      depthOf = [];
      const stack = [];
      const roots = sortedChildren(null);
      for (let k = roots.length - 1; k >= 0; k--) stack.push(roots[k], 0);
      while (stack.length) {
        const depth = stack.pop(), id = stack.pop();
        flat.push(id);
        depthOf.push(depth);
        if (expanded.has(model.key(id))) {
          const kids = sortedChildren(id);
          for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k], depth + 1);
        }
      }
      spacer.style.height = flat.length * TREE_ROW + 'px';
      setStatus(statusKey + 'Rows', flat.length);
      render();
    }

    function render() {
      // A pane not laid out (hidden, or a headless dump before layout) still
      // shows its first rows.
      const height = scroll.clientHeight || 360;
      const first = Math.max(0, Math.floor(scroll.scrollTop / TREE_ROW) - 5);
      const last = Math.min(flat.length, first + Math.ceil(height / TREE_ROW) + 10);
      rowsBox.style.top = first * TREE_ROW + 'px';
      let html = '';
      for (let r = first; r < last; r++) {
        const id = flat[r];
        const label = model.label(id);
        const open = expanded.has(model.key(id));
        const leaf = !model.hasChildren(id);
        let cells = '';
        for (const c of model.columns) cells += '<span class="num">' + formatValue(c.value(id)) + '</span>';
        html += '<div class="row' + (model.matches(id) ? ' match' : '') + '" data-r="' + r + '">' + cells +
                '<span class="name" style="padding-left:' + (4 + depthOf[r] * 14) + 'px">' +
                '<span class="tw">' + (leaf ? '' : open ? '\u25be' : '\u25b8') + '</span>' +
                escapeHtml(label.name) + (label.mark ? ' <span class="mark">' + escapeHtml(label.mark) + '</span>' : '') +
                (label.src ? '<span class="src">' + escapeHtml(label.src) + '</span>' : '') + '</span></div>';
      }
      rowsBox.innerHTML = html;
      setStatus(statusKey + 'Dom', last - first);
    }

    scroll.addEventListener('scroll', () => window.requestAnimationFrame(render));
    head.addEventListener('click', (ev) => {
      const cell = ev.target.closest('[data-col]');
      if (!cell) return;
      const col = +cell.dataset.col;
      if (col === sortColumn) sortDescending = !sortDescending;
      else {
        sortColumn = col;
        sortDescending = col >= 0;
      }
      renderHead();
      flatten();
    });
    rowsBox.addEventListener('click', (ev) => {
      const row = ev.target.closest('.row');
      if (!row) return;
      const id = flat[+row.dataset.r];
      const key = model.key(id);
      if (expanded.has(key)) expanded.delete(key);
      else if (model.hasChildren(id)) expanded.add(key);
      flatten();
      if (model.onSelect) model.onSelect(id);
    });
    rowsBox.addEventListener('mousemove', (ev) => {
      const row = ev.target.closest('.row');
      if (row && model.tooltip) showTooltip(model.tooltip(flat[+row.dataset.r]), ev);
    });
    rowsBox.addEventListener('mouseleave', hideTooltip);

    renderHead();
    return {
      expanded,
      refresh: flatten,
    };
  }

  function metricColumns(p, state) {
    const cols = [];
    state.shownMetrics.forEach((m) => {
      const meta = p.metrics[m];
      cols.push({ metric: meta.name, part: 'incl', tip: meta.description + ' (' + meta.unit + ', inclusive)',
                  value: (i) => p.incl[i * p.M + m] });
      cols.push({ metric: meta.name, part: 'excl', tip: meta.description + ' (' + meta.unit + ', exclusive)',
                  value: (i) => p.excl[i * p.M + m] });
    });
    return cols;
  }

  function nodeLabel(p, i) {
    const file = p.str(p.file[i]);
    const mark = p.kind[i] === KIND_INLINED ? '[inlined]' : '';
    return { name: p.name(i), mark, src: file ? baseName(file) + ':' + p.line[i] : '' };
  }

  function TopDown(host, p, state, onSelect) {
    const kids = (i) => Array.from(p.childList.subarray(p.childStart[i], p.childStart[i + 1]));
    const model = {
      columns: metricColumns(p, state),
      children: (id) => kids(id === null ? 0 : id),
      hasChildren: (id) => p.childStart[id + 1] > p.childStart[id],
      label: (id) => nodeLabel(p, id),
      key: (id) => id,
      matches: (id) => state.search.matches[id] === 1,
      tooltip: (id) => nodeTooltip(p, id),
      onSelect,
      filter: null,
    };
    const tree = VirtualTree(host, model, 'topdown');

    // The hot paths open: every node with at least 5% of the metric's
    // total, down to the depth where a tree stops being readable.
    function openHot() {
      tree.expanded.clear();
      const total = p.incl[state.metric] || 1;
      for (let i = 0; i < p.n; i++)
        if (p.depth[i] < 40 && p.incl[i * p.M + state.metric] >= 0.05 * total) tree.expanded.add(i);
    }

    return {
      search() {
        if (state.search.text === '') {
          model.filter = null;
          openHot();
        } else {
          model.filter = (id) => state.search.matches[id] !== 0;
          tree.expanded.clear();
          for (let i = 0; i < p.n; i++) if (state.search.matches[i] === 2) tree.expanded.add(i);
        }
        tree.refresh();
      },
      reset() {
        openHot();
        tree.refresh();
      },
    };
  }

  // Bottom-up: one root per function with its exclusive cost summed over
  // the tree; below it, its callers, each with the part of that cost that
  // came through it; and so on up. Built on demand: a level holds, for each
  // sampled node it stands for, the ancestor it has reached.
  function BottomUp(host, p, state) {
    const M = p.M;
    const nodes = []; // {name, leaves: Int32Array, at: Int32Array, self: Float64Array(M), kids}

    function group(leaves, at) {
      const byName = new Map();
      for (let k = 0; k < leaves.length; k++) {
        const a = at[k];
        if (a <= 0) continue;
        const key = p.fn[a] + ':' + p.kind[a];
        let g = byName.get(key);
        if (!g) byName.set(key, (g = { sample: a, leaves: [], at: [] }));
        g.leaves.push(leaves[k]);
        g.at.push(a);
      }
      const out = [];
      for (const g of byName.values()) {
        const self = new Float64Array(M);
        for (const leaf of g.leaves) for (let m = 0; m < M; m++) self[m] += p.excl[leaf * M + m];
        const id = nodes.length;
        nodes.push({ sample: g.sample, leaves: Int32Array.from(g.leaves), at: Int32Array.from(g.at), self, kids: null });
        out.push(id);
      }
      out.sort((a, b) => nodes[b].self[state.metric] - nodes[a].self[state.metric]);
      return out;
    }

    const sampled = [];
    for (let i = 1; i < p.n; i++) {
      for (let m = 0; m < M; m++) {
        if (p.excl[i * M + m] !== 0) {
          sampled.push(i);
          break;
        }
      }
    }
    const roots = group(sampled, sampled);

    function kids(id) {
      const b = nodes[id];
      if (b.kids === null) {
        const up = new Int32Array(b.at.length);
        for (let k = 0; k < up.length; k++) up[k] = p.parent[b.at[k]];
        b.kids = group(b.leaves, up);
      }
      return b.kids;
    }

    const cols = [];
    state.shownMetrics.forEach((m) => {
      const meta = p.metrics[m];
      cols.push({ metric: meta.name, part: 'self', tip: meta.description + ' (' + meta.unit + ', exclusive, through this path)',
                  value: (id) => nodes[id].self[m] });
    });
    const model = {
      columns: cols,
      children: (id) => (id === null ? roots : kids(id)),
      hasChildren: (id) => {
        const b = nodes[id];
        for (let k = 0; k < b.at.length; k++) if (p.parent[b.at[k]] > 0) return true;
        return false;
      },
      label: (id) => {
        const l = nodeLabel(p, nodes[id].sample);
        l.src = '';
        return l;
      },
      key: (id) => id,
      matches: (id) => state.search.text !== '' && p.name(nodes[id].sample).toLowerCase().includes(state.search.text),
      tooltip: (id) => {
        const b = nodes[id];
        let html = '<div class="t">' + escapeHtml(p.name(b.sample)) + '</div><div>' + b.leaves.length +
                   ' sampled node' + (b.leaves.length === 1 ? '' : 's') + ' through this path</div><table>';
        for (let m = 0; m < M; m++)
          html += '<tr><td>' + escapeHtml(p.metrics[m].name) + ' self</td><td class="v">' + formatValue(b.self[m]) +
                  ' ' + escapeHtml(p.metrics[m].unit) + '</td><td class="v">' + percent(b.self[m], p.metrics[m].total) + '</td></tr>';
        return html + '</table>';
      },
      filter: null,
    };
    const tree = VirtualTree(host, model, 'bottomup');
    return {
      search() {
        // Kept: the sampled paths that pass through a match, wherever on them.
        model.filter = state.search.text === '' ? null : (id) => nodes[id].leaves.some((leaf) => state.search.onPath[leaf] === 1);
        tree.refresh();
      },
      reset() {
        tree.refresh();
      },
    };
  }

  // --- the timeline ---------------------------------------------------------

  const LANE_ROW = 12, LABEL_WIDTH = 150, MAX_LEVELS = 16;

  function loadTrace(doc) {
    const events = Array.isArray(doc) ? doc : doc && Array.isArray(doc.traceEvents) ? doc.traceEvents : null;
    if (!events) throw new Error('the embedded trace has no traceEvents array');
    const threads = new Map();
    const thread = (tid) => {
      let t = threads.get(tid);
      if (!t) threads.set(tid, (t = { tid, name: 'thread ' + tid, order: Infinity, slices: [], levels: 1, device: false }));
      return t;
    };
    let start = Infinity, end = -Infinity, seq = 0;
    for (const e of events) {
      if (!e || typeof e !== 'object') continue;
      if (e.ph === 'M' && e.name === 'thread_name' && e.args && e.args.name !== undefined)
        thread(e.tid).name = String(e.args.name);
      else if (e.ph === 'M' && e.name === 'thread_sort_index' && e.args && typeof e.args.sort_index === 'number')
        thread(e.tid).order = e.args.sort_index;
      else if (e.ph === 'X' && typeof e.ts === 'number') {
        // Times in whole nanoseconds: microseconds with three decimals do
        // not add up exactly as doubles, and a slice that ends where the
        // next begins must not seem to hold it.
        const ts = Math.round(e.ts * 1000);
        const dur = typeof e.dur === 'number' && e.dur > 0 ? Math.round(e.dur * 1000) : 0;
        const node = e.args && typeof e.args.node === 'number' ? e.args.node : -1;
        const cat = String(e.cat || '');
        thread(e.tid).slices.push({ name: String(e.name), cat, ts, dur, node, seq: seq++, level: 0 });
        if (cat === 'device') thread(e.tid).device = true;
        if (ts < start) start = ts;
        if (ts + dur > end) end = ts + dur;
      }
    }
    // Slices that start and end together nest by their order in the file.
    // Chrome takes the first as the outer one; a writer that writes each
    // slice as it closes puts the inner one first. Which of the two the
    // file does shows where such slices name different nodes of the
    // profile's tree (args.node: an outer frame's node is created, so
    // numbered, before an inner one's); the majority decides for all.
    let outerFirst = 0, innerFirst = 0;
    const groups = [];
    for (const t of threads.values()) {
      t.slices.sort((a, b) => a.ts - b.ts || b.dur - a.dur || a.seq - b.seq);
      for (let i = 0; i < t.slices.length;) {
        let j = i + 1;
        while (j < t.slices.length && t.slices[j].ts === t.slices[i].ts && t.slices[j].dur === t.slices[i].dur) j++;
        if (j - i > 1) {
          groups.push([t.slices, i, j]);
          const first = t.slices[i].node, last = t.slices[j - 1].node;
          if (first >= 0 && last >= 0 && first !== last) {
            if (first < last) outerFirst++;
            else innerFirst++;
          }
        }
        i = j;
      }
    }
    const reversed = innerFirst > outerFirst;
    if (reversed) {
      for (const [list, i, j] of groups) {
        const part = list.slice(i, j).reverse();
        for (let k = i; k < j; k++) list[k] = part[k - i];
      }
    }
    // Nesting: a slice is inside the open ones that end after it starts.
    let mainNested = 0, mainOuter = 0;
    for (const t of threads.values()) {
      const open = [];
      let samplesOpen = 0;
      for (const s of t.slices) {
        while (open.length && open[open.length - 1].ts + open[open.length - 1].dur <= s.ts) {
          if (open.pop().cat === 'sample') samplesOpen--;
        }
        s.level = open.length;
        if (s.level + 1 > t.levels) t.levels = s.level + 1;
        if (s.name === 'main' && s.cat === 'sample') {
          if (samplesOpen > 0) mainNested++;
          else mainOuter++;
        }
        open.push(s);
        if (s.cat === 'sample') samplesOpen++;
      }
      t.levels = Math.min(t.levels, MAX_LEVELS);
    }
    setStatus('traceOrder', reversed ? 'inner-first' : 'outer-first');
    setStatus('traceMainOuter', mainOuter);
    setStatus('traceMainNested', mainNested);
    const list = Array.from(threads.values()).filter((t) => t.slices.length > 0 || t.name);
    // Lanes in the trace's own order of threads (thread_sort_index), else by
    // tid; a device's lane below every thread's, whatever its index says.
    list.sort((a, b) => (a.device - b.device) || (a.order === b.order ? 0 : a.order < b.order ? -1 : 1) || a.tid - b.tid);
    return { threads: list, start: isFinite(start) ? start : 0, end: isFinite(end) ? end : 1, events: events.length };
  }

  function sliceColour(s) {
    if (s.cat === 'device') return deviceColour(s.name);
    return OMP_COLOURS[s.name] || warmColour(s.name, KIND_FUNCTION);
  }

  function Timeline(canvas, box, trace, state) {
    const ctx = canvas.getContext('2d');
    let from = trace.start, to = Math.max(trace.end, trace.start + 1);
    let drawn = [];

    function draw() {
      const ratio = window.devicePixelRatio || 1;
      const cssWidth = box.clientWidth || 1200;
      let height = 0;
      for (const t of trace.threads) height += t.levels * LANE_ROW + 6;
      const cssHeight = Math.max(height, 20);
      canvas.width = Math.round(cssWidth * ratio);
      canvas.height = Math.round(cssHeight * ratio);
      canvas.style.width = cssWidth + 'px';
      canvas.style.height = cssHeight + 'px';
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, cssWidth, cssHeight);
      ctx.font = '11px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      const plot = cssWidth - LABEL_WIDTH;
      const scale = plot / (to - from);
      const counts = { idle: 0, barrier: 0, lockwait: 0, region: 0, device: 0 };
      const searching = state.search.text !== '';
      drawn = [];
      let y = 0;
      for (const t of trace.threads) {
        ctx.fillStyle = '#f6f6f8';
        ctx.fillRect(0, y, cssWidth, t.levels * LANE_ROW + 4);
        ctx.fillStyle = '#222';
        ctx.fillText(t.name.length > 22 ? t.name.slice(0, 21) + '\u2026' : t.name, 4, y + LANE_ROW / 2 + 1);
        // One rectangle per pixel column and level at most: the first slice
        // there stands for the rest.
        const lastPx = new Float64Array(t.levels).fill(-1);
        for (const s of t.slices) {
          if (s.ts > to) break; // sorted by start: the rest is to the right
          if (s.level >= t.levels || s.ts + s.dur < from) continue;
          const x = LABEL_WIDTH + Math.max(0, (s.ts - from) * scale);
          const xe = LABEL_WIDTH + Math.min(plot, (s.ts + s.dur - from) * scale);
          let w = xe - x;
          if (w < 1) {
            if (Math.floor(x) <= lastPx[s.level]) continue;
            w = 1;
          }
          lastPx[s.level] = Math.floor(x + w - 1);
          const sy = y + 2 + s.level * LANE_ROW;
          const match = searching && s.name.toLowerCase().includes(state.search.text);
          ctx.globalAlpha = searching && !match ? 0.3 : 1;
          ctx.fillStyle = match ? '#d62ad6' : sliceColour(s);
          ctx.fillRect(x, sy, w, LANE_ROW - 1);
          if (w > 40) {
            ctx.fillStyle = '#111';
            const chars = Math.floor((w - 6) / 6.2);
            ctx.fillText(s.name.length > chars ? s.name.slice(0, Math.max(chars - 1, 0)) + '\u2026' : s.name, x + 3, sy + LANE_ROW / 2);
          }
          ctx.globalAlpha = 1;
          drawn.push({ s, t, x, y: sy, w });
          if (s.cat === 'device') counts.device++;
          else if (s.name === '<omp-idle>') counts.idle++;
          else if (s.name === '<omp-barrier>') counts.barrier++;
          else if (s.name === '<omp-lock-wait>') counts.lockwait++;
          else if (s.name === 'parallel region') counts.region++;
        }
        y += t.levels * LANE_ROW + 6;
      }
      setStatus('timelineRects', drawn.length);
      setStatus('timelineIdle', counts.idle);
      setStatus('timelineBarrier', counts.barrier);
      setStatus('timelineLockWait', counts.lockwait);
      setStatus('timelineRegions', counts.region);
      setStatus('timelineDevice', counts.device);
    }

    function timeAt(ev) {
      const r = canvas.getBoundingClientRect();
      const plot = r.width - LABEL_WIDTH;
      return from + ((ev.clientX - r.left - LABEL_WIDTH) / plot) * (to - from);
    }

    function hit(ev) {
      const r = canvas.getBoundingClientRect();
      const x = ev.clientX - r.left, y = ev.clientY - r.top;
      for (let k = drawn.length - 1; k >= 0; k--) {
        const d = drawn[k];
        if (y >= d.y && y < d.y + LANE_ROW && x >= d.x && x < d.x + d.w) return d;
      }
      return null;
    }

    canvas.addEventListener('mousemove', (ev) => {
      const d = hit(ev);
      if (!d) return hideTooltip();
      showTooltip('<div class="t">' + escapeHtml(d.s.name) + '</div><div>' + escapeHtml(d.t.name) + ' (' +
                  escapeHtml(d.s.cat) + ')</div><div>from ' + ((d.s.ts - trace.start) / 1e6).toFixed(3) +
                  ' ms for ' + (d.s.dur / 1e6).toFixed(3) + ' ms</div>', ev);
    });
    canvas.addEventListener('mouseleave', hideTooltip);
    canvas.addEventListener('click', (ev) => {
      const at = timeAt(ev);
      const span = Math.max((to - from) * (ev.shiftKey ? 2 : 0.5), 1000); // 1 us at least
      from = Math.max(trace.start, at - span / 2);
      to = Math.min(Math.max(trace.end, trace.start + 1), from + span);
      draw();
    });
    canvas.addEventListener('dblclick', () => {
      from = trace.start;
      to = Math.max(trace.end, trace.start + 1);
      draw();
    });
    return { draw };
  }

  function legend(host, devices) {
    let html = '';
    for (const name of Object.keys(OMP_COLOURS))
      html += '<span><i style="background:' + OMP_COLOURS[name] + '"></i>' + escapeHtml(name) + '</span>';
    html += '<span><i style="background:' + warmColour('main', KIND_FUNCTION) + '"></i>call-path frames, coloured by function</span>';
    if (devices)
      for (const name of Object.keys(DEVICE_COLOURS))
        html += '<span><i style="background:' + DEVICE_COLOURS[name] + '"></i>device: ' + escapeHtml(name) + '</span>';
    host.innerHTML = html;
  }

  // --- the page -------------------------------------------------------------

  function summaryText(doc, p) {
    const parts = [doc.event_text || doc.event];
    parts.push(doc.samples + ' samples', doc.threads + ' thread' + (doc.threads === 1 ? '' : 's'));
    parts.push(p.n - 1 + ' nodes');
    if (doc.dir) parts.push(doc.dir);
    return parts.join(' \u00b7 ');
  }

  function main() {
    const doc = readEmbedded('knit-profile');
    if (!doc) throw new Error('the page holds no profile (#knit-profile)');
    const p = loadProfile(doc);
    const state = { metric: 0, search: searchProfile(p, ''), shownMetrics: [] };
    p.metrics.forEach((meta, m) => {
      if (m === 0 || meta.total !== 0) state.shownMetrics.push(m);
    });
    setStatus('nodes', p.n - 1);
    setStatus('metrics', state.shownMetrics.map((m) => p.metrics[m].name).join(','));
    document.getElementById('summary').textContent = summaryText(doc, p);
    document.title = 'knit view: ' + (doc.dir ? baseName(String(doc.dir)) : doc.event);

    const select = document.getElementById('metric');
    select.innerHTML = state.shownMetrics
      .map((m) => '<option value="' + m + '">' + escapeHtml(p.metrics[m].name) + ' (' + escapeHtml(p.metrics[m].unit) + ')</option>')
      .join('');
    const traceDoc = readEmbedded('knit-trace');
    const trace = traceDoc ? loadTrace(traceDoc) : null;
    const loaded = performance.now();

    const flame = FlameGraph(document.getElementById('flame'), document.getElementById('flame-box'), p, state);
    const topDown = TopDown(document.getElementById('topdown'), p, state, (id) => flame.zoom(id));
    const bottomUp = BottomUp(document.getElementById('bottomup'), p, state);
    let timeline = null;
    if (trace) {
      document.getElementById('timeline-section').hidden = false;
      const deviceLanes = trace.threads.filter((t) => t.device).length;
      legend(document.getElementById('timeline-legend'), deviceLanes > 0);
      setStatus('traceDevices', deviceLanes);
      timeline = Timeline(document.getElementById('timeline'), document.getElementById('timeline-box'), trace, state);
      setStatus('traceThreads', trace.threads.length);
      setStatus('traceLanes', trace.threads.map((t) => t.name).join('|'));
      setStatus('traceEvents', trace.events);
    }
    flame.draw();
    topDown.reset();
    bottomUp.reset();
    if (timeline) timeline.draw();
    const drawnAt = performance.now();
    setStatus('loadMs', (loaded - t0).toFixed(1));
    setStatus('drawMs', (drawnAt - loaded).toFixed(1));
    // Since the navigation began: the browser's reading of the page and its
    // data included.
    setStatus('readyMs', drawnAt.toFixed(1));

    const searchBox = document.getElementById('search');
    const applySearch = () => {
      state.search = searchProfile(p, searchBox.value.trim());
      document.getElementById('search-count').textContent =
        state.search.text ? state.search.count + ' node' + (state.search.count === 1 ? '' : 's') : '';
      setStatus('searchMatches', state.search.count);
      flame.draw();
      topDown.search();
      bottomUp.search();
      if (timeline) timeline.draw();
    };
    let pending = 0;
    searchBox.addEventListener('input', () => {
      window.clearTimeout(pending);
      pending = window.setTimeout(applySearch, 120);
    });
    // A link may carry a search: page.html#search=TEXT.
    const asked = /(?:^#|&)search=([^&]*)/.exec(window.location.hash);
    if (asked) {
      searchBox.value = decodeURIComponent(asked[1]);
      applySearch();
    }
    select.addEventListener('change', () => {
      state.metric = +select.value;
      flame.zoom(0); // the frame in focus may weigh nothing in this metric
    });
    document.getElementById('reset-zoom').addEventListener('click', () => flame.zoom(0));
    let resizing = 0;
    window.addEventListener('resize', () => {
      window.cancelAnimationFrame(resizing);
      resizing = window.requestAnimationFrame(() => {
        flame.draw();
        if (timeline) timeline.draw();
      });
    });
    setStatus('state', 'ready');
  }

  try {
    main();
  } catch (e) {
    noteError('error: ' + (e && e.message ? e.message : e));
    setStatus('state', 'failed');
  }
})();
