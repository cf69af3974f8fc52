//! A finding's README.md: what differs, the queries with every engine's
//! answer, and how to replay it.

use std::fmt::Write as _;
use std::path::Path;

use graphlancer_engines::Outcome;
use graphlancer_model::{ResultSet, ScriptDialect, creation_script};

use crate::reduce::ReductionState;

use super::stored::Case;

pub(super) fn readme(case: &Case, dir: &Path) -> String {
    let mut s = format!("# {}\n\n", case.summary);
    let _ = writeln!(s, "Found by the {} oracle. Signature: `{}`.\n", case.oracle.name(), case.signature);
    if let Some(words) = &case.broken {
        let _ = writeln!(s, "**The relation broken ({}):** {words}\n", case.relation);
    }
    if case.reproduced && case.signature.shape.as_deref() == Some(crate::signature::UNNAMED) {
        s.push_str(
            "**Not named:** the campaign's time for reductions was spent before this finding could be put at \
             a clause, so it and every later finding of its kind left unnamed are counted here (`duplicates.tsv`). \
             `graphlancer reduce` on this folder names it; a new campaign with more time names the others.\n\n",
        );
    }
    if !case.reproduced {
        s.push_str(
            "**Not reproduced:** the engine process died or hung once, and the same query ran normally when \
             repeated. Either the fault depends on more than this query (memory, timing, earlier queries) or \
             something outside the engine stopped it. Every such fault of the engine is counted here \
             (`duplicates.tsv`), whatever its query.\n\n",
        );
    }
    if let Some((shown, runs)) = case.replays.filter(|_| case.flaky()) {
        let _ = writeln!(
            s,
            "**Flaky:** the reduced case showed this in {shown} of {runs} replays on a freshly loaded graph; \
             the answers depend on more than the query and the graph (memory layout, timing). `graphlancer \
             replay` tries up to {} times.\n",
            super::stored::FLAKY_TRIES
        );
    }
    s.push_str("| engine | version | outcome |\n|---|---|---|\n");
    for ((e, o), n) in case.engines.iter().zip(&case.outcomes).zip(&case.row_counts) {
        let line = match n {
            Some(n) => rows_word(*n),
            None => outcome_line(o),
        };
        let _ = writeln!(s, "| {} | {} | {line} |", e.spec, e.version);
    }
    let (file, fence) = if case.traversal.is_some() { ("repro.groovy", "groovy") } else { ("repro.cypher", "cypher") };
    let _ = writeln!(
        s,
        "\nThe graph ({} nodes, {} relationships) is created by `{file}`, which ends with the query:\n\n```{fence}\n{}\n```\n",
        case.graph.nodes.len(),
        case.graph.relationships.len(),
        case.query
    );
    if let Some(t) = &case.traversal {
        for e in &case.engines {
            let family = graphlancer_engines::spec::family_of(&e.spec);
            if let Some(d) = graphlancer_gremlin::GremlinDialect::builtin(family)
                && d.name != "tinkerpop"
            {
                let text = graphlancer_gremlin::render(t, d);
                if text != case.query {
                    let _ = writeln!(s, "{} reads it in its own dialect:\n\n```{fence}\n{text}\n```\n", e.spec);
                }
            }
        }
    }
    if let Some(g) = &case.original_graph {
        let _ = writeln!(
            s,
            "The graph is reduced from the generated {} nodes and {} relationships.",
            g.nodes.len(),
            g.relationships.len()
        );
    }
    // A small graph is shown whole: the report is then readable alone.
    if !case.graph.nodes.is_empty() && case.graph.nodes.len() + case.graph.relationships.len() <= 12 {
        let (dialect, end) = if case.traversal.is_some() {
            (ScriptDialect::Gremlin, "")
        } else {
            (case.engines.first().map_or(ScriptDialect::Cypher, |e| e.script), ";")
        };
        let script: Vec<String> = creation_script(&case.graph, dialect).into_iter().map(|l| l + end).collect();
        let _ = writeln!(s, "\n```{fence}\n{}\n```\n", script.join("\n"));
    }
    // Where the graph is small enough to show: the reproducer is then short too.
    let small = case.graph.nodes.len() + case.graph.relationships.len() <= 12;
    if small && case.traversal.is_none() && case.followups.is_empty() {
        for e in &case.engines {
            if let Some(c) = super::own_client(&e.spec, &e.version, e.script, &case.graph, &case.query) {
                let _ = writeln!(s, "In {}'s own client:\n\n```{}\n{}```\n", e.spec, c.language, c.text);
            }
        }
    }
    if let Some(original) = &case.original_query {
        let _ = writeln!(
            s,
            "That is the smallest query graphlancer found that still shows the difference; the campaign generated:\n\n```{fence}\n{original}\n```\n"
        );
    }
    match case.reduction {
        ReductionState::Unfinished => s.push_str(
            "**Reduction unfinished:** it stopped at its limits; `graphlancer reduce` on this folder goes on.\n\n",
        ),
        ReductionState::NotReplayed => s.push_str(
            "**Not reduced:** the smaller cases the reducer found did not show the finding again on a freshly \
             loaded graph (it shows only now and then), so the case is kept as it was before that reduction \
             (in a campaign, as generated); `graphlancer reduce` on this folder tries again.\n\n",
        ),
        ReductionState::Finished => {
            s.push_str("The outcomes below are those of the reduced case, replayed on the reduced graph.\n\n")
        }
        ReductionState::NotTried => {}
    }
    if let Some(keys) = &case.order_columns {
        let _ =
            writeln!(s, "The query orders its rows by columns {keys:?}; rows tying on them may come in any order.\n");
    } else {
        s.push_str("The query fixes no order: rows are compared as a multiset.\n\n");
    }
    let heading = if case.followups.is_empty() { "##" } else { "###" };
    if !case.followups.is_empty() {
        let _ = writeln!(s, "## Query 1 ({})\n", case.role);
    }
    outcomes_section(&mut s, case, &case.outcomes, heading);
    for (k, q) in case.followups.iter().enumerate() {
        let _ = writeln!(s, "## Query {} ({})\n\n```cypher\n{}\n```\n", k + 2, q.query.role, q.query.text);
        for ((e, o), n) in case.engines.iter().zip(&q.outcomes).zip(&q.row_counts) {
            let line = n.map_or_else(|| outcome_line(o), rows_word);
            let _ = writeln!(s, "- {}: {line}", e.spec);
        }
        s.push('\n');
        outcomes_section(&mut s, case, &q.outcomes, "###");
    }
    if let Some(b) = &case.bisection {
        let _ = writeln!(s, "## Releases of {} (in place of {})\n", b.engine, b.replaced);
        match (&b.first_showing, &b.last_not_showing) {
            (Some(first), Some(last)) => {
                let _ = writeln!(s, "First shown by {first}; {last}, the release before, does not show it.");
            }
            (Some(first), None) => {
                let _ = writeln!(s, "Shown by every release tried from the oldest that starts, {first}.");
            }
            _ => s.push_str("No release tried shows it.\n"),
        }
        if let Some(fixed) = &b.fixed_in {
            let _ = writeln!(s, "Gone in {fixed}.");
        }
        let tried: Vec<String> = b
            .tried
            .iter()
            .map(|(v, shown)| {
                let what = if *shown {
                    "shows it"
                } else if b.cannot_start.contains(v) {
                    "does not start"
                } else {
                    "does not"
                };
                format!("{v} {what}")
            })
            .collect();
        let _ = writeln!(s, "\nTried: {}.\n", tried.join(", "));
    }
    let _ = writeln!(s, "Replay: `graphlancer replay {}`", dir.display());
    s
}

