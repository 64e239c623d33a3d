// swprof flame graph viewer.
//
// Reads the profile from the JSON data element "swprof-data" (format
// documented in output/flamegraph.cpp: a frame table plus per-node arrays in
// pre-order) and draws it on one canvas.
//
// Every string that comes from the profile reaches the page only through
// textContent or canvas fillText, never as markup.
//
// Drawing model: a layout is computed once per zoom (and per width): for each
// depth, the visible rectangles sorted by x. Frames narrower than MIN_WIDTH
// are not laid out one by one; runs of them become one grey "merged" block.
// Hovering and clicking find a rectangle with a binary search in its row.
(function () {
  'use strict';

  function showFailure(error) {
    const box = document.createElement('div');
    box.className = 'error';
    box.textContent = 'The flame graph cannot be shown: ' + (error && error.message ? error.message : String(error));
    document.body.prepend(box);
  }

  try {
    main();
  } catch (error) {
    showFailure(error);
    throw error;
  }

  function main() {
    const ROW_HEIGHT = 18;
    const MIN_WIDTH = 0.5;          // px: narrower frames are merged
    const MERGED_MIN_WIDTH = 1;     // px: narrower merged runs are not drawn
    const LABEL_PAD = 4;            // px left of a label
    const MAX_CANVAS_PX = 32000;    // stay below the browsers' canvas size limit
    const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace';
    const LABEL_FONT = '12px ' + MONO;
    const INLINE_FONT = 'italic 12px ' + MONO;

    const FLAG_INLINE = 1;
    const FLAG_GUESS = 2;
    const FLAG_KERNEL = 4;
    const FLAG_THREAD = 8;

    const COLOR_MATCH = 'rgb(230,0,230)';
    const COLOR_MERGED = '#d3d3cb';
    const COLOR_ROOT = '#c9c9c1';
    const COLOR_THREAD = 'hsl(210,14%,74%)';
    // Hues for ordinary modules; orange (kernel), green (JIT) and magenta
    // (search matches) are kept out so those stay recognisable.
    const MODULE_HUES = [0, 8, 16, 46, 54, 60, 186, 198, 212, 226, 242, 258, 272, 332, 346];
    const KERNEL_HUE = 30;
    const JIT_HUE = 118;

    const $ = (id) => document.getElementById(id);
    const initStart = performance.now();
    // scriptStartMs: from navigation start to this script (loading and parsing the page).
    const timing = { scriptStartMs: initStart };

    // ---- data ---------------------------------------------------------------

    const data = JSON.parse($('swprof-data').textContent);
    if (data.format !== 'swprof-flamegraph' || data.version !== 1) {
      throw new Error('swprof flame graph: unsupported data format');
    }
    const unit = String(data.unit || 'samples');
    const modules = data.modules;
    const files = data.files;
    const frameName = data.frames.name;  // front-coded: see output/flamegraph.cpp
    const framePrefix = data.frames.prefix;
    for (let f = 1; f < frameName.length; f++) {
      if (framePrefix[f] > 0) frameName[f] = frameName[f - 1].slice(0, framePrefix[f]) + frameName[f];
    }
    const frameModule = Int32Array.from(data.frames.module);
    const frameFile = Int32Array.from(data.frames.file);
    const frameLine = Float64Array.from(data.frames.line);
    const frameFlags = Int32Array.from(data.frames.flags);
    const frameCount = frameName.length;
    const nodeFrame = Int32Array.from(data.nodes.frame);
    const nodeDepth = Int32Array.from(data.nodes.depth);
    const nodeTotal = Float64Array.from(data.nodes.total);
    const nodeBase = data.nodes.base ? Float64Array.from(data.nodes.base) : null;
    // Off-CPU and wall profiles: of each node's total (ns), the off-CPU part.
    const nodeOff = data.nodes.off ? Float64Array.from(data.nodes.off) : null;
    const nodeCount = nodeFrame.length;
    const baseTotal = nodeBase ? Number(data.baseTotal) || 0 : 0;
    timing.parseMs = performance.now() - initStart;

    // parent, end of subtree (exclusive) and self counts, from the depths.
    const parent = new Int32Array(nodeCount);
    const subtreeEnd = new Int32Array(nodeCount);
    const nodeSelf = Float64Array.from(nodeTotal);
    let maxDepth = 0;
    const structureStart = performance.now();
    (function buildStructure() {
      const path = [];
      for (let i = 0; i < nodeCount; i++) {
        const d = nodeDepth[i];
        const valid = i === 0 ? d === 0 : d >= 1 && d <= path.length;
        if (!valid) throw new Error('swprof flame graph: bad depth at node ' + i);
        while (path.length > d) subtreeEnd[path.pop()] = i;
        parent[i] = d === 0 ? -1 : path[d - 1];
        if (d > 0) nodeSelf[parent[i]] -= nodeTotal[i];
        path.push(i);
        if (d > maxDepth) maxDepth = d;
      }
      while (path.length) subtreeEnd[path.pop()] = nodeCount;
    })();
    timing.structureMs = performance.now() - structureStart;

    // ---- colours ------------------------------------------------------------

    function hashString(s) {
      let h = 2166136261;
      for (let i = 0; i < s.length; i++) {
        h ^= s.charCodeAt(i);
        h = Math.imul(h, 16777619);
      }
      return h >>> 0;
    }

    function isJitModule(m) {
      return m.startsWith('[jit') || m.startsWith('[anon') || m.startsWith('//anon') || m.startsWith('memfd:') ||
          m.startsWith('jitted-') || /^perf-\d+\.map$/.test(m);
    }

    // Per module: 'kernel' | 'jit' | 'user'.
    const moduleKind = modules.map((m) => (m.startsWith('[kernel') ? 'kernel' : isJitModule(m) ? 'jit' : 'user'));
    const moduleHue = modules.map((m) => MODULE_HUES[hashString(m) % MODULE_HUES.length]);

    // 'root' | 'thread' | 'kernel' | 'jit' | 'user'
    function frameKind(f) {
      if (f === 0) return 'root';
      const flags = frameFlags[f];
      if (flags & FLAG_THREAD) return 'thread';
      if (flags & FLAG_KERNEL) return 'kernel';
      return moduleKind[frameModule[f]];
    }

    // Hue by module, lightness varied a little by function so neighbours differ;
    // inlined frames are lighter.
    function computeFrameColor(f) {
      const kind = frameKind(f);
      if (kind === 'root') return COLOR_ROOT;
      if (kind === 'thread') return COLOR_THREAD;
      const jitter = hashString(frameName[f]) % 10;
      const lighter = (frameFlags[f] & FLAG_INLINE) ? 12 : 0;
      if (kind === 'kernel') return 'hsl(' + KERNEL_HUE + ',88%,' + (56 + jitter + lighter) + '%)';
      if (kind === 'jit') return 'hsl(' + JIT_HUE + ',48%,' + (54 + jitter + lighter) + '%)';
      return 'hsl(' + moduleHue[frameModule[f]] + ',62%,' + (62 + jitter + lighter) + '%)';
    }
    // Computed when a frame is first drawn: most frames of a large profile never are.
    const frameColor = new Array(frameCount);
    function colorOfFrame(f) {
      return frameColor[f] || (frameColor[f] = computeFrameColor(f));
    }

    // Differential mode: the change in share of samples, red for more than in
    // the base profile, blue for less, saturated at the largest change.
    function shareDelta(i) {
      const now = nodeTotal[0] > 0 ? nodeTotal[i] / nodeTotal[0] : 0;
      const before = baseTotal > 0 ? nodeBase[i] / baseTotal : 0;
      return now - before;
    }
    let maxAbsDelta = 0;
    if (nodeBase) {
      for (let i = 1; i < nodeCount; i++) maxAbsDelta = Math.max(maxAbsDelta, Math.abs(shareDelta(i)));
    }
    function diffColor(i) {
      const delta = shareDelta(i);
      if (i === 0 || maxAbsDelta === 0 || Math.abs(delta) < 1e-12) return 'rgb(226,226,222)';
      const t = Math.min(1, Math.abs(delta) / maxAbsDelta);
      const fade = Math.round(226 - 176 * t);
      return delta > 0 ? 'rgb(236,' + fade + ',' + fade + ')' : 'rgb(' + fade + ',' + Math.round(226 - 120 * t) + ',236)';
    }

    // Off-CPU mode: frames whose time is mostly off the CPU (blocked or
    // waiting) in a cool blue palette, the others warm, as in off-CPU flame
    // graphs; the root and thread roots keep their colours.
    function isMostlyOffCpu(i) {
      return nodeTotal[i] > 0 && nodeOff[i] / nodeTotal[i] >= 0.5;
    }
    function offCpuColor(i) {
      const f = nodeFrame[i];
      const kind = frameKind(f);
      if (kind === 'root') return COLOR_ROOT;
      if (kind === 'thread') return COLOR_THREAD;
      const jitter = hashString(frameName[f]) % 10;
      if (isMostlyOffCpu(i)) return 'hsl(' + (200 + 2 * jitter) + ',62%,' + (58 + jitter) + '%)';
      return 'hsl(' + (8 + 4 * jitter) + ',82%,' + (58 + jitter) + '%)';
    }

    function nodeColor(i) {
      if (nodeBase) return diffColor(i);
      return nodeOff ? offCpuColor(i) : colorOfFrame(nodeFrame[i]);
    }

    // ---- page elements ------------------------------------------------------

    const canvas = $('flame');
    const ctx = canvas.getContext('2d');
    const graph = $('graph');
    const viewport = $('viewport');  // scrolls the graph between the header and the footer
    const hoverBox = $('hover-box');
    const tooltip = $('tooltip');
    const details = $('details');
    const resetButton = $('reset-zoom');
    const icicleBox = $('icicle');
    const searchInput = $('search');
    const regexBox = $('search-regex');
    const caseBox = $('search-case');
    const matchedLabel = $('matched');

    const hatch = (function makeHatch() {
      const tile = document.createElement('canvas');
      tile.width = 6;
      tile.height = 6;
      const t = tile.getContext('2d');
      t.strokeStyle = 'rgba(0,0,0,0.38)';
      t.lineWidth = 1.2;
      t.beginPath();
      t.moveTo(0, 6);
      t.lineTo(6, 0);
      t.stroke();
      return ctx.createPattern(tile, 'repeat');
    })();

    ctx.font = LABEL_FONT;
    const charWidth = ctx.measureText('M').width || 7;
    const monospace = Math.abs(ctx.measureText('iiii').width - 4 * charWidth) < 0.5;

    // ---- state --------------------------------------------------------------

    let zoom = 0;
    let icicle = !!data.icicle;
    let layout = null;
    let matchFrame = null;  // Uint8Array per frame while a search is active
    let matched = { samples: 0, zoomSamples: 0 };
    let hovered = null;     // { depth, index }
    let drawnLabels = [];

    // ---- layout ---------------------------------------------------------------

    function graphWidth() {
      return Math.max(1, graph.clientWidth || window.innerWidth - 24);
    }

    function maxRows() {
      return Math.max(1, Math.floor(MAX_CANVAS_PX / (ROW_HEIGHT * (window.devicePixelRatio || 1))));
    }

    function computeLayout(width) {
      const start = performance.now();
      const rowLimit = maxRows();
      const rows = [];
      const rowAt = (d) => rows[d] || (rows[d] = { x: [], w: [], node: [], merged: [] });
      const push = (d, x, w, node) => {
        const r = rowAt(d);
        r.x.push(x);
        r.w.push(w);
        r.node.push(node);
      };
      const chain = [];
      for (let a = zoom; a !== -1; a = parent[a]) chain.push(a);
      for (let k = chain.length - 1; k >= 0; k--) push(nodeDepth[chain[k]], 0, width, chain[k]);

      // Runs of narrow frames per depth, waiting to become one merged block.
      const pendX = new Float64Array(maxDepth + 2);
      const pendW = new Float64Array(maxDepth + 2);
      const pendFrames = new Int32Array(maxDepth + 2);
      const pendSamples = new Float64Array(maxDepth + 2);
      let mergedBlocks = 0;
      const flush = (d) => {
        if (pendFrames[d] === 0) return;
        if (pendW[d] >= MERGED_MIN_WIDTH) {
          const r = rowAt(d);
          r.merged[r.x.length] = { frames: pendFrames[d], samples: pendSamples[d] };
          push(d, pendX[d], pendW[d], -1);
          mergedBlocks++;
        }
        pendFrames[d] = 0;
      };
      const addNarrow = (d, x, w, i) => {
        if (pendFrames[d] > 0 && Math.abs(pendX[d] + pendW[d] - x) <= 1e-6 * width) {
          pendW[d] += w;
        } else {
          flush(d);
          pendX[d] = x;
          pendW[d] = w;
          pendSamples[d] = 0;
        }
        pendFrames[d]++;
        pendSamples[d] += nodeTotal[i];
      };

      const scale = nodeTotal[zoom] > 0 ? width / nodeTotal[zoom] : 0;
      const cursor = new Float64Array(maxDepth + 2);  // next x per depth
      let truncated = false;
      const stop = subtreeEnd[zoom];
      for (let i = zoom + 1; i < stop;) {
        const d = nodeDepth[i];
        const w = nodeTotal[i] * scale;
        const x = cursor[d];
        cursor[d] = x + w;
        if (d >= rowLimit) {
          truncated = true;
          i = subtreeEnd[i];
        } else if (w < MIN_WIDTH) {
          addNarrow(d, x, w, i);
          i = subtreeEnd[i];
        } else {
          flush(d);
          push(d, x, w, i);
          cursor[d + 1] = x;
          i++;
        }
      }
      for (let d = 0; d < pendFrames.length; d++) flush(d);
      let rects = 0;
      for (const r of rows) rects += r.x.length;
      timing.layoutMs = performance.now() - start;
      return { width, rows, rects, mergedBlocks, truncated };
    }

    function relayout() {
      layout = computeLayout(graphWidth());
      draw();
    }

    // ---- drawing --------------------------------------------------------------

    function rowY(d) {
      return icicle ? d * ROW_HEIGHT : (layout.rows.length - 1 - d) * ROW_HEIGHT;
    }

    function labelText(node) {
      if (node === -1) return '';
      const f = nodeFrame[node];
      return (frameFlags[f] & FLAG_GUESS) ? frameName[f] + ' ?' : frameName[f];
    }

    // The label cut to fit `room` px, ending in ".." when cut; '' if too narrow.
    function fitLabel(text, room) {
      let chars = Math.floor(room / charWidth);
      if (text.length <= chars && (monospace || ctx.measureText(text).width <= room)) return text;
      if (chars < 4) return '';  // a cut label keeps at least two characters
      let cut = text.slice(0, chars - 2) + '..';
      while (!monospace && chars >= 4 && ctx.measureText(cut).width > room) {
        chars--;
        cut = text.slice(0, chars - 2) + '..';
      }
      return chars < 4 ? '' : cut;
    }

    function draw() {
      const start = performance.now();
      const rows = layout.rows;
      const dpr = window.devicePixelRatio || 1;
      const cssWidth = layout.width;
      const cssHeight = rows.length * ROW_HEIGHT;
      canvas.style.height = cssHeight + 'px';
      const pixelWidth = Math.round(cssWidth * dpr);
      const pixelHeight = Math.round(cssHeight * dpr);
      if (canvas.width !== pixelWidth || canvas.height !== pixelHeight) {
        canvas.width = pixelWidth;
        canvas.height = pixelHeight;
      }
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, cssWidth, cssHeight);
      ctx.textBaseline = 'middle';
      let font = LABEL_FONT;
      ctx.font = font;
      drawnLabels = [];
      const zoomDepth = nodeDepth[zoom];
      for (let d = 0; d < rows.length; d++) {
        const r = rows[d];
        const y = rowY(d);
        ctx.globalAlpha = d < zoomDepth ? 0.55 : 1;  // ancestors of the zoomed frame
        for (let k = 0; k < r.x.length; k++) {
          const x = r.x[k];
          const w = r.w[k];
          const node = r.node[k];
          const f = node >= 0 ? nodeFrame[node] : -1;
          const boxWidth = w >= 3 ? w - 1 : w;
          if (node < 0) ctx.fillStyle = COLOR_MERGED;
          else if (matchFrame && matchFrame[f]) ctx.fillStyle = COLOR_MATCH;
          else ctx.fillStyle = nodeColor(node);
          ctx.fillRect(x, y, boxWidth, ROW_HEIGHT - 1);
          if (f >= 0 && (frameFlags[f] & FLAG_GUESS)) {
            ctx.fillStyle = hatch;
            ctx.fillRect(x, y, boxWidth, ROW_HEIGHT - 1);
          }
          if (f < 0 || w < 3 * charWidth + LABEL_PAD) continue;
          const wanted = (frameFlags[f] & FLAG_INLINE) ? INLINE_FONT : LABEL_FONT;
          if (wanted !== font) {
            font = wanted;
            ctx.font = font;
          }
          const text = fitLabel(labelText(node), w - LABEL_PAD - 2);
          if (!text) continue;
          ctx.fillStyle = '#000';
          ctx.fillText(text, x + LABEL_PAD, y + ROW_HEIGHT / 2);
          drawnLabels.push(text);
        }
      }
      ctx.globalAlpha = 1;
      timing.drawMs = performance.now() - start;
      placeHoverBox();
    }

    // ---- hit testing ------------------------------------------------------------

    // { depth, index } of the rectangle under a client point, or null.
    function hitTest(clientX, clientY) {
      if (!layout) return null;
      const box = canvas.getBoundingClientRect();
      if (box.width <= 0) return null;
      const x = (clientX - box.left) * (layout.width / box.width);
      const y = clientY - box.top;
      if (x < 0 || y < 0 || x >= layout.width || y >= layout.rows.length * ROW_HEIGHT) return null;
      const band = Math.floor(y / ROW_HEIGHT);
      const d = icicle ? band : layout.rows.length - 1 - band;
      const r = layout.rows[d];
      if (!r) return null;
      let lo = 0;
      let hi = r.x.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (r.x[mid] <= x) {
          found = mid;
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      if (found < 0 || x >= r.x[found] + r.w[found]) return null;
      return { depth: d, index: found };
    }

    function placeHoverBox() {
      if (!hovered || !layout.rows[hovered.depth] || hovered.index >= layout.rows[hovered.depth].x.length) {
        hoverBox.hidden = true;
        return;
      }
      const r = layout.rows[hovered.depth];
      const scale = canvas.getBoundingClientRect().width / layout.width || 1;
      hoverBox.style.left = canvas.offsetLeft + r.x[hovered.index] * scale + 'px';
      hoverBox.style.top = canvas.offsetTop + rowY(hovered.depth) + 'px';
      hoverBox.style.width = Math.max(2, r.w[hovered.index] * scale) + 'px';
      hoverBox.style.height = ROW_HEIGHT + 'px';
      hoverBox.hidden = false;
    }

    // ---- texts ----------------------------------------------------------------

    const numberFormat = new Intl.NumberFormat('en-US');
    function count(n) {
      return numberFormat.format(n);
    }
    function percent(part, whole) {
      return (whole > 0 ? (100 * part) / whole : 0).toFixed(2) + '%';
    }
    function isInZoom(node) {
      return node >= zoom && node < subtreeEnd[zoom];
    }

    // Lines of the tooltip for a rectangle: [{ text, cls }].
    function describe(hit) {
      const r = layout.rows[hit.depth];
      const node = r.node[hit.index];
      const all = nodeTotal[0];
      if (node < 0) {
        const info = r.merged[hit.index];
        return [
          { text: info.frames + ' frames too narrow to draw', cls: 'name' },
          { text: count(info.samples) + ' ' + unit + ' (' + percent(info.samples, all) + ' of all)' },
          { text: 'Click the frame below them to zoom in.', cls: 'note' },
        ];
      }
      const f = nodeFrame[node];
      const lines = [{ text: frameName[f], cls: 'name' }];
      if (node === 0) {
        lines.push({ text: count(all) + ' ' + unit + ' in total' });
        if (nodeBase) lines.push({ text: 'Base profile: ' + count(baseTotal) + ' ' + unit });
        return lines;
      }
      const module = modules[frameModule[f]];
      if (module) lines.push({ text: 'Module: ' + module });
      const file = files[frameFile[f]];
      if (file) lines.push({ text: 'Source: ' + file + (frameLine[f] > 0 ? ':' + frameLine[f] : '') });
      const total = nodeTotal[node];
      lines.push({ text: unit[0].toUpperCase() + unit.slice(1) + ': ' + count(total) + ' (' + percent(total, all) + ' of all)' });
      if (zoom !== 0 && isInZoom(node)) {
        lines.push({ text: percent(total, nodeTotal[zoom]) + ' of the zoomed frame ' + frameName[nodeFrame[zoom]] });
      }
      const p = parent[node];
      if (p > 0) lines.push({ text: percent(total, nodeTotal[p]) + ' of its caller ' + frameName[nodeFrame[p]] });
      lines.push({ text: 'Self: ' + count(nodeSelf[node]) + ' (' + percent(nodeSelf[node], all) + ' of all)' });
      if (nodeOff) {
        const off = nodeOff[node];
        lines.push({
          text: 'On-CPU: ' + count(total - off) + ' (' + percent(total - off, total) + '), off-CPU: ' + count(off) +
              ' (' + percent(off, total) + ')',
        });
      }
      if (nodeBase) {
        const before = baseTotal > 0 ? (100 * nodeBase[node]) / baseTotal : 0;
        const now = all > 0 ? (100 * total) / all : 0;
        const change = now - before;
        lines.push({
          text: 'Base: ' + before.toFixed(2) + '% (' + count(nodeBase[node]) + ') \u2192 now ' + now.toFixed(2) +
              '% (' + (change >= 0 ? '+' : '') + change.toFixed(2) + ' points)',
        });
      }
      const kind = frameKind(f);
      const flags = frameFlags[f];
      if (flags & FLAG_INLINE) lines.push({ text: 'Inlined into its caller', cls: 'note' });
      if (flags & FLAG_GUESS) lines.push({ text: 'Guessed frame: found by scanning the stack, may be wrong', cls: 'note' });
      if (kind === 'kernel') lines.push({ text: 'Kernel code', cls: 'note' });
      if (kind === 'jit') lines.push({ text: 'JIT-compiled code', cls: 'note' });
      if (kind === 'thread') lines.push({ text: 'Thread', cls: 'note' });
      return lines;
    }

    function showTooltip(hit, clientX, clientY) {
      tooltip.replaceChildren();
      for (const line of describe(hit)) {
        const div = document.createElement('div');
        if (line.cls) div.className = line.cls;
        div.textContent = line.text;
        tooltip.appendChild(div);
      }
      tooltip.hidden = false;
      const margin = 14;
      const w = tooltip.offsetWidth;
      const h = tooltip.offsetHeight;
      let left = clientX + margin;
      let top = clientY + margin;
      if (left + w > window.innerWidth) left = Math.max(0, clientX - margin - w);
      if (top + h > window.innerHeight) top = Math.max(0, clientY - margin - h);
      tooltip.style.left = left + 'px';
      tooltip.style.top = top + 'px';
    }

    function hideHover() {
      hovered = null;
      tooltip.hidden = true;
      hoverBox.hidden = true;
      showStatus();
    }

    function showStatus() {
      if (zoom !== 0) {
        details.textContent = 'Zoomed to ' + frameName[nodeFrame[zoom]] + ' (' + percent(nodeTotal[zoom], nodeTotal[0]) +
            ' of all). Escape or Reset zoom shows everything.';
      } else {
        details.textContent = 'Click a frame to zoom in. ' + count(nodeTotal[0]) + ' ' + unit + ', ' +
            count(nodeCount - 1) + ' call paths.';
      }
      if (layout && layout.truncated) details.textContent += ' Frames deeper than ' + layout.rows.length + ' levels are not shown: zoom in.';
    }

    // ---- search -----------------------------------------------------------------

    // Samples under `top` that pass through a matching frame, each counted once
    // (a match below a match adds nothing).
    function matchedUnder(top) {
      let sum = 0;
      const stop = subtreeEnd[top];
      for (let i = top; i < stop;) {
        if (matchFrame[nodeFrame[i]]) {
          sum += nodeTotal[i];
          i = subtreeEnd[i];
        } else {
          i++;
        }
      }
      return sum;
    }

    function updateMatched() {
      if (!matchFrame) {
        matched = { samples: 0, zoomSamples: 0 };
        matchedLabel.textContent = '';
        return;
      }
      let zoomSamples = -1;
      for (let a = zoom; a !== -1; a = parent[a]) {
        if (matchFrame[nodeFrame[a]]) zoomSamples = nodeTotal[zoom];
      }
      if (zoomSamples < 0) zoomSamples = matchedUnder(zoom);
      matched = { samples: matchedUnder(0), zoomSamples };
      let text = 'Matched: ' + percent(matched.samples, nodeTotal[0]) + ' of ' + unit;
      if (zoom !== 0) text += ' (' + percent(zoomSamples, nodeTotal[zoom]) + ' of the zoomed frame)';
      matchedLabel.textContent = text;
    }

    let lowerNames = null;  // frame names in lower case, made by the first search that needs them

    // A test of frame f against the query.
    function makeMatcher(query) {
      if (regexBox.checked) {
        const re = new RegExp(query, caseBox.checked ? '' : 'i');  // throws on a bad pattern
        return (f) => re.test(frameName[f]);
      }
      if (caseBox.checked) return (f) => frameName[f].includes(query);
      if (!lowerNames) lowerNames = frameName.map((name) => name.toLowerCase());
      const lower = query.toLowerCase();
      return (f) => lowerNames[f].includes(lower);
    }

    function runSearch() {
      const query = searchInput.value;
      searchInput.classList.remove('invalid');
      matchFrame = null;
      if (query) {
        let test = null;
        try {
          test = makeMatcher(query);
        } catch (e) {
          searchInput.classList.add('invalid');
        }
        if (test) {
          matchFrame = new Uint8Array(frameCount);
          for (let f = 1; f < frameCount; f++) matchFrame[f] = test(f) ? 1 : 0;
        }
      }
      updateMatched();
      if (query && !matchFrame) matchedLabel.textContent = 'Not a valid regular expression';
      draw();
    }

    function clearSearch() {
      searchInput.value = '';
      runSearch();
    }

    // ---- zoom -----------------------------------------------------------------

    // Scrolls the viewport, if needed, so the node's row is in it.
    function reveal(node) {
      const r = nodeRect(node);
      if (!r) return;
      const box = viewport.getBoundingClientRect();
      if (r.y < box.top) viewport.scrollTop += r.y - box.top - ROW_HEIGHT;
      else if (r.y + ROW_HEIGHT > box.bottom) viewport.scrollTop += r.y + 2 * ROW_HEIGHT - box.bottom;
    }

    function zoomTo(node) {
      if (!(node >= 0 && node < nodeCount)) return;
      zoom = node;
      hovered = null;
      resetButton.disabled = zoom === 0;
      relayout();
      updateMatched();
      showStatus();
      reveal(zoom);
    }

    function setIcicle(on) {
      icicle = !!on;
      icicleBox.checked = icicle;
      hideHover();
      draw();
      reveal(zoom);
    }

    // ---- legend -----------------------------------------------------------------

    function buildLegend() {
      const legend = $('legend');
      const item = (background, label, extra) => {
        const span = document.createElement('span');
        span.className = 'item';
        const swatch = document.createElement('span');
        swatch.className = 'swatch' + (extra ? ' ' + extra : '');
        swatch.style.background = background;
        span.appendChild(swatch);
        span.appendChild(document.createTextNode(label));
        legend.appendChild(span);
        return swatch;
      };
      const kinds = new Set();
      const moduleUsed = new Uint8Array(modules.length);
      let flagsSeen = 0;
      for (let f = 1; f < frameCount; f++) {
        flagsSeen |= frameFlags[f];
        moduleUsed[frameModule[f]] = 1;
      }
      moduleUsed.forEach((used, m) => used && kinds.add(moduleKind[m]));
      if (flagsSeen & FLAG_KERNEL) kinds.add('kernel');
      if (flagsSeen & FLAG_THREAD) kinds.add('thread');
      const anyInline = (flagsSeen & FLAG_INLINE) !== 0;
      const anyGuess = (flagsSeen & FLAG_GUESS) !== 0;
      if (nodeBase) {
        item('rgb(236,50,50)', 'more ' + unit + ' than the base profile');
        item('rgb(50,106,236)', 'fewer than the base profile');
        item('rgb(226,226,222)', 'unchanged');
      } else if (nodeOff) {
        item('hsl(208,62%,62%)', 'blue: mostly off-CPU (blocked or waiting)').parentNode.classList.add('off-cpu');
        item('hsl(24,82%,62%)', 'warm: on-CPU');
        if (kinds.has('thread')) item(COLOR_THREAD, 'thread');
      } else {
        item('linear-gradient(90deg, hsl(0,62%,66%), hsl(54,62%,66%), hsl(212,62%,66%), hsl(332,62%,66%))',
            'code, coloured by module');
        if (kinds.has('kernel')) item('hsl(' + KERNEL_HUE + ',88%,60%)', 'kernel');
        if (kinds.has('jit')) item('hsl(' + JIT_HUE + ',48%,58%)', 'JIT-compiled');
        if (kinds.has('thread')) item(COLOR_THREAD, 'thread');
      }
      if (anyInline) {
        item(nodeBase ? 'rgb(226,226,222)' : 'hsl(212,62%,80%)', nodeBase ? 'inlined (italic name)' : 'inlined (lighter, italic name)',
            'inline').textContent = 'f';
      }
      if (anyGuess) {
        item('repeating-linear-gradient(135deg, rgba(0,0,0,0.38) 0 1px, transparent 1px 4px), hsl(46,62%,66%)',
            'guessed by stack scanning (hatched, name ends in ?)');
      }
      item(COLOR_MERGED, 'frames too narrow to draw');
      item(COLOR_MATCH, 'search match');
    }

    // ---- events -----------------------------------------------------------------

    canvas.addEventListener('mousemove', (ev) => {
      const hit = hitTest(ev.clientX, ev.clientY);
      if (!hit) {
        hideHover();
        return;
      }
      hovered = hit;
      placeHoverBox();
      showTooltip(hit, ev.clientX, ev.clientY);
      const node = layout.rows[hit.depth].node[hit.index];
      details.textContent = node < 0 ? 'Frames too narrow to draw' : frameName[nodeFrame[node]] + ' \u2014 ' +
          count(nodeTotal[node]) + ' ' + unit + ' (' + percent(nodeTotal[node], nodeTotal[0]) + ')';
    });
    canvas.addEventListener('mouseleave', hideHover);
    canvas.addEventListener('click', (ev) => {
      const hit = hitTest(ev.clientX, ev.clientY);
      if (!hit) return;
      const node = layout.rows[hit.depth].node[hit.index];
      if (node >= 0 && node !== zoom) zoomTo(node);
    });
    resetButton.addEventListener('click', () => zoomTo(0));
    icicleBox.addEventListener('change', () => setIcicle(icicleBox.checked));
    searchInput.addEventListener('input', runSearch);
    regexBox.addEventListener('change', runSearch);
    caseBox.addEventListener('change', runSearch);
    $('search-clear').addEventListener('click', clearSearch);
    document.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') {
        if (document.activeElement === searchInput && searchInput.value) clearSearch();
        else if (zoom !== 0) zoomTo(0);
        else if (searchInput.value) clearSearch();
      } else if ((ev.ctrlKey || ev.metaKey) && (ev.key === 'f' || ev.key === 'F')) {
        ev.preventDefault();
        searchInput.focus();
        searchInput.select();
      }
    });
    let resizePending = false;
    window.addEventListener('resize', () => {
      if (resizePending) return;
      resizePending = true;
      requestAnimationFrame(() => {
        resizePending = false;
        if (layout && graphWidth() !== layout.width) relayout();
      });
    });

    // ---- start ------------------------------------------------------------------

    icicleBox.checked = icicle;
    const legendStart = performance.now();
    buildLegend();
    timing.legendMs = performance.now() - legendStart;
    relayout();
    showStatus();
    reveal(0);  // the root: at the bottom of a tall flame graph
    timing.initMs = performance.now() - initStart;

    // ---- API for tests and scripting -------------------------------------------

    function nodeRect(node) {
      if (!layout || !(node >= 0 && node < nodeCount)) return null;
      const d = nodeDepth[node];
      const r = layout.rows[d];
      if (!r) return null;
      const k = r.node.indexOf(node);
      if (k < 0) return null;
      const box = canvas.getBoundingClientRect();
      const scale = box.width / layout.width || 1;
      return { x: box.left + r.x[k] * scale, y: box.top + rowY(d), width: r.w[k] * scale, height: ROW_HEIGHT - 1 };
    }

    window.swprofFlame = Object.freeze({
      state() {
        return {
          zoom,
          zoomName: frameName[nodeFrame[zoom]],
          icicle,
          width: layout.width,
          rows: layout.rows.length,
          rects: layout.rects,
          mergedBlocks: layout.mergedBlocks,
          truncated: layout.truncated,
          nodes: nodeCount,
          frames: frameCount,
          total: nodeTotal[0],
          differential: !!nodeBase,
          offCpu: !!nodeOff,
          search: {
            query: searchInput.value,
            regex: regexBox.checked,
            matchCase: caseBox.checked,
            active: !!matchFrame,
            matchedSamples: matched.samples,
            matchedPercent: nodeTotal[0] > 0 ? (100 * matched.samples) / nodeTotal[0] : 0,
            zoomMatchedSamples: matched.zoomSamples,
            label: matchedLabel.textContent,
          },
          timing: Object.assign({}, timing),
        };
      },
      // Types the query into the search box as a user would.
      search(query, options) {
        regexBox.checked = !!(options && options.regex);
        caseBox.checked = !!(options && options.matchCase);
        searchInput.value = String(query);
        runSearch();
        return this.state().search;
      },
      clearSearch,
      zoomTo,
      reset() {
        zoomTo(0);
      },
      setIcicle,
      // The node drawn for a function name with the most samples, or -1.
      findNode(name) {
        let best = -1;
        for (let i = 1; i < nodeCount; i++) {
          if (frameName[nodeFrame[i]] === name && (best < 0 || nodeTotal[i] > nodeTotal[best])) best = i;
        }
        return best;
      },
      nodeInfo(node) {
        const f = nodeFrame[node];
        return {
          name: frameName[f], module: modules[frameModule[f]], file: files[frameFile[f]], line: frameLine[f],
          flags: frameFlags[f], total: nodeTotal[node], self: nodeSelf[node], depth: nodeDepth[node],
          parent: parent[node], base: nodeBase ? nodeBase[node] : null, color: nodeColor(node),
          off: nodeOff ? nodeOff[node] : null,
        };
      },
      // Client rectangle where a node is drawn, or null when it is not drawn.
      nodeRect,
      hitTest(clientX, clientY) {
        const hit = hitTest(clientX, clientY);
        return hit ? layout.rows[hit.depth].node[hit.index] : null;
      },
      tooltip() {
        return { visible: !tooltip.hidden, lines: Array.from(tooltip.children, (c) => c.textContent) };
      },
      labels() {
        return drawnLabels.slice();
      },
      // Lays out and draws `times` times at the current zoom; mean ms of each.
      benchmark(times) {
        let layoutMs = 0;
        let drawMs = 0;
        for (let k = 0; k < times; k++) {
          layout = computeLayout(graphWidth());
          layoutMs += timing.layoutMs;
          draw();
          drawMs += timing.drawMs;
        }
        return { layoutMs: layoutMs / times, drawMs: drawMs / times };
      },
    });
  }
})();
