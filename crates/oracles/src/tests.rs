//! The campaign loop, the reducer and the report store against a small fake
//! engine, whose answers the tests choose. What the oracles make of real
//! engines is tested against them in the CLI's integration tests.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use graphlancer_cypher::{DialectProfile, GeneratorConfig, Preset};
use graphlancer_engines::{Engine, EngineError, ErrorClass, ExecOptions, Outcome};
use graphlancer_model::{Graph, GraphConfig, ResultSet, Value};

use crate::campaign::{Budget, Campaign, CampaignConfig, Summary};
use crate::oracle::OracleKind;
use crate::report::{ReductionState, ReportStore, read_case};

type Answer = dyn FnMut(&str) -> Outcome + Send;

/// The schema of seed 0 with the default configuration, for tests that
/// need one and do not care which.
pub(crate) fn schema() -> graphlancer_model::Schema {
    graphlancer_model::Schema::generate(
        &graphlancer_model::SchemaConfig::default(),
        &mut graphlancer_model::derive_rng(0, &[0]),
    )
}

/// An engine that answers with a closure and remembers what it was sent.
struct Fake {
    name: String,
    answer: Box<Answer>,
    sent: Arc<Mutex<Vec<String>>>,
    /// The graph loaded last, for answers that depend on it.
    loaded: Arc<Mutex<Option<Graph>>>,
}

impl Fake {
    fn new(name: &str, answer: impl FnMut(&str) -> Outcome + Send + 'static) -> (Self, Arc<Mutex<Vec<String>>>) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let loaded = Arc::new(Mutex::new(None));
        (Self { name: name.into(), answer: Box::new(answer), sent: sent.clone(), loaded }, sent)
    }

    /// A fake whose answer reads the graph loaded last.
    fn on_graph(name: &str, mut answer: impl FnMut(&str, &Graph) -> Outcome + Send + 'static) -> Self {
        let loaded: Arc<Mutex<Option<Graph>>> = Arc::new(Mutex::new(None));
        let seen = loaded.clone();
        let (mut fake, _) = Fake::new(name, move |q| {
            answer(q, seen.lock().expect("not poisoned").as_ref().expect("a graph is loaded"))
        });
        fake.loaded = loaded;
        fake
    }
}

impl Engine for Fake {
    fn name(&self) -> &str {
        &self.name
    }
    fn version(&self) -> &str {
        "0"
    }
    fn dialect(&self) -> &'static str {
        "neo4j5"
    }
    fn load(&mut self, graph: &Graph) -> Result<(), EngineError> {
        *self.loaded.lock().expect("not poisoned") = Some(graph.clone());
        Ok(())
    }
    fn execute(&mut self, query: &str, opts: &ExecOptions) -> Result<Outcome, EngineError> {
        self.sent.lock().expect("not poisoned").push(query.to_owned());
        // `slow` in the name: every query takes a little more than the
        // default timeout (simulated: a longer timeout gets an answer late).
        // `stuck` in the name: no query ever finishes.
        // `hang` in the name: a query with UNWIND never finishes; the others
        // are slow as above.
        if self.name.starts_with("stuck") || (self.name.starts_with("hang") && query.contains("UNWIND")) {
            return Ok(Outcome::Timeout { after_ms: 5 });
        }
        if self.name.starts_with("slow") || self.name.starts_with("hang") {
            if opts.timeout < std::time::Duration::from_millis(10) {
                return Ok(Outcome::Timeout { after_ms: 5 });
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Ok((self.answer)(query))
    }
}

fn one_row() -> Outcome {
    Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![Value::Int(1)]]))
}

fn config(out: &std::path::Path, oracles: Vec<OracleKind>, queries: u64) -> CampaignConfig {
    CampaignConfig {
        seed: 1,
        oracles,
        weights: BTreeMap::new(),
        relations: BTreeMap::new(),
        budget: Budget::Queries(queries),
        queries_per_graph: 50,
        graph: GraphConfig { nodes: 8, relationships: 12, ..GraphConfig::default() },
        generator: GeneratorConfig::preset(Preset::Differential),
        mutations: true,
        frequencies: true,
        pool_clauses: (3, 8),
        exec: ExecOptions::default(),
        out: out.to_owned(),
        reduce: true,
        reduction: crate::reduce::Limits::default(),
        record: false,
        plans: crate::campaign::PlanUse::Off,
        part: crate::campaign::Part::default(),
    }
}

fn run(engines: Vec<Box<dyn Engine>>, config: CampaignConfig) -> Summary {
    let profile = DialectProfile::built_in("neo4j5").expect("built in");
    Campaign::new(engines, profile, config).expect("campaign").run(&mut crate::campaign::Quiet).expect("runs")
}

#[test]
fn an_engine_that_always_agrees_with_itself_has_no_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Every query answers the same empty bag: every relation holds.
    let (fake, sent) = Fake::new("fake", |_| Outcome::Rows(ResultSet::new(vec!["x".into()], Vec::new())));
    let s = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::CRASH, OracleKind::REWRITE], 60));
    assert_eq!(s.queries, 60);
    assert_eq!(s.findings_new + s.findings_duplicate, 0, "{:?}", s.findings);
    assert_eq!(sent.lock().expect("not poisoned").len() as u64, s.queries + s.followup_queries);
    assert!(s.followup_queries > 0, "the rewrite oracle ran queries of its own");
}

