//! `graphlancer report OUT`: one self-contained HTML page about a campaign
//! (`OUT/report.html`), its plots drawn as inline SVG, readable offline.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use graphlancer_engines::Outcome;
use graphlancer_oracles::Summary;
use graphlancer_oracles::report::read_case;
use plotters::prelude::*;

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;\
vertical-align:top}pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;word-break:break-all}\
.plots{display:flex;flex-wrap:wrap;gap:1em}.side{display:flex;gap:1em}.side>div{flex:1;min-width:0}\
h3{margin-bottom:.2em}";

/// Seconds over which the queries-per-second plot averages.
const RATE_WINDOW: f64 = 10.0;

/// Writes `OUT/report.html` from `OUT/summary.json` and the findings it names.
pub(crate) fn write(out: &Path) -> Result<std::path::PathBuf> {
    let path = out.join("summary.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{} is not a campaign folder (no readable summary.json)", out.display()))?;
    let s: Summary = serde_json::from_str(&text).with_context(|| format!("{} is damaged", path.display()))?;
    write_page(out, &s)
}

/// Writes `OUT/report.html` for the campaign of summary `s`, whose findings are in `out`.
pub(crate) fn write_page(out: &Path, s: &Summary) -> Result<std::path::PathBuf> {
    let mut h = String::new();
    let engines: Vec<String> = s.engines.iter().map(|e| format!("{} {}", e.spec, e.version)).collect();
    let _ = write!(
        h,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>graphlancer campaign: {}</title><style>{STYLE}</style></head><body>",
        esc(&engines.join(" vs "))
    );
    let _ = write!(h, "<h1>graphlancer campaign</h1><table>");
    let rows = [
        ("engines", engines.join(", ")),
        ("oracles", s.oracles.join(", ")),
        ("seed", s.seed.to_string()),
        (
            "queries",
            format!(
                "{} generated, {} derived by oracles, on {} graphs, in {:.1} s ({:.1} queries/s, {} worker{})",
                s.queries,
                s.followup_queries,
                s.graphs,
                s.seconds,
                s.queries_per_second,
                s.workers.max(1),
                if s.workers > 1 { "s" } else { "" }
            ),
        ),
        (
            "findings",
            format!(
                "{} reports, {} duplicates counted in them, {} flaky dropped, {} crashes or hangs not reproduced",
                s.findings_new, s.findings_duplicate, s.flaky, s.unreproduced_faults
            ),
        ),
        ("coverage", format!("{} of {} enabled productions used", s.features_used, s.features_enabled)),
    ];
    for (k, v) in rows.iter().chain(s.interrupted.as_ref().map(|sig| ("stopped", format!("by {sig}"))).iter()) {
        let _ = write!(h, "<tr><th>{k}</th><td>{}</td></tr>", esc(v));
    }
    h.push_str("</table>");

    h.push_str("<h2>Over time</h2><div class=\"plots\">");
    // Over the last ten seconds at each sample: per second, reductions
    // (which run no generated queries) would make it jump between 0 and peaks.
    // The window's start only moves forward: one pass over the timeline.
    let mut start = 0;
    let rate: Vec<(f64, f64)> = s
        .timeline
        .iter()
        .filter_map(|now| {
            while s.timeline[start].seconds < now.seconds - RATE_WINDOW {
                start += 1;
            }
            let then = &s.timeline[start];
            (now.seconds > then.seconds)
                .then(|| (now.seconds, now.queries.saturating_sub(then.queries) as f64 / (now.seconds - then.seconds)))
        })
        .collect();
    h.push_str(&line_plot("Queries per second (over 10 s)", "seconds", "queries a second", &[("", rate)], false)?);
    // New findings are reports; duplicates are repeats of one: two lines.
    let new: Vec<(f64, f64)> = s.timeline.iter().map(|t| (t.seconds, t.new as f64)).collect();
    let repeats: Vec<(f64, f64)> =
        s.timeline.iter().map(|t| (t.seconds, t.findings.saturating_sub(t.new) as f64)).collect();
    h.push_str(&line_plot("Findings so far", "seconds", "findings", &[("new", new), ("duplicate", repeats)], true)?);
    let non_empty: Vec<(f64, f64)> = s
        .non_empty_by_length
        .iter()
        .map(|(len, (n, ne))| (*len as f64, 100.0 * *ne as f64 / (*n).max(1) as f64))
        .collect();
    h.push_str(&line_plot("Non-empty answers by clauses", "clauses", "non-empty (%)", &[("", non_empty)], false)?);
    h.push_str("</div>");

    h.push_str("<h2>Where the time went</h2><table><tr><th>part</th><th>seconds</th><th>share</th></tr>");
    let all = s.worker_seconds();
    for (name, secs) in s.time.parts() {
        let _ = write!(h, "<tr><td>{name}</td><td>{secs:.1}</td><td>{:.1}%</td></tr>", 100.0 * secs / all);
    }
    h.push_str("</table>");

    h.push_str("<h2>Engines</h2><table><tr><th>engine</th><th>accepted</th><th>non-empty</th><th>rejected by class</th><th>timeouts</th><th>crashes</th><th>restores</th><th>restarts</th><th>seconds</th></tr>");
    for e in &s.engines {
        let rejected: Vec<String> = e.rejected.iter().map(|(c, n)| format!("{c} {n}")).collect();
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td></tr>",
            esc(&e.spec),
            e.accepted,
            e.non_empty,
            esc(&rejected.join(", ")),
            e.timeouts,
            e.crashes,
            e.restores,
            e.restarts,
            e.engine_seconds
        );
    }
    h.push_str("</table><h3>Errors by message</h3><table><tr><th>engine</th><th>count</th><th>message</th><th>first query</th></tr>");
    for e in &s.engines {
        let mut errors: Vec<_> = e.errors.iter().collect();
        errors.sort_by_key(|e| std::cmp::Reverse(e.1.count));
        for (message, sample) in errors.iter().take(15) {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
                esc(&e.spec),
                sample.count,
                esc(message),
                esc(&sample.query)
            );
        }
    }
    h.push_str("</table>");

    h.push_str("<h2>Oracles</h2><table><tr><th>relation</th><th>cases run</th><th>findings</th><th>skipped</th></tr>");
    for (name, r) in &s.relations {
        let skipped: Vec<String> = r.skipped.iter().map(|(why, n)| format!("{why}: {n}")).collect();
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(name),
            r.run,
            r.findings,
            esc(&skipped.join(", "))
        );
    }
    h.push_str("</table>");

    let _ = write!(h, "<h2>Findings ({})</h2>", s.findings.len());
    // The ledger says the same bugs once each, across campaigns; where one
    // was written here, the page points to it.
    if out.join("BUGS.md").is_file() {
        h.push_str(
            "<p>One entry per root cause, with reproducers in each engine's own client: \
                    <a href=\"BUGS.md\">BUGS.md</a> (<code>graphlancer bugs</code>).</p>",
        );
    } else {
        h.push_str(
            "<p><code>graphlancer bugs OUT</code> writes one entry per root cause, with \
                    reproducers in each engine's own client, to BUGS.md.</p>",
        );
    }
    // Folders by name under OUT/findings: the paths in summary.json are as
    // the campaign was given them, from wherever it ran.
    let mut names: Vec<String> = s
        .findings
        .values()
        .filter_map(|d| Path::new(d).file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names.dedup();
    let mut skipped: Vec<(String, String)> = Vec::new();
    for name in names {
        let dir = out.join("findings").join(&name);
        // One damaged or deleted folder costs its own entry, not the page.
        let case = match read_case(&dir.join("case.json")) {
            Ok(case) => case,
            Err(e) => {
                skipped.push((name, e.to_string()));
                continue;
            }
        };
        let link = Path::new("findings").join(&name).join("README.md");
        let _ = write!(
            h,
            "<h3><a href=\"{}\">{}</a>: {}</h3><p>graph of {} entities · replay: <code>graphlancer replay {}</code></p>",
            esc(&link.display().to_string()),
            esc(&name),
            esc(&case.summary),
            case.graph.nodes.len() + case.graph.relationships.len(),
            esc(&dir.display().to_string()),
        );
        // Every query of a group with its answers: the relation is between them.
        let first = (case.role.as_str(), case.query.as_str(), &case.outcomes, &case.row_counts);
        let rest =
            case.followups.iter().map(|q| (q.query.role.as_str(), q.query.text.as_str(), &q.outcomes, &q.row_counts));
        let group = !case.followups.is_empty();
        for (role, text, outcomes, counts) in std::iter::once(first).chain(rest) {
            if group {
                let _ = write!(h, "<p><b>{}</b></p>", esc(role));
            }
            let _ = write!(h, "<pre>{}</pre><div class=\"side\">", esc(text));
            for (i, (engine, outcome)) in case.engines.iter().zip(outcomes).enumerate() {
                let total = counts.get(i).copied().flatten();
                let _ = write!(h, "<div><b>{}</b>{}</div>", esc(&engine.spec), answer(outcome, total));
            }
            h.push_str("</div>");
        }
    }
    if !skipped.is_empty() {
        let _ = write!(h, "<h2>Findings that could not be read ({})</h2><ul>", skipped.len());
        for (name, why) in &skipped {
            let _ = write!(h, "<li><b>{}</b>: {}</li>", esc(name), esc(why));
            eprintln!("report: skipped {name}: {why}");
        }
        h.push_str("</ul>");
    }
    h.push_str("</body></html>\n");
    let page = out.join("report.html");
    std::fs::write(&page, h).with_context(|| format!("cannot write {}", page.display()))?;
    Ok(page)
}