/// Each engine's outcome on one query, under headings of level `heading`.
fn outcomes_section(s: &mut String, case: &Case, outcomes: &[Outcome], heading: &str) {
    for (e, o) in case.engines.iter().zip(outcomes) {
        let _ = writeln!(s, "{heading} {}\n", e.spec);
        s.push_str(&answer(o));
        s.push('\n');
    }
    let names: Vec<&str> = case.engines.iter().map(|e| e.spec.as_str()).collect();
    if let Some(d) = super::differs::section(&names, outcomes, table) {
        let _ = writeln!(s, "{heading} What differs\n\n{d}");
    }
}

/// One outcome in Markdown: its rows as a table, or what went wrong.
pub fn answer(o: &Outcome) -> String {
    match o {
        Outcome::Rows(r) if !r.columns.is_empty() && r.rows.iter().all(Vec::is_empty) && !r.rows.is_empty() => {
            format!("{} rows (values not kept: the crash oracle does not compare them)\n", r.rows.len())
        }
        Outcome::Rows(r) => table(r),
        other => format!("```\n{}\n```\n", outcome_detail(other)),
    }
}

/// "1 row", "3 rows".
fn rows_word(n: usize) -> String {
    if n == 1 { "1 row".into() } else { format!("{n} rows") }
}