#[test]
fn answers_graphlancer_cannot_read_are_counted_and_never_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, _) = Fake::new("a", |_| one_row());
    let (b, _) = Fake::new("b", |_| Outcome::Undecodable { message: "a point value".into() });
    let oracles = vec![OracleKind::CRASH, OracleKind::DIFFERENTIAL];
    let s = run(vec![Box::new(a), Box::new(b)], config(dir.path(), oracles, 30));
    assert_eq!(s.findings_new + s.findings_duplicate, 0, "{:?}", s.findings);
    assert_eq!(s.harness_faults, 30);
    assert_eq!(s.engines[1].undecodable, 30);
    assert!(s.engines[1].errors.keys().any(|k| k.starts_with("undecodable: a point value")));
}

#[test]
fn crashes_are_confirmed_reduced_deduplicated_and_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let crash_on = |q: &str| q.contains("UNWIND");
    let (fake, _) =
        Fake::new("fake", move |q| if crash_on(q) { Outcome::Crash { message: "segfault".into() } } else { one_row() });
    let s = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::CRASH], 80));
    assert!(s.findings_new >= 1, "{s:?}");
    let store = ReportStore::open(dir.path()).expect("opens");
    let mut reduced = 0;
    for (signature, folder) in store.findings() {
        assert_eq!(signature.oracle, OracleKind::CRASH);
        let case = read_case(&folder.join("case.json")).expect("case.json");
        assert!(case.query.contains("UNWIND"), "the reduced query keeps what crashes: {}", case.query);
        if let Some(original) = &case.original_query {
            assert!(case.query.len() < original.len());
            reduced += 1;
        }
        assert!(case.reproduced);
    }
    assert!(reduced > 0, "no finding was reduced");
    // Seen again, a known signature only raises the count.
    let (fake, _) =
        Fake::new("fake", move |q| if crash_on(q) { Outcome::Crash { message: "segfault".into() } } else { one_row() });
    let again = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::CRASH], 80));
    assert_eq!(again.findings_new, 0);
    assert_eq!(again.findings_duplicate, s.findings_new + s.findings_duplicate);
    // Each duplicate is listed with where it was generated.
    let listed: usize = store
        .findings()
        .values()
        .map(|f| std::fs::read_to_string(f.join("duplicates.tsv")).unwrap_or_default().lines().count())
        .sum();
    assert_eq!(listed as u64, s.findings_duplicate + again.findings_duplicate);
    let line = store
        .findings()
        .values()
        .find_map(|f| std::fs::read_to_string(f.join("duplicates.tsv")).ok())
        .expect("a duplicate list");
    assert!(line.starts_with("1\t"), "seed first: {line}");
    assert!(line.lines().next().is_some_and(|l| l.ends_with(":crash") || l.contains(":crash:")), "{line}");
}

#[test]
fn a_finding_whose_name_has_a_report_is_counted_without_a_reduction() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (fake, _) =
        Fake::new(
            "fake",
            |q| {
                if q.contains("UNWIND") { Outcome::Crash { message: "segfault".into() } } else { one_row() }
            },
        );
    let s = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::CRASH], 80));
    assert!(s.findings_duplicate > 0, "{s:?}");
    // Named by its crash site before reduction, each cause is reduced once.
    assert_eq!(s.reduction_seconds.len() as u64, s.findings_new, "{:?}", s.findings);
    assert!(s.time.naming > 0.0);
}

#[test]
fn a_crash_that_does_not_repeat_is_kept_and_marked_and_other_flukes_are_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut seen = std::collections::BTreeSet::new();
    // Every query crashes the first time it is sent and never again.
    let (fake, _) = Fake::new("fake", move |q| {
        if seen.insert(q.to_owned()) { Outcome::Crash { message: "once".into() } } else { one_row() }
    });
    let s = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::CRASH], 5));
    assert!(s.unreproduced_faults >= 1);
    let store = ReportStore::open(dir.path()).expect("opens");
    let (_, folder) = store.findings().iter().next().expect("kept");
    assert!(!read_case(&folder.join("case.json")).expect("case").reproduced);

    let dir = tempfile::tempdir().expect("tempdir");
    let mut seen = std::collections::BTreeSet::new();
    let (fake, _) = Fake::new("fake", move |q| {
        if seen.insert(q.to_owned()) {
            Outcome::Error { class: ErrorClass::Syntax, message: "once".into() }
        } else {
            one_row()
        }
    });
    let s = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::ERROR], 5));
    assert_eq!((s.flaky, s.findings_new), (5, 0));
}

