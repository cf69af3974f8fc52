//! Generation throughput, for `graphlancer bench generate` and `cargo bench`:
//! queries generated and rendered a second on one core, differential preset.

use std::hint::black_box;
use std::time::Instant;

use graphlancer_model::{GraphConfig, derive_rng, generate};

use crate::{DialectProfile, Generator, GeneratorConfig, Preset};

/// One dialect's measured rate.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Throughput {
    /// The built-in dialect profile generated for.
    pub dialect: String,
    /// Queries timed (after the warm-up).
    pub queries: u64,
    /// Wall time of the timed queries.
    pub seconds: f64,
    /// The figure: queries generated and rendered a second.
    pub queries_per_second: f64,
    /// Mean length of a rendered query.
    pub bytes_per_query: f64,
}

/// The dialects the figure in BENCHMARKS.md is measured on.
pub const DIALECTS: [&str; 3] = ["falkordb", "grafeo", "neo4j5"];

/// Generates and renders `n` queries for `dialect` on graph seed 7, after
/// 2,000 to warm up, and times them.
pub fn measure(dialect: &str, n: u64) -> Result<Throughput, String> {
    let graph = generate(7, &GraphConfig::default()).map_err(|e| e.to_string())?;
    let profile = DialectProfile::built_in(dialect).map_err(|e| e.to_string())?;
    let config = GeneratorConfig::preset(Preset::Differential);
    let generator = Generator::new(&graph, &profile, &config);
    for i in 0..2_000 {
        black_box(generator.generate(&mut derive_rng(1, &[3, i])));
    }
    let started = Instant::now();
    let mut bytes = 0usize;
    for i in 0..n {
        let g = generator.generate(&mut derive_rng(2, &[3, i]));
        bytes += g.text.len();
        black_box(g);
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(Throughput {
        dialect: dialect.to_owned(),
        queries: n,
        seconds,
        queries_per_second: n as f64 / seconds.max(1e-9),
        bytes_per_query: bytes as f64 / n.max(1) as f64,
    })
}

impl std::fmt::Display for Throughput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "generate/{}/differential: {} queries in {:.2} s = {:.0} queries/s ({:.0} bytes/query)",
            self.dialect, self.queries, self.seconds, self.queries_per_second, self.bytes_per_query
        )
    }
}