fn outcome_line(o: &Outcome) -> String {
    match o {
        Outcome::Rows(r) => rows_word(r.rows.len()),
        Outcome::Error { class, .. } => format!("{} error", class.name()),
        Outcome::Crash { .. } => "crash".into(),
        Outcome::Timeout { after_ms } => format!("timeout after {after_ms} ms"),
        Outcome::TooLarge { max_rows } => format!("more than {max_rows} rows"),
        Outcome::Undecodable { .. } => "answer graphlancer could not read".into(),
        Outcome::Open { .. } => "no answer (open)".into(),
    }
}

fn outcome_detail(o: &Outcome) -> String {
    match o {
        Outcome::Error { class, message } => format!("{} error: {message}", class.name()),
        Outcome::Crash { message } => format!("crash: {message}"),
        Outcome::Undecodable { message } => format!("graphlancer could not read the answer: {message}"),
        Outcome::Open { reason } => format!("no answer: {reason}"),
        other => outcome_line(other),
    }
}

/// A result as a Markdown table, at most 30 rows (of those stored).
pub(super) fn table(r: &ResultSet) -> String {
    const MAX: usize = 30;
    let cell = |v: &graphlancer_model::Value| v.to_string().replace('|', "\\|");
    let mut s = format!("| {} |\n|{}\n", r.columns.join(" | "), "---|".repeat(r.columns.len().max(1)));
    let mut rows: Vec<String> =
        r.rows.iter().map(|row| format!("| {} |", row.iter().map(cell).collect::<Vec<_>>().join(" | "))).collect();
    rows.sort();
    for line in rows.iter().take(MAX) {
        s.push_str(line);
        s.push('\n');
    }
    if rows.len() > MAX {
        let _ = writeln!(s, "\n… {} more rows (in case.json)", rows.len() - MAX);
    }
    let _ = writeln!(s, "\n{} (sorted here for reading)", rows_word(r.rows.len()));
    s
}

/// The graph's creation script and the query, ready for the engine's shell.
pub fn repro(case: &Case, dialect: ScriptDialect) -> String {
    let mut s = format!("// graphlancer finding: {}\n", case.summary);
    for e in &case.engines {
        let _ = writeln!(s, "// engine: {} {}", e.spec, e.version);
    }
    let _ = writeln!(s, "// seed {} graph {} case {}\n", case.seed, case.graph_index, case.case_index);
    let end = if dialect == ScriptDialect::Gremlin { "" } else { ";" };
    for statement in creation_script(&case.graph, dialect) {
        let _ = writeln!(s, "{statement}{end}\n");
    }
    let _ = writeln!(s, "{}{end}", case.query);
    for q in &case.followups {
        let _ = writeln!(s, "\n// {} ({})\n{};", q.query.role, case.relation, q.query.text);
    }
    s
}
