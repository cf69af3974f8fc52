//! Generation throughput: `cargo bench -p graphlancer-cypher`. Prints queries
//! per second of the differential preset on one core, generating and
//! rendering, for the figure in BENCHMARKS.md.

use std::hint::black_box;
use std::time::Instant;

use graphlancer_cypher::{DialectProfile, Generator, GeneratorConfig, Preset};
use graphlancer_model::{GraphConfig, derive_rng, generate};

fn main() {
    let graph = generate(7, &GraphConfig::default()).expect("valid config");
    for dialect in ["falkordb", "grafeo", "neo4j5"] {
        let profile = DialectProfile::built_in(dialect).expect("built-in profile");
        let config = GeneratorConfig::preset(Preset::Differential);
        let generator = Generator::new(&graph, &profile, &config);
        let n: u64 = std::env::var("GRAPHLANCER_BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
        // Warm up, then measure.
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
        let secs = started.elapsed().as_secs_f64();
        println!(
            "generate/{dialect}/differential: {n} queries in {secs:.2} s = {:.0} queries/s ({:.0} bytes/query)",
            n as f64 / secs,
            bytes as f64 / n as f64
        );
    }
}
