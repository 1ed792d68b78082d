// exports.cjs - reads kprof's exports as their formats define them, for tests/live/exports.sh.
// Each mode prints "key=value" lines the test compares with the truth, or "error: ..." lines
// (and exits 1) for what breaks the format.
//   node exports.cjs schema NPM_DIR FILE      speedscope file against the schema the speedscope
//                                             package ships, with ajv
//   node exports.cjs speedscope FILE FUNC     samples, and FUNC's share of the weights
//   node exports.cjs chrome FILE FUNC         nesting per thread, no slice cut in two, metadata,
//                                             time span, instants, FUNC's share of the time
//   node exports.cjs gecko FILE FUNC          every index in range, prefixes before their users,
//                                             times non-decreasing, FUNC's share of the samples
//   node exports.cjs cpus FILE                Chrome trace: the CPU tracks of the process "CPUs"
//                                             (named, sorted, slices of category cpu that do not
//                                             overlap), each task's time on them by tid, and
//                                             the time around a switch not recorded
//   node exports.cjs markers FILE             Gecko: every marker against meta.markerSchema
//                                             (name in the string table, an interval that does
//                                             not end before it starts, its data's type
//                                             declared), off-CPU time per thread, each task's
//                                             time on the threads of process "CPUs" by tid
//                                             (and around a switch not recorded)
//   node exports.cjs serve DIR                a static HTTP server on 127.0.0.1 (prints its port)
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const http = require('http');

const errors = [];
const err = (m) => { if (errors.length < 20) errors.push(m); };
const out = (k, v) => console.log(`${k}=${v}`);
const finish = () => {
	for (const e of errors) console.log(`error: ${e}`);
	process.exit(errors.length ? 1 : 0);
};
const load = (f) => {
	let b = fs.readFileSync(f);
	if (b[0] === 0x1f && b[1] === 0x8b) b = zlib.gunzipSync(b);
	return JSON.parse(b.toString('utf8'));
};
const pct = (a, b) => (b > 0 ? (100 * a / b).toFixed(2) : 'none');

function schema(npm, file) {
	const Ajv = require(path.join(npm, 'node_modules', 'ajv'));
	const sch = JSON.parse(fs.readFileSync(path.join(npm, 'node_modules', 'speedscope', 'dist',
		'release', 'file-format-schema.json'), 'utf8'));
	const ajv = new Ajv({ allErrors: true, strict: false });
	const ok = ajv.validate(sch, load(file));
	if (!ok) for (const e of ajv.errors.slice(0, 10)) err(`${e.instancePath} ${e.message}`);
	out('valid', ok ? 'yes' : 'no');
}

function speedscope(file, func) {
	const d = load(file), frames = d.shared.frames;
	let total = 0, hit = 0, samples = 0;
	for (const p of d.profiles) {
		if (p.type !== 'sampled') err(`profile ${p.name} is ${p.type}`);
		if (p.samples.length !== p.weights.length) err(`${p.name}: samples and weights differ`);
		p.samples.forEach((s, i) => {
			for (const f of s) if (!(f >= 0 && f < frames.length)) err(`frame ${f} out of range`);
			total += p.weights[i];
			if (s.some((f) => frames[f] && frames[f].name === func)) hit += p.weights[i];
		});
		samples += p.samples.length;
	}
	out('profiles', d.profiles.length);
	out('names', d.profiles.map((p) => p.name).join('|'));
	out('runs', samples);
	out('share', pct(hit, total));
}

