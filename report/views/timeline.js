/* SPDX-License-Identifier: MIT */
/*
 * timeline.js - the interactive part of kprof's timeline SVG. report/views/view-timeline.c embeds it
 * verbatim after report/views/svgui.js (kp_ui, the helpers both pictures share) in a CDATA section,
 * so it must never contain "]" "]" ">" in a row. ES5, no external resources. It reads the DOM
 * view-timeline.c writes: the svg element "kprof-timeline" (data-span, data-x0, data-pw,
 * data-top), the texts "details", "unzoom", "search" and "matched", the group "axis", the rect
 * "sel", and in the group "lanes" the boxes: rects of class c (on-CPU), o (blocked), q
 * (runnable), m (tracepoint marker), k (a task on a CPU), u (a CPU's stretch between two
 * tasks whose switch was not recorded) or x (boxes shorter than a pixel, merged to keep the
 * file under its bound), each with data-t and data-d (start after the picture's start, and
 * length, ns) and data-n (its name).
 *
 *   hover a box         #details shows its title
 *   drag across lanes   zoom: the dragged time window spans the width; #unzoom resets
 *   Ctrl-F or #search   prompt for a regex over the names: matches turn purple, #matched
 *                       gives their count and time by kind
 *
 * The state survives a reload in the URL fragment: z=START,END (ns after the picture's start)
 * and s=REGEX (URI-encoded), joined by "&". Test hooks, which dispatch real mouse events
 * once loaded so that the same handlers as a user's run, and do nothing else: #drag=X1,X2
 * (down at x X1, move, up at X2, in px of the picture) and #hover=N (over the Nth box).
 */