#[test]
fn the_report_store_skips_unfinished_folders_and_refuses_damaged_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let crash = |q: &str| if q.contains("MATCH") { Outcome::Crash { message: "x".into() } } else { one_row() };
    let (fake, _) = Fake::new("fake", crash);
    let s = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::CRASH], 20));
    assert!(s.findings_new >= 1);
    // A campaign killed while writing leaves a folder without case.json.
    let half = dir.path().join("findings").join("0099-crash");
    std::fs::create_dir_all(&half).expect("mkdir");
    std::fs::write(half.join("README.md"), "half").expect("write");
    let store = ReportStore::open(dir.path()).expect("an unfinished folder does not stop a campaign");
    assert_eq!(store.unfinished(), std::slice::from_ref(&half));
    let (fake, _) = Fake::new("fake", crash);
    let s = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::CRASH], 20));
    assert_eq!(s.unfinished_reports, vec![half.display().to_string()]);
    // A count that does not parse is an error, not a silent reset to 1.
    let (_, folder) = ReportStore::open(dir.path())
        .expect("opens")
        .findings()
        .iter()
        .next()
        .map(|(s, f)| (s.clone(), f.clone()))
        .expect("one");
    std::fs::write(folder.join("occurrences"), "many").expect("write");
    let (fake, _) = Fake::new("fake", crash);
    let profile = DialectProfile::built_in("neo4j5").expect("built in");
    let err = Campaign::new(vec![Box::new(fake)], profile, config(dir.path(), vec![OracleKind::CRASH], 20))
        .expect("opens")
        .run(&mut crate::campaign::Quiet)
        .expect_err("a damaged count stops the campaign");
    assert!(err.to_string().contains("occurrences is not a count"), "{err}");
}

#[test]
fn a_timeout_that_finishes_with_more_time_is_slow_not_a_hang() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (fake, _) = Fake::new("slow", |_| one_row());
    let mut c = config(dir.path(), vec![OracleKind::CRASH], 5);
    // A bound the simulated answer outlasts (10 ms), four times of which it does not.
    c.exec.timeout = std::time::Duration::from_millis(5);
    let s = run(vec![Box::new(fake)], c);
    assert_eq!(s.findings_new + s.findings_duplicate + s.unreproduced_faults, 0, "{:?}", s.findings);
    // Each is slow, or expensive by its estimated work before it is even re-run.
    assert_eq!(s.slow + s.expensive, 5, "slow {} expensive {}", s.slow, s.expensive);
    assert!(s.slow >= 1);
}

#[test]
fn a_group_is_reduced_together_and_keeps_its_derivation() {
    let dir = tempfile::tempdir().expect("tempdir");
    // One row for every query: the three partitions add up to three rows
    // where the source has one, so every partition case is a finding.
    let (fake, _) = Fake::new("fake", |_| one_row());
    let s = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::PARTITION], 40));
    assert!(s.findings_new >= 1, "{s:?}");
    let store = ReportStore::open(dir.path()).expect("opens");
    let mut reduced = 0;
    for folder in store.findings().values() {
        let case = read_case(&folder.join("case.json")).expect("case.json");
        assert_eq!(case.followups.len(), 3, "the whole group is kept");
        let source = &case.ast.parts[0].clauses;
        for f in &case.followups {
            // Each partition is still the source with one WITH before its RETURN.
            let mut clauses = f.query.cypher_ast().expect("Cypher").parts[0].clauses.clone();
            let inserted = clauses.remove(clauses.len() - 2);
            assert!(matches!(inserted, graphlancer_cypher::ast::Clause::With(_)), "{}", f.query.text);
            assert_eq!(&clauses, source, "{} is not derived from {}", f.query.text, case.query);
        }
        if let Some(original) = &case.original_query {
            assert!(case.query.len() < original.len());
            reduced += 1;
        }
    }
    assert!(reduced > 0, "no group was reduced");
}

#[test]
fn a_hang_is_not_reduced_to_a_query_that_is_only_slow() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (fake, _) = Fake::new("hang", |_| one_row());
    let mut c = config(dir.path(), vec![OracleKind::CRASH], 40);
    c.exec.timeout = std::time::Duration::from_millis(5);
    let s = run(vec![Box::new(fake)], c);
    assert!(s.findings_new >= 1, "{s:?}");
    let store = ReportStore::open(dir.path()).expect("opens");
    for folder in store.findings().values() {
        let case = read_case(&folder.join("case.json")).expect("case.json");
        // What is reported hangs at four times the time too: it keeps its UNWIND.
        assert!(case.query.contains("UNWIND"), "reported a query that only needed more time: {}", case.query);
    }
}

#[test]
fn a_timeout_on_millions_of_rows_is_expensive_not_a_hang() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (fake, _) = Fake::new("stuck", |_| one_row());
    let mut c = config(dir.path(), vec![OracleKind::CRASH], 60);
    // Large enough that a cross product of three parts asks for millions of rows.
    c.graph = GraphConfig { nodes: 400, relationships: 800, ..GraphConfig::default() };
    c.queries_per_graph = 60;
    let s = run(vec![Box::new(fake)], c);
    assert!(s.expensive > 0, "no generated query was expensive: {s:?}");
    assert!(s.findings_new > 0, "the cheap queries that never finish are hangs: {s:?}");
    let store = ReportStore::open(dir.path()).expect("opens");
    for folder in store.findings().values() {
        let case = read_case(&folder.join("case.json")).expect("case.json");
        let work = crate::work::estimate(&case.ast, &case.graph);
        assert!(
            work < crate::work::expensive(ExecOptions::default().timeout),
            "reported a hang on {work} rows: {}",
            case.query
        );
    }
}

