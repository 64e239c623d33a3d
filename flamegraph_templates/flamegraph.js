// swprof flame graph viewer.
//
// Reads the profile from the JSON data element "swprof-data" (format
// documented in output/flamegraph.cpp: a frame table plus per-node arrays in
// pre-order, and each thread's time order when the profile has one) and
// shows it in three views:
//  - the flame graph, on one canvas;
//  - the sandwich: the list of functions, and for the one picked its callers
//    (above) and callees (below) merged over every place it runs, each a
//    flame chart of its own;
//  - the time order: a lane per thread, its samples' stacks left to right in
//    time, zoomable.
// A frame clicked in any view is described in the details panel.
//
// Every string that comes from the profile reaches the page only through
// textContent or canvas fillText, never as markup.
//
// Drawing model of a flame chart: a layout is computed once per zoom (and
// per width): for each depth, the visible rectangles sorted by x. Frames
// narrower than MIN_WIDTH are not laid out one by one; runs of them become
// one grey "merged" block. Hovering and clicking find a rectangle with a
// binary search in its row. The time order keeps, per lane and depth, the
// spans of time a frame was on the stack, and draws those of the visible
// time range the same way.
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
    const LANE_FONT = '600 12px ' + MONO;
    const LIST_LIMIT = 500;         // rows of the function list shown at once
    const AXIS_HEIGHT = 22;         // px: the time axis above the lanes
    const LANE_HEAD = 20;           // px: a lane's name
    const LANE_GAP = 6;             // px between lanes
    const LANE_MAX_ROWS = 80;       // deeper frames of a lane are not drawn
    const STACK_LINES = 24;         // frames of a stack a tooltip lists
    const MIN_TIME_RANGE = 1;       // µs: the narrowest time range shown

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
    const reversed = !!data.reversed;
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
    const baseTotal = data.nodes.base ? Number(data.baseTotal) || 0 : 0;
    timing.parseMs = performance.now() - initStart;

    // A tree in pre-order (the page's, or one the sandwich merges): frame,
    // depth and total per node, optionally off-CPU part and base total; with
    // parent, end of subtree (exclusive) and self counts derived.
    function makeTree(frame, depth, total, off, base) {
      const count = frame.length;
      const parent = new Int32Array(count);
      const subtreeEnd = new Int32Array(count);
      const self = Float64Array.from(total);
      let maxDepth = 0;
      const path = [];
      for (let i = 0; i < count; i++) {
        const d = depth[i];
        const valid = i === 0 ? d === 0 : d >= 1 && d <= path.length;
        if (!valid) throw new Error('swprof flame graph: bad depth at node ' + i);
        if (!(frame[i] >= 0 && frame[i] < frameCount)) throw new Error('swprof flame graph: bad frame at node ' + i);
        while (path.length > d) subtreeEnd[path.pop()] = i;
        parent[i] = d === 0 ? -1 : path[d - 1];
        if (d > 0) self[parent[i]] -= total[i];
        path.push(i);
        if (d > maxDepth) maxDepth = d;
      }
      while (path.length) subtreeEnd[path.pop()] = count;
      return { count, frame, depth, total, off, base, parent, subtreeEnd, self, maxDepth };
    }

    const structureStart = performance.now();
    const mainTree = makeTree(Int32Array.from(data.nodes.frame), Int32Array.from(data.nodes.depth),
        Float64Array.from(data.nodes.total), data.nodes.off ? Float64Array.from(data.nodes.off) : null,
        data.nodes.base ? Float64Array.from(data.nodes.base) : null);
    const allTotal = mainTree.total[0];
    const differential = !!mainTree.base;
    const offCpu = !!mainTree.off;
    timing.structureMs = performance.now() - structureStart;

    // ---- functions ------------------------------------------------------------

    // A function is one or more frames: frames.sameFunction lists those that
    // are one function with the frame before them (an inlined copy beside its
    // out-of-line frame: profile/function_table's merge rule). The root and
    // thread frames are no function. funcFrame: a function's first frame
    // (its out-of-line one when it has one).
    const funcOf = new Int32Array(frameCount).fill(-1);
    const funcFrame = [];
    (function groupFunctions() {
      const same = new Uint8Array(frameCount);
      for (const f of data.frames.sameFunction || []) {
        if (f > 1 && f < frameCount) same[f] = 1;
      }
      for (let f = 1; f < frameCount; f++) {
        if (frameFlags[f] & FLAG_THREAD) continue;
        if (same[f] && funcOf[f - 1] >= 0) {
          funcOf[f] = funcOf[f - 1];
        } else {
          funcOf[f] = funcFrame.length;
          funcFrame.push(f);
        }
      }
    })();
    const funcCount = funcFrame.length;
    // The frame that stands for each frame's function (the sandwich merges by it).
    const funcFrameOf = Int32Array.from(funcOf, (g, f) => (g >= 0 ? funcFrame[g] : f));

    // Builds a tree by adding frames below nodes (merged by frame, or by
    // function when `byFunction`); finish() gives it in pre-order.
    function treeBuilder(rootFrame, byFunction) {
      const frame = [rootFrame];
      const total = [0];
      const off = offCpu ? [0] : null;
      const base = differential ? [0] : null;
      const children = [[]];
      const index = new Map();
      return {
        // The child of p for frame f (or f's function), made when missing.
        child(p, f) {
          const key = p * frameCount + (byFunction ? funcFrameOf[f] : f);
          let c = index.get(key);
          if (c === undefined) {
            c = frame.length;
            frame.push(byFunction ? funcFrameOf[f] : f);
            total.push(0);
            if (off) off.push(0);
            if (base) base.push(0);
            children.push([]);
            children[p].push(c);
            index.set(key, c);
          }
          return c;
        },
        // Adds to node n what node i of tree t weighs (w: its weights, else its totals).
        add(n, t, i, w) {
          total[n] += w ? w.total[i] : t.total[i];
          if (off) off[n] += w ? w.off[i] : t.off[i];
          if (base) base[n] += w ? w.base[i] : t.base[i];
        },
        finish() {
          const order = [];
          const depths = [];
          const stack = [[0, 0]];
          while (stack.length) {
            const [n, d] = stack.pop();
            order.push(n);
            depths.push(d);
            const kids = children[n].sort((a, b) => frame[a] - frame[b]);  // frames are in name order
            for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k], d + 1]);
          }
          const pick = (values) => (values ? Float64Array.from(order, (n) => values[n]) : null);
          return makeTree(Int32Array.from(order, (n) => frame[n]), Int32Array.from(depths), pick(total), pick(off),
              pick(base));
        },
      };
    }

    // Self values of a tree's per-node values (totals): each less its children's.
    function selfValues(t, values) {
      if (!values) return null;
      const self = Float64Array.from(values);
      for (let i = 1; i < t.count; i++) self[t.parent[i]] -= values[i];
      return self;
    }

    // The page's tree root first, callers above callees: with --reverse
    // (leaf first) every stack turned back, a thread root staying on top.
    // The function list and the sandwich read this one.
    let rootFirst = null;
    function rootFirstTree() {
      if (rootFirst) return rootFirst;
      if (!reversed) return (rootFirst = mainTree);
      const t = mainTree;
      const b = treeBuilder(0, false);
      const self = { total: t.self, off: selfValues(t, t.off), base: selfValues(t, t.base) };
      const path = [];
      for (let i = 1; i < t.count; i++) {
        path.length = t.depth[i] - 1;
        path.push(i);
        if (!(self.total[i] || (self.off && self.off[i]) || (self.base && self.base[i]))) continue;
        const thread = (frameFlags[t.frame[path[0]]] & FLAG_THREAD) !== 0;
        let at = 0;
        b.add(0, t, i, self);
        if (thread) {
          at = b.child(at, t.frame[path[0]]);
          b.add(at, t, i, self);
        }
        for (let k = path.length - 1; k >= (thread ? 1 : 0); k--) {
          at = b.child(at, t.frame[path[k]]);
          b.add(at, t, i, self);
        }
      }
      return (rootFirst = b.finish());
    }

    // Per function, self and total: total counts a sample once however often
    // the function is on its stack; self is the samples it is the leaf of.
    let funcStats = null;
    function functionStats() {
      if (funcStats) return funcStats;
      const t = rootFirstTree();
      const self = new Float64Array(funcCount);
      const total = new Float64Array(funcCount);
      const onPath = new Int32Array(funcCount);
      const pathFunc = new Int32Array(t.maxDepth + 1);
      let length = 0;
      for (let i = 0; i < t.count; i++) {
        const d = t.depth[i];
        while (length > d) {
          const g = pathFunc[--length];
          if (g >= 0) onPath[g]--;
        }
        const g = funcOf[t.frame[i]];
        if (g >= 0) {
          if (onPath[g]++ === 0) total[g] += t.total[i];
          self[g] += t.self[i];
        }
        pathFunc[length++] = g;
      }
      funcStats = { self, total };
      return funcStats;
    }

    function functionOfName(name) {
      for (let g = 0; g < funcCount; g++) {
        if (frameName[funcFrame[g]] === name) return g;
      }
      return -1;
    }

    // ---- source lines (hook) --------------------------------------------------

    // data.sourceLines (FlamegraphSourceLine in output/flamegraph.h): samples
    // at each source line of a function, written when the page's writer has
    // per-line counts. The details panel lists them; without them it says
    // the page has none.
    const sourceLines = data.sourceLines || null;
    function sourceLinesOf(g) {
      if (!sourceLines || g < 0) return [];
      const rows = [];
      let sum = 0;
      for (let k = 0; k < sourceLines.frame.length; k++) {
        const f = sourceLines.frame[k];
        if (!(f >= 0 && f < frameCount) || funcOf[f] !== g) continue;
        const samples = Number(sourceLines.samples[k]) || 0;
        rows.push({ file: String(files[sourceLines.file[k]] || ''), line: Number(sourceLines.line[k]) || 0, samples });
        sum += samples;
      }
      rows.sort((a, b) => b.samples - a.samples || a.file.localeCompare(b.file) || a.line - b.line);
      for (const r of rows) r.share = sum > 0 ? (100 * r.samples) / sum : 0;
      return rows;
    }

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
    // the base profile, blue for less, saturated at the largest change of the
    // page's tree.
    function shareDelta(tree, i) {
      const now = allTotal > 0 ? tree.total[i] / allTotal : 0;
      const before = baseTotal > 0 ? tree.base[i] / baseTotal : 0;
      return now - before;
    }
    let maxAbsDelta = 0;
    if (differential) {
      for (let i = 1; i < mainTree.count; i++) maxAbsDelta = Math.max(maxAbsDelta, Math.abs(shareDelta(mainTree, i)));
    }
    function diffColor(tree, i) {
      const delta = shareDelta(tree, i);
      if (tree.frame[i] === 0 || maxAbsDelta === 0 || Math.abs(delta) < 1e-12) return 'rgb(226,226,222)';
      const t = Math.min(1, Math.abs(delta) / maxAbsDelta);
      const fade = Math.round(226 - 176 * t);
      return delta > 0 ? 'rgb(236,' + fade + ',' + fade + ')' : 'rgb(' + fade + ',' + Math.round(226 - 120 * t) + ',236)';
    }

    // Off-CPU mode: frames whose time is mostly off the CPU (blocked or
    // waiting) in a cool blue palette, the others warm, as in off-CPU flame
    // graphs; the root and thread roots keep their colours.
    function isMostlyOffCpu(tree, i) {
      return tree.total[i] > 0 && tree.off[i] / tree.total[i] >= 0.5;
    }
    function offCpuColor(tree, i) {
      const f = tree.frame[i];
      const kind = frameKind(f);
      if (kind === 'root') return COLOR_ROOT;
      if (kind === 'thread') return COLOR_THREAD;
      const jitter = hashString(frameName[f]) % 10;
      if (isMostlyOffCpu(tree, i)) return 'hsl(' + (200 + 2 * jitter) + ',62%,' + (58 + jitter) + '%)';
      return 'hsl(' + (8 + 4 * jitter) + ',82%,' + (58 + jitter) + '%)';
    }

    function nodeColor(tree, i) {
      if (tree.base) return diffColor(tree, i);
      return tree.off ? offCpuColor(tree, i) : colorOfFrame(tree.frame[i]);
    }

    // ---- texts ----------------------------------------------------------------

    const numberFormat = new Intl.NumberFormat('en-US');
    function count(n) {
      return numberFormat.format(n);
    }
    function percent(part, whole) {
      return (whole > 0 ? (100 * part) / whole : 0).toFixed(2) + '%';
    }
    function capitalized(s) {
      return s ? s[0].toUpperCase() + s.slice(1) : s;
    }
    // A time in µs, in the unit that suits `scale` (µs): "250 µs", "12.5 ms", "1.25 s".
    function formatTime(us, scale) {
      const s = scale === undefined ? Math.abs(us) : scale;
      if (s >= 1e6) return trimZeros((us / 1e6).toFixed(s >= 1e7 ? 2 : 3)) + ' s';
      if (s >= 1e3) return trimZeros((us / 1e3).toFixed(s >= 1e4 ? 2 : 3)) + ' ms';
      return trimZeros(us.toFixed(s >= 10 ? 1 : 3)) + ' \u00b5s';
    }
    function trimZeros(text) {
      return text.indexOf('.') < 0 ? text : text.replace(/\.?0+$/, '');
    }
    function functionLabel(f) {
      return (frameFlags[f] & FLAG_GUESS) ? frameName[f] + ' ?' : frameName[f];
    }

    // ---- page elements ------------------------------------------------------

    const canvas = $('flame');
    const ctx = canvas.getContext('2d');
    const viewport = $('viewport');  // scrolls the graph between the header and the footer
    const tooltip = $('tooltip');
    const details = $('details');
    const detailsPanel = $('frame-details');
    const resetButton = $('reset-zoom');
    const icicleBox = $('icicle');
    const searchInput = $('search');
    const regexBox = $('search-regex');
    const caseBox = $('search-case');
    const matchedLabel = $('matched');
    const tabs = { flame: $('tab-flame'), sandwich: $('tab-sandwich'), time: $('tab-time') };
    const views = { flame: viewport, sandwich: $('sandwich-view'), time: $('time-view') };

    function makeHatch(context) {
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
      return context.createPattern(tile, 'repeat');
    }

    ctx.font = LABEL_FONT;
    const charWidth = ctx.measureText('M').width || 7;
    const monospace = Math.abs(ctx.measureText('iiii').width - 4 * charWidth) < 0.5;

    // The label cut to fit `room` px, ending in ".." when cut; '' if too narrow.
    function fitLabel(context, text, room) {
      let chars = Math.floor(room / charWidth);
      if (text.length <= chars && (monospace || context.measureText(text).width <= room)) return text;
      if (chars < 4) return '';  // a cut label keeps at least two characters
      let cut = text.slice(0, chars - 2) + '..';
      while (!monospace && chars >= 4 && context.measureText(cut).width > room) {
        chars--;
        cut = text.slice(0, chars - 2) + '..';
      }
      return chars < 4 ? '' : cut;
    }

    // Sizes a canvas for css width x height and returns its context, scaled.
    function prepareCanvas(target, context, cssWidth, cssHeight) {
      const dpr = window.devicePixelRatio || 1;
      target.style.height = cssHeight + 'px';
      const pixelWidth = Math.round(cssWidth * dpr);
      const pixelHeight = Math.round(cssHeight * dpr);
      if (target.width !== pixelWidth || target.height !== pixelHeight) {
        target.width = pixelWidth;
        target.height = pixelHeight;
      }
      context.setTransform(dpr, 0, 0, dpr, 0, 0);
      context.clearRect(0, 0, cssWidth, cssHeight);
      context.textBaseline = 'middle';
      context.font = LABEL_FONT;
      return context;
    }

    function maxRows() {
      return Math.max(1, Math.floor(MAX_CANVAS_PX / (ROW_HEIGHT * (window.devicePixelRatio || 1))));
    }

    // ---- state --------------------------------------------------------------

    let view = 'flame';
    let icicle = !!data.icicle;
    let matchFrame = null;  // Uint8Array per frame while a search is active
    let matched = { samples: 0, zoomSamples: 0 };

    // ---- flame charts -----------------------------------------------------------

    // A flame chart of a tree on a canvas: its zoom, layout, drawing, hit
    // testing and tooltips. `spec`: canvas, hoverBox, scroller (the element
    // that scrolls it), rootAtTop(), and timing (an object the layout and
    // draw times go to).
    function createFlameChart(spec) {
      const target = spec.canvas;
      const context = target.getContext('2d');
      const hatch = makeHatch(context);
      const chart = { tree: null, zoom: 0, layout: null, hovered: null, drawnLabels: [] };

      function width() {
        return Math.max(1, target.parentElement.clientWidth || window.innerWidth - 24);
      }

      function computeLayout(w) {
        const start = performance.now();
        const t = chart.tree;
        const zoom = chart.zoom;
        const rowLimit = maxRows();
        const rows = [];
        const rowAt = (d) => rows[d] || (rows[d] = { x: [], w: [], node: [], merged: [] });
        const push = (d, x, width, node) => {
          const r = rowAt(d);
          r.x.push(x);
          r.w.push(width);
          r.node.push(node);
        };
        const chain = [];
        for (let a = zoom; a !== -1; a = t.parent[a]) chain.push(a);
        for (let k = chain.length - 1; k >= 0; k--) push(t.depth[chain[k]], 0, w, chain[k]);

        // Runs of narrow frames per depth, waiting to become one merged block.
        const pendX = new Float64Array(t.maxDepth + 2);
        const pendW = new Float64Array(t.maxDepth + 2);
        const pendFrames = new Int32Array(t.maxDepth + 2);
        const pendSamples = new Float64Array(t.maxDepth + 2);
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
        const addNarrow = (d, x, width, i) => {
          if (pendFrames[d] > 0 && Math.abs(pendX[d] + pendW[d] - x) <= 1e-6 * w) {
            pendW[d] += width;
          } else {
            flush(d);
            pendX[d] = x;
            pendW[d] = width;
            pendSamples[d] = 0;
          }
          pendFrames[d]++;
          pendSamples[d] += t.total[i];
        };

        const scale = t.total[zoom] > 0 ? w / t.total[zoom] : 0;
        const cursor = new Float64Array(t.maxDepth + 2);  // next x per depth
        let truncated = false;
        const stop = t.subtreeEnd[zoom];
        for (let i = zoom + 1; i < stop;) {
          const d = t.depth[i];
          const nodeWidth = t.total[i] * scale;
          const x = cursor[d];
          cursor[d] = x + nodeWidth;
          if (d >= rowLimit) {
            truncated = true;
            i = t.subtreeEnd[i];
          } else if (nodeWidth < MIN_WIDTH) {
            addNarrow(d, x, nodeWidth, i);
            i = t.subtreeEnd[i];
          } else {
            flush(d);
            push(d, x, nodeWidth, i);
            cursor[d + 1] = x;
            i++;
          }
        }
        for (let d = 0; d < pendFrames.length; d++) flush(d);
        let rects = 0;
        for (const r of rows) rects += r ? r.x.length : 0;
        spec.timing.layoutMs = performance.now() - start;
        return { width: w, rows, rects, mergedBlocks, truncated };
      }

      function rowY(d) {
        return spec.rootAtTop() ? d * ROW_HEIGHT : (chart.layout.rows.length - 1 - d) * ROW_HEIGHT;
      }

      function draw() {
        const start = performance.now();
        const t = chart.tree;
        const rows = chart.layout.rows;
        const cssWidth = chart.layout.width;
        prepareCanvas(target, context, cssWidth, rows.length * ROW_HEIGHT);
        let font = LABEL_FONT;
        chart.drawnLabels = [];
        const zoomDepth = t.depth[chart.zoom];
        for (let d = 0; d < rows.length; d++) {
          const r = rows[d];
          if (!r) continue;
          const y = rowY(d);
          context.globalAlpha = d < zoomDepth ? 0.55 : 1;  // ancestors of the zoomed frame
          for (let k = 0; k < r.x.length; k++) {
            const x = r.x[k];
            const w = r.w[k];
            const node = r.node[k];
            const f = node >= 0 ? t.frame[node] : -1;
            const boxWidth = w >= 3 ? w - 1 : w;
            if (node < 0) context.fillStyle = COLOR_MERGED;
            else if (matchFrame && matchFrame[f]) context.fillStyle = COLOR_MATCH;
            else context.fillStyle = nodeColor(t, node);
            context.fillRect(x, y, boxWidth, ROW_HEIGHT - 1);
            if (f >= 0 && (frameFlags[f] & FLAG_GUESS)) {
              context.fillStyle = hatch;
              context.fillRect(x, y, boxWidth, ROW_HEIGHT - 1);
            }
            if (f < 0 || w < 3 * charWidth + LABEL_PAD) continue;
            const wanted = (frameFlags[f] & FLAG_INLINE) ? INLINE_FONT : LABEL_FONT;
            if (wanted !== font) {
              font = wanted;
              context.font = font;
            }
            const text = fitLabel(context, functionLabel(f), w - LABEL_PAD - 2);
            if (!text) continue;
            context.fillStyle = '#000';
            context.fillText(text, x + LABEL_PAD, y + ROW_HEIGHT / 2);
            chart.drawnLabels.push(text);
          }
        }
        context.globalAlpha = 1;
        spec.timing.drawMs = performance.now() - start;
        placeHoverBox();
      }

      function relayout() {
        if (!chart.tree) return;
        chart.layout = computeLayout(width());
        draw();
      }

      // Draws again, laid out again only when the width changed.
      function refresh() {
        if (chart.layout && chart.layout.width === width()) draw();
        else relayout();
      }

      // { depth, index } of the rectangle under a client point, or null.
      function hitTest(clientX, clientY) {
        const layout = chart.layout;
        if (!layout) return null;
        const box = target.getBoundingClientRect();
        if (box.width <= 0) return null;
        const x = (clientX - box.left) * (layout.width / box.width);
        const y = clientY - box.top;
        if (x < 0 || y < 0 || x >= layout.width || y >= layout.rows.length * ROW_HEIGHT) return null;
        const band = Math.floor(y / ROW_HEIGHT);
        const d = spec.rootAtTop() ? band : layout.rows.length - 1 - band;
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

      function nodeAt(hit) {
        return chart.layout.rows[hit.depth].node[hit.index];
      }

      function placeHoverBox() {
        const hovered = chart.hovered;
        const layout = chart.layout;
        if (!hovered || !layout || !layout.rows[hovered.depth] || hovered.index >= layout.rows[hovered.depth].x.length) {
          spec.hoverBox.hidden = true;
          return;
        }
        const r = layout.rows[hovered.depth];
        const scale = target.getBoundingClientRect().width / layout.width || 1;
        spec.hoverBox.style.left = target.offsetLeft + r.x[hovered.index] * scale + 'px';
        spec.hoverBox.style.top = target.offsetTop + rowY(hovered.depth) + 'px';
        spec.hoverBox.style.width = Math.max(2, r.w[hovered.index] * scale) + 'px';
        spec.hoverBox.style.height = ROW_HEIGHT + 'px';
        spec.hoverBox.hidden = false;
      }

      // Client rectangle where a node is drawn, or null when it is not drawn.
      function nodeRect(node) {
        const t = chart.tree;
        const layout = chart.layout;
        if (!layout || !(node >= 0 && node < t.count)) return null;
        const d = t.depth[node];
        const r = layout.rows[d];
        if (!r) return null;
        const k = r.node.indexOf(node);
        if (k < 0) return null;
        const box = target.getBoundingClientRect();
        const scale = box.width / layout.width || 1;
        return { x: box.left + r.x[k] * scale, y: box.top + rowY(d), width: r.w[k] * scale, height: ROW_HEIGHT - 1 };
      }

      // Scrolls the chart's scroller, if needed, so the node's row is in it.
      function reveal(node) {
        const r = nodeRect(node);
        if (!r) return;
        const box = spec.scroller.getBoundingClientRect();
        if (r.y < box.top) spec.scroller.scrollTop += r.y - box.top - ROW_HEIGHT;
        else if (r.y + ROW_HEIGHT > box.bottom) spec.scroller.scrollTop += r.y + 2 * ROW_HEIGHT - box.bottom;
      }

      function isInZoom(node) {
        return node >= chart.zoom && node < chart.tree.subtreeEnd[chart.zoom];
      }

      // Lines of the tooltip for a rectangle: [{ text, cls }].
      function describe(hit) {
        const t = chart.tree;
        const r = chart.layout.rows[hit.depth];
        const node = r.node[hit.index];
        if (node < 0) {
          const info = r.merged[hit.index];
          return [
            { text: info.frames + ' frames too narrow to draw', cls: 'name' },
            { text: count(info.samples) + ' ' + unit + ' (' + percent(info.samples, allTotal) + ' of all)' },
            { text: 'Click the frame below them to zoom in.', cls: 'note' },
          ];
        }
        const f = t.frame[node];
        const lines = [{ text: frameName[f], cls: 'name' }];
        if (f === 0) {
          lines.push({ text: count(allTotal) + ' ' + unit + ' in total' });
          if (differential) lines.push({ text: 'Base profile: ' + count(baseTotal) + ' ' + unit });
          return lines;
        }
        frameWhereLines(f, lines);
        const total = t.total[node];
        lines.push({ text: capitalized(unit) + ': ' + count(total) + ' (' + percent(total, allTotal) + ' of all)' });
        if (chart.zoom !== 0 && isInZoom(node)) {
          lines.push({ text: percent(total, t.total[chart.zoom]) + ' of the zoomed frame ' + frameName[t.frame[chart.zoom]] });
        }
        const p = t.parent[node];
        if (p >= 0 && t.frame[p] !== 0) lines.push({ text: percent(total, t.total[p]) + ' of its ' + spec.parentIs + ' ' + frameName[t.frame[p]] });
        lines.push({ text: 'Self: ' + count(t.self[node]) + ' (' + percent(t.self[node], allTotal) + ' of all)' });
        if (t.off) {
          const off = t.off[node];
          lines.push({
            text: 'On-CPU: ' + count(total - off) + ' (' + percent(total - off, total) + '), off-CPU: ' + count(off) +
                ' (' + percent(off, total) + ')',
          });
        }
        if (t.base) {
          const before = baseTotal > 0 ? (100 * t.base[node]) / baseTotal : 0;
          const now = allTotal > 0 ? (100 * total) / allTotal : 0;
          const change = now - before;
          lines.push({
            text: 'Base: ' + before.toFixed(2) + '% (' + count(t.base[node]) + ') \u2192 now ' + now.toFixed(2) +
                '% (' + (change >= 0 ? '+' : '') + change.toFixed(2) + ' points)',
          });
        }
        frameNoteLines(f, lines);
        return lines;
      }

      function zoomTo(node) {
        if (!chart.tree || !(node >= 0 && node < chart.tree.count)) return;
        chart.zoom = node;
        chart.hovered = null;
        relayout();
        reveal(node);
      }

      function setTree(tree) {
        chart.tree = tree;
        chart.zoom = 0;
        chart.hovered = null;
        relayout();
      }

      Object.assign(chart, { canvas: target, relayout, refresh, draw, hitTest, nodeAt, placeHoverBox, nodeRect, reveal, describe,
        zoomTo, setTree, computeLayout, width });
      return chart;
    }

    // Module and source lines of a frame's tooltip or details.
    function frameWhereLines(f, lines) {
      const module = modules[frameModule[f]];
      if (module) lines.push({ text: 'Module: ' + module });
      const file = files[frameFile[f]];
      if (file) lines.push({ text: 'Source: ' + file + (frameLine[f] > 0 ? ':' + frameLine[f] : '') });
    }

    function frameNoteLines(f, lines) {
      const kind = frameKind(f);
      const flags = frameFlags[f];
      if (flags & FLAG_INLINE) lines.push({ text: 'Inlined into its caller', cls: 'note' });
      if (flags & FLAG_GUESS) lines.push({ text: 'Guessed frame: found by scanning the stack, may be wrong', cls: 'note' });
      if (kind === 'kernel') lines.push({ text: 'Kernel code', cls: 'note' });
      if (kind === 'jit') lines.push({ text: 'JIT-compiled code', cls: 'note' });
      if (kind === 'thread') lines.push({ text: 'Thread', cls: 'note' });
    }

    function showTooltip(lines, clientX, clientY) {
      tooltip.replaceChildren();
      for (const line of lines) {
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

    const flame = createFlameChart({
      canvas, hoverBox: $('hover-box'), scroller: viewport, rootAtTop: () => icicle, timing,
      parentIs: reversed ? 'callee' : 'caller',
    });
    const callersChart = createFlameChart({
      canvas: $('callers'), hoverBox: $('callers').nextElementSibling, scroller: $('callers-pane'),
      rootAtTop: () => false, timing: {}, parentIs: 'callee',
    });
    const calleesChart = createFlameChart({
      canvas: $('callees'), hoverBox: $('callees').nextElementSibling, scroller: $('callees-pane'),
      rootAtTop: () => true, timing: {}, parentIs: 'caller',
    });
    const charts = [flame, callersChart, calleesChart];

    // Hover, click (zoom and details) and double click (the sandwich of the
    // frame's function) on a flame chart.
    function wireChart(chart, where) {
      chart.canvas.addEventListener('mousemove', (ev) => {
        const hit = chart.hitTest(ev.clientX, ev.clientY);
        if (!hit) {
          hideHover();
          return;
        }
        for (const other of charts) {
          if (other === chart || !other.hovered) continue;
          other.hovered = null;
          other.placeHoverBox();
        }
        chart.hovered = hit;
        chart.placeHoverBox();
        showTooltip(chart.describe(hit), ev.clientX, ev.clientY);
        const node = chart.nodeAt(hit);
        const t = chart.tree;
        details.textContent = node < 0 ? 'Frames too narrow to draw' : frameName[t.frame[node]] + ' \u2014 ' +
            count(t.total[node]) + ' ' + unit + ' (' + percent(t.total[node], allTotal) + ')';
      });
      chart.canvas.addEventListener('mouseleave', hideHover);
      chart.canvas.addEventListener('click', (ev) => {
        const hit = chart.hitTest(ev.clientX, ev.clientY);
        if (!hit) return;
        const node = chart.nodeAt(hit);
        if (node < 0) return;
        showNodeDetails(chart.tree, node, where);
        if (node !== chart.zoom) zoomChart(chart, node);
      });
      chart.canvas.addEventListener('dblclick', (ev) => {
        const hit = chart.hitTest(ev.clientX, ev.clientY);
        const node = hit ? chart.nodeAt(hit) : -1;
        if (node >= 0 && funcOf[chart.tree.frame[node]] >= 0) selectFunction(funcOf[chart.tree.frame[node]]);
      });
    }

    function zoomChart(chart, node) {
      chart.zoomTo(node);
      if (chart === flame) updateMatched();
      updateResetButton();
      showStatus();
    }

    function hideHover() {
      for (const chart of charts) chart.hovered = null;
      for (const box of document.querySelectorAll('.hover-box')) box.hidden = true;
      tooltip.hidden = true;
      showStatus();
    }

    function showStatus() {
      details.textContent = statusText();
    }

    function statusText() {
      if (view === 'sandwich') {
        if (sandwich.func < 0) return 'Pick a function from the list (search narrows it) to see its callers and callees.';
        return 'Callers (above) and callees (below) of ' + frameName[funcFrame[sandwich.func]] +
            ' over every place it runs. Click a frame for its details; double-click one for its own callers and callees.';
      }
      if (view === 'time') return timeStatusText();
      let text;
      if (flame.zoom !== 0) {
        text = 'Zoomed to ' + frameName[mainTree.frame[flame.zoom]] + ' (' + percent(mainTree.total[flame.zoom], allTotal) +
            ' of all). Escape or Reset zoom shows everything.';
      } else {
        text = 'Click a frame to zoom in and see its details; double-click it for its callers and callees. ' +
            count(allTotal) + ' ' + unit + ', ' + count(mainTree.count - 1) + ' call paths.';
      }
      if (flame.layout && flame.layout.truncated) {
        text += ' Frames deeper than ' + flame.layout.rows.length + ' levels are not shown: zoom in.';
      }
      return text;
    }

    // ---- search -----------------------------------------------------------------

    // Samples under `top` that pass through a matching frame, each counted once
    // (a match below a match adds nothing).
    function matchedUnder(top) {
      const t = mainTree;
      let sum = 0;
      const stop = t.subtreeEnd[top];
      for (let i = top; i < stop;) {
        if (matchFrame[t.frame[i]]) {
          sum += t.total[i];
          i = t.subtreeEnd[i];
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
      const t = mainTree;
      const zoom = flame.zoom;
      let zoomSamples = -1;
      for (let a = zoom; a !== -1; a = t.parent[a]) {
        if (matchFrame[t.frame[a]]) zoomSamples = t.total[zoom];
      }
      if (zoomSamples < 0) zoomSamples = matchedUnder(zoom);
      matched = { samples: matchedUnder(0), zoomSamples };
      let text = 'Matched: ' + percent(matched.samples, allTotal) + ' of ' + unit;
      if (zoom !== 0) text += ' (' + percent(zoomSamples, t.total[zoom]) + ' of the zoomed frame)';
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
      listDirty = true;
      redrawView();
    }

    function clearSearch() {
      searchInput.value = '';
      runSearch();
    }

    // ---- the sandwich -------------------------------------------------------------

    // The selected function and the two trees of its sandwich, made from the
    // root-first tree. Callees: the subtrees of the function's outermost
    // nodes (a recursion below them stays inside), merged by function, rooted
    // at the function. Callers: the paths from those nodes up to the root,
    // each weighing its node's total, merged from the function outwards.
    // Both roots weigh the samples with the function on their stack, each
    // once. A function's inlined copies are the function here, as in the list.
    const sandwich = { func: -1, callers: null, callees: null };
    let listSort = 'self';
    let listDirty = true;
    let listRows = [];

    // The function's outermost nodes in the root-first tree.
    function outermostNodes(t, g) {
      const nodes = [];
      for (let i = 1; i < t.count;) {
        if (funcOf[t.frame[i]] === g) {
          nodes.push(i);
          i = t.subtreeEnd[i];
        } else {
          i++;
        }
      }
      return nodes;
    }

    function mergedSubtrees(t, g, nodes) {
      const b = treeBuilder(funcFrame[g], true);
      const mapped = new Int32Array(t.count);
      for (const o of nodes) {
        b.add(0, t, o);
        mapped[o] = 0;
        for (let i = o + 1; i < t.subtreeEnd[o]; i++) {
          const c = b.child(mapped[t.parent[i]], t.frame[i]);
          b.add(c, t, i);
          mapped[i] = c;
        }
      }
      return b.finish();
    }

    function mergedPathsUp(t, g, nodes) {
      const b = treeBuilder(funcFrame[g], true);
      for (const o of nodes) {
        b.add(0, t, o);
        let at = 0;
        for (let a = t.parent[o]; a > 0; a = t.parent[a]) {
          at = b.child(at, t.frame[a]);
          b.add(at, t, o);
        }
      }
      return b.finish();
    }

    function selectFunction(g) {
      if (!(g >= 0 && g < funcCount)) return false;
      const start = performance.now();
      const t = rootFirstTree();
      const nodes = outermostNodes(t, g);
      sandwich.func = g;
      sandwich.callees = mergedSubtrees(t, g, nodes);
      sandwich.callers = mergedPathsUp(t, g, nodes);
      timing.sandwichBuildMs = performance.now() - start;
      const f = funcFrame[g];
      const module = modules[frameModule[f]];
      const where = module ? ' (' + module + ')' : '';
      $('callers-title').textContent = '\u25b2 Callers of ' + frameName[f] + where;
      $('callees-title').textContent = '\u25bc Callees of ' + frameName[f] + where;
      showView('sandwich');
      callersChart.setTree(sandwich.callers);
      calleesChart.setTree(sandwich.callees);
      callersChart.reveal(0);
      calleesChart.canvas.parentElement.parentElement.scrollTop = 0;
      timing.sandwichMs = performance.now() - start;
      markSelectedRow();
      updateResetButton();
      showStatus();
      return true;
    }

    // ---- the list of functions ----------------------------------------------------

    const listBody = document.querySelector('#function-list tbody');
    const sortButtons = Array.from(document.querySelectorAll('#function-list th button'));

    function listedFunctions() {
      const stats = functionStats();
      const rows = [];
      for (let g = 0; g < funcCount; g++) {
        if (stats.total[g] <= 0 && stats.self[g] <= 0) continue;
        if (matchFrame && !matchFrame[funcFrame[g]]) continue;
        rows.push(g);
      }
      const byName = (a, b) => {
        const x = frameName[funcFrame[a]];
        const y = frameName[funcFrame[b]];
        return x < y ? -1 : x > y ? 1 : a - b;
      };
      const self = stats.self;
      const total = stats.total;
      if (listSort === 'name') rows.sort(byName);
      else if (listSort === 'total') rows.sort((a, b) => total[b] - total[a] || self[b] - self[a] || byName(a, b));
      else rows.sort((a, b) => self[b] - self[a] || total[b] - total[a] || byName(a, b));
      return rows;
    }

    function numberCell(value) {
      const td = document.createElement('td');
      td.className = 'number';
      td.textContent = count(value) + ' (' + (allTotal > 0 ? ((100 * value) / allTotal).toFixed(1) : '0.0') + '%)';
      return td;
    }

    function renderFunctionList() {
      const start = performance.now();
      listDirty = false;
      const stats = functionStats();
      listRows = listedFunctions();
      const shown = listRows.slice(0, LIST_LIMIT);
      const fragment = document.createDocumentFragment();
      for (const g of shown) {
        const f = funcFrame[g];
        const tr = document.createElement('tr');
        tr.dataset.func = g;
        tr.tabIndex = -1;
        tr.appendChild(numberCell(stats.self[g]));
        tr.appendChild(numberCell(stats.total[g]));
        const td = document.createElement('td');
        td.className = 'function';
        const name = document.createElement('span');
        name.className = 'mono';
        name.textContent = functionLabel(f);
        td.appendChild(name);
        const module = modules[frameModule[f]];
        if (module) {
          const m = document.createElement('span');
          m.className = 'module';
          m.textContent = module;
          td.appendChild(m);
        }
        tr.appendChild(td);
        fragment.appendChild(tr);
      }
      listBody.replaceChildren(fragment);
      let note = count(listRows.length) + (matchFrame ? ' of ' + count(funcCount) + ' functions match the search' :
          ' functions') + ' (' + unit + ', % of all)';
      if (listRows.length > shown.length) note += '; the first ' + count(shown.length) + ' are listed: search for others';
      $('function-count').textContent = note;
      for (const button of sortButtons) {
        const th = button.parentElement;
        if (button.dataset.sort === listSort) th.setAttribute('aria-sort', listSort === 'name' ? 'ascending' : 'descending');
        else th.removeAttribute('aria-sort');
      }
      markSelectedRow();
      timing.listMs = performance.now() - start;
    }

    // The selected function's row is selected and the list's tab stop (the
    // first row when none is).
    function markSelectedRow() {
      let stop = null;
      for (const tr of listBody.children) {
        const selected = Number(tr.dataset.func) === sandwich.func;
        tr.setAttribute('aria-selected', selected ? 'true' : 'false');
        tr.tabIndex = -1;
        if (selected) stop = tr;
      }
      stop = stop || listBody.firstElementChild;
      if (stop) stop.tabIndex = 0;
    }

    function rowOf(element) {
      return element && element.closest ? element.closest('#function-list tbody tr') : null;
    }

    listBody.addEventListener('click', (ev) => {
      const tr = rowOf(ev.target);
      if (tr) selectFunction(Number(tr.dataset.func));
    });
    listBody.addEventListener('keydown', (ev) => {
      const tr = rowOf(ev.target);
      if (!tr) return;
      let next = null;
      if (ev.key === 'ArrowDown') next = tr.nextElementSibling;
      else if (ev.key === 'ArrowUp') next = tr.previousElementSibling;
      else if (ev.key === 'Home') next = listBody.firstElementChild;
      else if (ev.key === 'End') next = listBody.lastElementChild;
      else if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        selectFunction(Number(tr.dataset.func));
        tr.focus();
        return;
      } else {
        return;
      }
      ev.preventDefault();
      if (next) {
        tr.tabIndex = -1;
        next.tabIndex = 0;
        next.focus();
      }
    });
    for (const button of sortButtons) {
      button.addEventListener('click', () => {
        listSort = button.dataset.sort;
        renderFunctionList();
      });
    }

    // ---- the time order -------------------------------------------------------------

    // data.timeline (output/flamegraph.cpp): per lane, its blocks' start and
    // end (µs after the recording started), leaf node and samples; the spans
    // per depth are made when the view is first shown.
    const timeline = data.timeline ? readTimeline(data.timeline) : null;
    let timeRange = timeline ? { start: 0, end: Math.max(timeline.end, MIN_TIME_RANGE) } : null;
    let timeLayout = null;   // lanes' places on the canvas, for the current width
    let timeHovered = null;  // { lane, depth, span }
    let timeLabels = [];

    function readTimeline(t) {
      const names = t.threads.name;
      const counts = t.threads.blocks;
      const b = t.blocks;
      const all = b.node.length;
      if (b.gap.length !== all || b.length.length !== all || b.samples.length !== all ||
          counts.reduce((sum, n) => sum + n, 0) !== all || t.threads.tid.length !== names.length) {
        throw new Error('swprof flame graph: inconsistent time order');
      }
      const lanes = [];
      let k = 0;
      let samples = 0;
      for (let l = 0; l < names.length; l++) {
        const n = counts[l];
        const lane = {
          name: String(names[l]), tid: t.threads.tid[l], start: new Float64Array(n), end: new Float64Array(n),
          node: new Int32Array(n), samples: new Float64Array(n), spans: null, top: 1, rows: 0,
        };
        let at = 0;
        for (let j = 0; j < n; j++, k++) {
          const node = b.node[k];
          if (!(node > 0 && node < mainTree.count)) throw new Error('swprof flame graph: bad node in the time order');
          lane.start[j] = at + b.gap[k];
          lane.end[j] = lane.start[j] + b.length[k];
          at = lane.end[j];
          lane.node[j] = node;
          lane.samples[j] = b.samples[k];
          samples += b.samples[k];
        }
        lanes.push(lane);
      }
      const cut = t.cut ? { at: Number(t.cut.at) || 0, blocks: Number(t.cut.blocks) || 0 } : null;
      return { lanes, end: Number(t.end) || 0, blocks: all, samples, cut, spansReady: false };
    }

    // A lane's spans per depth: runs of touching blocks with the same node at
    // that depth (a gap in the samples ends every span). Block by block, only
    // the depths below the node the new stack shares with the last one
    // change: their spans end, new ones start. Depth `top` is the first
    // drawn: 2 when every stack starts at a thread root (the lane is the
    // thread already).
    function buildSpans(lane) {
      const t = mainTree;
      const path = new Int32Array(t.maxDepth + 2);          // the last block's stack by depth
      const openStart = new Float64Array(t.maxDepth + 2);   // when its span at each depth started
      const openBefore = new Float64Array(t.maxDepth + 2);  // samples before that span
      const spans = [];
      let depth = 0;     // of the last block's leaf
      let end = 0;       // of the last block
      let samples = 0;   // in the blocks so far
      let maxDepth = 0;
      let threadTop = lane.node.length > 0;
      const push = (d) => {
        let s = spans[d];
        if (!s) s = spans[d] = { n: 0, start: new Float64Array(16), end: new Float64Array(16), node: new Int32Array(16),
          samples: new Float64Array(16) };
        if (s.n === s.start.length) {
          for (const key of ['start', 'end', 'node', 'samples']) {
            const grown = new s[key].constructor(2 * s.n);
            grown.set(s[key]);
            s[key] = grown;
          }
        }
        s.start[s.n] = openStart[d];
        s.end[s.n] = end;
        s.node[s.n] = path[d];
        s.samples[s.n] = samples - openBefore[d];
        s.n++;
      };
      for (let j = 0; j < lane.node.length; j++) {
        const leaf = lane.node[j];
        // k: the depth down to which the stack goes on as the last one did.
        let k = 0;
        if (j > 0 && lane.start[j] === end) {
          let a = leaf;
          while (a > 0 && !(t.depth[a] <= depth && path[t.depth[a]] === a)) a = t.parent[a];
          k = a > 0 ? t.depth[a] : 0;
        }
        for (let d = depth; d > k; d--) push(d);
        const leafDepth = t.depth[leaf];
        for (let a = leaf; a > 0 && t.depth[a] > k; a = t.parent[a]) path[t.depth[a]] = a;
        for (let d = k + 1; d <= leafDepth; d++) {
          openStart[d] = lane.start[j];
          openBefore[d] = samples;
        }
        depth = leafDepth;
        end = lane.end[j];
        samples += lane.samples[j];
        if (depth > maxDepth) maxDepth = depth;
        if (depth < 2 || !(frameFlags[t.frame[path[1]]] & FLAG_THREAD)) threadTop = false;
      }
      for (let d = depth; d > 0; d--) push(d);
      for (const s of spans) {
        if (!s) continue;
        s.start = s.start.subarray(0, s.n);
        s.end = s.end.subarray(0, s.n);
        s.node = s.node.subarray(0, s.n);
        s.samples = s.samples.subarray(0, s.n);
      }
      lane.spans = spans;
      lane.top = threadTop ? 2 : 1;
      lane.rows = Math.max(0, Math.min(maxDepth - lane.top + 1, LANE_MAX_ROWS));
      lane.deeper = maxDepth - lane.top + 1 > LANE_MAX_ROWS;
    }

    function ensureSpans() {
      if (!timeline || timeline.spansReady) return;
      const start = performance.now();
      for (const lane of timeline.lanes) buildSpans(lane);
      timeline.spansReady = true;
      timing.timeSpansMs = performance.now() - start;
    }

    const lanesCanvas = $('lanes');
    const lanesContext = lanesCanvas.getContext('2d');
    const lanesHatch = makeHatch(lanesContext);
    const lanesHoverBox = lanesCanvas.parentElement.querySelector('.hover-box');
    const timeSelection = $('time-selection');
    const timeScroll = $('time-scroll');
    const timeChart = $('time-chart');  // as tall as all the lanes; the canvas sticks to the top of the view
    let timeScrollPending = false;
    timeScroll.addEventListener('scroll', () => {
      if (timeScrollPending) return;
      timeScrollPending = true;
      requestAnimationFrame(() => {
        timeScrollPending = false;
        if (view === 'time') drawTime();
      });
    });

    // Where each lane is, in the coordinates of the lanes' whole height
    // (#time-chart): the axis on top, then the lanes one below the other. The
    // canvas is only as tall as the view and sticks to its top: `top` is the
    // part of the lanes it shows (what is scrolled away above it).
    function computeTimeLayout(width) {
      const lanes = [];
      let y = AXIS_HEIGHT;
      for (const lane of timeline.lanes) {
        lanes.push({ lane, top: y, rowsTop: y + LANE_HEAD });
        y += LANE_HEAD + lane.rows * ROW_HEIGHT + LANE_GAP;
      }
      return { width, height: y, lanes, top: 0 };
    }

    // The index of the first span in `s` (sorted, not overlapping) that ends
    // after t, from index `from` on.
    function firstEndingAfter(s, t, from) {
      let lo = from || 0;
      let hi = s.end.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (s.end[mid] <= t) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    }

    function timeToX(t) {
      return ((t - timeRange.start) * timeLayout.width) / (timeRange.end - timeRange.start);
    }
    function xToTime(x) {
      return timeRange.start + (x * (timeRange.end - timeRange.start)) / timeLayout.width;
    }

    // Ticks 1, 2 or 5 times a power of ten apart, about 100 px.
    function timeTicks() {
      const range = timeRange.end - timeRange.start;
      const rough = (range * 100) / Math.max(1, timeLayout.width);
      const power = Math.pow(10, Math.floor(Math.log10(rough)));
      const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) || 10 * power;
      const ticks = [];
      for (let t = Math.ceil(timeRange.start / step) * step; t <= timeRange.end; t += step) ticks.push(t);
      return { ticks, step };
    }

    function drawTime() {
      if (!timeline) return;
      const start = performance.now();
      ensureSpans();
      timeLayout = computeTimeLayout(Math.max(1, timeChart.clientWidth || window.innerWidth - 24));
      const width = timeLayout.width;
      timeChart.style.height = timeLayout.height + 'px';
      const height = Math.max(AXIS_HEIGHT, Math.min(timeLayout.height, timeScroll.clientHeight || window.innerHeight));
      const c = prepareCanvas(lanesCanvas, lanesContext, width, height);
      const top = Math.max(0, lanesCanvas.getBoundingClientRect().top - timeChart.getBoundingClientRect().top);
      timeLayout.top = top;
      timeLabels = [];
      let drawnSpans = 0;
      let mergedBlocks = 0;
      // The axis, and its lines down the lanes.
      const { ticks, step } = timeTicks();
      c.fillStyle = '#66665f';
      c.strokeStyle = '#c9c9bf';
      c.lineWidth = 1;
      for (const t of ticks) {
        const x = Math.round(timeToX(t)) + 0.5;
        c.beginPath();
        c.moveTo(x, AXIS_HEIGHT - 6);
        c.lineTo(x, height);
        c.stroke();
        c.fillText(formatTime(t, step), x + 3, AXIS_HEIGHT / 2 - 1);
      }
      // The lanes in view, under the axis.
      c.save();
      c.beginPath();
      c.rect(0, AXIS_HEIGHT, width, height - AXIS_HEIGHT);
      c.clip();
      for (const placed of timeLayout.lanes) {
        const lane = placed.lane;
        const laneBottom = placed.rowsTop + lane.rows * ROW_HEIGHT;
        if (laneBottom <= top + AXIS_HEIGHT || placed.top >= top + height) continue;
        c.fillStyle = '#c9c9bf';
        c.fillRect(0, placed.top - top, width, 1);  // the lane's top edge
        c.fillStyle = '#1d1d1b';
        c.font = LANE_FONT;
        const head = lane.name + '  \u2014 ' + count(laneSamples(lane)) + ' samples';
        c.fillText(fitLabel(c, head, width - 8) || lane.name, 2, placed.top - top + LANE_HEAD / 2);
        c.font = LABEL_FONT;
        let font = LABEL_FONT;
        for (let r = 0; r < lane.rows; r++) {
          const s = lane.spans[lane.top + r];
          const y = placed.rowsTop + r * ROW_HEIGHT - top;
          if (!s || y + ROW_HEIGHT <= AXIS_HEIGHT || y >= height) continue;
          let pendX = 0;
          let pendW = 0;
          let pending = false;
          const flush = () => {
            if (pending && pendW >= MERGED_MIN_WIDTH) {
              c.fillStyle = COLOR_MERGED;
              c.fillRect(pendX, y, pendW, ROW_HEIGHT - 1);
              mergedBlocks++;
            }
            pending = false;
          };
          for (let k = firstEndingAfter(s, timeRange.start); k < s.start.length && s.start[k] < timeRange.end; k++) {
            const x0 = Math.max(0, timeToX(s.start[k]));
            const x1 = Math.min(width, timeToX(s.end[k]));
            const w = x1 - x0;
            if (w < MIN_WIDTH) {
              // The spans that end within MIN_WIDTH of this one are as narrow:
              // one grey block with it, skipped at once (a row costs at most
              // twice its width in pixels, however many spans it has).
              const last = Math.max(k, firstEndingAfter(s, xToTime(x1 + MIN_WIDTH), k + 1) - 1);
              const xe = Math.min(width, timeToX(s.end[last]));
              if (pending && x0 - (pendX + pendW) <= 1) {
                pendW = xe - pendX;
              } else {
                flush();
                pending = true;
                pendX = x0;
                pendW = xe - x0;
              }
              k = last;
              continue;
            }
            flush();
            const f = mainTree.frame[s.node[k]];
            const boxWidth = w >= 3 ? w - 1 : w;
            c.fillStyle = matchFrame && matchFrame[f] ? COLOR_MATCH : colorOfFrame(f);
            c.fillRect(x0, y, boxWidth, ROW_HEIGHT - 1);
            drawnSpans++;
            if (frameFlags[f] & FLAG_GUESS) {
              c.fillStyle = lanesHatch;
              c.fillRect(x0, y, boxWidth, ROW_HEIGHT - 1);
            }
            if (w < 3 * charWidth + LABEL_PAD) continue;
            const wanted = (frameFlags[f] & FLAG_INLINE) ? INLINE_FONT : LABEL_FONT;
            if (wanted !== font) {
              font = wanted;
              c.font = font;
            }
            const text = fitLabel(c, functionLabel(f), w - LABEL_PAD - 2);
            if (!text) continue;
            c.fillStyle = '#000';
            c.fillText(text, x0 + LABEL_PAD, y + ROW_HEIGHT / 2);
            timeLabels.push(text);
          }
          flush();
        }
      }
      c.restore();
      timeLayout.drawnSpans = drawnSpans;
      timeLayout.mergedBlocks = mergedBlocks;
      $('time-range').textContent = formatTime(timeRange.start) + ' \u2013 ' + formatTime(timeRange.end) + ' (' +
          formatTime(timeRange.end - timeRange.start) + ' of ' + formatTime(timeline.end) + ')';
      timing.timeDrawMs = performance.now() - start;
      placeTimeHoverBox();
    }

    function laneSamples(lane) {
      let sum = 0;
      for (let j = 0; j < lane.samples.length; j++) sum += lane.samples[j];
      return sum;
    }

    // { lane, depth, span, narrow } under a client point, or null.
    function timeHit(clientX, clientY) {
      if (!timeLayout) return null;
      const box = lanesCanvas.getBoundingClientRect();
      if (box.width <= 0) return null;
      const x = (clientX - box.left) * (timeLayout.width / box.width);
      if (x < 0 || x >= timeLayout.width || clientY < box.top + AXIS_HEIGHT || clientY >= box.bottom) return null;
      const y = clientY - timeChart.getBoundingClientRect().top;
      for (const placed of timeLayout.lanes) {
        const row = Math.floor((y - placed.rowsTop) / ROW_HEIGHT);
        if (y < placed.rowsTop || row >= placed.lane.rows) continue;
        const depth = placed.lane.top + row;
        const s = placed.lane.spans[depth];
        if (!s) return null;
        const t = xToTime(x);
        const k = firstEndingAfter(s, t);
        if (k >= s.start.length || s.start[k] > t) return null;
        const narrow = timeToX(Math.min(s.end[k], timeRange.end)) - timeToX(Math.max(s.start[k], timeRange.start)) < MIN_WIDTH;
        return { placed, lane: placed.lane, depth, row, span: k, narrow };
      }
      return null;
    }

    function spanOf(hit) {
      const s = hit.lane.spans[hit.depth];
      return { start: s.start[hit.span], end: s.end[hit.span], node: s.node[hit.span], samples: s.samples[hit.span] };
    }

    // The frames of a node's stack from the lane's top, innermost first.
    function stackLines(node, top) {
      const lines = [];
      const t = mainTree;
      for (let a = node; a > 0 && t.depth[a] >= top; a = t.parent[a]) lines.push(a);
      return lines;
    }

    function describeTime(hit) {
      if (hit.narrow) {
        return [
          { text: 'Frames too narrow to draw', cls: 'name' },
          { text: 'Zoom in: drag across a time range, or Ctrl+wheel, or +.', cls: 'note' },
        ];
      }
      const span = spanOf(hit);
      const f = mainTree.frame[span.node];
      const lines = [{ text: frameName[f], cls: 'name' }];
      lines.push({ text: 'Thread: ' + hit.lane.name });
      lines.push({
        text: formatTime(span.start) + ' \u2013 ' + formatTime(span.end) + ' (' + formatTime(span.end - span.start) + ')',
      });
      lines.push({ text: count(span.samples) + ' samples' });
      frameWhereLines(f, lines);
      frameNoteLines(f, lines);
      const stack = stackLines(span.node, hit.lane.top);
      lines.push({ text: 'Stack:', cls: 'note' });
      for (let k = 0; k < stack.length && k < STACK_LINES; k++) {
        lines.push({ text: '  ' + functionLabel(mainTree.frame[stack[k]]), cls: 'name' });
      }
      if (stack.length > STACK_LINES) lines.push({ text: '  \u2026 ' + (stack.length - STACK_LINES) + ' more', cls: 'note' });
      return lines;
    }

    function placeTimeHoverBox() {
      if (!timeHovered || !timeLayout || timeHovered.narrow) {
        lanesHoverBox.hidden = true;
        return;
      }
      const span = spanOf(timeHovered);
      const scale = lanesCanvas.getBoundingClientRect().width / timeLayout.width || 1;
      const x0 = Math.max(0, timeToX(span.start));
      const x1 = Math.min(timeLayout.width, timeToX(span.end));
      lanesHoverBox.style.left = x0 * scale + 'px';
      lanesHoverBox.style.top = timeHovered.placed.rowsTop + timeHovered.row * ROW_HEIGHT + 'px';
      lanesHoverBox.style.width = Math.max(2, (x1 - x0) * scale) + 'px';
      lanesHoverBox.style.height = ROW_HEIGHT + 'px';
      lanesHoverBox.hidden = false;
    }

    // Shows [start, end) µs, kept inside the recording and at least MIN_TIME_RANGE wide.
    function setTimeRange(start, end) {
      if (!timeline) return;
      const all = Math.max(timeline.end, MIN_TIME_RANGE);
      let width = Math.min(all, Math.max(MIN_TIME_RANGE, end - start));
      let from = Math.max(0, Math.min(start, all - width));
      if (!(width > 0)) width = all;
      if (!(from >= 0)) from = 0;
      timeRange = { start: from, end: from + width };
      timeHovered = null;
      drawTime();
      updateResetButton();
      showStatus();
    }

    function zoomTime(factor, at) {
      const center = at === undefined ? (timeRange.start + timeRange.end) / 2 : at;
      setTimeRange(center - (center - timeRange.start) * factor, center + (timeRange.end - center) * factor);
    }

    function panTime(fraction) {
      const shift = (timeRange.end - timeRange.start) * fraction;
      setTimeRange(timeRange.start + shift, timeRange.end + shift);
    }

    function timeZoomed() {
      return !!timeline && (timeRange.start > 0 || timeRange.end < Math.max(timeline.end, MIN_TIME_RANGE));
    }

    function timeStatusText() {
      if (!timeline) return 'No time order: the page was made from a profile without one (a JSON profile or folded stacks).';
      let text = count(timeline.lanes.length) + (timeline.lanes.length === 1 ? ' thread, ' : ' threads, ') +
          count(timeline.samples) + ' samples in ' + count(timeline.blocks) + ' blocks. ' +
          'Drag across a time range to zoom into it; Ctrl+wheel zooms, Shift+wheel moves; click a frame for its details.';
      if (timeline.lanes.some((lane) => lane.deeper)) text += ' Frames deeper than ' + LANE_MAX_ROWS + ' levels are not drawn.';
      return text;
    }

    function timeNoteText() {
      if (!timeline) return 'This page has no time order: make it from a recording (swprof flamegraph RECORDING).';
      if (!timeline.cut) return '';
      return 'Only the first ' + formatTime(timeline.cut.at) + ' are shown (' + count(timeline.blocks) + ' of ' +
          count(timeline.cut.blocks) + ' blocks, the most a page holds): swprof flamegraph --from and --to show a later part.';
    }

    // Dragging across the lanes zooms into that time range; a click without
    // a drag shows the frame's details.
    let drag = null;
    let dragged = false;  // the click that ends a drag is no click on a frame
    lanesCanvas.addEventListener('mousedown', (ev) => {
      if (ev.button !== 0 || !timeLayout) return;
      const box = lanesCanvas.getBoundingClientRect();
      drag = { x: ev.clientX, left: box.left, scale: timeLayout.width / box.width, moved: false };
      dragged = false;
      ev.preventDefault();
      lanesCanvas.focus();
    });
    window.addEventListener('mousemove', (ev) => {
      if (!drag) return;
      if (Math.abs(ev.clientX - drag.x) > 3) drag.moved = true;
      if (!drag.moved) return;
      const a = Math.min(drag.x, ev.clientX) - drag.left;
      const b = Math.max(drag.x, ev.clientX) - drag.left;
      timeSelection.style.left = Math.max(0, a) + 'px';
      timeSelection.style.width = Math.max(0, b - Math.max(0, a)) + 'px';
      timeSelection.hidden = false;
    });
    window.addEventListener('mouseup', (ev) => {
      if (!drag) return;
      const d = drag;
      drag = null;
      timeSelection.hidden = true;
      if (!d.moved) return;
      dragged = true;
      const a = (Math.min(d.x, ev.clientX) - d.left) * d.scale;
      const b = (Math.max(d.x, ev.clientX) - d.left) * d.scale;
      setTimeRange(xToTime(Math.max(0, a)), xToTime(Math.min(timeLayout.width, b)));
    });
    lanesCanvas.addEventListener('click', (ev) => {
      if (dragged) {
        dragged = false;
        return;
      }
      const hit = timeHit(ev.clientX, ev.clientY);
      if (!hit || hit.narrow) return;
      const span = spanOf(hit);
      showNodeDetails(mainTree, span.node, 'time', { lane: hit.lane.name, start: span.start, end: span.end, samples: span.samples });
    });
    lanesCanvas.addEventListener('mousemove', (ev) => {
      if (drag && drag.moved) return;
      const hit = timeHit(ev.clientX, ev.clientY);
      if (!hit) {
        hideHover();
        timeHovered = null;
        lanesHoverBox.hidden = true;
        return;
      }
      timeHovered = hit;
      placeTimeHoverBox();
      showTooltip(describeTime(hit), ev.clientX, ev.clientY);
      if (!hit.narrow) {
        const span = spanOf(hit);
        details.textContent = hit.lane.name + ': ' + frameName[mainTree.frame[span.node]] + ' \u2014 ' +
            formatTime(span.start) + ' to ' + formatTime(span.end);
      }
    });
    lanesCanvas.addEventListener('mouseleave', () => {
      timeHovered = null;
      lanesHoverBox.hidden = true;
      hideHover();
    });
    lanesCanvas.addEventListener('wheel', (ev) => {
      if (!timeLayout) return;
      const box = lanesCanvas.getBoundingClientRect();
      if (ev.ctrlKey || ev.metaKey) {
        ev.preventDefault();
        const at = xToTime((ev.clientX - box.left) * (timeLayout.width / box.width));
        zoomTime(Math.exp(Math.max(-1, Math.min(1, ev.deltaY * 0.002))), at);
      } else if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        ev.preventDefault();
        const delta = ev.shiftKey && !ev.deltaX ? ev.deltaY : ev.deltaX;
        panTime(delta / Math.max(1, box.width));
      }
    }, { passive: false });
    lanesCanvas.addEventListener('keydown', (ev) => {
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      if (ev.key === '+' || ev.key === '=') zoomTime(0.5);
      else if (ev.key === '-' || ev.key === '_') zoomTime(2);
      else if (ev.key === 'ArrowLeft') panTime(-0.2);
      else if (ev.key === 'ArrowRight') panTime(0.2);
      else if (ev.key === '0' || ev.key === 'Home') setTimeRange(0, timeline.end);
      else return;
      ev.preventDefault();
    });
    $('time-zoom-in').addEventListener('click', () => zoomTime(0.5));
    $('time-zoom-out').addEventListener('click', () => zoomTime(2));

    // ---- details panel -------------------------------------------------------------

    // What the panel shows: a node of a tree (the page's, or a sandwich
    // tree's) in a view, and for the time order the span's time.
    let detailsNow = null;

    function showNodeDetails(tree, node, where, span) {
      const f = tree.frame[node];
      const g = funcOf[f];
      detailsNow = { name: frameName[f], func: g, where };
      const panel = document.createDocumentFragment();
      const line = (text, cls) => {
        const div = document.createElement('div');
        div.className = 'line' + (cls ? ' ' + cls : '');
        div.textContent = text;
        panel.appendChild(div);
        return div;
      };
      const head = document.createElement('div');
      head.className = 'head';
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = functionLabel(f);
      head.appendChild(name);
      const close = document.createElement('button');
      close.type = 'button';
      close.id = 'details-close';
      close.title = 'Close the details';
      close.textContent = 'Close';
      close.addEventListener('click', hideDetails);
      head.appendChild(close);
      panel.appendChild(head);

      const place = [];
      frameWhereLines(f, place);
      for (const l of place) line(l.text);
      if (f === 0) {
        line(capitalized(unit) + ': ' + count(allTotal) + ' in total');
      } else if (span) {
        line('Thread: ' + span.lane);
        line('Time: ' + formatTime(span.start) + ' \u2013 ' + formatTime(span.end) + ' (' + formatTime(span.end - span.start) +
            '), ' + count(span.samples) + ' samples');
      } else {
        const label = where === 'flame' ? 'This call path' : node === 0 ? 'Every place it runs' :
            where === 'callers' ? 'This path of callers' : 'This path of callees';
        line(label + ': ' + count(tree.total[node]) + ' ' + unit + ' (' + percent(tree.total[node], allTotal) + ' of all), self ' +
            count(tree.self[node]) + ' (' + percent(tree.self[node], allTotal) + ')');
      }
      if (g >= 0) {
        const stats = functionStats();
        line('Function, every place it runs' + (funcHasInlined(g) ? ' (its inlined copies too)' : '') + ': self ' +
            count(stats.self[g]) + ' ' + unit + ' (' + percent(stats.self[g], allTotal) + '), total ' + count(stats.total[g]) +
            ' (' + percent(stats.total[g], allTotal) + ')');
      }
      const notes = [];
      frameNoteLines(f, notes);
      for (const l of notes) line(l.text, 'note');

      if (g >= 0) {
        const actions = document.createElement('div');
        actions.className = 'actions';
        const button = document.createElement('button');
        button.type = 'button';
        button.id = 'details-sandwich';
        button.textContent = 'Callers and callees';
        button.title = 'The sandwich of this function: its callers above, its callees below';
        button.addEventListener('click', () => selectFunction(g));
        actions.appendChild(button);
        panel.appendChild(actions);
        panel.appendChild(sourceLinesSection(g));
      }
      detailsPanel.replaceChildren(panel);
      detailsPanel.hidden = false;
    }

    function funcHasInlined(g) {
      const f = funcFrame[g];
      return f + 1 < frameCount && funcOf[f + 1] === g;
    }

    // "Source lines": the function's lines with their share of its samples
    // (data.sourceLines), or a note that the page has none.
    function sourceLinesSection(g) {
      const section = document.createElement('div');
      section.id = 'source-lines';
      const title = document.createElement('h2');
      title.textContent = 'Source lines';
      section.appendChild(title);
      const rows = sourceLinesOf(g);
      if (!rows.length) {
        const note = document.createElement('div');
        note.className = 'note';
        note.textContent = 'This page has no samples per source line.';
        section.appendChild(note);
        return section;
      }
      const table = document.createElement('table');
      for (const r of rows) {
        const tr = document.createElement('tr');
        for (const text of [r.file + ':' + r.line, count(r.samples), r.share.toFixed(1) + '%']) {
          const td = document.createElement('td');
          td.textContent = text;
          tr.appendChild(td);
        }
        table.appendChild(tr);
      }
      section.appendChild(table);
      return section;
    }

    function hideDetails() {
      detailsNow = null;
      detailsPanel.hidden = true;
      detailsPanel.replaceChildren();
    }

    // ---- views -----------------------------------------------------------------------

    function showView(name) {
      if (!views[name] || tabs[name].disabled) return false;
      view = name;
      for (const key of Object.keys(views)) {
        const on = key === name;
        views[key].hidden = !on;
        tabs[key].setAttribute('aria-selected', on ? 'true' : 'false');
        tabs[key].tabIndex = on ? 0 : -1;
      }
      icicleBox.disabled = name !== 'flame';
      tooltip.hidden = true;
      redrawView();
      updateResetButton();
      showStatus();
      return true;
    }

    // Lays out and draws what the current view shows (after a resize, a
    // search or a switch of views).
    function redrawView() {
      if (view === 'flame') {
        flame.refresh();
      } else if (view === 'sandwich') {
        if (listDirty) renderFunctionList();
        callersChart.refresh();
        calleesChart.refresh();
      } else if (view === 'time') {
        $('time-note').textContent = timeNoteText();
        drawTime();
      }
    }

    function updateResetButton() {
      if (view === 'flame') resetButton.disabled = flame.zoom === 0;
      else if (view === 'sandwich') resetButton.disabled = callersChart.zoom === 0 && calleesChart.zoom === 0;
      else resetButton.disabled = !timeZoomed();
    }

    function resetView() {
      if (view === 'flame') {
        zoomChart(flame, 0);
      } else if (view === 'sandwich') {
        if (callersChart.tree) zoomChart(callersChart, 0);
        if (calleesChart.tree) zoomChart(calleesChart, 0);
      } else if (timeline) {
        setTimeRange(0, timeline.end);
      }
    }

    function setIcicle(on) {
      icicle = !!on;
      icicleBox.checked = icicle;
      hideHover();
      flame.draw();
      flame.reveal(flame.zoom);
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
      if (differential) {
        item('rgb(236,50,50)', 'more ' + unit + ' than the base profile');
        item('rgb(50,106,236)', 'fewer than the base profile');
        item('rgb(226,226,222)', 'unchanged');
      } else if (offCpu) {
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
        item(differential ? 'rgb(226,226,222)' : 'hsl(212,62%,80%)',
            differential ? 'inlined (italic name)' : 'inlined (lighter, italic name)', 'inline').textContent = 'f';
      }
      if (anyGuess) {
        item('repeating-linear-gradient(135deg, rgba(0,0,0,0.38) 0 1px, transparent 1px 4px), hsl(46,62%,66%)',
            'guessed by stack scanning (hatched, name ends in ?)');
      }
      item(COLOR_MERGED, 'frames too narrow to draw');
      item(COLOR_MATCH, 'search match');
    }

    // ---- events -----------------------------------------------------------------

    wireChart(flame, 'flame');
    wireChart(callersChart, 'callers');
    wireChart(calleesChart, 'callees');
    resetButton.addEventListener('click', resetView);
    icicleBox.addEventListener('change', () => setIcicle(icicleBox.checked));
    searchInput.addEventListener('input', runSearch);
    regexBox.addEventListener('change', runSearch);
    caseBox.addEventListener('change', runSearch);
    $('search-clear').addEventListener('click', clearSearch);
    const tabOrder = ['flame', 'sandwich', 'time'];
    for (const name of tabOrder) {
      tabs[name].addEventListener('click', () => showView(name));
      tabs[name].addEventListener('keydown', (ev) => {
        if (ev.key !== 'ArrowLeft' && ev.key !== 'ArrowRight') return;
        const enabled = tabOrder.filter((n) => !tabs[n].disabled);
        const at = enabled.indexOf(name);
        const next = enabled[(at + (ev.key === 'ArrowRight' ? 1 : enabled.length - 1)) % enabled.length];
        ev.preventDefault();
        showView(next);
        tabs[next].focus();
      });
    }
    document.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') {
        const zoomed = !resetButton.disabled;
        if (document.activeElement === searchInput && searchInput.value) clearSearch();
        else if (zoomed) resetView();
        else if (!detailsPanel.hidden) hideDetails();
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
        redrawView();
      });
    });

    // ---- start ------------------------------------------------------------------

    icicleBox.checked = icicle;
    $('callers-title').textContent = '\u25b2 Callers: pick a function from the list';
    $('callees-title').textContent = '\u25bc Callees';
    if (!timeline) {
      tabs.time.disabled = true;
      tabs.time.title = 'Each thread\'s samples in time order: only in a page made from a recording';
    }
    const legendStart = performance.now();
    buildLegend();
    timing.legendMs = performance.now() - legendStart;
    flame.setTree(mainTree);
    showStatus();
    flame.reveal(0);  // the root: at the bottom of a tall flame graph
    timing.initMs = performance.now() - initStart;

    // ---- API for tests and scripting -------------------------------------------

    // A tree as drawn: per node in pre-order, the frame names from its root
    // joined by ';', its total and self.
    function dumpTree(tree) {
      if (!tree) return null;
      const out = [];
      const names = [];
      for (let i = 0; i < tree.count; i++) {
        names.length = tree.depth[i];
        names.push(frameName[tree.frame[i]]);
        out.push({ path: names.join(';'), total: tree.total[i], self: tree.self[i] });
      }
      return out;
    }

    function paneChart(pane) {
      if (pane === 'callers') return callersChart;
      if (pane === 'callees') return calleesChart;
      return flame;
    }

    // The node of a chart's tree at a path of names from its root ('a;b;c'), or -1.
    function nodeAtPath(tree, path) {
      const names = path.split(';');
      let at = 0;
      if (frameName[tree.frame[0]] !== names[0]) return -1;
      for (let k = 1; k < names.length; k++) {
        let next = -1;
        for (let i = at + 1; i < tree.subtreeEnd[at]; i = tree.subtreeEnd[i]) {
          if (frameName[tree.frame[i]] === names[k]) next = i;
        }
        if (next < 0) return -1;
        at = next;
      }
      return at;
    }

    function blockInfo(lane, j) {
      const stack = [];
      for (let a = lane.node[j]; a > 0; a = mainTree.parent[a]) stack.push(frameName[mainTree.frame[a]]);
      stack.reverse();
      return { start: lane.start[j], end: lane.end[j], samples: lane.samples[j], leaf: stack[stack.length - 1], stack };
    }

    window.swprofFlame = Object.freeze({
      state() {
        const layout = flame.layout;
        return {
          view,
          zoom: flame.zoom,
          zoomName: frameName[mainTree.frame[flame.zoom]],
          icicle,
          width: layout.width,
          rows: layout.rows.length,
          rects: layout.rects,
          mergedBlocks: layout.mergedBlocks,
          truncated: layout.truncated,
          nodes: mainTree.count,
          frames: frameCount,
          functions: funcCount,
          total: allTotal,
          differential,
          offCpu,
          reversed,
          timeOrder: !!timeline,
          search: {
            query: searchInput.value,
            regex: regexBox.checked,
            matchCase: caseBox.checked,
            active: !!matchFrame,
            matchedSamples: matched.samples,
            matchedPercent: allTotal > 0 ? (100 * matched.samples) / allTotal : 0,
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
      zoomTo(node) {
        if (node >= 0 && node < mainTree.count) zoomChart(flame, node);
      },
      reset() {
        zoomChart(flame, 0);
      },
      setIcicle,
      // The node drawn for a function name with the most samples, or -1.
      findNode(name) {
        let best = -1;
        for (let i = 1; i < mainTree.count; i++) {
          if (frameName[mainTree.frame[i]] === name && (best < 0 || mainTree.total[i] > mainTree.total[best])) best = i;
        }
        return best;
      },
      nodeInfo(node) {
        const t = mainTree;
        const f = t.frame[node];
        return {
          name: frameName[f], module: modules[frameModule[f]], file: files[frameFile[f]], line: frameLine[f],
          flags: frameFlags[f], total: t.total[node], self: t.self[node], depth: t.depth[node],
          parent: t.parent[node], base: t.base ? t.base[node] : null, color: nodeColor(t, node),
          off: t.off ? t.off[node] : null,
        };
      },
      // Client rectangle where a node is drawn, or null when it is not drawn.
      nodeRect(node) {
        return flame.nodeRect(node);
      },
      hitTest(clientX, clientY) {
        const hit = flame.hitTest(clientX, clientY);
        return hit ? flame.nodeAt(hit) : null;
      },
      tooltip() {
        return { visible: !tooltip.hidden, lines: Array.from(tooltip.children, (c) => c.textContent) };
      },
      labels(pane) {
        return pane === 'time' ? timeLabels.slice() : paneChart(pane).drawnLabels.slice();
      },
      // Lays out and draws `times` times at the current zoom; mean ms of each.
      benchmark(times) {
        let layoutMs = 0;
        let drawMs = 0;
        for (let k = 0; k < times; k++) {
          flame.layout = flame.computeLayout(flame.width());
          layoutMs += timing.layoutMs;
          flame.draw();
          drawMs += timing.drawMs;
        }
        return { layoutMs: layoutMs / times, drawMs: drawMs / times };
      },

      // Views: 'flame', 'sandwich', 'time'. False when the view is not there.
      showView,
      // The functions the list holds, in its order (all, not only those shown).
      functions() {
        if (listDirty) renderFunctionList();
        const stats = functionStats();
        return listRows.map((g) => ({
          name: frameName[funcFrame[g]], module: modules[frameModule[funcFrame[g]]], self: stats.self[g], total: stats.total[g],
        }));
      },
      // The sandwich of the function with this name (or index); false when there is none.
      selectFunction(name) {
        return selectFunction(typeof name === 'number' ? name : functionOfName(String(name)));
      },
      sandwich() {
        return {
          name: sandwich.func >= 0 ? frameName[funcFrame[sandwich.func]] : null,
          callers: dumpTree(sandwich.callers),
          callees: dumpTree(sandwich.callees),
        };
      },
      // Client rectangle of the node at a path of names in a pane ('flame',
      // 'callers', 'callees'), or null when it is not drawn.
      paneRect(pane, path) {
        const chart = paneChart(pane);
        return chart.tree ? chart.nodeRect(nodeAtPath(chart.tree, path)) : null;
      },
      // Each lane's blocks (µs), the range shown and what was drawn.
      timeline() {
        if (!timeline) return null;
        ensureSpans();
        return {
          end: timeline.end,
          cut: timeline.cut,
          note: $('time-note').textContent,
          range: { start: timeRange.start, end: timeRange.end },
          drawnSpans: timeLayout ? timeLayout.drawnSpans : 0,
          lanes: timeline.lanes.map((lane) => ({
            name: lane.name, tid: lane.tid, top: lane.top, rows: lane.rows,
            blocks: Array.from(lane.node, (n, j) => blockInfo(lane, j)),
          })),
        };
      },
      setTimeRange,
      // Client rectangle of a lane's block at a row of the lane (its leaf's row
      // when not given), clipped to the range shown; null outside it.
      blockRect(laneIndex, block, row) {
        if (!timeLayout) return null;
        const placed = timeLayout.lanes.find((p) => p.lane === timeline.lanes[laneIndex]);
        if (!placed) return null;
        const lane = placed.lane;
        const box = lanesCanvas.getBoundingClientRect();
        const scale = box.width / timeLayout.width || 1;
        const x0 = Math.max(0, timeToX(lane.start[block]));
        const x1 = Math.min(timeLayout.width, timeToX(lane.end[block]));
        if (x1 <= x0) return null;  // outside the time range shown
        const r = row === undefined ? mainTree.depth[lane.node[block]] - lane.top : row;
        const y = timeChart.getBoundingClientRect().top + placed.rowsTop + r * ROW_HEIGHT;
        return { x: box.left + x0 * scale, y, width: (x1 - x0) * scale, height: ROW_HEIGHT - 1 };
      },
      details() {
        return {
          visible: !detailsPanel.hidden,
          name: detailsNow ? detailsNow.name : null,
          lines: Array.from(detailsPanel.querySelectorAll('.line'), (e) => e.textContent),
          sourceLines: Array.from(detailsPanel.querySelectorAll('#source-lines tr'),
              (tr) => Array.from(tr.children, (td) => td.textContent)),
          sourceNote: (detailsPanel.querySelector('#source-lines .note') || {}).textContent || null,
        };
      },
    });
  }
})();
