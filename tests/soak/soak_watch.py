"""What the soak records while it runs (a row per instance and a row per route each interval),
the slopes it fits afterwards, and the plot it draws."""

import csv
import os
import subprocess

ROUTES_PLOTTED = ("user", "order_get", "create", "preview", "download", "openai_speech")


def proc_figures(pid):
    """RSS in MiB, open descriptors and how many of them are sockets, of one process."""
    rss = 0.0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024.0
    fds = sockets = 0
    for name in os.listdir(f"/proc/{pid}/fd"):
        fds += 1
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                sockets += 1
        except OSError:
            pass  # closed between the listing and the read
    return rss, fds, sockets


def percentile(sorted_values, q):
    if not sorted_values:
        return 0.0
    i = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[i]


class Recorder:
    """The CSV files of one run, written as the run goes (a run cut short keeps its figures)."""

    def __init__(self, out):
        os.makedirs(out, exist_ok=True)
        self.out = out
        self.res = open(os.path.join(out, "resources.csv"), "w", newline="")
        self.lat = open(os.path.join(out, "latency.csv"), "w", newline="")
        self.res_w = csv.writer(self.res)
        self.lat_w = csv.writer(self.lat)
        self.res_w.writerow(["minute", "instance", "rss_mib", "fds", "sockets", "pg_backends", "queue_depth",
                             "outbox_pending", "requests", "server_errors", "unexpected"])
        self.lat_w.writerow(["minute", "route", "count", "p50_ms", "p99_ms", "p999_ms", "unexpected"])
        self.work = open(os.path.join(out, "work.csv"), "w", newline="")
        self.work_w = csv.writer(self.work)
        self.work_w.writerow(["minute", "queued_chunks", "outbox_pending", "pg_backends", "requests_per_s"])
        self.last = (0.0, 0)
        self.rows = []        # (minute, instance, rss, fds, sockets)
        self.p99 = []         # (minute, {route: p99})

    def sample(self, minute, servers, db, interval, stats, expected):
        queue, outbox, backends = db
        for i, pid in enumerate(servers):
            rss, fds, sockets = proc_figures(pid)
            self.rows.append((minute, i, rss, fds, sockets))
            self.res_w.writerow([f"{minute:.2f}", i, f"{rss:.1f}", fds, sockets, backends, queue, outbox,
                                 stats.requests, stats.server_errors, stats.unexpected_count])
        rate = (stats.requests - self.last[1]) / max(1e-9, (minute - self.last[0]) * 60.0)
        self.last = (minute, stats.requests)
        self.work_w.writerow([f"{minute:.2f}", queue, outbox, backends, f"{rate:.1f}"])
        p99 = {}
        for route, values in sorted(interval.items()):
            lat = sorted(v for v, _ in values)
            bad = sum(1 for _, s in values if s is None or s not in expected[route][1])
            p99[route] = percentile(lat, 0.99)
            self.lat_w.writerow([f"{minute:.2f}", route, len(lat), f"{percentile(lat, 0.5):.1f}",
                                 f"{p99[route]:.1f}", f"{percentile(lat, 0.999):.1f}", bad])
        self.p99.append((minute, p99))
        for f in (self.res, self.lat, self.work):
            f.flush()

    def close(self):
        for f in (self.res, self.lat, self.work):
            f.close()
        with open(os.path.join(self.out, "p99.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["minute", *ROUTES_PLOTTED])
            for minute, p99 in self.p99:
                w.writerow([f"{minute:.2f}", *(f"{p99.get(r, 0.0):.1f}" for r in ROUTES_PLOTTED)])
        with open(os.path.join(self.out, "instances.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["minute", "rss_a", "rss_b", "fds_a", "fds_b"])
            by_minute = {}
            for minute, i, rss, fds, _ in self.rows:
                by_minute.setdefault(minute, {})[i] = (rss, fds)
            for minute, both in sorted(by_minute.items()):
                if len(both) == 2:
                    w.writerow([f"{minute:.2f}", f"{both[0][0]:.1f}", f"{both[1][0]:.1f}", both[0][1], both[1][1]])


def fit(points):
    """Least-squares slope and intercept of (x, y) points."""
    n = len(points)
    if n < 2:
        return 0.0, points[0][1] if points else 0.0
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return 0.0, my
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return slope, my - slope * mx


def floor(values, reach=1):
    """Each value replaced by the least within `reach` samples either side: the lower envelope."""
    return [min(values[max(0, j - reach):j + reach + 1]) for j in range(len(values))]


def drift(rows, warmup_minutes):
    """Per instance: the fitted RSS slope (MiB per hour) and fd slope (per hour) after the warm-up,
    and the rise the fit gives over the measured span beside the level at its start. Descriptors
    are fitted on their lower envelope (floor): a leak raises the floor, while a moment with many
    requests in flight (a slow machine's queue, one sample) raises only a peak. A 2-minute run on a
    loaded machine failed on such a peak: 99 descriptors at 1.8 min against 67 to 79 before, and 67
    once the load stopped."""
    out = []
    for i in sorted({r[1] for r in rows}):
        mine = [r for r in rows if r[1] == i and r[0] >= warmup_minutes]
        if len(mine) < 2:
            mine = [r for r in rows if r[1] == i]
        span = mine[-1][0] - mine[0][0]
        rss_slope, rss_at0 = fit([(r[0], r[2]) for r in mine])
        fd_slope, fd_at0 = fit(list(zip([r[0] for r in mine], floor([r[3] for r in mine]))))
        start = mine[0][0]
        out.append({"instance": i, "span_min": span,
                    "rss_start": rss_at0 + rss_slope * start, "rss_slope_mib_h": rss_slope * 60,
                    "rss_rise": rss_slope * span, "fd_start": fd_at0 + fd_slope * start,
                    "fd_slope_h": fd_slope * 60, "fd_rise": fd_slope * span})
    return out


PLOT = """
set terminal pngcairo size 1400,1000 font ",10"
set output '{out}/soak.png'
set datafile separator ','
set datafile columnheaders
set termoption noenhanced
set key top left
set grid
set multiplot layout 2,2 title 'mediagen soak: {title}'
set title 'RSS per instance (MiB)'
set xlabel 'minute'
plot '{out}/instances.csv' using 1:2 with lines title 'instance A', '' using 1:3 with lines title 'instance B'
set title 'open descriptors per instance'
plot '{out}/instances.csv' using 1:4 with lines title 'instance A', '' using 1:5 with lines title 'instance B'
set title 'p99 per route (ms, from the scheduled start)'
set logscale y
plot for [c=2:7] '{out}/p99.csv' using 1:c with lines title columnheader(c)
unset logscale y
set title 'work waiting, PostgreSQL backends, and requests answered per second'
set y2tics
plot '{out}/work.csv' using 1:2 with lines title 'queued chunks', '' using 1:3 with lines title 'outbox pending', \\
     '' using 1:4 with lines title 'PostgreSQL backends', '' using 1:5 axes x1y2 with lines title 'requests/s (right)'
unset multiplot
"""


def plot(out, title, gnuplot):
    script = PLOT.format(out=out, title=title)
    p = subprocess.run([gnuplot], input=script, capture_output=True, text=True, timeout=120)
    if p.returncode != 0 or not os.path.exists(os.path.join(out, "soak.png")):
        raise RuntimeError(f"gnuplot failed: {p.stderr[-1000:]}")
