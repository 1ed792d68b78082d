/* SPDX-License-Identifier: MIT */
/*
 * svgui.js - what the JavaScript of kprof's SVG pictures shares (flamegraph.js, timeline.js):
 * class lists, the state kept in the URL fragment, and the search (#search, Ctrl-F, #matched).
 * Embedded before each picture's own script in the same CDATA section (so it must never
 * contain "]" "]" ">" in a row); ES5.
 */
var kp_ui = (function () {
	"use strict";
	function classes(e) { return (e.getAttribute("class") || "").split(/\s+/); }

	/* the fragment made of @parts ("x=f12", ...), without a new history entry */
	function saveState(parts) {
		var hash = parts.length ? "#" + parts.join("&") : "";
		try {
			history.replaceState(history.state, "", location.href.split("#")[0] + hash);
		} catch (e) {
			location.hash = hash;	/* no replaceState, or refused */
		}
	}

	/* Ctrl-F (or Cmd-F) calls @fn instead of the browser's own find */
	function onFind(fn) {
		window.addEventListener("keydown", function (e) {
			if ((e.ctrlKey || e.metaKey) && (e.keyCode === 70 || e.key === "f")) {
				e.preventDefault();
				fn();
			}
		});
	}

	/*
	 * The search of a picture in @doc: #search or Ctrl-F prompts for a regex (@example shows
	 * one), #search again clears it. run(s) searches for the regex @s (null or "" clears it):
	 * @apply(re) marks the matches of @re (null: no search, or not a valid regex) and returns
	 * what #matched says of them after "Matched: "; @changed() follows every search.
	 * save(parts) saves the fragment of @parts with the search, s=REGEX (URI-encoded).
	 */
	function search(doc, example, apply, changed) {
		var btn = doc.getElementById("search"), matched = doc.getElementById("matched");
		var term = null;

		function run(s) {
			var re = null, what;
			term = s ? String(s) : null;
			if (term !== null) {
				try { re = new RegExp(term); } catch (e) { re = null; }
			}
			what = apply(re);
			if (term === null) matched.textContent = " ";
			else if (!re) matched.textContent = "Matched: invalid regex";
			else matched.textContent = "Matched: " + what;
			btn.textContent = term === null ? "Search" : "Reset Search";
			changed();
		}
		function ask() {
			if (term !== null) return run(null);
			run(window.prompt("Enter a search term (regexp allowed, eg: " + example + ")", ""));
		}
		btn.addEventListener("click", ask);
		onFind(ask);
		return {
			run: run,
			save: function (parts) {
				if (term !== null) parts.push("s=" + encodeURIComponent(term));
				saveState(parts);
			}
		};
	}

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
		search: search
	};
})();
