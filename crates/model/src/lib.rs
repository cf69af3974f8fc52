//! The data graphlancer reasons about, free of I/O: values, schemas, seeded
//! property graphs, creation scripts and result sets with their canonical
//! comparison. Every other crate builds on these types.

pub mod compare;
pub mod graph;
pub mod language;
pub mod literal;
pub mod result;
pub mod rng;
pub mod schema;
pub mod script;
pub mod value;

pub use compare::{Comparison, Difference, RowOrder, Tolerance, compare};
pub use graph::{Graph, GraphConfig, GraphNode, GraphRelationship, generate};
pub use language::Language;
pub use result::ResultSet;
pub use rng::{CaseRng, derive_rng};
pub use schema::{LabelDef, PropertyKeyDef, PropertyType, RelTypeDef, Schema, SchemaConfig, Span};
pub use script::{ScriptDialect, creation_script, quote_identifier, render_literal};
pub use value::{ID_PROPERTY, Node, Path, Relationship, Temporal, Value};