/// An engine's answer as HTML: a table of its first rows (saying how many
/// more there are), or what went wrong in words. `total` is the row count
/// before the stored answer was cut.
fn answer(o: &Outcome, total: Option<usize>) -> String {
    const ROWS: usize = 12;
    match o {
        Outcome::Rows(r) => {
            let total = total.unwrap_or(r.rows.len()).max(r.rows.len());
            let mut t = format!("<p>{total} {}</p><table><tr>", if total == 1 { "row" } else { "rows" });
            for c in &r.columns {
                let _ = write!(t, "<th>{}</th>", esc(c));
            }
            t.push_str("</tr>");
            for row in r.rows.iter().take(ROWS) {
                t.push_str("<tr>");
                for v in row {
                    let _ = write!(t, "<td>{}</td>", esc(&v.to_string()));
                }
                t.push_str("</tr>");
            }
            t.push_str("</table>");
            let shown = r.rows.len().min(ROWS);
            if total > shown {
                let _ = write!(t, "<p>… {} more rows</p>", total - shown);
            }
            t
        }
        other => format!("<pre>{}</pre>", esc(&crate::common::describe(other))),
    }
}

/// A line plot as inline SVG; an empty series draws an empty frame.
/// A plot of one or more named lines (a legend where they have names);
/// `counts` draws the y axis in whole numbers.
fn line_plot(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(&str, Vec<(f64, f64)>)],
    counts: bool,
) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (520, 300)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let all = || series.iter().flat_map(|(_, p)| p.iter());
        let x_max = all().map(|p| p.0).fold(1.0, f64::max);
        let top = all().map(|p| p.1).fold(1.0, f64::max) * 1.1;
        let y_max = if counts { top.ceil() } else { top };
        let x_min = all().map(|p| p.0).fold(x_max, f64::min).min(0.0);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(x_min..x_max, 0.0..y_max)
            .map_err(plot_error)?;
        let whole = |v: &f64| format!("{v:.0}");
        let mut mesh = chart.configure_mesh();
        // Seconds and clause counts read as whole numbers, one tick each at most.
        mesh.x_desc(x_label)
            .y_desc(y_label)
            .x_labels(((x_max - x_min).ceil() as usize).clamp(1, 10) + 1)
            .x_label_formatter(&whole);
        if counts {
            // At most one tick per whole number, so no label repeats.
            mesh.y_labels((y_max as usize).clamp(1, 10) + 1).y_label_formatter(&whole);
        }
        mesh.draw().map_err(plot_error)?;
        let colors = [BLUE, RED, GREEN];
        for ((name, points), color) in series.iter().zip(colors.iter().cycle()) {
            let drawn = chart.draw_series(LineSeries::new(points.iter().copied(), color)).map_err(plot_error)?;
            if !name.is_empty() {
                let color = *color;
                drawn.label(*name).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            }
        }
        if series.iter().any(|(name, _)| !name.is_empty()) {
            chart.configure_series_labels().border_style(BLACK).background_style(WHITE).draw().map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

fn plot_error<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("cannot draw a plot: {e:?}")
}

/// Text made safe inside HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
