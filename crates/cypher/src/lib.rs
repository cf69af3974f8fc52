//! Cypher for graphlancer: the AST, typed generation (skeleton, then
//! completion against a typed context), dialect profiles, configuration and
//! presets, and rendering to text. Pure: no I/O.

pub mod ast;
pub mod check;
pub mod config;
pub mod context;
pub mod feature;
pub mod functions;
pub mod generate;
pub mod grammar;
pub mod known;
pub mod parse;
pub mod productions;
pub mod profile;
pub mod render;
pub mod throughput;
pub mod types;
pub mod validity;

pub use ast::Query;
pub use config::{ConfigError, GeneratorConfig, Preset};
pub use feature::Feature;
pub use generate::{ClauseKind, Generated, Generator, KeyFrequencies, Mutation, Skeleton};
pub use profile::{DialectProfile, GraphLimits, KnownBug, ProfileError, SemanticsKey};
pub use render::render;
