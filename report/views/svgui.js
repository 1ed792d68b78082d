/* SPDX-License-Identifier: MIT */
/*
 * svgui.js - what the JavaScript of kprof's SVG pictures shares (flamegraph.js, timeline.js):
 * class lists, the state kept in the URL fragment, and Ctrl-F. Embedded before each picture's
 * own script in the same CDATA section (so it must never contain "]" "]" ">" in a row); ES5.
 */
var kp_ui = (function () {
	"use strict";
	function classes(e) { return (e.getAttribute("class") || "").split(/\s+/); }
	return {
		/* attribute @a of @e as a number, 0 when it is none */
		num: function (e, a) { return parseFloat(e.getAttribute(a)) || 0; },
		round2: function (v) { return String(Math.round(v * 100) / 100); },
		classes: classes,
		setClass: function (e, c, on) {
			var l = classes(e), out = [], i;
			for (i = 0; i < l.length; i++)
				if (l[i] && l[i] !== c) out.push(l[i]);
			if (on) out.push(c);
			e.setAttribute("class", out.join(" "));
		},
		/* the fragment as an object: "#x=f12&s=work_a" is {x: "f12", s: "work_a"} */
		readState: function () {
			var st = {}, parts = location.hash.replace(/^#/, "").split("&"), i, k;
			for (i = 0; i < parts.length; i++) {
				k = parts[i].indexOf("=");
				try {
					if (k > 0) st[parts[i].substring(0, k)] = decodeURIComponent(parts[i].substring(k + 1));
				} catch (e) { /* a malformed %-escape: ignore that part */ }
			}
			return st;
		},
		/* the fragment made of @parts ("x=f12", ...), without a new history entry */
		saveState: function (parts) {
			var hash = parts.length ? "#" + parts.join("&") : "";
			try {
				history.replaceState(history.state, "", location.href.split("#")[0] + hash);
			} catch (e) {
				location.hash = hash;	/* no replaceState, or refused */
			}
		},
		/* Ctrl-F (or Cmd-F) calls @fn instead of the browser's own find */
		onFind: function (fn) {
			window.addEventListener("keydown", function (e) {
				if ((e.ctrlKey || e.metaKey) && (e.keyCode === 70 || e.key === "f")) {
					e.preventDefault();
					fn();
				}
			});
		}
	};
})();
