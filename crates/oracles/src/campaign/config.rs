//! What a campaign is told: its budget, its shard, how it reads plans.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use graphlancer_cypher::GeneratorConfig;
use graphlancer_engines::ExecOptions;
use graphlancer_model::GraphConfig;

use crate::oracle::OracleKind;

/// When a campaign stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// After this many queries.
    Queries(u64),
    /// After this much time.
    Time(Duration),
}

/// Everything that steers a campaign.
#[derive(Debug, Clone)]
pub struct CampaignConfig {
    /// The campaign seed.
    pub seed: u64,
    /// The oracles to run.
    pub oracles: Vec<OracleKind>,
    /// How often each oracle that builds its own queries (partition,
    /// rewrite, metamorphic) is chosen for a generated query; one missing
    /// weighs 1. One of them runs per generated query.
    pub weights: BTreeMap<OracleKind, u32>,
    /// Per oracle, the relations it may use; missing or empty for all.
    pub relations: BTreeMap<OracleKind, Vec<String>>,
    /// When to stop.
    pub budget: Budget,
    /// Queries per graph before a new graph is drawn.
    pub queries_per_graph: u64,
    /// Graph size and values.
    pub graph: GraphConfig,
    /// Generator preset, limits and weights.
    pub generator: GeneratorConfig,
    /// GDsmith's structural mutations of queries that returned rows (`!m` turns them off).
    pub mutations: bool,
    /// GDsmith's property-key frequency feedback (`!f` turns it off).
    pub frequencies: bool,
    /// Clause counts a query must have to enter the mutation pool.
    pub pool_clauses: (usize, usize),
    /// Per-query options.
    pub exec: ExecOptions,
    /// Where findings and the summary go.
    pub out: PathBuf,
    /// Whether findings are reduced before they are written.
    pub reduce: bool,
    /// What reducing one finding may spend; its time also counts against a
    /// time budget.
    pub reduction: crate::reduce::Limits,
    /// Whether to keep every graph load and query sent, for replay by a bare
    /// client (the overhead benchmark).
    pub record: bool,
    /// Plans: `Off`, `Count` (read each baseline engine's plan of every
    /// generated query and count the operator combinations), or `Guide`
    /// (count, and put a query whose plan shows a combination not seen
    /// before into the mutation pool, DOT's guided generation).
    pub plans: PlanUse,
    /// The part of the seed space this campaign draws its graphs from.
    pub part: Part,
}

/// A part of a campaign's seed space: the graphs whose index is `index`
/// modulo `of`. Shards and workers take disjoint parts, so together they
/// draw the graphs one campaign would, each graph once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// Which part, from 0.
    pub index: u64,
    /// Of how many.
    pub of: u64,
}

impl Default for Part {
    fn default() -> Self {
        Self { index: 0, of: 1 }
    }
}

impl Part {
    /// Part `index` of this part cut into `of`: worker `w` of a shard.
    pub fn split(self, index: u64, of: u64) -> Part {
        Part { index: self.index + self.of * index, of: self.of * of }
    }

    /// The index of this part's `n`-th graph.
    pub fn graph(self, n: u64) -> u64 {
        self.index + self.of * n
    }
}

/// What a campaign does with plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlanUse {
    /// No plans asked for.
    #[default]
    Off,
    /// Plans read and their operator combinations counted.
    Count,
    /// Counted, and queries with new combinations fed back.
    Guide,
}

/// One thing a campaign sent to its engines, kept when recording.
#[derive(Debug, Clone)]
pub enum Sent {
    /// A graph was loaded.
    Load(Box<graphlancer_model::Graph>),
    /// A query was run on every engine.
    Query {
        /// Its text.
        text: String,
        /// Time spent on it, recovery included.
        elapsed: Duration,
        /// Whether an engine crashed or hung on it (a replay leaves it out).
        disrupted: bool,
    },
}