#[test]
fn a_crash_is_reduced_to_a_fixpoint_with_its_variables_renamed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let crash = |q: &str| {
        if q.contains("UNWIND") { Outcome::Crash { message: "segfault".into() } } else { one_row() }
    };
    let (fake, _) = Fake::new("fake", crash);
    let s = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::CRASH], 80));
    assert!(s.findings_new >= 1, "{s:?}");
    let store = ReportStore::open(dir.path()).expect("opens");
    for folder in store.findings().values() {
        let case = read_case(&folder.join("case.json")).expect("case.json");
        assert_eq!(case.reduction, ReductionState::Finished, "{}", case.query);
        // What is left: an UNWIND and the RETURN every query ends with, on
        // small literals, with the first names of their kinds.
        assert!(case.query.len() <= 60, "not reduced far: {}", case.query);
        assert!(case.query.starts_with("UNWIND ") && case.query.contains(" AS a0"), "{}", case.query);
        // A crash on any graph keeps none of it.
        assert!(case.graph.nodes.is_empty(), "{:?}", case.graph.nodes);
        assert!(case.original_graph.is_some());
    }
}

#[test]
fn the_graph_is_reduced_to_what_the_finding_needs() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A crash whenever the graph holds a relationship from a node to a
    // node with a greater identity: one such relationship and its two
    // nodes are all a report needs.
    let fake = Fake::on_graph("fake", |q, g| {
        let forward = g.relationships.iter().any(|r| r.start < r.end);
        if forward && q.contains("MATCH") { Outcome::Crash { message: "segfault".into() } } else { one_row() }
    });
    let s = run(vec![Box::new(fake)], config(dir.path(), vec![OracleKind::CRASH], 40));
    assert!(s.findings_new >= 1, "{s:?}");
    let store = ReportStore::open(dir.path()).expect("opens");
    for folder in store.findings().values() {
        let case = read_case(&folder.join("case.json")).expect("case.json");
        let original = case.original_graph.as_ref().expect("the generated graph is kept");
        assert!(original.relationships.len() > 1);
        assert_eq!(case.graph.relationships.len(), 1, "{:?}", case.graph.relationships);
        assert_eq!(case.graph.nodes.len(), 2);
        let r = &case.graph.relationships[0];
        assert!(r.start < r.end && r.properties.is_empty(), "{r:?}");
        assert!(case.graph.nodes.iter().all(|n| n.properties.is_empty() && n.labels.len() == 1));
        let readme = std::fs::read_to_string(folder.join("README.md")).expect("README.md");
        assert!(readme.contains("reduced from the generated"), "{readme}");
    }
}

/// Localization against engines whose answers the test chooses: the
/// deepest differing part is named with its operands' types, and a part
/// under an aggregate whose rows differ names the clause that parts them.
#[test]
fn localization_descends_to_the_deepest_differing_part() {
    let int = |i: i64| Value::Int(i);
    let list = |v: Vec<Value>| Value::List(v);
    let answer = move |q: &str, right: bool| {
        let value = if q.contains("size(") {
            int(if right { 2 } else { 1 })
        } else if q.contains("RETURN [null, 1]") {
            if right { list(vec![Value::Null, int(1)]) } else { list(vec![int(1)]) }
        } else if q.contains("RETURN null") {
            Value::Null
        } else {
            int(1)
        };
        Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![value]]))
    };
    let (good, _) = Fake::new("good", move |q| answer(q, true));
    let (bad, sent) = Fake::new("bad", move |q| answer(q, false));
    let mut engines: Vec<Box<dyn Engine>> = vec![Box::new(good), Box::new(bad)];
    let schema = schema();
    use crate::localize::{Culprit, Symptom, localize};
    let locate =
        |engines: &mut Vec<Box<dyn Engine>>, text: &str, answers: (Outcome, Outcome), symptom| -> Option<Culprit> {
            let query = graphlancer_cypher::parse::parse(text).expect("parses");
            localize(engines, &ExecOptions::default(), &schema, &query, (&answers.0, &answers.1), (0, 1), symptom)
                .expect("engines answer")
        };
    let sizes = (answer("size(", true), answer("size(", false));
    let culprit = locate(&mut engines, "RETURN size([null, 1]) AS a0", sizes.clone(), Symptom::Values).expect("found");
    assert_eq!((culprit.text.as_str(), culprit.kind.to_string().as_str()), ("[null, 1]", "list(Value)"));
    assert!(
        sent.lock().expect("not poisoned").iter().any(|q| q.contains("RETURN null")),
        "the list's elements were probed: {sent:?}"
    );

    // Under count(), the probe returns the counted rows: two against one.
    let rows = move |n: usize| Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![Value::Int(1)]; n]));
    let (good, _) = Fake::new("good", move |q| if q.contains("count(") { answer("size(", true) } else { rows(2) });
    let (bad, _) = Fake::new("bad", move |q| if q.contains("count(") { answer("size(", false) } else { rows(1) });
    let mut engines: Vec<Box<dyn Engine>> = vec![Box::new(good), Box::new(bad)];
    // The rows part after UNWIND: the clause is named, not count().
    let rows_of = locate(&mut engines, "UNWIND [1, 2] AS u RETURN count(u) AS a0", sizes, Symptom::Values);
    let rows_of = rows_of.expect("found");
    assert_eq!(
        (rows_of.text.as_str(), rows_of.kind.to_string().as_str()),
        ("UNWIND [1, 2] AS u RETURN 0 AS x", "rows-after(UNWIND)")
    );

    // Rows: UNWIND's list is probed on its own and descended into.
    let unwound = move |q: &str, right: bool| {
        if q.contains("UNWIND") { rows(if right { 2 } else { 1 }) } else { answer(q, right) }
    };
    let (good, _) = Fake::new("good", move |q| unwound(q, true));
    let (bad, _) = Fake::new("bad", move |q| unwound(q, false));
    let mut engines: Vec<Box<dyn Engine>> = vec![Box::new(good), Box::new(bad)];
    let culprit = locate(&mut engines, "UNWIND [null, 1] AS u RETURN u AS a0", (rows(2), rows(1)), Symptom::RowCount)
        .expect("found");
    assert_eq!((culprit.text.as_str(), culprit.kind.to_string().as_str()), ("[null, 1]", "list(Value)"));
}

