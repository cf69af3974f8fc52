//! Generation throughput: `cargo bench -p graphlancer-cypher`, the same
//! measurement as `graphlancer bench generate`.

fn main() {
    let n: u64 = std::env::var("GRAPHLANCER_BENCH_N").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    for dialect in graphlancer_cypher::throughput::DIALECTS {
        println!("{}", graphlancer_cypher::throughput::measure(dialect, n).expect("a built-in dialect"));
    }
}