var kp_timeline = (function () {
	"use strict";
	var NS = "http://www.w3.org/2000/svg";
	var svg, details, unzoombtn, axis, sel, span, x0, pw, top, bottom, finder;
	var boxes = [], win = null, dragFrom = null;
	var KINDS = { c: "on-CPU", o: "blocked", q: "runnable", m: "markers", k: "on the CPUs",
		u: "switch not recorded", x: "merged" };

	var num = kp_ui.num, r2 = kp_ui.round2, classes = kp_ui.classes, setClass = kp_ui.setClass;

	/* the window shown: [a, b] ns after the picture's start */
	function lo() { return win ? win[0] : 0; }
	function hi() { return win ? win[1] : span; }
	function xOf(t) { return x0 + (hi() > lo() ? (t - lo()) * pw / (hi() - lo()) : 0); }
	function tOf(x) { return lo() + (x - x0) * (hi() - lo()) / pw; }

	function saveState() {
		finder.save(win ? ["z=" + Math.round(win[0]) + "," + Math.round(win[1])] : []);
	}

	function drawAxis() {
		var w = hi() - lo(), step, t, x, line, text;
		while (axis.firstChild) axis.removeChild(axis.firstChild);
		if (!(w > 0)) return;
		step = Math.pow(10, Math.floor(Math.log(w / 5) / Math.LN10));
		step *= w / step > 25 ? 5 : w / step > 10 ? 2 : 1;
		for (t = Math.ceil(lo() / step) * step; t <= hi(); t += step) {
			x = r2(xOf(t));
			line = document.createElementNS(NS, "line");
			line.setAttribute("x1", x); line.setAttribute("x2", x);
			line.setAttribute("y1", top); line.setAttribute("y2", bottom);
			text = document.createElementNS(NS, "text");
			text.setAttribute("x", r2(xOf(t) + 2)); text.setAttribute("y", top - 3);
			text.textContent = String(parseFloat((t / 1e9).toPrecision(9))) + " s";
			axis.appendChild(line); axis.appendChild(text);
		}
	}

	/* lay every box out for the window: outside it hidden, cut at its edges */
	function layout() {
		var i, b, a, e, x, w;
		for (i = 0; i < boxes.length; i++) {
			b = boxes[i];
			a = Math.max(b.t, lo()); e = Math.min(b.t + b.d, hi());
			if (b.d === 0 ? b.t < lo() || b.t > hi() : e <= a) {
				setClass(b.r, "hide", true);
				continue;
			}
			setClass(b.r, "hide", false);
			x = xOf(a);
			w = b.k === "m" ? 1 : Math.max(xOf(e) - x, 0.5);
			b.r.setAttribute("x", r2(x));
			b.r.setAttribute("width", r2(w));
		}
		drawAxis();
		setClass(unzoombtn, "hide", !win);
	}

	function zoom(a, b) {
		a = Math.max(0, Math.min(a, b)); b = Math.min(span, Math.max(a, b));
		win = b > a ? [a, b] : null;
		layout();
		saveState();
	}
	function unzoom() { win = null; layout(); saveState(); }

	function ms(ns) { return (ns / 1e6).toFixed(3) + " ms"; }

	/* the boxes whose names @re matches turn purple; returns their count and time by kind */
	function search(re) {
		var i, b, hit, n = {}, t = {}, k, out = [];
		for (i = 0; i < boxes.length; i++) {
			b = boxes[i];
			hit = !!re && re.test(b.n);
			setClass(b.r, "match", hit);
			if (!hit) continue;
			n[b.k] = (n[b.k] || 0) + 1;
			t[b.k] = (t[b.k] || 0) + b.d;
		}
		for (k in KINDS)
			if (KINDS.hasOwnProperty(k) && n[k])
				out.push(KINDS[k] + " " + n[k] + (k === "m" ? "" : " (" + ms(t[k]) + ")"));
		return out.length ? out.join(", ") : "nothing";
	}

	/* the pointer's x in the picture's px */
	function px(e) {
		var m = svg.getScreenCTM(), p;
		if (!m || !svg.createSVGPoint) return e.clientX;
		p = svg.createSVGPoint();
		p.x = e.clientX; p.y = e.clientY;
		return p.matrixTransform(m.inverse()).x;
	}
	function clampX(x) { return Math.max(x0, Math.min(x0 + pw, x)); }
	function showSel(a, b) {
		sel.setAttribute("x", r2(Math.min(a, b))); sel.setAttribute("width", r2(Math.abs(b - a)));
		sel.setAttribute("y", top); sel.setAttribute("height", bottom - top);
		setClass(sel, "hide", false);
	}

	function mouse(name, x, y) {
		var m = svg.getScreenCTM(), p = { x: x, y: y };
		if (m && svg.createSVGPoint) {
			p = svg.createSVGPoint(); p.x = x; p.y = y; p = p.matrixTransform(m);
		}
		(name === "mousedown" ? document.getElementById("lanes") : svg).dispatchEvent(
			new MouseEvent(name, { bubbles: true, cancelable: true, view: window,
				clientX: p.x, clientY: p.y, button: 0 }));
	}

	return function (evt) {
		var doc = (evt && evt.target && evt.target.ownerDocument) || document;
		var rects = doc.getElementById("lanes").getElementsByTagName("rect"), i, r, k, t, st, d;
		svg = doc.getElementById("kprof-timeline");
		details = doc.getElementById("details");
		unzoombtn = doc.getElementById("unzoom");
		axis = doc.getElementById("axis");
		sel = doc.getElementById("sel");
		span = num(svg, "data-span");
		x0 = num(svg, "data-x0");
		pw = num(svg, "data-pw");
		top = num(svg, "data-top");
		bottom = num(svg, "height") - num(svg, "data-fontsize") * 2 - 12;
		for (i = 0; i < rects.length; i++) {
			r = rects[i];
			k = classes(r)[0];
			if (!KINDS.hasOwnProperty(k)) continue;
			t = r.getElementsByTagName("title")[0];
			r.kpBox = { r: r, k: k, t: num(r, "data-t"), d: num(r, "data-d"),
				n: r.getAttribute("data-n") || "", title: t ? t.textContent : "" };
			boxes.push(r.kpBox);
		}

		doc.getElementById("lanes").addEventListener("mouseover", function (e) {
			var b = e.target.kpBox || (e.target.parentNode && e.target.parentNode.kpBox);
			if (b) details.textContent = b.title;
		});
		doc.getElementById("lanes").addEventListener("mouseout", function () { details.textContent = " "; });
		doc.getElementById("lanes").addEventListener("mousedown", function (e) {
			var x = px(e);
			if (e.button !== 0 || x < x0) return;
			e.preventDefault();
			dragFrom = clampX(x);
		});
		svg.addEventListener("mousemove", function (e) {
			if (dragFrom !== null) showSel(dragFrom, clampX(px(e)));
		});
		svg.addEventListener("mouseup", function (e) {
			var a = dragFrom, b = clampX(px(e));
			if (a === null) return;
			dragFrom = null;
			setClass(sel, "hide", true);
			if (Math.abs(b - a) >= 3) zoom(tOf(a), tOf(b));
		});
		unzoombtn.addEventListener("click", unzoom);
		finder = kp_ui.search(doc, "^nap$", search, saveState);

		st = kp_ui.readState();
		if (st.z) {
			d = st.z.split(",");
			if (d.length === 2 && isFinite(+d[0]) && isFinite(+d[1])) zoom(+d[0], +d[1]);
		}
		if (st.s) finder.run(st.s);
		if (st.hover && boxes[+st.hover])
			boxes[+st.hover].r.dispatchEvent(new MouseEvent("mouseover", { bubbles: true,
				cancelable: true, view: window }));
		if (st.drag) {
			d = st.drag.split(",");
			if (d.length === 2 && isFinite(+d[0]) && isFinite(+d[1])) {
				t = (top + bottom) / 2;
				mouse("mousedown", +d[0], t);
				mouse("mousemove", +d[1], t);
				mouse("mouseup", +d[1], t);
			}
		}
	};
})();
