/* SPDX-License-Identifier: MIT */
/*
 * ksnap-plot's page script, inlined into every page after dygraphs: one
 * chart per metric from the data ksnap-plot wrote in #ksnap-data, units
 * on the y axis, gaps shaded, damaged places and events marked, and the
 * x axes of a stream's charts linked (zoom one: drag; back: double-click).
 * When every chart is drawn, <body data-charts="N"> says how many; an
 * error is shown in the page and in <body data-errors>.
 */
(function () {
	'use strict';

	var errors = [];

	function fail(where, e) {
		var msg = where + ': ' + (e && e.message ? e.message : e);

		errors.push(msg);
		document.body.setAttribute('data-errors', errors.join('\n'));
		var p = document.createElement('p');

		p.className = 'error';
		p.textContent = 'This page failed to draw ' + msg;
		document.body.insertBefore(p, document.body.firstChild);
	}

	function num(v, digits) {
		var s = v.toPrecision(digits);

		return s.indexOf('e') < 0 && s.indexOf('.') >= 0 ?
			s.replace(/\.?0+$/, '') : s;
	}

	/* 1536 -> "1.5 KiB" */
	function bytes(v) {
		var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'], i = 0;
		var a = Math.abs(v);

		while (a >= 1024 && i < u.length - 1) {
			a /= 1024;
			v /= 1024;
			i++;
		}
		return num(v, 3) + ' ' + u[i];
	}

	/* 1500 -> "1.5k" */
	function si(v) {
		var u = ['', 'k', 'M', 'G', 'T', 'P', 'E'], i = 0;
		var a = Math.abs(v);

		if (a < 1000)
			return num(v, 4);
		while (a >= 1000 && i < u.length - 1) {
			a /= 1000;
			v /= 1000;
			i++;
		}
		return num(v, 3) + u[i];
	}

	function duration(ns) {
		var a = Math.abs(ns);

		if (a >= 1e9)
			return num(ns / 1e9, 4) + ' s';
		if (a >= 1e6)
			return num(ns / 1e6, 4) + ' ms';
		if (a >= 1e3)
			return num(ns / 1e3, 4) + ' \u00b5s';
		return num(ns, 4) + ' ns';
	}

	/* How a chart's values read: its unit, and per second if a rate. */
	function formatter(ch) {
		var per = ch.rate ? '/s' : '';

		switch (ch.unit) {
		case 'bytes':
			return function (v) { return bytes(v) + per; };
		case 'ns':
			if (ch.rate)	/* ns per s: a share of the time */
				return function (v) {
					return num(v / 1e7, 3) + '%';
				};
			return duration;
		case 'pages':
			return function (v) { return si(v) + ' pages' + per; };
		default:
			return function (v) { return si(v) + per; };
		}
	}

	function ylabel(ch) {
		if (ch.rate && ch.unit === 'ns')
			return 'busy (100% = 1 CPU)';
		if (ch.rate)
			return (ch.unit === 'none' ? 'events' : ch.unit) +
				' per second';
		return ch.unit === 'none' ? 'value' : ch.unit;
	}

	/* Gaps grey, damaged places red, events blue, under the lines. */
	function underlay(st) {
		return function (ctx, area, g) {
			var range = g.xAxisRange();

			function x(t) { return g.toDomXCoord(t / 1e9); }
			function visible(t0, t1) {
				return t1 / 1e9 >= range[0] && t0 / 1e9 <= range[1];
			}
			ctx.save();
			ctx.fillStyle = 'rgba(120, 120, 120, 0.28)';
			st.gaps.forEach(function (s) {
				if (!visible(s[0], s[1]))
					return;
				var a = x(s[0]), b = x(s[1]);

				ctx.fillRect(a, area.y, Math.max(b - a, 1), area.h);
			});
			ctx.fillStyle = 'rgba(220, 30, 30, 0.75)';
			st.damage.forEach(function (s) {
				if (!visible(s[0], s[1]))
					return;
				var a = x(s[0]), b = x(s[1]);

				ctx.fillRect(a - 1, area.y, Math.max(b - a, 0) + 2,
					     area.h);
			});
			ctx.strokeStyle = 'rgba(30, 80, 220, 0.9)';
			ctx.fillStyle = 'rgba(30, 80, 220, 0.9)';
			ctx.setLineDash([4, 3]);
			ctx.font = '11px sans-serif';
			st.events.forEach(function (e) {
				if (!visible(e[0], e[0]))
					return;
				var a = x(e[0]);

				ctx.beginPath();
				ctx.moveTo(a, area.y);
				ctx.lineTo(a, area.y + area.h);
				ctx.stroke();
				ctx.fillText(e[1], a + 3, area.y + area.h - 4);
			});
			ctx.restore();
		};
	}

	/* Zoom one chart of the group, and the others follow. */
	function link(group) {
		var busy = false;

		group.forEach(function (g) {
			g.updateOptions({
				drawCallback: function (me, initial) {
					if (busy || initial)
						return;
					busy = true;
					var r = me.xAxisRange();

					group.forEach(function (o) {
						if (o !== me)
							o.updateOptions({ dateWindow: r });
					});
					busy = false;
				},
			}, true);
		});
	}

	function chart(st, si_, ci, xs) {
		var ch = st.charts[ci];
		var div = document.getElementById('c' + si_ + '_' + ci);
		var rows = new Array(xs.length), i, s;
		var f = formatter(ch);

		for (i = 0; i < xs.length; i++) {
			var r = [xs[i]];

			for (s = 0; s < ch.y.length; s++)
				r.push(ch.y[s][i]);
			rows[i] = r;
		}
		return new Dygraph(div, rows, {
			labels: ['t'].concat(ch.labels),
			ylabel: ylabel(ch),
			xlabel: 'seconds since the collection started',
			connectSeparatedPoints: true,
			legend: 'always',
			labelsKMB: false,
			strokeWidth: 1.2,
			colors: ['#1f5fbf', '#d0661a', '#2a9d3a', '#a13ab8',
				 '#b8a01a', '#1aa5b8', '#7a4a2a', '#555555'],
			axes: {
				x: {
					valueFormatter: function (v) {
						return 't = ' + v.toFixed(6) + ' s';
					},
				},
				y: {
					valueFormatter: f,
					axisLabelFormatter: f,
					axisLabelWidth: 72,
				},
			},
			underlayCallback: underlay(st),
		});
	}

	function draw() {
		var data = JSON.parse(
			document.getElementById('ksnap-data').textContent);
		var drawn = 0;

		data.streams.forEach(function (st, si_) {
			var xs = st.x.map(function (t) { return t / 1e9; });
			var group = [];

			st.charts.forEach(function (ch, ci) {
				try {
					group.push(chart(st, si_, ci, xs));
					drawn++;
				} catch (e) {
					fail('chart ' + ch.title, e);
				}
			});
			link(group);
		});
		document.body.setAttribute('data-charts', String(drawn));
	}

	window.addEventListener('error', function (e) {
		fail('script', e.error || e.message);
	});
	try {
		draw();
	} catch (e) {
		fail('the charts', e);
	}
}());
