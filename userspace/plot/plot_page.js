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

	/*
	 * Decimals that write @step exactly (to 20 places): ticks that far
	 * apart, written with that many, never read alike.
	 */
	function decimals(step) {
		var k;

		if (!(step > 0) || !isFinite(step))
			return 0;
		for (k = 0; k < 20; k++) {
			var x = step * Math.pow(10, k);

			if (x >= 0.999999 && Math.abs(x - Math.round(x)) <= 1e-6 * x)
				return k;
		}
		return 20;
	}

	/* The divisor and name of the prefix for magnitude @a. */
	function prefix(a, base, names) {
		var i = 0, d = 1;

		while (a >= base * d && i < names.length - 1) {
			d *= base;
			i++;
		}
		return { d: d, name: names[i] };
	}

	/*
	 * How a chart's values read: its unit, and per second if a rate.
	 * With @scale ({max, step}: the axis' largest magnitude and its
	 * tick step) every label shares one prefix and has the decimals the
	 * step needs, so that ticks never read alike; without it, a value
	 * reads on its own (the legend).
	 */
	function formatter(ch, scale) {
		var per = ch.rate ? '/s' : '';

		function scaled(v, base, names, sep, own) {
			var x = prefix(scale ? scale.max : Math.abs(v), base,
				       names);

			return (scale ? (v / x.d).toFixed(decimals(scale.step / x.d)) :
				num(v / x.d, own)) + sep + x.name;
		}
		switch (ch.unit) {
		case 'bytes':
			return function (v) {
				return scaled(v, 1024, ['B', 'KiB', 'MiB', 'GiB',
					      'TiB', 'PiB', 'EiB'], ' ', 3) + per;
			};
		case 'ns':
			if (ch.rate)	/* ns per s: a share of the time */
				return function (v) {
					return (scale ? (v / 1e7).toFixed(
						decimals(scale.step / 1e7)) :
						num(v / 1e7, 3)) + '%';
				};
			if (!scale)
				return duration;
			return function (v) {
				return scaled(v, 1000, ['ns', '\u00b5s', 'ms',
					      's'], ' ', 4);
			};
		case 'pages':
			return function (v) {
				return scaled(v, 1000, ['', 'k', 'M', 'G', 'T',
					      'P', 'E'], '', 4) + ' pages' + per;
			};
		default:
			return function (v) {
				return scaled(v, 1000, ['', 'k', 'M', 'G', 'T',
					      'P', 'E'], '', 4) + per;
			};
		}
	}

	/* dygraphs' own ticks, labelled by formatter() with the step. */
	function ticker(ch) {
		return function (min, max, pixels, opts, g, vals) {
			var ticks = Dygraph.numericTicks(min, max, pixels, opts,
							 g, vals);
			var step = Infinity, i, f;

			for (i = 1; i < ticks.length; i++)
				step = Math.min(step,
						Math.abs(ticks[i].v - ticks[i - 1].v));
			f = formatter(ch, {
				max: Math.max(Math.abs(min), Math.abs(max)),
				step: step,
			});
			ticks.forEach(function (t) {
				t.label = f(t.v);
			});
			return ticks;
		};
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

			/* "gap": the series has no column in that
			 * stream; NaN breaks its line (null would be
			 * connected over). */
			for (s = 0; s < ch.y.length; s++)
				r.push(ch.y[s][i] === 'gap' ? NaN : ch.y[s][i]);
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
					ticker: ticker(ch),
					axisLabelWidth: 80,
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