function chrome(file, func) {
	const d = load(file), ev = d.traceEvents;
	if (!Array.isArray(ev)) return err('no traceEvents array');
	const threads = new Map(), pnames = new Set(), tnames = new Set();
	let instants = 0, withArgs = 0, minTs = Infinity, maxEnd = -Infinity;
	for (const e of ev) {
		const key = `${e.pid}/${e.tid}`;
		if (e.ph === 'M' && e.name === 'process_name' && e.args && e.args.name) pnames.add(e.pid);
		else if (e.ph === 'M' && e.name === 'thread_name' && e.args && e.args.name) tnames.add(key);
		else if (e.ph === 'X') {
			if (typeof e.ts !== 'number' || typeof e.dur !== 'number' || e.dur < 0)
				err(`bad X event ${JSON.stringify(e)}`);
			if (!threads.has(key)) threads.set(key, []);
			threads.get(key).push(e);
			minTs = Math.min(minTs, e.ts);
			maxEnd = Math.max(maxEnd, e.ts + e.dur);
		} else if (e.ph === 'i') {
			instants++;
			if (e.args && Object.keys(e.args).length) withArgs++;
			minTs = Math.min(minTs, e.ts);
		}
	}
	// proper nesting: sorted as a reader sorts them (by time, the longer first), each slice
	// lies inside the one open below it
	let bad = 0, cut = 0, total = 0, hit = 0;
	const eps = 0.0015; // µs: three decimals read back as doubles
	const tick = 0.0625; // µs: kprof's grid, and the least it leaves between two runs
	for (const [key, xs] of threads) {
		if (!tnames.has(key)) err(`thread ${key} has no thread_name`);
		if (!pnames.has(Number(key.split('/')[0]))) err(`process of ${key} has no process_name`);
		xs.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
		const stack = [], root = {};
		for (const x of xs) {
			while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= x.ts + eps)
				stack.pop();
			const top = stack[stack.length - 1];
			if (top && x.ts + x.dur > top.ts + top.dur + eps) {
				if (bad++ < 5) err(`${key}: ${x.name} [${x.ts}, +${x.dur}] outlives its parent ${top.name} [${top.ts}, +${top.dur}]`);
			}
			// a frame that goes on is one slice: one that ends where (or a tick before) a
			// same-named sibling begins is cut in two (a CPU track's slices are no frames
			// but the stretches between two switches, which may be of one command)
			const prev = (top || root).last;
			if (prev && prev.name === x.name && x.cat !== 'cpu' && Math.abs(prev.ts + prev.dur - x.ts) <= tick + eps) {
				if (cut++ < 5) err(`${key}: ${x.name} at ${x.ts} goes on from a sibling that ends there`);
			}
			(top || root).last = x;
			if (!top) total += x.dur;
			if (x.name === func && !stack.some((s) => s.name === func)) hit += x.dur;
			stack.push(x);
		}
	}
	out('threads', threads.size);
	out('slices', [...threads.values()].reduce((n, xs) => n + xs.length, 0));
	out('improper', bad);
	out('cut', cut);
	out('first_us', minTs === Infinity ? 'none' : minTs.toFixed(3));
	out('span_us', maxEnd === -Infinity ? 'none' : (maxEnd - minTs).toFixed(3));
	out('instants', instants);
	out('instants_with_args', withArgs);
	out('busy_us', total.toFixed(3));
	out('share', pct(hit, total));
	out('share_of_span', pct(hit, maxEnd - minTs));
}

