//! The types the generator reasons about, and variables in scope.

use graphlancer_model::PropertyType;
use serde::{Deserialize, Serialize};

/// A Cypher value type as far as generation needs it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Ty {
    /// BOOLEAN.
    Bool,
    /// INTEGER.
    Int,
    /// FLOAT.
    Float,
    /// STRING.
    String,
    /// LIST of one element type.
    List(Box<Ty>),
    /// MAP.
    Map,
    /// NODE.
    Node,
    /// RELATIONSHIP.
    Rel,
    /// PATH.
    Path,
}

impl Ty {
    /// The type of a property key's values.
    pub fn of_property(t: PropertyType) -> Ty {
        match t {
            PropertyType::Int => Ty::Int,
            PropertyType::Float => Ty::Float,
            PropertyType::String => Ty::String,
            PropertyType::Bool => Ty::Bool,
        }
    }

    /// A list of this type.
    pub fn list(self) -> Ty {
        Ty::List(Box::new(self))
    }

    /// Scalars that ORDER BY, DISTINCT and comparisons treat the same on
    /// every engine.
    pub fn is_orderable(&self) -> bool {
        matches!(self, Ty::Bool | Ty::Int | Ty::Float | Ty::String)
    }

    /// Graph entities and paths.
    pub fn is_entity(&self) -> bool {
        matches!(self, Ty::Node | Ty::Rel | Ty::Path)
    }
}

/// A variable in scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Var {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Ty,
    /// Labels a node is known to have, or types a relationship may have.
    pub tags: Vec<String>,
    /// Whether it may be null (bound by OPTIONAL MATCH, or a property).
    pub nullable: bool,
    /// For integers: a bound on the absolute value, so arithmetic cannot overflow.
    pub bound: u64,
    /// Whether its value comes from an aggregate (directly or computed from one).
    #[serde(default)]
    pub aggregate: bool,
}

impl Var {
    /// A variable of type `ty`.
    pub fn new(name: String, ty: Ty) -> Self {
        Self { name, ty, tags: Vec::new(), nullable: false, bound: BIG, aggregate: false }
    }
}

/// The bound assumed for integers of unknown size: property values (at most
/// 2^53 unless extreme integers are generated).
pub const BIG: u64 = 1 << 53;