/// Rows that differ only where a grouping RETURN makes them: `count(*)`
/// names the clause whose rows differ; entities bound alike on both sides
/// but one entity on one engine and two on the other part the groups at the
/// clause that bound them; a read after a write names the write or the
/// read; and a RETURN that alone parts them is named.
#[test]
fn localization_names_the_clause_behind_rows_a_grouping_return_parts() {
    let schema = schema();
    use crate::localize::{Symptom, localize};
    // Two engines answering by `answer(right, query)`: the right one and the wrong one.
    let locate = |answer: fn(bool, &str) -> Outcome, text: &str, answers: (Outcome, Outcome), symptom| {
        let good = Fake::new("good", move |q| answer(true, q)).0;
        let bad = Fake::new("bad", move |q| answer(false, q)).0;
        let mut engines: Vec<Box<dyn Engine>> = vec![Box::new(good), Box::new(bad)];
        let query = graphlancer_cypher::parse::parse(text).expect("parses");
        localize(&mut engines, &ExecOptions::default(), &schema, &query, (&answers.0, &answers.1), (0, 1), symptom)
            .expect("engines answer")
            .map(|c| c.kind.to_string())
    };
    fn rows_of(n: usize) -> Outcome {
        Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![Value::Int(1)]; n]))
    }
    // Two rows whose keys differ, as a right DISTINCT returns them.
    fn two_keys() -> Outcome {
        Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![Value::Int(1)], vec![Value::Int(2)]]))
    }
    fn one_of(v: i64) -> Outcome {
        Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![Value::Int(v)]]))
    }
    // count(*) has no operand to descend into: the rows it counts differ.
    let counted: fn(bool, &str) -> Outcome = |right, q| {
        let n = if right { 2 } else { 1 };
        if q.contains("count(") { one_of(n) } else { rows_of(n as usize) }
    };
    let text = "UNWIND [1, 2] AS u RETURN count(*) AS a0";
    assert_eq!(locate(counted, text, (one_of(2), one_of(1)), Symptom::Values).as_deref(), Some("rows-after(UNWIND)"));

    // As many rows on both, but two distinct nodes against one.
    let bound: fn(bool, &str) -> Outcome =
        |right, q| if q.contains("count(DISTINCT") { one_of(if right { 2 } else { 1 }) } else { rows_of(2) };
    let text = "MATCH (n0) RETURN n0 AS n0, count(*) AS a0";
    assert_eq!(locate(bound, text, (rows_of(2), rows_of(1)), Symptom::RowCount).as_deref(), Some("rows-after(MATCH)"));

    // A read after a write: the write that left different graphs is named;
    // where the graphs agree, the read that missed the write is, by its kind.
    fn read(right: bool, q: &str) -> Outcome {
        if q.contains("MATCH (n1)") { rows_of(if right { 2 } else { 1 }) } else { rows_of(1) }
    }
    let differ: fn(bool, &str) -> Outcome = |right, q| {
        if q.contains("gl_x") || q.contains("gl_y") { one_of(if right { 2 } else { 1 }) } else { read(right, q) }
    };
    let agree: fn(bool, &str) -> Outcome =
        |right, q| if q.contains("gl_x") || q.contains("gl_y") { one_of(2) } else { read(right, q) };
    let text = "CREATE (n0:L0) WITH 0 AS a0 MATCH (n1) RETURN 0 AS a1";
    assert_eq!(
        locate(differ, text, (rows_of(2), rows_of(1)), Symptom::RowCount).as_deref(),
        Some("rows-after(CREATE)")
    );
    assert_eq!(
        locate(agree, text, (rows_of(2), rows_of(1)), Symptom::RowCount).as_deref(),
        Some("rows-after(read,after writes)")
    );

    // Every clause before it agrees: the DISTINCT is named, with its key's
    // class, the same in a RETURN, in a WITH and as a UNION's merging.
    let same: fn(bool, &str) -> Outcome = |_, _| two_keys();
    let distinct = Some("rows-after(grouping,keys:value)");
    let text = "UNWIND [1, 2] AS u RETURN DISTINCT u AS a0";
    assert_eq!(locate(same, text, (two_keys(), rows_of(1)), Symptom::RowCount).as_deref(), distinct);
    // Two rows of one key from a DISTINCT are repeated keys, found by the
    // column's position: the fake names it `x`, as Kuzu names an unaliased
    // column its own way.
    let repeated: fn(bool, &str) -> Outcome = |_, _| rows_of(2);
    assert_eq!(
        locate(repeated, text, (rows_of(2), rows_of(1)), Symptom::RowCount).as_deref(),
        Some("rows-after(grouping,repeated keys)")
    );
    let merged: fn(bool, &str) -> Outcome =
        |right, q| if q.contains("DISTINCT") { rows_of(if right { 2 } else { 1 }) } else { rows_of(2) };
    let text = "UNWIND [1, 2] AS u WITH DISTINCT u AS a0 RETURN 0 AS a1";
    assert_eq!(locate(merged, text, (rows_of(2), rows_of(1)), Symptom::RowCount).as_deref(), distinct);
    let united: fn(bool, &str) -> Outcome =
        |right, q| if q.contains("UNION") { rows_of(if right { 2 } else { 1 }) } else { rows_of(2) };
    let text = "UNWIND [1, 2] AS u RETURN u AS a0 UNION UNWIND [3] AS u RETURN u AS a0";
    assert_eq!(locate(united, text, (rows_of(2), rows_of(1)), Symptom::RowCount).as_deref(), distinct);
    // A variable a pattern bound after writes, null on one engine only: the
    // read missed the write, named as rows are, not as the variable.
    let missed: fn(bool, &str) -> Outcome = |right, q| {
        let one = |v: Value| Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![v]]));
        if q.contains("gl_x") || q.contains("gl_y") {
            one_of(2)
        } else if q.contains("IS NULL") {
            one(Value::Bool(!right))
        } else if q.contains("RETURN r0") {
            one(if right { Value::Int(1) } else { Value::Null })
        } else {
            rows_of(1)
        }
    };
    let text = "CREATE (n0:L0) WITH n0 AS n0 OPTIONAL MATCH (n0)-[r0]->(n1) RETURN r0 AS a0";
    let (a, b) = (missed(true, "RETURN r0"), missed(false, "RETURN r0"));
    assert_eq!(locate(missed, text, (a, b), Symptom::Values).as_deref(), Some("rows-after(read,after writes)"));
    // A MERGE is named without its pattern.
    let merged_on: fn(bool, &str) -> Outcome =
        |right, q| if q.contains("MERGE") { rows_of(if right { 2 } else { 1 }) } else { rows_of(2) };
    let text = "MATCH (n0) MERGE (n0)-[r0:T0 {k0: 1}]->(n1:L1) RETURN 0 AS a0";
    assert_eq!(
        locate(merged_on, text, (rows_of(2), rows_of(1)), Symptom::RowCount).as_deref(),
        Some("rows-after(MERGE)")
    );
    // A SET of properties, in whichever form, is one kind of write.
    let set: fn(bool, &str) -> Outcome =
        |right, q| if q.contains("SET") { rows_of(if right { 2 } else { 1 }) } else { rows_of(2) };
    for text in ["MATCH (n0) SET n0.k0 = 1 RETURN 0 AS a0", "MATCH (n0) SET n0 = {k0: 1} RETURN 0 AS a0"] {
        assert_eq!(
            locate(set, text, (rows_of(2), rows_of(1)), Symptom::RowCount).as_deref(),
            Some("rows-after(SET properties)"),
            "{text}"
        );
    }
}

