/* SPDX-License-Identifier: MIT */
/*
 * flamegraph.js - the interactive part of kprof's SVG flame graph. report/views/view-svg.c embeds it
 * verbatim after report/views/svgui.js (kp_ui, the helpers both pictures share) in a CDATA section,
 * so it must never contain "]" "]" ">" in a row. ES5, no external resources. It reads the DOM
 * view-svg.c writes: the svg element "kprof" (data-total, data-xpad, data-fontsize), the texts
 * "details", "unzoom", "search" and "matched", and in the group "frames" one group of class f
 * per frame, with data-x and data-v (start and width in value units), data-d (depth) and
 * data-p (the parent frame's id), holding a title, a rect, a text.
 *
 *   hover a frame      #details shows its title
 *   click a frame      zoom: it spans the width, its ancestors stretch (class "parent"),
 *                      every other frame gets class "hide"; #unzoom or the root resets
 *   Ctrl-F or #search  prompt for a regex: matches turn purple, #matched gives their share
 *
 * The state survives a reload in the URL fragment: x=fID (the zoomed frame) and s=REGEX (the
 * search, URI-encoded), joined by "&", e.g. #x=f12&s=work_a; ids that are no frame are ignored.
 * Test hook: #click=fID dispatches a real MouseEvent("click") on frame fID's <g> once loaded,
 * so the same handler as a user's click runs (and rewrites the fragment to #x=fID); it does
 * nothing else. #s=REGEX searches without a prompt.
 */
var kp_init = (function () {
	"use strict";
	var svg, details, unzoombtn, W, xpad, fontsize, total, finder;
	var frames = [], byId = {};
	var zoomed = null;	/* the state the fragment records, with the search */

	var num = kp_ui.num, round2 = kp_ui.round2, classes = kp_ui.classes, setClass = kp_ui.setClass;

	/* the frame an element belongs to, or null */
	function frameOf(e) {
		for (; e && e !== svg; e = e.parentNode)
			if (e.id && byId.hasOwnProperty(e.id) && byId[e.id].g === e)
				return byId[e.id];
		return null;
	}

	/* the name cut to fit @w pixels, flamegraph.pl's rule as the C side has it: as many
	 * characters as fit at the average width, "" under 3, a cut name ending in ".." */
	function fit(name, w) {
		var n = Math.floor(w / (fontsize * 0.59));
		if (n < 3) return "";
		return name.length <= n ? name : name.substring(0, n - 2) + "..";
	}

	function draw(f, x, w, tx, t) {
		f.rect.setAttribute("x", x);
		f.rect.setAttribute("width", w);
		if (f.text) {
			f.text.setAttribute("x", tx);
			f.text.textContent = t;
		}
	}
	function place(f, x, w) { draw(f, round2(x), round2(w), round2(x + 3), f.p ? fit(f.name, w) : ""); }
	function restore(f) {
		draw(f, f.x0, f.w0, f.tx0, f.t0);
		setClass(f.g, "hide", false);
		setClass(f.g, "parent", false);
	}

	function saveState() {
		finder.save(zoomed ? ["x=" + zoomed.id] : []);
	}

	function unzoom() {
		for (var i = 0; i < frames.length; i++) restore(frames[i]);
		setClass(unzoombtn, "hide", true);
		zoomed = null;
		saveState();
	}

	/* zoom to frame @z: its subtree is rescaled to the full width, its ancestors stretched */
	function zoom(z) {
		var i, f, a, anc = {}, scale = (W - 2 * xpad) / z.v;
		if (!z.p || !(z.v > 0)) return unzoom();	/* the root resets */
		for (a = byId[z.p]; a; a = byId[a.p]) anc[a.id] = true;
		for (i = 0; i < frames.length; i++) {
			f = frames[i];
			restore(f);
			for (a = f; a && a.d > z.d; a = byId[a.p]);
			if (a === z) {
				place(f, xpad + (f.x - z.x) * scale, f.v * scale);
			} else if (anc[f.id]) {
				place(f, xpad, W - 2 * xpad);
				setClass(f.g, "parent", true);
			} else {
				setClass(f.g, "hide", true);
			}
		}
		setClass(unzoombtn, "hide", false);
		zoomed = z;
		saveState();
	}

	/* the frames that @re matches turn purple; returns their share */
	function search(re) {
		var i, f, a, sum = 0, hit = {};
		for (i = 0; i < frames.length; i++) {
			f = frames[i];
			hit[f.id] = !!re && re.test(f.name);
			f.rect.setAttribute("fill", hit[f.id] ? "rgb(230,0,230)" : f.fill0);
		}
		for (i = 0; i < frames.length; i++) {	/* a match under a match counts once */
			f = frames[i];
			if (!hit[f.id]) continue;
			for (a = byId[f.p]; a && !hit[a.id]; a = byId[a.p]);
			if (!a) sum += f.v;
		}
		return (total > 0 ? 100 * sum / total : 0).toFixed(1) + "%";
	}

	return function (evt) {
		var doc = (evt && evt.target && evt.target.ownerDocument) || document;
		var box = doc.getElementById("frames"), els = box.getElementsByTagName("g"), i, g, f, t, st;
		svg = doc.getElementById("kprof");
		details = doc.getElementById("details");
		unzoombtn = doc.getElementById("unzoom");
		W = num(svg, "width");
		xpad = num(svg, "data-xpad");
		fontsize = num(svg, "data-fontsize") || 12;
		total = num(svg, "data-total");
		for (i = 0; i < els.length; i++) {
			g = els[i];
			if (classes(g).indexOf("f") < 0 || !g.getElementsByTagName("rect").length) continue;
			t = g.getElementsByTagName("title")[0];
			f = { g: g, id: g.id, x: num(g, "data-x"), v: num(g, "data-v"), d: num(g, "data-d"),
				p: g.getAttribute("data-p") || "", title: t ? t.textContent : "",
				rect: g.getElementsByTagName("rect")[0], text: g.getElementsByTagName("text")[0] };
			/* the full name is everything before the last " (" */
			f.name = f.title.lastIndexOf(" (") >= 0 ? f.title.substring(0, f.title.lastIndexOf(" (")) : f.title;
			f.x0 = f.rect.getAttribute("x");
			f.w0 = f.rect.getAttribute("width");
			f.fill0 = f.rect.getAttribute("fill");
			if (f.text) { f.tx0 = f.text.getAttribute("x"); f.t0 = f.text.textContent; }
			frames.push(f);
			byId[f.id] = f;
		}

		box.addEventListener("mouseover", function (e) {
			var f = frameOf(e.target);
			if (f) details.textContent = "Function: " + f.title;
		});
		box.addEventListener("mouseout", function () { details.textContent = " "; });
		box.addEventListener("click", function (e) {
			var f = frameOf(e.target);
			if (f) zoom(f);
		});
		unzoombtn.addEventListener("click", unzoom);
		finder = kp_ui.search(doc, "^ext4_", search, saveState);

		st = kp_ui.readState();
		if (st.x && byId.hasOwnProperty(st.x)) zoom(byId[st.x]);
		if (st.s) finder.run(st.s);
		if (st.click && byId.hasOwnProperty(st.click))
			byId[st.click].g.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, view: window }));
	};
})();