function gecko(file, func) {
	const d = load(file), meta = d.meta;
	if (!meta || meta.version !== 24) err(`meta.version is ${meta && meta.version}, not 24`);
	if (!(meta.interval > 0)) err(`meta.interval ${meta.interval}`);
	const ncat = (meta.categories || []).length;
	if (!ncat) err('no categories');
	let samples = 0, hit = 0;
	for (const t of d.threads) {
		const st = t.stackTable, ft = t.frameTable, strs = t.stringTable, sm = t.samples;
		const S = st.schema, F = ft.schema, M = sm.schema;
		for (const [k, i] of [['prefix', S.prefix], ['frame', S.frame], ['location', F.location],
			['category', F.category], ['stack', M.stack], ['time', M.time]])
			if (typeof i !== 'number') err(`${t.name}: no '${k}' in a schema`);
		st.data.forEach((r, i) => {
			const pre = r[S.prefix], fr = r[S.frame];
			if (pre !== null && !(pre >= 0 && pre < i)) err(`${t.name}: stack ${i} has prefix ${pre}, not before it`);
			if (!(fr >= 0 && fr < ft.data.length)) err(`${t.name}: stack ${i} has frame ${fr} of ${ft.data.length}`);
		});
		ft.data.forEach((r, i) => {
			const loc = r[F.location], cat = r[F.category];
			if (!(loc >= 0 && loc < strs.length)) err(`${t.name}: frame ${i} has string ${loc} of ${strs.length}`);
			if (!(cat >= 0 && cat < ncat)) err(`${t.name}: frame ${i} has category ${cat} of ${ncat}`);
		});
		const names = ft.data.map((r) => String(strs[r[F.location]]).replace(/ \(in [^)]*\)$/, ''));
		const through = st.data.map(() => false);
		st.data.forEach((r, i) => { through[i] = names[r[S.frame]] === func || (r[S.prefix] !== null && through[r[S.prefix]]); });
		let last = -Infinity;
		for (const r of sm.data) {
			const s = r[M.stack], tm = r[M.time];
			if (s !== null && !(s >= 0 && s < st.data.length)) err(`${t.name}: sample stack ${s} of ${st.data.length}`);
			if (!(tm >= last)) err(`${t.name}: sample time ${tm} after ${last}`);
			last = tm;
			if (s !== null && through[s]) hit++;
		}
		samples += sm.data.length;
	}
	out('threads', d.threads.length);
	out('names', d.threads.map((t) => `${t.name} (${t.tid})`).join('|'));
	out('samples', samples);
	out('share', pct(hit, samples));
}

// cpus: the CPU tracks of kprof's Chrome trace (view-chrome.c)
function cpus(file) {
	const ev = load(file).traceEvents;
	const pids = new Set(ev.filter((e) => e.ph === 'M' && e.name === 'process_name' &&
		e.args && e.args.name === 'CPUs').map((e) => e.pid));
	const names = new Map(), sorts = new Map(), tracks = new Map(), task = new Map();
	const unsure = new Map();
	const comms = new Map();
	let slices = 0, overlaps = 0;
	for (const e of ev) {
		if (!pids.has(e.pid)) continue;
		if (e.ph === 'M' && e.name === 'thread_name') names.set(e.tid, e.args.name);
		else if (e.ph === 'M' && e.name === 'thread_sort_index') sorts.set(e.tid, e.args.sort_index);
		else if (e.ph === 'X') {
			if (e.cat !== 'cpu' || typeof e.name !== 'string' || !e.args ||
			    !Number.isInteger(e.args.tid) || !(e.dur >= 0))
				err(`bad CPU slice ${JSON.stringify(e)}`);
			if (!tracks.has(e.tid)) tracks.set(e.tid, []);
			tracks.get(e.tid).push(e);
			if (e.name === '[switch not recorded]') { // between tid and then_tid
				for (const t of [e.args.tid, e.args.then_tid])
					unsure.set(t, (unsure.get(t) || 0) + e.dur);
				continue;
			}
			task.set(e.args.tid, (task.get(e.args.tid) || 0) + e.dur);
			if (!comms.has(e.args.tid)) comms.set(e.args.tid, new Set());
			comms.get(e.args.tid).add(e.name);
			slices++;
		}
	}
	for (const [tid, xs] of tracks) {
		const m = /^CPU (\d+)$/.exec(names.get(tid) || '');
		if (!m) err(`CPU track ${tid} is named ${names.get(tid)}`);
		else if (sorts.get(tid) !== Number(m[1])) err(`${names.get(tid)} sorts as ${sorts.get(tid)}`);
		xs.sort((a, b) => a.ts - b.ts);
		for (let i = 1; i < xs.length; i++)
			if (xs[i - 1].ts + xs[i - 1].dur > xs[i].ts + 0.0015 && overlaps++ < 5)
				err(`${names.get(tid)}: ${xs[i].name} at ${xs[i].ts} overlaps ${xs[i - 1].name}`);
	}
	out('cpu_processes', pids.size);
	out('tracks', tracks.size);
	out('cpu_slices', slices);
	out('overlaps', overlaps);
	for (const [tid, us] of task) out(`task_us.${tid}`, us.toFixed(3));
	for (const [tid, us] of unsure) out(`unsure_us.${tid}`, us.toFixed(3));
	for (const [tid, set] of comms) out(`task_names.${tid}`, [...set].sort().join('|'));
}