/// A relationship returned alone or inside a path, its ends swapped on one
/// engine (an undirected match reporting traversal order): one name.
#[test]
fn relationships_that_differ_only_in_direction_are_one_culprit_alone_or_in_a_path() {
    use graphlancer_model::{Path, Relationship};
    let schema = schema();
    let rel = |start, end| Relationship {
        rel_type: "T0".into(),
        properties: [("gid".to_owned(), Value::Int(9))].into(),
        start: Some(start),
        end: Some(end),
    };
    let value = move |q: &str, right: bool| {
        let r = if right { rel(1, 2) } else { rel(2, 1) };
        let v = if q.contains("IS NULL") {
            Value::Bool(false)
        } else if q.contains("p0") {
            Value::Path(Path { nodes: Vec::new(), relationships: vec![r] })
        } else {
            Value::Relationship(r)
        };
        Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![v]]))
    };
    for text in ["MATCH (n0)-[r0]-(n1) RETURN r0 AS a0", "MATCH p0 = (n0)-[r0]-(n1) RETURN p0 AS a0"] {
        let (good, _) = Fake::new("good", move |q| value(q, true));
        let (bad, _) = Fake::new("bad", move |q| value(q, false));
        let mut engines: Vec<Box<dyn Engine>> = vec![Box::new(good), Box::new(bad)];
        let query = graphlancer_cypher::parse::parse(text).expect("parses");
        let answers = (value(text, true), value(text, false));
        let culprit = crate::localize::localize(
            &mut engines,
            &ExecOptions::default(),
            &schema,
            &query,
            (&answers.0, &answers.1),
            (0, 1),
            crate::localize::Symptom::Values,
        )
        .expect("engines answer");
        assert_eq!(culprit.map(|c| c.kind.to_string()).as_deref(), Some("rel-endpoints"), "{text}");
    }
}

