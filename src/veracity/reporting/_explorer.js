/* veracity threshold explorer: counts at cut points -> live confusion table. No network, no rows. */
(function () {
  "use strict";
  var source = document.getElementById("vc-explorer-data");
  var root = document.getElementById("explorer");
  if (!source || !root) { return; }
  var D = JSON.parse(source.textContent);
  var T = D.thresholds, TP = D.tp, FP = D.fp, P = D.positives, N = D.negatives;
  var M = T.length, TOTAL = P + N;
  var $ = function (id) { return document.getElementById(id); };
  var slider = $("ex-slider"), tinput = $("ex-tinput"), cfpIn = $("ex-cfp"), cfnIn = $("ex-cfn");
  var state = { t: (D.t_start === undefined || D.t_start === null) ? D.t_star : D.t_start, cfp: D.cost_fp, cfn: D.cost_fn };

  slider.min = "0"; slider.max = "1"; slider.step = "0.001";

  // first cut point >= t (rows with score >= t are flagged; counts there equal counts at t)
  function lowerBound(t) {
    var lo = 0, hi = M;
    while (lo < hi) { var mid = (lo + hi) >>> 1; if (T[mid] < t) { lo = mid + 1; } else { hi = mid; } }
    return lo;
  }
  function group(s) { return s.replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  // a count or cost beyond the fixed-point range in three digits: 5.20e301, 5.20e\u2011299 (a hyphen that
  // does not break the line)
  function sci(x) { return x.toPrecision(3).replace("e+", "e").replace("e-", "e\u2011"); }
  function fmtCount(x) {
    if (!isFinite(x)) { return "n/a"; }
    if (!D.weighted) { return group(String(Math.round(x))); }
    // toFixed writes 1e21 and up as "1e+21" (and fmtCount split it at a "." it lacks), and a weight of 1e-300
    // as "0.0": three digits there, no "+"
    if (Math.abs(x) >= 1e15 || (x !== 0 && Math.abs(x) < 0.05)) { return sci(x); }
    var parts = x.toFixed(1).split(".");
    return group(parts[0]) + "." + parts[1];
  }
  function fmtRate(x) { return (x === null || !isFinite(x)) ? "n/a" : x.toFixed(4); }
  function fmtMoney(x, digits) {
    if (!isFinite(x)) { return "n/a"; }
    if (x !== 0 && (Math.abs(x) >= 1e15 || Math.abs(x) < 0.005)) { return sci(x); }
    var parts = x.toFixed(digits).split(".");
    return group(parts[0]) + (parts.length > 1 ? "." + parts[1] : "");
  }
  function show(id, value, text) {
    var el = $(id);
    el.textContent = text;
    el.setAttribute("data-value", (value === null || !isFinite(value)) ? "" : String(value));
  }
  function costAt(i, cfp, cfn) {
    var tp = i < M ? TP[i] : 0, fp = i < M ? FP[i] : 0;
    return cfp * fp + cfn * (P - tp);
  }
  function bestIndex() {
    // costs closer than rounding (relative to the costs' own scale, flagging none or all: weights of 1e-300
    // give costs of 1e-298, all within an absolute 1e-12) tie, and the first of them is kept
    var best = 0, bestCost = Infinity;
    var scale = Math.abs(state.cfp) * Math.abs(N) + Math.abs(state.cfn) * Math.abs(P);
    for (var i = 0; i < M; i++) {
      var c = costAt(i, state.cfp, state.cfn);
      if (i === 0 || c < bestCost - 1e-12 * Math.max(scale, Math.abs(bestCost))) { bestCost = c; best = i; }
    }
    return best;
  }
  function tStar() {
    var s = state.cfp + state.cfn;
    return s > 0 ? state.cfp / s : NaN;
  }

  // ---- chart (SVG, x linear in t) ----
  var SVGNS = "http://www.w3.org/2000/svg";
  var chart = $("ex-chart");
  var W = 560, H = 300, L = 46, R = 14, TOP = 14, B = 36;
  function sx(t) { return L + t * (W - L - R); }
  function sy(v) { return TOP + (1 - v) * (H - TOP - B); }
  function el(name, attrs, parent) {
    var node = document.createElementNS(SVGNS, name);
    for (var k in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, k)) { node.setAttribute(k, attrs[k]); } }
    (parent || chart).appendChild(node);
    return node;
  }
  // The value at cut point T[i] holds on (T[i-1], T[i]]: a threshold t between two cut points flags
  // what the next cut point >= t flags (lowerBound), so each step rises or falls just after T[i-1]
  // (a "steps-pre" line; holding T[i-1]'s value up to T[i] drew the counts of the wrong side).
  function stepPath(values) {
    var d = "", started = false;
    for (var i = 0; i < M; i++) {
      var v = values(i);
      if (v === null || !isFinite(v)) { started = false; continue; }
      var x = sx(T[i]).toFixed(1), y = sy(v).toFixed(1);
      if (!started) { d += "M" + (i > 0 ? sx(T[i - 1]).toFixed(1) : x) + " " + y + "H" + x; started = true; }
      else { d += "V" + y + "H" + x; }
    }
    return d;
  }
  var COLORS = { recall: "#1f5fa8", precision: "#009e73", far: "#d55e00", cost: "#6b7686",
                 star: "#1f2933", recallT: "#cc79a7", best: "#0a7a4f", now: "#1f5fa8" };
  var costPath, lines = {};
  var marks = [], TICK = 8, ROW = 17, GAP = 6, PAD = 2, MERGE = 8, laidWidth = -1;  // see layoutMarks
  function drawChart() {
    while (chart.firstChild) { chart.removeChild(chart.firstChild); }
    var axis = el("g", { "font-size": "11", fill: "#6b7686" });
    for (var k = 0; k <= 5; k++) {
      var v = k / 5;
      el("line", { x1: sx(0), x2: sx(1), y1: sy(v), y2: sy(v), stroke: "#e4e7eb" }, axis);
      el("line", { x1: sx(v), x2: sx(v), y1: sy(0), y2: sy(1), stroke: "#eef1f4" }, axis);
      var ty = el("text", { x: L - 6, y: sy(v) + 4, "text-anchor": "end" }, axis); ty.textContent = v.toFixed(1);
      var tx = el("text", { x: sx(v), y: H - B + 16, "text-anchor": "middle" }, axis); tx.textContent = v.toFixed(1);
    }
    var xl = el("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, axis);
    xl.textContent = "threshold t";
    el("path", { d: stepPath(function (i) { return P > 0 ? TP[i] / P : null; }), fill: "none", stroke: COLORS.recall, "stroke-width": 2 });
    el("path", { d: stepPath(function (i) { var a = TP[i] + FP[i]; return a > 0 ? TP[i] / a : null; }), fill: "none", stroke: COLORS.precision, "stroke-width": 2 });
    el("path", { d: stepPath(function (i) { return N > 0 ? FP[i] / N : null; }), fill: "none", stroke: COLORS.far, "stroke-width": 2 });
    costPath = el("path", { fill: "none", stroke: COLORS.cost, "stroke-width": 1.6, "stroke-dasharray": "5 3" });
    lines.star = el("line", { y1: sy(0), y2: sy(1), stroke: COLORS.star, "stroke-width": 1.6, "stroke-dasharray": "2 3" });
    lines.recallT = el("line", { y1: sy(0), y2: sy(1), stroke: COLORS.recallT, "stroke-width": 1.6, "stroke-dasharray": "7 3 2 3" });
    lines.best = el("line", { y1: sy(0), y2: sy(1), stroke: COLORS.best, "stroke-width": 1.2, "stroke-dasharray": "1 2" });
    lines.now = el("line", { y1: sy(0) + 4, y2: sy(1) - 4, stroke: COLORS.now, "stroke-width": 2.5, opacity: 0.9 });
    lines.nowDot = el("circle", { r: 4.5, fill: COLORS.now, stroke: "#fff", "stroke-width": 1.5 });
    var legend = $("ex-legend");
    legend.textContent = "";
    [["recall", COLORS.recall, false], ["precision", COLORS.precision, false], ["false-alarm rate", COLORS.far, false],
     ["cost (scaled to its maximum)", COLORS.cost, true], ["t*", COLORS.star, true],
     ["recall-target t", COLORS.recallT, true], ["lowest cost here", COLORS.best, true]]
    .filter(function (item) {  // no recall-target t (a note beside the explorer says why): no key for it;
      // no positives: no recall line (TP/P), no negatives: no false-alarm line (FP/N), so no key for them
      if (item[0] === "recall") { return P > 0; }
      if (item[0] === "false-alarm rate") { return N > 0; }
      return item[0] !== "recall-target t" || D.t_recall !== null;
    }).forEach(function (item) {
      var span = document.createElement("span");
      var sw = document.createElement("i");
      sw.style.background = item[1];
      if (item[2]) { sw.style.opacity = "0.7"; }
      span.appendChild(sw);
      span.appendChild(document.createTextNode(item[0]));
      legend.appendChild(span);
    });
  }
  function placeLine(line, t) {
    if (t === null || t === undefined || !isFinite(t)) { line.setAttribute("visibility", "hidden"); return; }
    line.setAttribute("visibility", "visible");
    line.setAttribute("x1", sx(t)); line.setAttribute("x2", sx(t));
  }
  function redrawCost() {
    var maxCost = 0;
    for (var i = 0; i < M; i++) { maxCost = Math.max(maxCost, costAt(i, state.cfp, state.cfn)); }
    costPath.setAttribute("d", stepPath(function (i) { return maxCost > 0 ? costAt(i, state.cfp, state.cfn) / maxCost : 0; }));
    var star = tStar(), best = T[bestIndex()];
    placeLine(lines.star, star);
    placeLine(lines.recallT, D.t_recall);
    placeLine(lines.best, best);
    marks = [["star", star, "t* = " + (isFinite(star) ? star.toFixed(3) : "")],
             ["recall", D.t_recall, D.recall_label || ""],
             ["best", best, "lowest cost here = " + best.toFixed(3)]]
      .filter(function (m) { return m[1] !== null && m[1] !== undefined && isFinite(m[1]); })
      .map(function (m) { return { kind: m[0], t: m[1], text: m[2] }; });
    var box = $("ex-marks");
    box.textContent = "";
    marks.forEach(function (m) {
      m.tick = document.createElement("i");
      m.tick.className = "tick " + m.kind;
      m.tick.setAttribute("aria-hidden", "true");
      m.label = document.createElement("span");
      m.label.className = "mark " + m.kind;
      m.label.textContent = m.text;
      box.appendChild(m.tick);
      box.appendChild(m.label);
    });
    layoutMarks();
  }

  // ---- the marks under the slider: a tick at each mark's t, its label in a row below ----
  // Each tick runs from the slider down to the top of its label's row, so it must pass no label of a
  // row above (the old fixed rows, 15 px apart, drew a tick through the label above whenever two marks
  // were close). Marks whose ticks lie within MERGE px share one block of stacked labels; for each block
  // every start row and alignment (centred on the tick, starting at it, ending at it) is tried and the
  // layout with the fewest rows (then most centred labels, then highest rows) that keeps labels apart,
  // inside the box, and off every tick is kept.
  // Ticks are 2 px wide: two marks under 2 px apart (t* on the lowest-cost threshold) drew one tick over
  // the other, one colour hiding the other. Such ticks are drawn 1 px wide, side by side: at the positions
  // x'_k nearest their thresholds' x_k (least squares) with x'_(k+1) - x'_k >= 1, i.e. x'_k = k + the
  // increasing fit of x_k - k (pool adjacent violators); a tick moves under 1 px (three marks at one
  // threshold: exactly 1 px), and its label says its threshold.
  function spreadTicks(sorted) {
    var blocks = [];  // runs pooled to one fitted value: [sum of (x_k - k), count]
    sorted.forEach(function (m, k) {
      blocks.push([m.x - k, 1]);
      while (blocks.length > 1) {
        var b = blocks[blocks.length - 1], a = blocks[blocks.length - 2];
        if (a[0] / a[1] <= b[0] / b[1]) { break; }
        a[0] += b[0]; a[1] += b[1]; blocks.pop();
      }
    });
    var k = 0;
    blocks.forEach(function (b) { for (var j = 0; j < b[1]; j++, k++) { sorted[k].tx = b[0] / b[1] + k; } });
    sorted.forEach(function (m, i) {  // 1 px wide where a neighbour is under 2 px away (1 px or more: fitted)
      var near = (i > 0 && m.tx - sorted[i - 1].tx < 2) ||
                 (i + 1 < sorted.length && sorted[i + 1].tx - m.tx < 2);
      m.tw = near ? 1 : 2;
    });
  }
  function placeTick(m, height) {
    m.tick.style.left = (m.tx - m.tw / 2).toFixed(2) + "px";
    m.tick.style.width = m.tw + "px";
    m.tick.style.height = height + "px";
  }
  function layoutMarks() {
    var box = $("ex-marks"), cw = box.getBoundingClientRect().width;
    laidWidth = cw;
    if (!marks.length || !(cw > 0)) { box.style.height = TICK + "px"; return; }
    // the range thumb travels from 8px to (width - 8px)
    marks.forEach(function (m) {
      m.label.style.whiteSpace = ""; m.label.style.maxWidth = "";
      m.x = 8 + (cw - 16) * m.t; m.w = m.label.getBoundingClientRect().width;
    });
    var sorted = marks.slice().sort(function (a, b) { return a.x - b.x; });
    spreadTicks(sorted);
    var units = [];
    sorted.forEach(function (m) {
      var last = units[units.length - 1];
      if (last && m.tx - last.x1 < MERGE) {
        last.marks.push(m); last.x1 = m.tx; last.w = Math.max(last.w, m.w);
      } else { units.push({ marks: [m], x0: m.tx, x1: m.tx, w: m.w }); }
    });
    var nLabels = marks.length, U = units.length, best = null;
    var choice = units.map(function () { return { row: 0, align: 0 }; });
    function extent(u, align) {  // 0: centred, 1: starting at the tick, 2: ending at it
      if (align === 1) { return [u.x0 - 1, u.x0 - 1 + u.w]; }
      if (align === 2) { return [u.x1 + 1 - u.w, u.x1 + 1]; }
      var c = (u.x0 + u.x1) / 2;
      return [c - u.w / 2, c + u.w / 2];
    }
    function valid() {
      for (var i = 0; i < U; i++) {
        var ei = extent(units[i], choice[i].align), ri = choice[i].row, ni = units[i].marks.length;
        if (ei[0] < 0 || ei[1] > cw) { return false; }
        for (var j = 0; j < U; j++) {
          if (j === i) { continue; }
          var ej = extent(units[j], choice[j].align), rj = choice[j].row, nj = units[j].marks.length;
          var rowsMeet = ri < rj + nj && rj < ri + ni;
          if (rowsMeet && ei[0] < ej[1] + GAP && ej[0] < ei[1] + GAP) { return false; }
          if (rj < ri) {  // j has labels above i's first row: i's ticks pass them
            for (var k = 0; k < ni; k++) {
              var m = units[i].marks[k];
              if (m.tx + m.tw / 2 + PAD > ej[0] && m.tx - m.tw / 2 - PAD < ej[1]) { return false; }
            }
          }
        }
      }
      return true;
    }
    function score() {
      var rows = 0, off = 0, depth = 0;
      choice.forEach(function (c, i) {
        rows = Math.max(rows, c.row + units[i].marks.length); off += c.align ? 1 : 0; depth += c.row;
      });
      return rows * 10000 + off * 100 + depth;
    }
    (function search(i) {
      if (i === U) {
        if (valid()) {
          var s = score();
          if (best === null || s < best.score) {
            best = { score: s, choice: choice.map(function (c) { return { row: c.row, align: c.align }; }) };
          }
        }
        return;
      }
      for (var row = 0; row + units[i].marks.length <= nLabels; row++) {
        for (var align = 0; align < 3; align++) {
          choice[i].row = row; choice[i].align = align; search(i + 1);
        }
      }
    })(0);
    if (!best) {
      // no layout fits (a label wider than the box, on a narrow screen): each block's labels on rows of
      // their own, wrapped, its ticks down to its first label (they stopped at the first row, short of the
      // labels below it). The outer blocks go first, each on the side of the box clear of the ticks of the
      // blocks still to come (the wider side), so that no tick passes a label of a row above its own.
      var rest = units.slice(), top = TICK;
      while (rest.length) {
        var at = 0, lo = 0, hi = cw, n = rest.length;
        if (n > 1) {
          var next = rest[1].marks[0], prev = rest[n - 2].marks[rest[n - 2].marks.length - 1];
          var leftEnd = next.tx - next.tw / 2 - PAD, rightStart = prev.tx + prev.tw / 2 + PAD;
          if (leftEnd >= cw - rightStart) { hi = leftEnd; } else { at = n - 1; lo = rightStart; }
        }
        var u = rest.splice(at, 1)[0], c = (u.x0 + u.x1) / 2;
        u.marks.forEach(function (m) { placeTick(m, top); });
        u.marks.forEach(function (m) {
          // measured at the range's left edge: a label left where the last layout put it wraps to the room
          // the box has right of that (a page narrowed from 1280 px to 320 px: one word a line)
          m.label.style.whiteSpace = "normal"; m.label.style.maxWidth = (hi - lo) + "px";
          m.label.style.left = lo.toFixed(2) + "px";
          var w = m.label.getBoundingClientRect().width;
          m.label.style.left = Math.max(lo, Math.min(c - w / 2, hi - w)).toFixed(2) + "px";
          m.label.style.top = top + "px";
          top += Math.ceil(m.label.getBoundingClientRect().height) + 1;
        });
      }
      box.style.height = (top + 4) + "px";
      return;
    }
    var rowsUsed = 0;
    units.forEach(function (u, i) {
      var c = best.choice[i], e = extent(u, c.align);
      u.marks.forEach(function (m, k) {
        var left = c.align === 1 ? e[0] : c.align === 2 ? e[1] - m.w : (e[0] + e[1]) / 2 - m.w / 2;
        m.label.style.left = left.toFixed(2) + "px";
        m.label.style.top = (TICK + (c.row + k) * ROW) + "px";
        placeTick(m, TICK + c.row * ROW);
      });
      rowsUsed = Math.max(rowsUsed, c.row + u.marks.length);
    });
    box.style.height = (TICK + rowsUsed * ROW + 4) + "px";
  }
  function relayoutIfResized() {
    if ($("ex-marks").getBoundingClientRect().width !== laidWidth) { layoutMarks(); }
  }
  if (typeof ResizeObserver === "function") { new ResizeObserver(relayoutIfResized).observe($("ex-marks")); }
  window.addEventListener("resize", relayoutIfResized);
  window.addEventListener("beforeprint", layoutMarks);

  // ---- state -> page ----
  function update() {
    var i = lowerBound(state.t);
    var t = state.t;
    if (!D.exact && i < M) { t = T[i]; state.t = t; }  // only cut points have exact counts
    var tp = i < M ? TP[i] : 0, fp = i < M ? FP[i] : 0;
    var fn = P - tp, tn = N - fp, alerts = tp + fp;
    var recall = P > 0 ? tp / P : NaN, far = N > 0 ? fp / N : NaN;
    var precision = alerts > 0 ? tp / alerts : NaN;
    var cost = state.cfp * fp + state.cfn * fn;
    var t4 = t.toFixed(4);
    var out = $("ex-t");
    out.textContent = (Number(t4) === t ? t.toFixed(3) : t4);
    out.setAttribute("data-value", String(t));
    show("ex-tp", tp, fmtCount(tp)); show("ex-fp", fp, fmtCount(fp));
    show("ex-fn", fn, fmtCount(fn)); show("ex-tn", tn, fmtCount(tn));
    show("ex-recall", recall, fmtRate(recall)); show("ex-far", far, fmtRate(far));
    show("ex-precision", precision, fmtRate(precision));
    show("ex-alerts", alerts, fmtCount(alerts));
    $("ex-share").textContent = TOTAL > 0 ? (100 * alerts / TOTAL).toFixed(1) + "%" : "";
    show("ex-cost", cost, fmtMoney(cost, Math.abs(cost - Math.round(cost)) < 1e-9 ? 0 : 2));
    show("ex-cost1000", TOTAL > 0 ? 1000 * cost / TOTAL : NaN, fmtMoney(TOTAL > 0 ? 1000 * cost / TOTAL : NaN, 1));
    if (document.activeElement !== slider) { slider.value = String(t); }
    if (document.activeElement !== tinput) { tinput.value = t4; }
    placeLine(lines.now, t);
    lines.nowDot.setAttribute("cx", sx(t));
    lines.nowDot.setAttribute("cy", sy(isFinite(recall) ? recall : 0));
  }
  function setT(t) {
    if (!isFinite(t)) { return; }
    state.t = Math.min(1, Math.max(0, t));
    update();
  }
  function readCost(input, fallback) {
    var v = parseFloat(input.value);
    if (!isFinite(v) || v < 0) { input.setAttribute("aria-invalid", "true"); return fallback; }
    input.removeAttribute("aria-invalid");
    return v;
  }

  slider.addEventListener("input", function () { setT(parseFloat(slider.value)); });
  tinput.addEventListener("change", function () { setT(parseFloat(tinput.value)); });
  function costsChanged() {
    var cfp = readCost(cfpIn, state.cfp), cfn = readCost(cfnIn, state.cfn);
    if (cfp + cfn <= 0) { cfpIn.setAttribute("aria-invalid", "true"); return; }
    state.cfp = cfp; state.cfn = cfn;
    redrawCost();
    update();
  }
  cfpIn.addEventListener("input", costsChanged);
  cfnIn.addEventListener("input", costsChanged);
  $("ex-go-star").addEventListener("click", function () { setT(tStar()); });
  $("ex-go-recall").addEventListener("click", function () { if (D.t_recall !== null) { setT(D.t_recall); } });
  $("ex-go-best").addEventListener("click", function () { setT(T[bestIndex()]); });
  function fromPointer(ev) {
    var box = chart.getBoundingClientRect();
    var x = (ev.clientX - box.left) * W / box.width;
    setT(Math.round(1000 * (x - L) / (W - L - R)) / 1000);
  }
  var dragging = false;
  chart.addEventListener("pointerdown", function (ev) { dragging = true; fromPointer(ev); });
  chart.addEventListener("pointermove", function (ev) { if (dragging) { fromPointer(ev); } });
  window.addEventListener("pointerup", function () { dragging = false; });

  var note = D.exact
    ? "Counts are exact at every threshold: every distinct score is a cut point."
    : "Counts are exact at the " + M.toLocaleString("en-US") + " cut points; a typed threshold snaps to the next cut point at or above it.";
  $("ex-note").textContent = note + " Cost = c_FP × FP + c_FN × FN" + (D.weighted ? " (weighted counts)." : ".");

  drawChart();
  redrawCost();
  update();
  root.setAttribute("data-ready", "1");
})();
