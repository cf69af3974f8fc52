//! Gremlin for graphlancer: a typed traversal model, a generator that draws
//! only valid traversals over a generated graph, and rendering to each
//! engine's dialect of Gremlin text.

pub mod ast;
pub mod check;
pub mod dialect;
mod dialects;
pub mod generate;
pub mod reduce;
pub mod render;

pub use ast::{By, Direction, Order, Predicate, Source, Step, Traversal};
pub use dialect::GremlinDialect;
pub use generate::{GeneratedTraversal, GremlinConfig, TraversalGenerator, Ty};
pub use render::render;