#[test]
fn engines_wrong_alike_by_the_reference_are_named_as_sharing_the_answer() {
    let two = || Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![Value::Int(1)]; 2]));
    let three = || Outcome::Rows(ResultSet::new(vec!["x".into()], vec![vec![Value::Int(1)]; 3]));
    let summaries = |others: [Box<dyn Engine>; 2]| -> Vec<String> {
        let dir = tempfile::tempdir().expect("tempdir");
        let (truth, _) = Fake::new(graphlancer_engines::REFERENCE, |_| one_row());
        let [a, b] = others;
        let mut c = config(dir.path(), vec![OracleKind::DIFFERENTIAL], 3);
        c.reduce = false;
        let s = run(vec![Box::new(truth), a, b], c);
        s.findings
            .values()
            .map(|dir| crate::report::read_case(&std::path::Path::new(dir).join("case.json")).expect("case").summary)
            .collect()
    };
    let alike = summaries([Box::new(Fake::new("a", move |_| two()).0), Box::new(Fake::new("b", move |_| two()).0)]);
    assert!(
        !alike.is_empty() && alike.iter().all(|s| s.starts_with("a and b wrong, alike, by the reference")),
        "{alike:?}"
    );
    let apart = summaries([Box::new(Fake::new("a", move |_| two()).0), Box::new(Fake::new("b", move |_| three()).0)]);
    assert!(!apart.is_empty() && apart.iter().all(|s| s.starts_with("a and b wrong, by the reference")), "{apart:?}");
}

#[test]
fn a_set_writes_only_keys_every_table_of_its_entity_has() {
    use graphlancer_model::{LabelDef, RelTypeDef};
    let mut schema = schema();
    schema.labels = vec![
        LabelDef { name: "L0".into(), keys: vec!["k0".into()] },
        LabelDef { name: "L1".into(), keys: vec!["k0".into(), "k1".into()] },
    ];
    schema.rel_types =
        vec![RelTypeDef { name: "T0".into(), keys: vec!["k1".into()], endpoints: vec![("L0".into(), "L1".into())] }];
    let holds = |text: &str| {
        let q = graphlancer_cypher::parse::parse(text).expect("parses");
        crate::shape::sets_keys_every_table_has(&q, &schema)
    };
    assert!(holds("MATCH (n) SET n.k0 = 1 RETURN 0"), "every label has k0");
    assert!(holds("MATCH (n:L1) SET n.k1 = 1 RETURN 0"));
    assert!(!holds("MATCH (n) SET n.k1 = 1 RETURN 0"), "L0 has no k1");
    assert!(!holds("MATCH (n:L0)-[r:T0]->(m) WITH n AS n SET n.k1 = 1 RETURN 0"));
    assert!(holds("MATCH (n:L0)-[r:T0]->(m) SET r.k1 = 1 RETURN 0"));
}

/// Workers sample as they go, each at its own moments, and not during a
/// reduction: their sum is taken on a grid of seconds, each worker counted
/// where it was by then, so the run's timeline only goes forward.
#[test]
fn workers_timelines_add_up_on_a_grid_of_seconds() {
    use crate::campaign::Sample;
    let line = |points: &[(f64, u64)]| -> Vec<Sample> {
        points.iter().map(|&(seconds, queries)| Sample { seconds, queries, findings: 0, new: 0 }).collect()
    };
    let mut a = Summary { timeline: line(&[(0.5, 10), (1.5, 20), (9.0, 30)]), ..Summary::default() };
    let b = Summary { timeline: line(&[(0.7, 5), (3.2, 50)]), ..Summary::default() };
    a.absorb(&b);
    let at = |t: f64| a.timeline.iter().find(|s| s.seconds == t).map(|s| s.queries);
    assert_eq!((at(1.0), at(2.0), at(4.0), at(9.0)), (Some(15), Some(25), Some(70), Some(80)));
    assert!(a.timeline.windows(2).all(|w| w[0].seconds < w[1].seconds && w[0].queries <= w[1].queries));
}

/// Between engines of different semantics a guard goes after every other
/// edit. Here engine `b` folds relationships used nowhere but their
/// pattern (as FalkorDB does) and engine `a` has a bug (`1 AS` makes a
/// row too many). Dropping the guard first, while `r0` is still returned,
/// changes no answer; but removing `r0 AS x` after it would leave only the
/// folding to differ, and the reduction would end on a difference of
/// semantics with no bug in it.
#[test]
fn a_guard_goes_last_so_no_later_edit_turns_the_finding_into_a_difference_of_semantics() {
    use graphlancer_cypher::ast::Clause;
    let rows = |n: usize| Outcome::Rows(ResultSet::new(vec!["y".into()], vec![vec![Value::Int(1)]; n]));
    // Two rows where a relationship is matched, one otherwise.
    let matched = |q: &str| if q.contains("-[") { 2 } else { 1 };
    let (a, _) = Fake::new("a", move |q| rows(matched(q) + usize::from(q.contains("-[") && q.contains("1 AS"))));
    let (b, _) = Fake::new("b", move |q| rows(if q.matches("r0").count() >= 2 { matched(q) } else { 1 }));
    let mut query =
        graphlancer_cypher::parse::parse("MATCH (n0)-[r0]->(n1) WHERE r0 IS NOT NULL RETURN r0 AS x, 1 AS y")
            .expect("parses");
    if let Clause::Match { guard, predicate, .. } = &mut query.parts[0].clauses[0] {
        *guard = predicate.take();
    }
    let reduction = reduce_difference(vec![Box::new(a), Box::new(b)], query);
    let reduced = reduction.reduced.expect("something smaller shows it");
    let text = &reduced.case.queries[0].text;
    assert!(text.contains("1 AS"), "the bug went: {text}");
    assert!(text.contains("WHERE r0 IS NOT NULL"), "the guard went although the answers then differ: {text}");
    assert!(!text.contains("r0 AS"), "{text}");
}