// markers: the markers of kprof's Gecko profile (view-firefox.c)
function markers(file) {
	const d = load(file), types = new Map();
	for (const s of d.meta.markerSchema || []) {
		if (typeof s.name !== 'string' || !Array.isArray(s.display) || !Array.isArray(s.data))
			err(`bad marker schema ${JSON.stringify(s)}`);
		else if (s.data.some((f) => typeof f.key !== 'string' || typeof f.format !== 'string'))
			err(`schema ${s.name}: a field without key or format`);
		types.set(s.name, s);
	}
	const ncat = (d.meta.categories || []).length, sums = new Map(), comms = new Map();
	const add = (k, v) => sums.set(k, (sums.get(k) || 0) + v);
	let n = 0, cpuThreads = 0;
	for (const t of d.threads) {
		const S = t.markers.schema, cpu = t.processName === 'CPUs';
		for (const k of ['name', 'startTime', 'endTime', 'phase', 'category', 'data'])
			if (typeof S[k] !== 'number') err(`${t.name}: no '${k}' in the markers' schema`);
		cpuThreads += cpu;
		for (const r of t.markers.data) {
			const name = t.stringTable[r[S.name]], st = r[S.startTime], en = r[S.endTime];
			const data = r[S.data], cat = r[S.category];
			n++;
			if (typeof name !== 'string') err(`${t.name}: marker name ${r[S.name]} of ${t.stringTable.length}`);
			if (r[S.phase] !== 1 || typeof st !== 'number' || !(en >= st))
				err(`${t.name}: ${name} is no interval that ends after it starts (${st}, ${en})`);
			if (!(cat >= 0 && cat < ncat)) err(`${t.name}: ${name} has category ${cat} of ${ncat}`);
			if (!data || !types.has(data.type)) err(`${t.name}: ${name}'s data type is not declared`);
			else for (const f of types.get(data.type).data)
				if (f.key in data && f.format === 'integer' && !Number.isInteger(data[f.key]))
					err(`${t.name}: ${name}'s ${f.key} is ${data[f.key]}, no integer`);
			if (cpu && name === '[switch not recorded]') { // between tid and then_tid
				add(`unsure_ms.${data && data.tid}`, en - st);
				add(`unsure_ms.${data && data.then_tid}`, en - st);
			} else if (cpu) {
				const k = `task_names.${data && data.tid}`;
				add(`task_ms.${data && data.tid}`, en - st);
				comms.set(k, (comms.get(k) || new Set()).add(name));
			} else if (name === '[blocked]' || name === '[runnable]') {
				add(`${name.slice(1, -1)}_ms.${t.tid}`, en - st);
			}
		}
	}
	out('markers', n);
	out('cpu_threads', cpuThreads);
	out('samples', d.threads.reduce((k, t) => k + t.samples.data.length, 0));
	for (const [k, v] of sums) out(k, v.toFixed(6));
	for (const [k, set] of comms) out(k, [...set].sort().join('|'));
}

function serve(dir) {
	const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
		'.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png' };
	const srv = http.createServer((req, res) => {
		const p = path.join(dir, decodeURIComponent(req.url.split(/[?#]/)[0]));
		if (!p.startsWith(dir) || !fs.existsSync(p) || !fs.statSync(p).isFile()) {
			res.writeHead(404);
			return res.end();
		}
		res.writeHead(200, { 'Content-Type': types[path.extname(p)] || 'application/octet-stream' });
		fs.createReadStream(p).pipe(res);
	});
	srv.listen(0, '127.0.0.1', () => console.log(srv.address().port));
}

const [mode, a, b, c] = process.argv.slice(2);
try {
	if (mode === 'serve') serve(path.resolve(a));
	else {
		({ schema: () => schema(a, b), speedscope: () => speedscope(a, b), chrome: () => chrome(a, b),
		   gecko: () => gecko(a, b), cpus: () => cpus(a), markers: () => markers(a) })[mode]();
		finish();
	}
} catch (e) {
	err(`${mode}: ${e.message}`);
	finish();
}
void c;