/// Reduces the difference between `a`'s answer to `text` and an engine
/// that always answers one row.
fn reduce_against_one_row(a: Fake, text: &str) -> crate::reduce::Reduction {
    let (b, _) = Fake::new("b", move |_| Outcome::Rows(ResultSet::new(vec!["y".into()], vec![vec![Value::Int(1)]])));
    reduce_difference(vec![Box::new(a), Box::new(b)], graphlancer_cypher::parse::parse(text).expect("parses"))
}

/// Reduces the difference between engines `a` and `b` on `query`, on a
/// small generated graph.
fn reduce_difference(mut engines: Vec<Box<dyn Engine>>, query: graphlancer_cypher::Query) -> crate::reduce::Reduction {
    use crate::oracle::{CaseQuery, Oracle, TestCase, Verdict};
    let case =
        TestCase { relation: "differential".into(), queries: vec![CaseQuery::new("query", query, None)], delta: None };
    let names = vec!["a".to_owned(), "b".to_owned()];
    let schema = schema();
    let judge = crate::oracle::JudgeCx { names: &names, schema: &schema };
    let graph = graphlancer_model::generate(1, &GraphConfig { nodes: 4, relationships: 4, ..GraphConfig::default() })
        .expect("a graph");
    let exec = ExecOptions::default();
    let outcomes = crate::recheck::outcomes(&mut engines, &case.queries, &exec).expect("answers");
    let Verdict::Finding(finding) = crate::oracle::differential::Differential.judge(&judge, &case, &outcomes) else {
        panic!("the case shows a difference")
    };
    let mut reducer = crate::reduce::Reducer {
        engines: &mut engines,
        oracle: &crate::oracle::differential::Differential,
        judge: &judge,
        exec: &exec,
        limits: crate::reduce::Limits::default(),
        set_keys_on_every_table: false,
        graph: &graph,
    };
    reducer.reduce(&case, &finding.signature.family()).expect("reduces")
}

/// A fake that answers `rows(first_after_load, query)` rows: its answers
/// tell a freshly loaded graph from one queried before.
fn fresh_aware(mut rows: impl FnMut(bool, &str) -> usize + Send + 'static) -> Fake {
    let loaded: Arc<Mutex<Option<Graph>>> = Arc::new(Mutex::new(None));
    let seen = loaded.clone();
    let (mut a, _) = Fake::new("a", move |q| {
        let fresh = seen.lock().expect("not poisoned").take().is_some();
        Outcome::Rows(ResultSet::new(vec!["y".into()], vec![vec![Value::Int(1)]; rows(fresh, q)]))
    });
    a.loaded = loaded;
    a
}

/// A finding that shows only now and then can miss the final replays of the
/// last edits (here the renaming): the last checkpoint that showed on a
/// fresh load is replayed then and kept. Engine `a` is wrong on every query
/// but the first after a load, where only the original names (`(n)`)
/// still show its bug.
#[test]
fn a_reduction_whose_last_edits_miss_their_replays_keeps_the_last_checkpoint() {
    let a = fresh_aware(|fresh, q| if !fresh || q.contains("(n)") { 2 } else { 1 });
    let reduction = reduce_against_one_row(a, "MATCH (n) RETURN 1 AS y");
    assert_ne!(reduction.state, crate::report::ReductionState::NotReplayed, "the checkpoint replays");
    let reduced = reduction.reduced.expect("the checkpoint is kept");
    let text = &reduced.case.queries[0].text;
    assert!(text.contains("(n)"), "the renamed form does not replay: {text}");
    assert_eq!(reduced.replays.0, reduced.replays.1, "{text}");
}

/// A finding that never shows on a freshly loaded graph cannot be reduced:
/// its case is marked not replayed, not reduced to a fixpoint.
#[test]
fn a_finding_no_fresh_load_shows_is_marked_not_replayed() {
    let reduction =
        reduce_against_one_row(fresh_aware(|fresh, _| if fresh { 1 } else { 2 }), "MATCH (n0) RETURN 1 AS y");
    assert!(reduction.reduced.is_none());
    assert_eq!(reduction.state, crate::report::ReductionState::NotReplayed);
}

#[test]
fn a_valid_case_is_never_reduced_to_a_pattern_used_as_a_value() {
    let rows = |q: &str| vec![vec![Value::Int(1)]; if q.contains("->") { 2 } else { 1 }];
    let (a, _) = Fake::new("a", move |q| Outcome::Rows(ResultSet::new(vec!["y".into()], rows(q))));
    let reduced = reduce_against_one_row(a, "MATCH (n) RETURN NOT (n)-->() AS y").reduced.expect("reduced");
    let q = &reduced.case.queries[0];
    assert_eq!(graphlancer_cypher::validity::neo4j_refuses(q.cypher_ast().expect("Cypher")), None, "{}", q.text);
}
